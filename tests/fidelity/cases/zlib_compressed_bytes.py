# zlib's compressed bytes as CPython's zlib makes them, at every level, strategy and window, in one call and
# through compression objects (flush modes, a preset dictionary, copies), and what gzip and zipfile write.
import base64
import gzip
import hashlib
import io
import zipfile
import zlib

data = b"".join(str(i).encode() * (i % 7) for i in range(3000)) + bytes(range(256)) * 20
text = ("the quick brown fox jumps over the lazy dog " * 50).encode()
for level in range(-1, 10):
    packed = zlib.compress(data, level)
    print("level", level, len(packed), hashlib.sha256(packed).hexdigest()[:16], zlib.decompress(packed) == data)
for wbits in (9, 15, -15, 31, -9):
    packed = zlib.compress(text, 6, wbits)
    print("wbits", wbits, len(packed), base64.b64encode(packed[:24]).decode())
for strategy in (zlib.Z_DEFAULT_STRATEGY, zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FIXED):
    for mem_level in (1, 8, 9):
        stream = zlib.compressobj(5, zlib.DEFLATED, 15, mem_level, strategy)
        packed = stream.compress(data[:5000]) + stream.compress(data[5000:]) + stream.flush()
        print("strategy", strategy, mem_level, len(packed), hashlib.sha256(packed).hexdigest()[:16])
stream = zlib.compressobj(zdict=b"quick brown fox lazy dog")
print("zdict", stream.compress(text).hex()[:40], stream.flush().hex()[-16:])
stream = zlib.compressobj()
parts = [stream.compress(text[:100]), stream.flush(zlib.Z_SYNC_FLUSH), stream.compress(text[100:]), stream.flush(zlib.Z_FULL_FLUSH)]
twin = stream.copy()
parts += [stream.flush(), twin.flush()]
print("flushes", [len(part) for part in parts], parts[-1] == parts[-2], stream.flush(zlib.Z_NO_FLUSH))
for label, call in [
    ("level 10", lambda: zlib.compress(b"a", 10)),
    ("wbits 99", lambda: zlib.compress(b"a", wbits=99)),
    ("compressobj level", lambda: zlib.compressobj(10)),
    ("compressobj memLevel", lambda: zlib.compressobj(memLevel=10)),
    ("compressobj zdict", lambda: zlib.compressobj(zdict=1)),
    ("after finish", lambda: stream.compress(b"y")),
    ("flush after finish", lambda: stream.flush()),
    ("copy after finish", lambda: stream.copy()),
    ("str", lambda: zlib.compress("text")),
]:
    try:
        call()
        print(label, "ok")
    except Exception as error:
        print(label, type(error).__name__, error)
print(type(zlib.compressobj()).__name__, zlib.compress(b"") .hex(), zlib.compress(memoryview(b"abc"), level=1).hex())
print("gzip", gzip.compress(text, mtime=0).hex()[:60], len(gzip.compress(data, compresslevel=9, mtime=0)))
archive = io.BytesIO()
with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
    info = zipfile.ZipInfo("a.txt", date_time=(2024, 1, 1, 0, 0, 0))
    zipped.writestr(info, text)
print("zip", len(archive.getvalue()), hashlib.sha256(archive.getvalue()).hexdigest()[:16])
