# XML as CPython's expat reads it: malformed documents raise ParseError/ExpatError with expat's reason, line and
# column (ElementTree, minidom, sax, plistlib), well-formed ones give the same trees, entities, namespaces and text.
import io
import plistlib
import xml.dom.minidom
import xml.etree.ElementTree as ET
import xml.sax
from xml.parsers import expat

bad = [
    "<a><b></a>", "<a>", "<a></b>", "", "not xml", '<a x="1" x="2"/>', "<a>&nope;</a>", "<a/><b/>", "<a><!-- x -- y --></a>",
    "<?xml version='1.0'?><a/><?xml version='1.0'?>", "<a>\x01</a>", "<a b=1/>", "<a>&#0;</a>", "<a><![CDATA[x</a>",
    "<p:a/>", "<a\n  b='1'\n  c='2'><b></c></a>", "<a>text</a> tail", "<root><item>1</item><item>2</root>",
]
for text in bad:
    try:
        ET.fromstring(text)
        print("ET ok", repr(text))
    except ET.ParseError as error:
        print("ET", repr(text), "->", error, error.code, error.position)
    try:
        xml.dom.minidom.parseString(text)
        print("minidom ok", repr(text))
    except expat.ExpatError as error:
        print("minidom", repr(text), "->", error, error.code, error.lineno, error.offset)

good = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE catalog [<!ENTITY co "Acme &amp; Co">]>
<catalog xmlns="urn:c" xmlns:x="urn:x">
  <!-- products -->
  <item id="1" x:tag="a b">Widget &co; &lt;3&gt; &#233;&#x263A;</item>
  <item id="2"><![CDATA[<raw> & stuff]]></item>
  <?render fast?>
  <empty/>
</catalog>"""
root = ET.fromstring(good)
print(root.tag, [(child.tag, child.attrib, child.text) for child in root])
print(ET.tostring(root, encoding="unicode"))
print(xml.dom.minidom.parseString(good).toxml())
print(xml.dom.minidom.parseString("<a><b c='1'>x</b></a>").toprettyxml(indent="  "))


class Recorder(xml.sax.ContentHandler):
    def __init__(self):
        super().__init__()
        self.events = []

    def startElement(self, name, attrs):
        self.events.append(("start", name, dict(attrs)))

    def endElement(self, name):
        self.events.append(("end", name))

    def characters(self, content):
        self.events.append(("text", content))


recorder = Recorder()
xml.sax.parseString(b"<r a='1'>hi<b/>there</r>", recorder)
print(recorder.events)
try:
    xml.sax.parseString(b"<r><b></r>", Recorder())
except xml.sax.SAXParseException as error:
    print("sax", error)
data = plistlib.dumps({"name": "x", "items": [1, 2.5, True], "nested": {"k": b"bytes"}})
print(plistlib.loads(data))
parser = ET.XMLPullParser(["start", "end"])
for piece in ["<a><b>te", "xt</b><c/", "></a>"]:
    parser.feed(piece)
    print([(event, element.tag) for event, element in parser.read_events()])
events = [(event, element.tag) for event, element in ET.iterparse(io.BytesIO(b"<r><i>1</i><i>2</i></r>"))]
print(events)
big = "<rows>" + "".join(f"<row n='{i}'>{i * 2}</row>" for i in range(20000)) + "</rows>"
print(sum(int(row.text) for row in ET.fromstring(big)), len(ET.fromstring(big)))
