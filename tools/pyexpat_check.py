#!/usr/bin/env python3
"""Differential check of the sandbox's pure-Python ``pyexpat`` stand-in
(src/sandbox/library/stand_ins/pyexpat.py) against the interpreter's real
``pyexpat`` (C expat).

    python3.14 tools/pyexpat_check.py [-v] [--only SUBSTRING]

Compares, for a few hundred documents written here:
  1. the sequence of handler calls with their arguments (all handlers set,
     with and without buffer_text / ordered_attributes / namespaces, ...),
     including documents fed incrementally, split at every offset;
  2. the error raised (code, lineno, offset, message, Error* attributes);
  3. what xml.etree.ElementTree (pure-Python), xml.dom.minidom, xml.sax and
     plistlib produce, each run in a subprocess whose ``pyexpat`` is either
     the real one or the stand-in.
Prints mismatches and a summary, times a 1 MB document with both parsers and
exits non-zero on any mismatch.
"""

import importlib.util
import os
import pickle
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE = os.path.join(os.path.dirname(HERE), "src", "sandbox", "library", "stand_ins", "pyexpat.py")

HANDLERS = [
    "StartElementHandler",
    "EndElementHandler",
    "CharacterDataHandler",
    "ProcessingInstructionHandler",
    "CommentHandler",
    "StartCdataSectionHandler",
    "EndCdataSectionHandler",
    "XmlDeclHandler",
    "StartDoctypeDeclHandler",
    "EndDoctypeDeclHandler",
    "EntityDeclHandler",
    "StartNamespaceDeclHandler",
    "EndNamespaceDeclHandler",
    "SkippedEntityHandler",
    "NotationDeclHandler",
    "UnparsedEntityDeclHandler",
    "ExternalEntityRefHandler",
    "ElementDeclHandler",
    "AttlistDeclHandler",
    "NotStandaloneHandler",
]
HANDLER_SETS = {
    "all": HANDLERS + ["DefaultHandler", "DefaultHandlerExpand"],
    "all_noexpand": HANDLERS + ["DefaultHandlerExpand", "DefaultHandler"],
    "nodefault": HANDLERS,
    "default": ["DefaultHandler"],
    "default_expand": ["DefaultHandlerExpand"],
    "et": [
        "StartElementHandler",
        "EndElementHandler",
        "CharacterDataHandler",
        "CommentHandler",
        "ProcessingInstructionHandler",
        "StartDoctypeDeclHandler",
        "DefaultHandlerExpand",
    ],
    "chars": ["CharacterDataHandler"],
    "cd_default": ["CharacterDataHandler", "DefaultHandler"],
}

# ---------------------------------------------------------------------------
# Documents.

WELL_FORMED = [
    "<a/>",
    "<a></a>",
    "<a>text</a>",
    "<a x=\"1\" y='2'/>",
    "<a>\n  <b>x</b>\n</a>",
    "<a>\r\n<b/>\r</a>\r\n",
    "<a>x\ry\r\nz\n</a>",
    '<root><child attr="v">text</child><child/></root>',
    '<a b="1"   c = "2"\n d\t=\t\'3\' ></a >',
    "<a\n/>",
    "<a >x</a\n>",
    '<?xml version="1.0"?><a/>',
    '<?xml version="1.0" encoding="UTF-8"?>\n<a/>',
    '<?xml version="1.0" encoding="utf-8" standalone="yes"?><a/>',
    "<?xml version=\"1.0\" standalone='no' ?><a/>",
    "<?xml version='1.0' encoding='iso-8859-1'?><a/>",
    '<?xml version="1.1"?><a/>',
    "<!-- c --><a><!--x--><!----><!-- a-b --></a><!--z-->",
    "<?pi data?><a><?target  some data ?><?t?></a><?end\r\nx?>",
    "<a><?pi a\r\nb?></a>",
    "<a><!-- a\r\nb\rc --></a>",
    "<a>&lt;&gt;&amp;&quot;&apos;</a>",
    "<a>x&#65;y&#x42;z&#x10000;&#9;&#10;&#13;</a>",
    '<a b="&lt;&amp;&#65;&#x20;"/>',
    '<a b="x\ny\tz\r\nw\rv"/>',
    '<a b="&#10;&#9;&#13;"/>',
    "<a>]</a>",
    "<a>]]</a>",
    "<a>x]y]]z]]]</a>",
    "<a>]x</a>",
    "<a>a]]b</a>",
    "<a><![CDATA[x<y>&z]]></a>",
    "<a><![CDATA[]]></a>",
    "<a><![CDATA[a]b]]c]]]d\ne\r\nf]]></a>",
    "<a><![CDATA[]]]]></a>",
    "<a><![CDATA[]x]]></a>",
    "<a>caf\xe9 \u4e2d\u6587 \U0001f600</a>",
    '<\xe9l\xe9ment attr\xe9="\xe9"/>',
    "<\u4e2d>\u6587</\u4e2d>",
    "<a>\u00a0\u2028\ufeff</a>",
    "\ufeff<a/>",
    "<a/>\n",
    "<a/>\n<!-- after -->\n<?pi after?>\n ",
    "\n\n<a/>",
    " \t\r\n<a/>",
    "<a/>\r",
    "<a/>\r\n",
    '<a:b xmlns:a="urn:a"><a:c a:x="1" y="2"/></a:b>',
    '<a xmlns="urn:d"><b/><c xmlns=""><d/></c></a>',
    '<p:a xmlns:p="urn:p" xmlns:q="urn:q" xmlns="urn:d" q:x="1" x="2"><q:b/></p:a>',
    '<a xml:lang="en" xml:space="preserve"/>',
    '<a xmlns:xml="http://www.w3.org/XML/1998/namespace"/>',
    '<x:y xmlns:x="urn:x"><x:y xmlns:x="urn:x2"/></x:y>',
    '<a xmlns:p="urn:p" p:a="1" p:b="2"/>',
    "<a>" + "x" * 10000 + "</a>",
    "<a>" + "y\n" * 3000 + "</a>",
    "<a>" + "<b>t</b>" * 500 + "</a>",
    "<a " + " ".join(f'a{i}="{i}"' for i in range(200)) + "/>",
    "<a>" + "\u4e2d" * 5000 + "</a>",
    "<a>" + "&amp;" * 100 + "</a>",
    "<a>" + "z" * 9000 + "\n" + "w" * 9000 + "</a>",
    '<_a-b.c:d><_.x-1 xmlns:q="u"/></_a-b.c:d>',
    "<a>\t</a>",
    "<a> </a>",
    "<a>\n</a>",
    "<!DOCTYPE a><a/>",
    '<!DOCTYPE a SYSTEM "a.dtd"><a/>',
    '<!DOCTYPE a PUBLIC "-//X//DTD Y//EN" "http://x/y.dtd"><a/>',
    '<!DOCTYPE a PUBLIC "  -//X  \n//Y  " "s"><a/>',
    "<!DOCTYPE a [ ]><a/>",
    '<!DOCTYPE a [\n<!ENTITY e "v">\n]>\n<a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "<b>x</b>">]><a>&e;&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "1&#60;2">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "&#60;b/&#62;">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "a&f;b"><!ENTITY f "F">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "x\ny\r\nz">]><a b="&e;">&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "v">]><a b="[&e;]"/>',
    '<!DOCTYPE a [<!ENTITY e "&amp;lt;">]><a b="&e;">&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "<![CDATA[x]]><!--c--><?p d?>">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY lt "&#38;#60;"><!ENTITY amp "&#38;#38;">]><a>&lt;&amp;</a>',
    '<!DOCTYPE a [<!ENTITY e "x"><!ENTITY e "y">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY % p "x"><!ENTITY e "y">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e SYSTEM "e.xml">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e PUBLIC "-//P//E" "e.xml">]><a>&e;</a>',
    '<!DOCTYPE a [<!NOTATION n SYSTEM "n"><!ENTITY e SYSTEM "e.gif" NDATA n>]><a/>',
    '<!DOCTYPE a [<!NOTATION n PUBLIC "p"><!NOTATION m PUBLIC "p" "s">]><a/>',
    "<!DOCTYPE a [<!ELEMENT a (b,c*)><!ELEMENT b EMPTY><!ELEMENT c ANY>]><a><b/></a>",
    "<!DOCTYPE a [<!ELEMENT a (#PCDATA|b|c)*><!ELEMENT b (#PCDATA)>]><a/>",
    "<!DOCTYPE a [<!ELEMENT a ((b|c)+,d?,(e,f)*)>]><a/>",
    "<!DOCTYPE a [<!ELEMENT a (b|c|d)>]><a/>",
    "<!DOCTYPE a [<!ELEMENT a (b?,c+,d*)>]><a/>",
    "<!DOCTYPE a [<!ELEMENT a ( b , c ) >]><a/>",
    '<!DOCTYPE a [<!ATTLIST a b CDATA #IMPLIED c CDATA "d" e (x|y) "x" f NOTATION (n) #REQUIRED g ID #IMPLIED h NMTOKENS #FIXED "p  q">]><a/>',
    '<!DOCTYPE a [<!ATTLIST a b CDATA "dflt" c NMTOKEN " x ">]><a/>',
    '<!DOCTYPE a [<!ATTLIST a b CDATA "dflt" c NMTOKEN " x ">]><a b="1"/>',
    '<!DOCTYPE a [<!ATTLIST a t NMTOKENS #IMPLIED>]><a t="  x   y  "/>',
    '<!DOCTYPE a [<!ATTLIST a t ID #IMPLIED>]><a t=" x\ny "/>',
    '<!DOCTYPE a [<!ATTLIST a b CDATA "1"><!ATTLIST a b CDATA "2">]><a/>',
    '<!DOCTYPE a [<!ENTITY e "E"><!ATTLIST a b CDATA "&e;&#65;">]><a/>',
    '<!DOCTYPE a [<!ATTLIST a xmlns CDATA "urn:x">]><a/>',
    "<!DOCTYPE a [<!-- comment in dtd --><?pi in dtd?>]><a/>",
    "<!DOCTYPE a [ %pe; ]><a/>",
    '<!DOCTYPE a [ %pe; <!ENTITY e "x">]><a>&e;&f;</a>',
    '<!DOCTYPE a SYSTEM "x.dtd"><a>&undefined;</a>',
    '<!DOCTYPE a SYSTEM "x.dtd" [<!ENTITY e "v">]><a>&e;&u;</a>',
    '<?xml version="1.0" standalone="yes"?><!DOCTYPE a SYSTEM "x.dtd"><a/>',
    '<!DOCTYPE a [<!ENTITY % p SYSTEM "p.ent">%p;]><a/>',
    '<!DOCTYPE a\n[\n<!ELEMENT a (#PCDATA)>\n<!ATTLIST a\n  x CDATA #IMPLIED>\n]>\n<a x="1">t</a>',
    '<!DOCTYPE a [<!ENTITY e "\u4e2d">]><a>&e;</a>',
    "<!DOCTYPE html><html><body><p>x</p></body></html>",
    '<!DOCTYPE a [<!ENTITY e "<b>&f;</b>"><!ENTITY f "y">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "x%y">]><a/>',
    "<!DOCTYPE a [<!ENTITY e 'a\"b'>]><a>&e;</a>",
    "<!DOCTYPE a [<!ENTITY % p \"<!ENTITY e 'v'>\"> %p; ]><a>&e;</a>",
    '<!DOCTYPE a [<!ENTITY % p "<!ELEMENT a ANY><!--c-->"> %p; %q; ]><a/>',
    "<!DOCTYPE a [<!ENTITY % p \"<!ATTLIST a x CDATA 'd'>\">%p;]><a/>",
    '<!DOCTYPE a [<!ENTITY % q "<!ENTITY f \'F\'>"><!ENTITY % p "%q;">%p;]><a>&f;</a>',
    '<?xml version="1.0" standalone="yes"?><!DOCTYPE a [<!ENTITY % p "">%p;]><a/>',
    '<!DOCTYPE a SYSTEM "d.dtd" [<!ENTITY % p SYSTEM "p.dtd">%p;]><a>&x;</a>',
    '<!DOCTYPE a [<!ENTITY % p PUBLIC "x" "p.dtd"><!ENTITY e "v">%p;]><a>&e;</a>',
]

MALFORMED = [
    "",
    " ",
    "<",
    "<a",
    "<a>",
    "<a><b></a>",
    "<a></b>",
    "<a></a><b/>",
    "<a/>x",
    "<a/><",
    "<a/></a>",
    "x",
    "x<a/>",
    '<a x="1" x="2"/>',
    "<a x=1/>",
    '<a x="1"y="2"/>',
    '<a x="<"/>',
    '<a x="&"/>',
    '<a x="&;"/>',
    '<a x="&#;"/>',
    '<a x="&#x;"/>',
    '<a x="&#xg;"/>',
    '<a x="&#0;"/>',
    '<a x="&foo;"/>',
    "<a x>",
    "<a x=>",
    '<a x="1>',
    '<a ="1"/>',
    "<a>&foo;</a>",
    "<a>&#0;</a>",
    "<a>&#xD800;</a>",
    "<a>&#x110000;</a>",
    "<a>&#1114112;</a>",
    "<a>&#xFFFE;</a>",
    "<a>&#99999999999;</a>",
    "<a>& </a>",
    "<a>&amp</a>",
    "<a>&#65</a>",
    "<a>]]></a>",
    "<a>x]]>y</a>",
    "<a>\x00</a>",
    "<a>\x01</a>",
    "<a>x\x0by</a>",
    "<a>\ufffe</a>",
    "<a>\uffff</a>",
    '<a x="\x01"/>',
    "<a\x01/>",
    "<!--\x01--><a/>",
    "<a><!-- a -- b --></a>",
    "<a><!-- a ---></a>",
    "<a><!- x --></a>",
    "<a><!--x",
    "<a><![CDATA[x",
    "<a><![CDATA[x]]",
    "<a><![CDAT[x]]></a>",
    "<a><!DOCTYPE b></a>",
    "<a><!x></a>",
    '<a><?xml version="1.0"?></a>',
    '<?xml version="1.0"?><?xml version="1.0"?><a/>',
    ' <?xml version="1.0"?><a/>',
    '<!--c--><?xml version="1.0"?><a/>',
    '<a/><?xml version="1.0"?>',
    "<?xml?><a/>",
    "<?xml ?><a/>",
    '<?xml version="1.0" encoding=""?><a/>',
    '<?xml version="1.0" encoding="1x"?><a/>',
    '<?xml encoding="utf-8"?><a/>',
    '<?xml version="1.0" standalone="maybe"?><a/>',
    '<?xml version="1.0" foo="bar"?><a/>',
    '<?xml version="1.0"  ?  ><a/>',
    "<?xml version=1.0?><a/>",
    '<?xml version="1 0"?><a/>',
    '<?XML version="1.0"?><a/>',
    '<?xMl version="1.0"?><a/>',
    "<a><?xml-stylesheet x?></a>",
    "<a><?XmL x?></a>",
    "<?pi",
    "<a><?pi x",
    "<a><? x?></a>",
    "<a><?pi?x?></a>",
    "<a></a >x",
    "<a></a  b>",
    "</a>",
    "<a></>",
    "<a><b/></a></a>",
    "<a:b/>",
    '<a xmlns:a=""/>',
    '<a xmlns:xmlns="urn:x"/>',
    '<a xmlns:xml="urn:x"/>',
    '<a xmlns:p="http://www.w3.org/XML/1998/namespace"/>',
    '<a xmlns="http://www.w3.org/2000/xmlns/"/>',
    '<a p:x="1"/>',
    '<a xmlns:p="u" xmlns:q="u" p:x="1" q:x="2"/>',
    "<a:b:c/>",
    "<:a/>",
    "<a:/>",
    '<a xmlns:p="u}v"/>',
    '<a xmlns:p="u v"/>',
    "<a>&a:b;</a>",
    "<a><?a:b x?></a>",
    "<a></a:b>",
    '<a:b xmlns:a="u"></a:b:c>',
    '<!DOCTYPE a [<!ENTITY e "<b>">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "</a>">]><a>&e;',
    '<!DOCTYPE a [<!ENTITY e "&e;">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "&f;"><!ENTITY f "&e;">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "<">]><a b="&e;"/>',
    '<!DOCTYPE a [<!ENTITY e SYSTEM "x">]><a b="&e;"/>',
    '<!DOCTYPE a [<!NOTATION n SYSTEM "n"><!ENTITY e SYSTEM "e" NDATA n>]><a>&e;</a>',
    '<!DOCTYPE a [<!NOTATION n SYSTEM "n"><!ENTITY e SYSTEM "e" NDATA n>]><a b="&e;"/>',
    '<!DOCTYPE a [<!ENTITY e "&#0;">]><a/>',
    '<!DOCTYPE a [<!ENTITY e "&;">]><a/>',
    '<!DOCTYPE a [<!ENTITY e "%p;">]><a/>',
    '<!DOCTYPE a [<!ENTITY e "% x">]><a/>',
    '<!DOCTYPE a [<!ENTITY e "100%">]><a/>',
    '<!DOCTYPE a [<!ENTITY % p "<!ENTITY e"> %p; ]><a/>',
    '<!DOCTYPE a [<!ENTITY % p "%p;"> %p; ]><a/>',
    '<?xml version="1.0" standalone="yes"?><!DOCTYPE a [ %q; ]><a/>',
    '<!DOCTYPE a [<!ENTITY % p "<a/>"> %p; ]><a/>',
    '<!DOCTYPE a [<!ENTITY % p "&#0;"> %p; ]><a/>',
    '<!DOCTYPE a [<!ENTITY % p "<!ELEMENT a (b|c,d)>"> %p; ]><a/>',
    "<!DOCTYPE a [<!ENTITY e>]><a/>",
    '<!DOCTYPE a [<!ENTITY e "x" y>]><a/>',
    '<!DOCTYPE a [<!ENTITY % e "x">]><a>%e;</a>',
    "<!DOCTYPE a [<!ELEMENT a (b|c,d)>]><a/>",
    "<!DOCTYPE a [<!ELEMENT a (b,c|d)>]><a/>",
    "<!DOCTYPE a [<!ELEMENT a (#PCDATA|b)>]><a/>",
    "<!DOCTYPE a [<!ELEMENT a FOO>]><a/>",
    "<!DOCTYPE a [<!ATTLIST a b FOO #IMPLIED>]><a/>",
    '<!DOCTYPE a [<!ATTLIST a b CDATA "<">]><a/>',
    '<!DOCTYPE a [<!ATTLIST a b CDATA "&u;">]><a/>',
    "<!DOCTYPE a [<!FOO>]><a/>",
    '<!DOCTYPE a [<!ENTITY e "x">',
    "<!DOCTYPE a [",
    "<!DOCTYPE a",
    "<!DOCTYPE a [ ] ><!DOCTYPE b><a/>",
    "<!DOCTYPE>",
    "<!DOCTYPE a x><a/>",
    '<!DOCTYPE a PUBLIC "a{b" "s"><a/>',
    '<!DOCTYPE a SYSTEM "x"y><a/>',
    '<!DOCTYPE a [<!ENTITY e SYSTEM "x" NDATA>]><a/>',
    '<!DOCTYPE a [<!NOTATION n PUBLIC "a\\b">]><a/>',
    "<!DOCTYPE a [ <!ELEMENT a ANY> ]]><a/>",
    "<a/><!DOCTYPE a>",
    "<!ELEMENT a ANY><a/>",
    "<![CDATA[x]]><a/>",
    "<a>\n<b>\n</a>",
    '<a>\n\n  <b x="1" x="2"/></a>',
    "text\n<a/>",
    "<a>\r\n\r\n<b></c></a>",
    "<a>\n\u4e2d\u6587<b></c></a>",
    '<a x="1" \n y="2" \n x="3"/>',
    "<a/>\n\n  junk",
    "<a>&#65;&#x;</a>",
    "<a>&#65;&#-1;</a>",
    "<a><b></b></a><!-- ok --><c/>",
    '<a b="\u4e2d" \u4e2d="1" \u4e2d="2"/>',
    "<\U0001f600/>",
    "<a\U0001f600/>",
    "<a>\U0001f600<b></c></a>",
    "<a/>&amp;",
    "&amp;<a/>",
    "<a/>]]>",
]

# Documents for plistlib.
PLISTS = [
    b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
    b'"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n<dict>\n'
    b"\t<key>a</key>\n\t<string>x &amp; y</string>\n\t<key>n</key>\n\t<integer>42</integer>\n"
    b"\t<key>f</key>\n\t<real>1.5</real>\n\t<key>t</key>\n\t<true/>\n\t<key>d</key>\n"
    b"\t<date>2020-01-02T03:04:05Z</date>\n\t<key>b</key>\n\t<data>aGVsbG8=</data>\n"
    b"\t<key>l</key>\n\t<array>\n\t\t<string>\xc3\xa9</string>\n\t\t<false/>\n\t</array>\n"
    b"</dict>\n</plist>\n",
    b'<plist version="1.0"><array><string>a</string><string></string><dict/></array></plist>',
    b'<plist version="1.0"><dict><key>a</key></dict></plist>',
    b'<plist version="1.0"><dict><key>a</key><string>x</string></plist>',
    b'<?xml version="1.0"?><!DOCTYPE plist [<!ENTITY e "x">]><plist><string>&e;</string></plist>',
    b"<plist><string>" + b"long text " * 1000 + b"</string></plist>",
    b"<plist><integer>12</integer>",
]


def byte_inputs():
    """(label, bytes, ParserCreate encoding) cases."""
    out = []
    for i, doc in enumerate(
        ["<a>caf\xe9</a>", '<a b="\xe9\u4e2d">\U0001f600</a>', '<?xml version="1.0" encoding="utf-8"?><a>\xe9</a>']
    ):
        out.append((f"utf8-{i}", doc.encode("utf-8"), None))
        out.append((f"utf8bom-{i}", b"\xef\xbb\xbf" + doc.encode("utf-8"), None))
        out.append((f"utf16le-{i}", b"\xff\xfe" + doc.encode("utf-16-le"), None))
        out.append((f"utf16be-{i}", b"\xfe\xff" + doc.encode("utf-16-be"), None))
        out.append((f"utf16nobom-{i}", doc.encode("utf-16-le"), None))
    out += [
        ("latin1-decl", '<?xml version="1.0" encoding="ISO-8859-1"?><a>caf\xe9 \xff</a>'.encode("latin-1"), None),
        ("latin1-arg", "<a>caf\xe9</a>".encode("latin-1"), "iso-8859-1"),
        ("cp1252-decl", b'<?xml version="1.0" encoding="windows-1252"?><a>\x80\x93</a>', None),
        ("cp1252-undef", b'<?xml version="1.0" encoding="windows-1252"?><a>\x81</a>', None),
        ("ascii-decl", b'<?xml version="1.0" encoding="us-ascii"?><a>x</a>', None),
        ("ascii-bad", b'<?xml version="1.0" encoding="us-ascii"?><a>\xe9</a>', None),
        ("utf8-bad", b"<a>\xff</a>", None),
        ("utf8-bad2", b"<a>x\xc3(</a>", None),
        ("utf8-partial", b"<a>x</a>\xc3", None),
        ("utf8-partial2", b"<a>x\xe4\xb8", None),
        ("utf8-overlong", b"<a>\xc0\xaf</a>", None),
        ("utf8-surrogate", b"<a>\xed\xa0\x80</a>", None),
        ("utf8-decl-utf16", b'<?xml version="1.0" encoding="utf-16"?><a/>', None),
        ("utf16-decl-utf8", '<?xml version="1.0" encoding="utf-8"?><a/>'.encode("utf-16"), None),
        ("utf16-decl-utf16", '<?xml version="1.0" encoding="utf-16"?><a/>'.encode("utf-16"), None),
        ("utf8-arg-utf16", "<a>\xe9</a>".encode("utf-16"), "utf-16"),
        ("latin1-arg-override", b'<?xml version="1.0" encoding="utf-8"?><a>\xe9</a>', "latin-1"),
        ("utf8-decl-latin1-name", b'<?xml version="1.0" encoding="latin1"?><a>\xe9</a>', None),
        ("utf8-decl-utf8-name", b'<?xml version="1.0" encoding="utf8"?><a>\xc3\xa9</a>', None),
        ("crlf-bytes", b'<a>\r\n<b x="1\r\n2"/>\r\n</a>\r\n', None),
    ]
    return out


NS_DOCS = [d for d in WELL_FORMED + MALFORMED if "xmlns" in d or ":" in d]


def make_big(size=1 << 20):
    parts = ['<?xml version="1.0" encoding="utf-8"?>\n<catalog xmlns:x="urn:x">\n']
    i = 0
    n = 0
    while n < size:
        chunk = (
            f'  <item id="{i}" x:kind="k{i % 7}" name="Item &amp; {i}">\n'
            f"    <title>Title number {i} with some text</title>\n"
            f'    <price currency="EUR">{i % 1000}.99</price>\n'
            f"    <!-- comment {i} -->\n"
            f"    <desc>Line one of item {i}.\n    Line two &lt;tag&gt; caf\xe9.</desc>\n"
            "    <empty/>\n"
            "  </item>\n"
        )
        parts.append(chunk)
        n += len(chunk)
        i += 1
    parts.append("</catalog>\n")
    return "".join(parts)


# ---------------------------------------------------------------------------
# Handler-call recording.

# expat before 2.6 (e.g. under Python 3.11) has no reparse deferral; the
# stand-in follows expat 2.9, so deferral is switched off for comparisons.
OLD_EXPAT = False


def record(mod, chunks, opts):
    p = mod.ParserCreate(opts.get("encoding"), opts.get("ns"))
    for k in ("buffer_text", "ordered_attributes", "specified_attributes", "namespace_prefixes"):
        if k in opts:
            setattr(p, k, opts[k])
    if "buffer_size" in opts:
        p.buffer_size = opts["buffer_size"]
    ev = []
    if "pep" in opts:
        ev.append(("SetParamEntityParsing", p.SetParamEntityParsing(opts["pep"])))
    if opts.get("nodefer") or OLD_EXPAT:
        if hasattr(p, "SetReparseDeferralEnabled"):
            p.SetReparseDeferralEnabled(False)
    with_pos = opts.get("pos")
    for h in HANDLER_SETS[opts.get("handlers", "all")]:

        def f(*a, h=h):
            if with_pos:
                ev.append((h.replace("Handler", ""),) + a + (p.CurrentLineNumber, p.CurrentColumnNumber, p.CurrentByteIndex))
            else:
                ev.append((h.replace("Handler", ""),) + a)
            if h in ("ExternalEntityRefHandler", "NotStandaloneHandler"):
                return 1

        setattr(p, h, f)
    try:
        last = len(chunks) - 1
        for i, c in enumerate(chunks):
            p.Parse(c, i == last)
            if opts.get("after_each"):
                ev.append(("after", i, p.CurrentLineNumber, p.CurrentColumnNumber, p.CurrentByteIndex))
        ev.append(("OK", p.CurrentLineNumber, p.CurrentColumnNumber, p.CurrentByteIndex))
    except mod.ExpatError as e:
        ev.append(
            ("ERR", e.code, e.lineno, e.offset, str(e), p.ErrorCode, p.ErrorLineNumber, p.ErrorColumnNumber, p.ErrorByteIndex)
        )
    except Exception as e:
        ev.append(("EXC", type(e).__name__, str(e)))
    return ev


def record_file(mod, data, opts):
    import io

    p = mod.ParserCreate(opts.get("encoding"), opts.get("ns"))
    ev = []
    for h in HANDLER_SETS["all"]:

        def f(*a, h=h):
            ev.append((h.replace("Handler", ""),) + a + (p.CurrentLineNumber,))
            if h in ("ExternalEntityRefHandler", "NotStandaloneHandler"):
                return 1

        setattr(p, h, f)
    try:
        p.ParseFile(io.BytesIO(data))
        ev.append(("OK",))
    except mod.ExpatError as e:
        ev.append(("ERR", e.code, e.lineno, e.offset, str(e)))
    return ev


VARIANTS = [
    ("all", {}),
    ("all_noexpand", {"handlers": "all_noexpand"}),
    ("nodefault", {"handlers": "nodefault"}),
    ("default", {"handlers": "default"}),
    ("default_expand", {"handlers": "default_expand"}),
    ("et", {"handlers": "et", "buffer_text": True, "ordered_attributes": True, "ns": "}"}),
    ("pos", {"pos": True}),
    ("buffered", {"buffer_text": True, "handlers": "chars"}),
    ("buffered_small", {"buffer_text": True, "buffer_size": 7}),
    ("cd_default", {"handlers": "cd_default"}),
    ("ns", {"ns": "}"}),
    ("ns_triplet", {"ns": " ", "namespace_prefixes": True, "ordered_attributes": True}),
    ("specified", {"specified_attributes": True, "ordered_attributes": True}),
    ("ns_empty", {"ns": "", "namespace_prefixes": True}),
    ("pe1", {"pep": 1}),
    ("pe2", {"pep": 2, "handlers": "all_noexpand"}),
]


def event_cases():
    """(label, chunks, opts) for the handler-call comparisons."""
    cases = []
    for doc in WELL_FORMED + MALFORMED:
        for vname, opts in VARIANTS:
            if vname.startswith("ns") and doc not in NS_DOCS and "DOCTYPE" not in doc:
                continue
            if vname.startswith("pe") and "DOCTYPE" not in doc:
                continue
            cases.append((f"{vname} {doc[:60]!r}", [doc], opts))
        cases.append((f"bytes {doc[:60]!r}", [doc.encode("utf-8")], {}))
    for label, data, enc in byte_inputs():
        cases.append((f"enc {label}", [data], {"encoding": enc}))
        cases.append(
            (f"enc-et {label}", [data], {"encoding": enc, "handlers": "et", "buffer_text": True, "ordered_attributes": True})
        )
        cases.append((f"enc-pos {label}", [data], {"encoding": enc, "pos": True}))
    # incremental feeding, split at every offset
    split_docs = [
        '<?xml version="1.0"?>\n<!DOCTYPE a [<!ENTITY e "v&#65;">]>\n'
        "<a x=\"1\" y='&amp;'>t&e;<![CDATA[c]]d]]>\r\n<!--c--><?p d?>"
        "<b/>]]&#x41;</a>\n",
        '<p:a xmlns:p="urn:p" p:x="1">caf\xe9 \U0001f600</p:a>',
        "<a><b></c></a>",
        "<a>x\r\ny\r</a>\r",
        "<a>]x]]y</a>",
    ]
    for doc in split_docs:
        for k in range(len(doc) + 1):
            for opts in ({}, {"ns": "}"}):
                cases.append((f"split@{k} {doc[:40]!r} {opts}", [doc[:k], doc[k:]], opts))
        data = doc.encode("utf-8")
        for k in range(len(data) + 1):
            cases.append((f"bsplit@{k} {doc[:40]!r}", [data[:k], data[k:]], {"after_each": True}))
        # one character at a time, with and without reparse deferral
        cases.append((f"chars {doc[:40]!r}", list(doc) + [""], {"after_each": True}))
        cases.append((f"chars-nodefer {doc[:40]!r}", list(doc) + [""], {"nodefer": True}))
        cases.append((f"bytes1 {doc[:40]!r}", [data[i : i + 1] for i in range(len(data))] + [b""], {}))
    import random

    rnd = random.Random(5)
    for doc in random_documents():
        for vname, opts in (
            ("all", {}),
            ("ns", {"ns": "}"}),
            ("et", VARIANTS[5][1]),
            ("pos", {"pos": True}),
            ("buffered_small", VARIANTS[8][1]),
        ):
            cases.append((f"rnd-{vname} {doc[:70]!r}", [doc], opts))
        cuts = sorted(rnd.randrange(len(doc) + 1) for _ in range(3))
        chunks = [doc[: cuts[0]], doc[cuts[0] : cuts[1]], doc[cuts[1] : cuts[2]], doc[cuts[2] :]]
        cases.append((f"rnd-split {doc[:50]!r} {cuts}", chunks, {"after_each": True, "pos": True}))
        cases.append((f"rnd-split-et {doc[:50]!r} {cuts}", chunks, VARIANTS[5][1]))
        data = doc.encode("utf-8")
        cuts = sorted(rnd.randrange(len(data) + 1) for _ in range(3))
        chunks = [data[: cuts[0]], data[cuts[0] : cuts[1]], data[cuts[1] : cuts[2]], data[cuts[2] :]]
        cases.append((f"rnd-bsplit {doc[:50]!r} {cuts}", chunks, {"ns": "}", "after_each": True}))
        cases.append(
            (
                f"rnd-small {doc[:50]!r}",
                [data[i : i + 5] for i in range(0, len(data), 5)] + [b""],
                {"handlers": "et", "buffer_text": True},
            )
        )
    for doc in mutations():
        cases.append((f"mut {doc[:70]!r}", [doc], {}))
        cases.append((f"mut-ns {doc[:70]!r}", [doc], {"ns": "}"}))
        cases.append(
            (f"mut-et {doc[:70]!r}", [doc], {"handlers": "et", "buffer_text": True, "ordered_attributes": True, "ns": "}"})
        )
    # odd corners found by comparing mutated documents
    special = [
        ["\x00<a/>"],
        ["\x00", "a>", "x</a>"],
        ["", "\x00a>"],
        [b"\x00<a/>"],
        [b"<\x00a\x00/\x00>\x00"],
        [b"\xef\xbb\xbf", b"\x00a/", b">", b""],
        [b"\xef\xbb\xbf", b"<a/", b">", b""],
        ["<a>\r"],
        ["<a>x\r"],
        ["<a>]"],
        ["<a>x]]"],
        [b"<?x", b"ml ", b"ver", b"sio", b"n#=", b'"1.', b'1"?', b"><a", b"/>", b""],
        [b"<?", b"xmlversion=", b"'1.0'?><a/>"],
        [b"\n", b"\n<a/>", b""],
        ['<?xml version="1.0" encoding="utf-8"?>'.encode("utf-16") + b"<\x00"],
        ['<?xml version="1.0" encoding="utf8"?><a/>'.encode("utf-16")],
        ['<?xml version="1.0" encoding="latin1"?>\n<a>\xe9</a>'.encode("utf-16-le")],
        [b"<a>caf\xc3\xa9 \xe4\xb8\xad", b"</a>\xe4\xb8\xad\xe6", b"\x96\x87"],
        ["\ufeff<a/>".encode("utf-16")[:-1]],
        ["<a/>".encode("utf-16") + b"x"],
        [('<?xml version="1.0" encoding="iso-8859-1"?><a>' + "y" * 3000 + "\xe9" * 700 + "</a>").encode("latin-1")],
        [("<a>" + "z" * 2000 + "\U0001f600" * 300 + "<![CDATA[" + "c" * 3000 + "]]></a>").encode("utf-16")],
        ['<!DOCTYPE a: [<!ENTITY e "x">]><a/>'],
        ['<!DOCTYPE a [<!ATTLIST a b CDATA "&eE">]><a/>'],
    ]
    for chunks in special:
        for opts in ({"after_each": True, "pos": True}, {"ns": "}"}, {"handlers": "et", "buffer_text": True}):
            cases.append((f"special {chunks!r} {opts}", chunks, opts))
    u16 = '<a b="\u4e2d">x\U0001f600y</a>'.encode("utf-16")
    for k in range(len(u16) + 1):
        cases.append((f"u16split@{k}", [u16[:k], u16[k:]], {}))
    big = make_big(200000)
    cases.append(("big", [big], {"buffer_text": True}))
    cases.append(("big-chunks", [big[i : i + 4096] for i in range(0, len(big), 4096)] + [""], {}))
    return cases


def random_documents(count=150, seed=7):
    """Well-formed documents built from random parts: nested elements,
    attributes with references and white space, text with references, line
    breaks of all kinds, ']' and non-ASCII characters, CDATA sections,
    comments, processing instructions, namespaces and DTD entities."""
    import random

    rnd = random.Random(seed)
    texts = [
        "x",
        "hello world",
        " ",
        "\n",
        "\r\n",
        "\r",
        "\t",
        "]",
        "]]",
        "a]b",
        "&amp;",
        "&lt;&gt;",
        "&#65;",
        "&#x4e2d;",
        "&#10;",
        "&#13;",
        "caf\xe9",
        "\u4e2d\u6587",
        "\U0001f600",
        "&quot;&apos;",
        "\n    ",
        "line1\nline2",
        ">",
        "\"'",
        "&e;",
        "&f;",
    ]
    attvals = [
        "v",
        "",
        " a  b ",
        "x\ny",
        "x\r\ny",
        "\t",
        "&amp;&lt;",
        "&#9;&#10;",
        "&e;",
        "caf\xe9",
        "\u4e2d",
        ">",
        "'",
        "&#x20;",
    ]

    def text(depth):
        parts = []
        for _ in range(rnd.randrange(4)):
            r = rnd.random()
            if r < 0.6:
                parts.append(rnd.choice(texts))
            elif r < 0.7:
                parts.append("<![CDATA[{}]]>".format(rnd.choice(["x", "<&>", "]", "a]]b", "\r\n", ""])))
            elif r < 0.8:
                parts.append("<!--{}-->".format(rnd.choice(["c", " - ", "", "\n"])))
            elif r < 0.85:
                parts.append("<?pi {}?>".format(rnd.choice(["", "d", "a b\r\n"])))
            elif depth < 5:
                parts.append(element(depth + 1))
        return "".join(parts)

    def element(depth, root=False):
        name = rnd.choice(["a", "b", "p:c", "item", "\xe9l", "q:d", "_x.y-z"])
        atts = []
        if root:
            atts.append('xmlns:p="urn:p"')
            atts.append('xmlns:q="urn:q"')
            if rnd.random() < 0.5:
                atts.append('xmlns="urn:default"')
        for _i, an in enumerate(rnd.sample(["x", "y", "p:z", "q:w", "xml:lang", "v"], rnd.randrange(4))):
            q = rnd.choice("\"'")
            v = rnd.choice(attvals).replace(q, "&quot;" if q == '"' else "&apos;")
            atts.append("{}{}={}{}{}".format(rnd.choice([" ", "\n  ", "\t"]), an, q, v, q))
        head = "<" + name + "".join((" " + a) if not a[0].isspace() else a for a in atts)
        if rnd.random() < 0.3:
            return head + rnd.choice(["/>", " />"])
        return head + ">" + text(depth) + "</" + name + rnd.choice([">", " >", "\n>"])

    out = []
    for _ in range(count):
        prolog = rnd.choice(
            ["", '<?xml version="1.0"?>\n', '<?xml version="1.0" encoding="utf-8" standalone="yes"?>', "<!DOCTYPE r>\n"]
        )
        dtd = '<!DOCTYPE a [<!ENTITY e "E&#38;amp;v"><!ENTITY f "<b>f</b>">]>'
        doc = prolog + dtd + element(0, True) + rnd.choice(["", "\n", "<!--end-->", "\r\n", " "])
        out.append(doc)
    return out


def mutations(count=700, seed=1234):
    """Malformed variants of well-formed documents: a character deleted,
    inserted, replaced or a span duplicated, chosen by a seeded generator."""
    import random

    rnd = random.Random(seed)
    seeds = [d for d in WELL_FORMED if len(d) < 400]
    alphabet = "<>&;\"'=/!?-[] x:\n\r#%\x00\xe9\u4e2d\ufffe\t."
    out = []
    for _ in range(count):
        d = rnd.choice(seeds)
        if not d:
            continue
        i = rnd.randrange(len(d) + 1)
        op = rnd.randrange(4)
        if op == 0 and i < len(d):
            d = d[:i] + d[i + 1 :]
        elif op == 1:
            d = d[:i] + rnd.choice(alphabet) + d[i:]
        elif op == 2 and i < len(d):
            d = d[:i] + rnd.choice(alphabet) + d[i + 1 :]
        else:
            j = rnd.randrange(len(d) + 1)
            a, b = min(i, j), max(i, j)
            d = d[:b] + d[a:b] + d[b:]
        out.append(d)
    return out


def api_cases():
    """(label, function(mod) -> result) exercising the API beyond Parse."""
    cases = []

    def ext_entity(mod):
        ev = []
        p = mod.ParserCreate()

        def ext(context, base, sysid, pubid):
            ev.append(("ext", context, base, sysid, pubid))
            ep = p.ExternalEntityParserCreate(context)
            ep.Parse(b'<?xml version="1.0" encoding="utf-8"?><b>x</b>t&amp;', True)
            return 1

        p.ExternalEntityRefHandler = ext
        p.StartElementHandler = lambda n, a: ev.append(("start", n, a))
        p.EndElementHandler = lambda n: ev.append(("end", n))
        p.CharacterDataHandler = lambda d: ev.append(("data", d))
        p.SetBase("http://base/")
        p.Parse('<!DOCTYPE a [<!ENTITY e SYSTEM "e.xml">]><a>&e;</a>', True)
        return ev

    cases.append(("ExternalEntityParserCreate", ext_entity))

    def ext_entity_ns(mod):
        ev = []
        p = mod.ParserCreate(None, "}")

        def ext(context, base, sysid, pubid):
            ev.append(("ext", sorted(context.split("\f")), sysid))
            ep = p.ExternalEntityParserCreate(context)
            ep.Parse(b"<p:b/>", True)
            return 1

        p.ExternalEntityRefHandler = ext
        p.StartElementHandler = lambda n, a: ev.append(("start", n, a))
        p.Parse('<!DOCTYPE a [<!ENTITY e SYSTEM "e.xml">]><a xmlns:p="urn:p" xmlns="urn:d">&e;</a>', True)
        return ev

    cases.append(("ExternalEntityParserCreate ns", ext_entity_ns))

    def ext_dtd(mod):
        ev = []
        for flag in (0, 1, 2):
            p = mod.ParserCreate()
            ev.append(("set", p.SetParamEntityParsing(flag)))

            def ext(context, base, sysid, pubid):
                ev.append(("ext", context, base, sysid, pubid))
                return 1

            p.ExternalEntityRefHandler = ext
            p.SkippedEntityHandler = lambda n, i: ev.append(("skip", n, i))
            p.NotStandaloneHandler = lambda: ev.append("ns") or 1
            p.Parse('<!DOCTYPE a PUBLIC "p" "s.dtd"><a>&x;</a>', True)
        return ev

    cases.append(("SetParamEntityParsing", ext_dtd))

    def foreign(mod):
        ev = []
        p = mod.ParserCreate()
        p.UseForeignDTD(True)
        p.SetParamEntityParsing(2)
        p.ExternalEntityRefHandler = lambda *a: ev.append(("ext",) + a) or 1
        p.SkippedEntityHandler = lambda n, i: ev.append(("skip", n, i))
        p.Parse("<a>&x;</a>", True)
        return ev

    cases.append(("UseForeignDTD", foreign))

    def context(mod):
        ev = []
        p = mod.ParserCreate()
        p.StartElementHandler = lambda n, a: ev.append((n, p.GetInputContext()[:12]))
        p.Parse(b'<a>\n <b x="1"/>\n</a>', True)
        ev.append(p.GetInputContext())
        return ev

    cases.append(("GetInputContext", context))

    def intern(mod):
        p = mod.ParserCreate()
        for h in HANDLERS:
            setattr(p, h, lambda *a: 1)
        p.Parse(
            '<!DOCTYPE r [<!ENTITY e SYSTEM "x"><!NOTATION n SYSTEM "y">]><r a="1"><?pi x?><s xmlns:q="u" q:b="2"/></r>', True
        )
        p2 = mod.ParserCreate(intern=None)
        p2.StartElementHandler = lambda n, a: None
        p2.Parse("<a/>", True)
        p3 = mod.ParserCreate(None, "}")
        p3.StartElementHandler = lambda n, a: None
        p3.StartNamespaceDeclHandler = lambda *a: None
        p3.Parse('<a xmlns="u" xmlns:p="v" p:x="1"><p:b/></a>', True)
        return list(p.intern), p2.intern, list(p3.intern)

    cases.append(("intern", intern))

    def handler_swap(mod):
        ev = []
        p = mod.ParserCreate()
        p.buffer_text = True

        def start(n, a):
            ev.append(("start", n))
            if n == "b":
                p.CharacterDataHandler = None
            if n == "c":
                p.CharacterDataHandler = lambda d: ev.append(("data2", d))
                p.buffer_text = False
            if n == "d":
                p.buffer_text = True
                p.buffer_size = 3
            if n == "e":
                p.ordered_attributes = True
                p.DefaultHandler = lambda d: ev.append(("dflt", d))

        p.StartElementHandler = start
        p.CharacterDataHandler = lambda d: ev.append(("data", d))
        p.Parse('<a>x<b>y</b>z<c>w\nv</c>u<d>1234567\n89</d><e f="1">&#65;<!--c--></e></a>', True)
        ev.append(("used", p.buffer_used, p.buffer_size, p.buffer_text))
        return ev

    cases.append(("handler changes during parse", handler_swap))

    def exceptions(mod):
        ev = []
        p = mod.ParserCreate()

        def start(n, a):
            ev.append(("start", n))
            if n == "b":
                raise KeyError("boom")

        p.StartElementHandler = start
        p.CharacterDataHandler = lambda d: ev.append(("data", d))
        try:
            p.Parse("<a>x<b>y</b></a>", True)
        except KeyError as e:
            ev.append(("KeyError", str(e)))
        for data in ("<c/>", ""):
            try:
                p.Parse(data, True)
                ev.append("ok")
            except Exception as e:
                ev.append((type(e).__name__, str(e)))
        return ev

    cases.append(("exception in handler", exceptions))

    def after_error(mod):
        ev = []
        p = mod.ParserCreate()
        for data, final in (("<a><b></c>", False), ("</a>", True), ("", True)):
            try:
                p.Parse(data, final)
                ev.append("ok")
            except mod.ExpatError as e:
                ev.append((str(e), e.code, p.ErrorCode, p.ErrorLineNumber, p.ErrorColumnNumber, p.ErrorByteIndex))
        p = mod.ParserCreate()
        p.Parse("<a/>", True)
        try:
            p.Parse("<b/>", True)
        except mod.ExpatError as e:
            ev.append((str(e), e.code))
        return ev

    cases.append(("Parse after error / after the end", after_error))

    def bad_args(mod):
        ev = []
        for f in (
            lambda: mod.ParserCreate(namespace_separator="ab"),
            lambda: mod.ParserCreate(intern=[]),
            lambda: mod.ParserCreate().Parse(12),
            lambda: setattr(mod.ParserCreate(), "buffer_size", 0),
            lambda: setattr(mod.ParserCreate(), "buffer_size", "x"),
            lambda: mod.ParserCreate().ParseFile(12),
            lambda: mod.ParserCreate(encoding="nope").Parse(b"<a/>", True),
        ):
            try:
                f()
                ev.append("ok")
            except Exception as e:
                ev.append(type(e).__name__)
        return ev

    cases.append(("bad arguments", bad_args))

    def various(mod):
        ev = []
        p = mod.ParserCreate()
        ev.append(
            (
                p.buffer_text,
                p.buffer_size,
                p.buffer_used,
                p.ordered_attributes,
                p.specified_attributes,
                p.namespace_prefixes,
                p.ErrorCode,
                p.ErrorByteIndex,
                p.CurrentByteIndex,
                p.CurrentLineNumber,
                p.CurrentColumnNumber,
                p.GetBase(),
                p.StartElementHandler,
            )
        )
        p.SetBase("b")
        ev.append(p.GetBase())
        ev.append(p.Parse(b"<a>", False))
        ev.append(p.Parse("</a>", True))
        ev.append((mod.ErrorString(0), mod.ErrorString(3), mod.ErrorString(99)))
        ev.append(str(mod.ExpatError("x")))
        ev.append(mod.ExpatError.__name__)
        ev.append(mod.error is mod.ExpatError)
        ev.append(mod.XMLParserType.__name__)
        ev.append(type(p).__name__)
        ev.append(issubclass(mod.ExpatError, Exception))
        return ev

    cases.append(("attributes and module contents", various))

    def amplification(mod):
        ev = []
        quad = '<!DOCTYPE r [<!ENTITY a "' + "x" * 50000 + '">]><r>' + "&a;" * 50000 + "</r>"
        laughs = (
            '<!DOCTYPE l [<!ENTITY l0 "lol">'
            + "".join("<!ENTITY l" + str(i) + ' "' + f"&l{i - 1};" * 10 + '">' for i in range(1, 10))
            + ']><l a="&l9;"/>'
        )
        for doc in (quad, laughs):
            p = mod.ParserCreate()
            n = [0]
            p.CharacterDataHandler = lambda d: n.__setitem__(0, n[0] + len(d))
            try:
                p.Parse(doc, True)
                ev.append(("ok", n[0]))
            except mod.ExpatError as e:
                ev.append((str(e), n[0]))
        return ev

    cases.append(("amplification limits", amplification))

    def buffers(mod):
        ev = []
        for data in (bytearray(b"<a>x</a>"), memoryview(b"<a>y</a>")):
            p = mod.ParserCreate()
            p.CharacterDataHandler = lambda d: ev.append(d)
            ev.append(p.Parse(data, True))
        p = mod.ParserCreate()
        p.CharacterDataHandler = lambda d: ev.append(d)
        p.Parse(b"<a>caf\xc3", False)
        p.Parse("\xe9 ok", False)
        p.Parse(b"</a>", True)
        return ev

    cases.append(("bytearray, memoryview, mixed str and bytes", buffers))

    def pull_small(mod):
        ev = []
        p = mod.ParserCreate()
        p.StartElementHandler = lambda n, a: ev.append(("start", n))
        p.EndElementHandler = lambda n: ev.append(("end", n))
        doc = "<root>" + '<item a="%d">text</item>' * 30 + "</root>"
        for i in range(0, len(doc), 7):
            p.Parse(doc[i : i + 7].encode(), False)
            ev.append(("fed", i, p.CurrentByteIndex))
        p.Parse(b"", True)
        return ev

    cases.append(("small feeds (reparse deferral)", pull_small))
    return cases


# ---------------------------------------------------------------------------
# Library-level results, computed in a worker subprocess.


def lib_cases():
    cases = []
    for doc in WELL_FORMED + MALFORMED:
        cases.append(("et", doc))
        cases.append(("et-bytes", doc.encode("utf-8")))
        cases.append(("minidom", doc))
        cases.append(("sax", doc.encode("utf-8")))
        cases.append(("sax-ns", doc.encode("utf-8")))
        cases.append(("pull", doc))
    for _label, data, enc in byte_inputs():
        if enc is None:
            cases.append(("et-bytes", data))
            cases.append(("minidom", data))
            cases.append(("sax", data))
    for data in PLISTS:
        cases.append(("plist", data))
    for doc in mutations(200, seed=99):
        cases.append(("et", doc))
        cases.append(("minidom", doc))
    for doc in WELL_FORMED[:80] + random_documents(20, seed=3):
        cases.append(("c14n", doc))
        cases.append(("iterparse-ns", doc.encode("utf-8")))
    for doc in random_documents(60, seed=11):
        for kind in ("et", "minidom", "sax", "sax-ns", "pull"):
            cases.append((kind, doc.encode("utf-8") if kind.startswith("sax") else doc))
    big = make_big(300000)
    cases.append(("et", big))
    cases.append(("minidom", big))
    cases.append(("sax", big.encode("utf-8")))
    cases.append(("iterparse", big.encode("utf-8")))
    cases.append(("iterparse", make_big(20000).encode("utf-8")))
    return cases


def run_lib_case(kind, doc):
    import io
    import xml.etree.ElementTree as ET

    try:
        if kind in ("et", "et-bytes"):
            root = ET.fromstring(doc)
            return ET.tostring(root, encoding="unicode")
        if kind == "pull":
            pp = ET.XMLPullParser(events=("start", "end", "start-ns", "end-ns", "comment", "pi"))
            out = []
            for i in range(0, len(doc), 3):
                pp.feed(doc[i : i + 3])
                out.extend(_ev_repr(e) for e in pp.read_events())
            pp.close()
            out.extend(_ev_repr(e) for e in pp.read_events())
            return out
        if kind == "c14n":
            return ET.canonicalize(doc, with_comments=True)
        if kind == "iterparse-ns":
            out = []
            for ev, el in ET.iterparse(io.BytesIO(doc), events=("start", "end", "start-ns", "end-ns", "comment", "pi")):
                out.append((ev, el if ev.endswith("-ns") else getattr(el, "tag", None)))
            return out
        if kind == "iterparse":
            out = []
            for ev, el in ET.iterparse(io.BytesIO(doc), events=("start", "end")):
                out.append((ev, el.tag, el.text if ev == "end" else None))
            return out
        if kind == "minidom":
            import xml.dom.minidom

            d = xml.dom.minidom.parseString(doc)
            return d.toxml()
        if kind in ("sax", "sax-ns"):
            import xml.sax
            import xml.sax.handler

            out = []

            class H(xml.sax.handler.ContentHandler):
                def startElement(self, name, attrs):
                    out.append(("start", name, sorted(attrs.items())))

                def endElement(self, name):
                    out.append(("end", name))

                def startElementNS(self, name, qname, attrs):
                    out.append(("startNS", name, qname, sorted(attrs.items())))

                def endElementNS(self, name, qname):
                    out.append(("endNS", name, qname))

                def startPrefixMapping(self, prefix, uri):
                    out.append(("pm", prefix, uri))

                def endPrefixMapping(self, prefix):
                    out.append(("epm", prefix))

                def characters(self, content):
                    out.append(("chars", content))

                def ignorableWhitespace(self, ws):
                    out.append(("ws", ws))

                def processingInstruction(self, target, data):
                    out.append(("pi", target, data))

                def skippedEntity(self, name):
                    out.append(("skipped", name))

            parser = xml.sax.make_parser()
            if kind == "sax-ns":
                parser.setFeature(xml.sax.handler.feature_namespaces, True)
            parser.setContentHandler(H())
            src = xml.sax.xmlreader.InputSource()
            src.setByteStream(io.BytesIO(doc))
            try:
                parser.parse(src)
            except xml.sax.SAXParseException as e:
                out.append(("error", str(e), e.getLineNumber(), e.getColumnNumber()))
            return out
        if kind == "plist":
            import plistlib

            return repr(plistlib.loads(doc))
    except Exception as e:
        return ("EXC", type(e).__name__, str(e), getattr(e, "code", None), getattr(e, "position", None))
    raise ValueError(kind)


def _ev_repr(e):
    ev, x = e
    if ev in ("start", "end"):
        return (ev, x.tag, sorted(x.attrib.items()), x.text)
    if ev in ("comment", "pi"):
        return (ev, x.tag if hasattr(x, "tag") else None, x.text)
    return (ev, x)


def worker(mode):
    """Run the library cases with the real or the stand-in pyexpat."""
    sys.modules["_elementtree"] = None
    if mode == "standin":
        spec = importlib.util.spec_from_file_location("pyexpat", MODULE)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["pyexpat"] = mod
        spec.loader.exec_module(mod)
    cases = pickle.load(sys.stdin.buffer)
    results = []
    for kind, doc in cases:
        results.append(run_lib_case(kind, doc))
    big = make_big()
    import xml.etree.ElementTree as ET

    timing = None
    for _ in range(3):
        t = time.perf_counter()
        ET.fromstring(big)
        t = time.perf_counter() - t
        timing = t if timing is None else min(timing, t)
    pickle.dump((results, timing), sys.stdout.buffer)


def run_worker(mode, cases):
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--worker", mode],
        input=pickle.dumps(cases),
        capture_output=True,
    )
    if proc.returncode:
        sys.stderr.write(proc.stderr.decode("utf-8", "replace"))
        raise SystemExit(f"worker {mode} failed")
    return pickle.loads(proc.stdout)


# ---------------------------------------------------------------------------


def older_expat_difference(label, a, b):
    """Differences explained by the real expat being older than 2.9 (the
    version the stand-in follows): its version, reparse deferral (2.6) and
    the byte index it reports before any input has been consumed."""
    if label.startswith("attribute EXPAT_VERSION") or label.startswith("attribute version_info"):
        return True
    if label.startswith("pull ") or "deferral" in label:
        return True
    if 'version="' in label and isinstance(b, list) and any(ev[:2] == ("ERR", 30) for ev in b):
        return True
    if label.startswith("ErrorString(") and a is None:
        return True
    if label == "errors tables" and isinstance(a, dict) and all(b.get(k) == v for k, v in a.items()):
        return True
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):

        def norm(ev):
            if ev and ev[0] in ("ERR", "after", "OK") and ev[-1] == -1:
                return ev[:-1] + (0,)
            return ev

        return [norm(x) for x in a] == [norm(x) for x in b]
    return False


def load_standin():
    spec = importlib.util.spec_from_file_location("pyexpat_standin", MODULE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def short(x, n=600):
    r = repr(x)
    return r if len(r) <= n else r[:n] + "..."


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i, x, y
    return min(len(a), len(b)), a[len(b) : len(b) + 1] or None, b[len(a) : len(a) + 1] or None


def time_parsers(real, mine):
    big = make_big()
    data = big.encode("utf-8")
    out = {}
    for name, mod in (("C expat", real), ("stand-in", mine)):
        best = None
        for _ in range(5):
            p = mod.ParserCreate(None, "}")
            p.buffer_text = True
            p.ordered_attributes = True
            n = [0]

            def start(name, attrs):
                n[0] += 1

            def end(name):
                pass

            def data_(text):
                pass

            p.StartElementHandler = start
            p.EndElementHandler = end
            p.CharacterDataHandler = data_
            t = time.perf_counter()
            p.Parse(data, True)
            dt = time.perf_counter() - t
            best = dt if best is None else min(best, dt)
        out[name] = best
    return len(data), out


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        worker(sys.argv[2])
        return 0
    verbose = "-v" in sys.argv
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1]
    global OLD_EXPAT
    import pyexpat as real

    OLD_EXPAT = not hasattr(real.ParserCreate(), "SetReparseDeferralEnabled")
    mine = load_standin()
    print(
        "real: {} ({}), python {}".format(
            real.EXPAT_VERSION, real.__file__ if hasattr(real, "__file__") else "built-in", sys.version.split()[0]
        )
    )
    mismatches = 0
    shown = 0
    limit = 60 if not verbose else 100000

    expected = [0]

    def report(label, a, b):
        nonlocal mismatches, shown
        if OLD_EXPAT and older_expat_difference(label, a, b):
            expected[0] += 1
            if verbose:
                print(f"explained by the older expat: {label[:100]}")
            return
        mismatches += 1
        if shown < limit:
            shown += 1
            print(f"MISMATCH {label}")
            if isinstance(a, list) and isinstance(b, list):
                i, x, y = first_diff(a, b)
                print(f"   at #{i}\n   real: {short(x)}\n   mine: {short(y)}")
            else:
                print(f"   real: {short(a)}\n   mine: {short(b)}")

    # 1. + 2. handler calls and errors
    cases = event_cases()
    n_events = 0
    for label, chunks, opts in cases:
        if only and only not in label:
            continue
        n_events += 1
        a = record(real, chunks, opts)
        try:
            b = record(mine, chunks, opts)
        except Exception:
            import traceback

            b = ["CRASH", traceback.format_exc()]
        if a != b:
            report("events " + label, a, b)
    for data in PLISTS + [make_big(50000).encode("utf-8")]:
        n_events += 1
        a = record_file(real, data, {})
        b = record_file(mine, data, {})
        if a != b:
            report(f"ParseFile {data[:50]!r}", a, b)
    # API surface
    n_api = 0
    for label, fn in api_cases():
        if only and only not in label:
            continue
        n_api += 1
        results = []
        for mod in (real, mine):
            try:
                results.append(fn(mod))
            except Exception as e:
                import traceback

                results.append(("EXC", type(e).__name__, str(e)))
                if mod is mine and verbose:
                    traceback.print_exc()
        if results[0] != results[1]:
            report("api " + label, results[0], results[1])
    n_api += 1
    public = sorted(n for n in dir(real) if not n.startswith("_"))
    if public != sorted(n for n in dir(mine) if not n.startswith("_")):
        report("module names", public, sorted(n for n in dir(mine) if not n.startswith("_")))
    for name in ("EXPAT_VERSION", "version_info", "native_encoding"):
        n_api += 1
        if getattr(real, name) != getattr(mine, name):
            report("attribute " + name, getattr(real, name), getattr(mine, name))
    for code in range(1, 45):
        n_api += 1
        if real.ErrorString(code) != mine.ErrorString(code):
            report(f"ErrorString({code})", real.ErrorString(code), mine.ErrorString(code))
    n_api += 1
    if real.errors.codes != mine.errors.codes or real.errors.messages != mine.errors.messages:
        report("errors tables", real.errors.codes, mine.errors.codes)
    for name in dir(real.model):
        if not name.startswith("_"):
            n_api += 1
            if getattr(real.model, name) != getattr(mine.model, name, None):
                report("model." + name, getattr(real.model, name), getattr(mine.model, name, None))
    for name in dir(real.errors):
        if name.startswith("XML_ERROR"):
            n_api += 1
            if getattr(real.errors, name) != getattr(mine.errors, name, None):
                report("errors." + name, getattr(real.errors, name), getattr(mine.errors, name, None))
    rp = real.ParserCreate()
    mp = mine.ParserCreate()
    for name in dir(rp):
        if name.startswith("_"):
            continue
        n_api += 1
        if not hasattr(mp, name):
            report("parser attribute " + name, True, False)
        elif not callable(getattr(rp, name)):
            if getattr(rp, name) != getattr(mp, name):
                report("parser attribute value " + name, getattr(rp, name), getattr(mp, name))

    # 3. libraries
    lcases = [c for c in lib_cases() if not only or only in repr(c[1])[:80]]
    real_res, real_t = run_worker("real", lcases)
    mine_res, mine_t = run_worker("standin", lcases)
    for (kind, doc), a, b in zip(lcases, real_res, mine_res):
        if a != b:
            report(f"{kind} {short(doc, 70)}", a, b)

    size, times = time_parsers(real, mine)
    print()
    print(f"handler-call/error cases: {n_events}")
    print(f"API checks: {n_api}")
    print(f"library cases (ET, minidom, sax, plistlib): {len(lcases)}")
    print(f"mismatches: {mismatches}")
    if expected[0]:
        print(f"differences explained by the older expat {real.EXPAT_VERSION} (not counted): {expected[0]}")
    ratio = times["stand-in"] / times["C expat"]
    print(
        f"timing, {size} bytes, Parse with start/end/data handlers: "
        f"C expat {times['C expat']:.3f}s, stand-in {times['stand-in']:.3f}s (x{ratio:.1f})"
    )
    print(
        f"timing, ET.fromstring (pure-Python TreeBuilder): C expat {real_t:.3f}s, stand-in {mine_t:.3f}s (x{mine_t / real_t:.1f})"
    )
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
