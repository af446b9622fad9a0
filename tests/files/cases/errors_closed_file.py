# Any operation on a closed file raises ValueError; close() itself may be repeated.
# The message is the VM's own _io/codecs wording (docs/files.md, known differences): only the type is compared.
def attempt(label, call):
    try:
        call()
        print(label, "ok")
    except ValueError as e:
        print(label, type(e).__name__)

with open("f.txt", "w", encoding="utf-8") as f:
    f.write("abc\n")
t = open("f.txt", encoding="utf-8")
t.close()
attempt("text read", t.read)
attempt("text readline", t.readline)
attempt("text write", lambda: t.write("x"))
attempt("text seek", lambda: t.seek(0))
attempt("text tell", t.tell)
attempt("text iter", lambda: next(iter(t)))
attempt("text fileno", t.fileno)
attempt("text close", t.close)
print(t.closed, t.name)

b = open("f.txt", "rb")
b.close()
attempt("binary read", b.read)
attempt("binary readline", b.readline)
attempt("binary seek", lambda: b.seek(0))
attempt("binary tell", b.tell)
w = open("f.txt", "ab")
w.close()
attempt("binary write", lambda: w.write(b"x"))
attempt("binary flush", w.flush)
r = open("f.txt", "rb", buffering=0)
r.close()
attempt("raw read", r.read)
print(b.closed, w.closed, r.closed)
