"""_sandbox_streams: the objects `sys.stdout` and `sys.stderr` are in the sandbox. Text streams as CPython's
are (`io.TextIOBase`: `write`, `writelines`, `flush`, `isatty`, `encoding`, a `buffer` for bytes, ...), whose
writes land in the session's output, each stream in its own buffer (the native writers the sandbox passes in;
src/sandbox/bridge/output.rs says how the two are returned)."""

import io


def make_streams(out_write, out_writelines, err_write, err_writelines):
    class Buffer:
        """`sys.stdout.buffer`: bytes, decoded as UTF-8 into the same output."""

        def __init__(self, name, native_write):
            self.name = name
            self._write = native_write

        def write(self, data):
            self._write(bytes(data).decode("utf-8", "replace"))
            return len(data)

        def flush(self):
            pass

        def __repr__(self):
            return f"<_io.BufferedWriter name={self.name!r}>"

    class StandardStream(io.TextIOBase):
        encoding = "utf-8"
        errors = "strict"
        newlines = None
        line_buffering = False
        write_through = False
        mode = "w"

        def __init__(self, name, native_write, native_writelines):
            self.name = name
            self.buffer = Buffer(name, native_write)
            self.write = native_write
            self.writelines = native_writelines

        def flush(self):
            pass

        def isatty(self):
            return False

        def readable(self):
            return False

        def writable(self):
            return True

        def seekable(self):
            return False

        def fileno(self):
            raise io.UnsupportedOperation("fileno")

        def __repr__(self):
            return f"<_io.TextIOWrapper name={self.name!r} mode='w' encoding='utf-8'>"

    return StandardStream("<stdout>", out_write, out_writelines), StandardStream("<stderr>", err_write, err_writelines)
