# os.devnull: writes are accepted and dropped, reads find the end at once; it is a character device; a logging
# handler (pytest's own set-up) and a redirected print can use it.
import io
import logging
import os
import stat

with open(os.devnull, "w") as sink:
    print(sink.write("dropped"), sink.tell() >= 0)
    print("also dropped", file=sink)
with open(os.devnull, "rb") as source:
    print(source.read(), source.read(10))
with open(os.devnull, "r+b") as both:
    both.write(b"xyz")
    both.seek(0)
    print(both.read())
info = os.stat(os.devnull)
print(stat.S_ISCHR(info.st_mode), stat.S_ISREG(info.st_mode), info.st_size)
print(os.path.exists(os.devnull), os.path.isfile(os.devnull), os.path.isdir("/dev"))
handler = logging.FileHandler(os.devnull)
logger = logging.getLogger("case")
logger.addHandler(handler)
logger.warning("nowhere")
handler.close()
fd = os.open(os.devnull, os.O_WRONLY)
print(os.write(fd, b"abc"))
os.close(fd)
