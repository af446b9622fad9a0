"""`_compression`, as CPython 3.13 names it: the sandbox's standard library (3.14's) moved these to
`compression._common._streams`; code that imports the old name gets the same objects."""

from compression._common._streams import BUFFER_SIZE, BaseStream, DecompressReader  # noqa: F401
