# sys.stdout and sys.stderr are text streams: io.TextIOBase, write returns the count, a bytes buffer,
# isatty/writable/encoding, and their output interleaves with print in order (the sandbox has no file
# descriptors: fileno() raises io.UnsupportedOperation, where CPython's are real).
import io
import sys

print(isinstance(sys.stdout, io.TextIOBase), isinstance(sys.stderr, io.TextIOBase))
count = sys.stdout.write("written\n")
print(count, sys.stdout.isatty(), sys.stdout.writable(), sys.stdout.readable(), sys.stdout.encoding.lower())
sys.stdout.writelines(["a\n", "b\n"])
sys.stdout.flush()
print("to stdout", file=sys.stdout, flush=True)
print(hasattr(sys.stdout.buffer, "write"), sys.stdout.name, sys.stderr.name, sys.stdout.mode)
