"""`_compression`, as CPython 3.13 names it: the sandbox's standard library (3.14's) has these in
`compression._common._streams`; code that imports the 3.13 name gets the same objects."""

from compression._common._streams import BUFFER_SIZE, BaseStream, DecompressReader  # noqa: F401
