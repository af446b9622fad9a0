# Standard-library modules models import for text formats, archives and compression: each used as a model
# would, on in-memory data and on the sandbox's own files, printing what CPython prints.
import bz2
import configparser
import email
import email.message
import email.utils
import gzip
import io
import lzma
import queue
import tarfile
import tempfile
import os
import wave
import xml.dom.minidom
import xml.sax
import xml.etree.ElementTree as ET
import zipfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from email import policy
from urllib.parse import parse_qs, quote, unquote, urlencode, urljoin, urlparse, urlunparse

url = urlparse("https://user@example.com:8080/a/b;p?q=1&q=2&x=%20y#frag")
print(url.scheme, url.netloc, url.hostname, url.port, url.path, url.params, url.query, url.fragment)
print(parse_qs(url.query), urlencode({"a": "b c", "d": ["e", "f"]}, doseq=True))
print(quote("a b/c?d"), unquote("%E2%9C%93"), urljoin("https://x.org/a/b", "../c"), urlunparse(url))

root = ET.fromstring("<root><item id='1'>one</item><item id='2'>two<sub/></item></root>")
print([(item.get("id"), item.text) for item in root.iter("item")], root.find("item[@id='2']/sub") is not None)
ET.SubElement(root, "item", id="3").text = "three"
print(ET.tostring(root, encoding="unicode"))
print(xml.dom.minidom.parseString("<a><b x='1'>t</b></a>").toprettyxml(indent=" "))


class Collect(xml.sax.ContentHandler):
    def __init__(self):
        super().__init__()
        self.seen = []

    def startElement(self, name, attrs):
        self.seen.append((name, dict(attrs)))

    def characters(self, content):
        if content.strip():
            self.seen.append(content)


handler = Collect()
xml.sax.parseString(b"<doc><p n='1'>first</p><p n='2'>second</p></doc>", handler)
print(handler.seen)

message = email.message.EmailMessage()
message["From"], message["To"], message["Subject"] = "a@example.com", "b@example.com", "Hi"
message.set_content("Hello\nthere")
parsed = email.message_from_string(message.as_string(), policy=policy.default)
print(parsed["Subject"], parsed.get_content_type(), parsed.get_content().strip().splitlines())
print(email.utils.parseaddr("Ada Lovelace <ada@example.com>"))

config = configparser.ConfigParser()
config.read_string("[server]\nhost = example.com\nport = 8080\n[paths]\nroot = /srv\n")
print(config.sections(), config["server"]["host"], config.getint("server", "port"), config.get("paths", "root"))

jobs = queue.Queue()
for n in (3, 1, 2):
    jobs.put(n)
print([jobs.get() for _ in range(3)], jobs.empty())
priority = queue.PriorityQueue()
for n in (3, 1, 2):
    priority.put(n)
print([priority.get() for _ in range(3)])
with ThreadPoolExecutor(max_workers=4) as pool:
    print(list(pool.map(lambda v: v * v, range(6))))

data = ("line %d\n" * 50 % tuple(range(50))).encode()
for module in (gzip, bz2, lzma, zlib):
    packed = module.compress(data)
    print(module.__name__, module.decompress(packed) == data)
try:
    zlib.decompress(b"not zlib data")
except zlib.error as error:
    print("zlib.error", error)
for broken in (zlib.compress(data)[:-10], b"x\x9c" + b"\xff" * 20):
    try:
        zlib.decompressobj().decompress(broken) + zlib.decompress(broken)
    except zlib.error as error:
        print("zlib.error", error)

buffer = io.BytesIO()
with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
    archive.writestr("a.txt", "alpha")
    archive.writestr("dir/b.txt", "beta" * 10)
with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
    print(archive.namelist(), archive.read("dir/b.txt")[:8], [i.file_size for i in archive.infolist()])

folder = tempfile.mkdtemp()
path = os.path.join(folder, "bundle.tar.gz")
with tarfile.open(path, "w:gz") as archive:
    payload = b"tar payload"
    info = tarfile.TarInfo("inside.txt")
    info.size = len(payload)
    archive.addfile(info, io.BytesIO(payload))
with tarfile.open(path, "r:gz") as archive:
    print(archive.getnames(), archive.extractfile("inside.txt").read())
with gzip.open(os.path.join(folder, "log.gz"), "wt") as handle:
    handle.write("compressed text\n")
with gzip.open(os.path.join(folder, "log.gz"), "rt") as handle:
    print(handle.read().strip())

sound = io.BytesIO()
with wave.open(sound, "wb") as out:
    out.setnchannels(1)
    out.setsampwidth(2)
    out.setframerate(8000)
    out.writeframes(b"\x00\x01" * 100)
sound.seek(0)
with wave.open(sound, "rb") as back:
    print(back.getnchannels(), back.getsampwidth(), back.getframerate(), back.getnframes())
