# Path.mkdir with parents and exist_ok, and the errors without them.
from pathlib import Path

def attempt(label, call):
    try:
        call()
        print(label, "ok")
    except OSError as e:
        print(label, type(e).__name__, e.errno, e.strerror, e.filename)

attempt("plain", lambda: Path("a").mkdir())
attempt("again", lambda: Path("a").mkdir())
attempt("again exist_ok", lambda: Path("a").mkdir(exist_ok=True))
attempt("missing parent", lambda: Path("x/y/z").mkdir())
attempt("parents", lambda: Path("x/y/z").mkdir(parents=True))
attempt("parents again", lambda: Path("x/y/z").mkdir(parents=True))
attempt("parents exist_ok", lambda: Path("x/y/z").mkdir(parents=True, exist_ok=True))
attempt("deeper", lambda: Path("x/y/z/w/v").mkdir(parents=True, exist_ok=True))
Path("file").write_text("f", encoding="utf-8")
attempt("over file exist_ok", lambda: Path("file").mkdir(exist_ok=True))
attempt("under file", lambda: Path("file/sub").mkdir(parents=True))
attempt("mode", lambda: Path("m").mkdir(mode=0o700))
print(sorted(str(p) for p in Path(".").rglob("*")))
print(Path("a").is_dir(), Path("x/y/z/w/v").is_dir(), Path("file").is_file())
