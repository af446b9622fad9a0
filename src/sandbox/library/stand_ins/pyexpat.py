"""Stand-in for the ``pyexpat`` extension module, in pure Python.

Behaves like CPython 3.14's ``pyexpat`` built on expat 2.x for what the
standard library (``xml.etree``, ``xml.dom.minidom``, ``xml.sax``,
``plistlib``) and ordinary code use: the same handler calls with the same
arguments, the same well-formedness errors with the same codes, messages,
line and column numbers (checked against the real module by
tools/pyexpat_check.py).  The tokenizer works on decoded text with compiled
regular expressions over whole spans; slow character-by-character scanning
is only used to locate errors and incomplete tokens.

Not reproduced: when a multi-byte character is cut between two Parse()
calls right where the document goes wrong, expat may report the error one
call earlier (the error itself is the same); an external DTD parsed through
ExternalEntityParserCreate(None) is read like an internal subset
(conditional sections are not understood); the amplification limit (billion
laughs) trips at about, not exactly, the same point; in UTF-16 and 8-bit
documents, expat's extra name characters U+00AA, U+00B5 and U+00BA.
"""

import re as _re
import sys as _sys
import codecs as _codecs

EXPAT_VERSION = 'expat_2.9.0'
version_info = (2, 9, 0)
native_encoding = 'UTF-8'
features = [('sizeof(XML_Char)', 1), ('sizeof(XML_LChar)', 1), ('XML_DTD', 0),
            ('XML_CONTEXT_BYTES', 1024), ('XML_NS', 0),
            ('XML_BLAP_MAX_AMP', 100), ('XML_BLAP_ACT_THRES', 8388608),
            ('XML_GE', 0), ('XML_AT_MAX_AMP', 100),
            ('XML_AT_ACT_THRES', 67108864)]

XML_PARAM_ENTITY_PARSING_NEVER = 0
XML_PARAM_ENTITY_PARSING_UNLESS_STANDALONE = 1
XML_PARAM_ENTITY_PARSING_ALWAYS = 2


class ExpatError(Exception):
    pass


ExpatError.__module__ = 'xml.parsers.expat'
error = ExpatError

_MESSAGES = [
    None,
    'out of memory',
    'syntax error',
    'no element found',
    'not well-formed (invalid token)',
    'unclosed token',
    'partial character',
    'mismatched tag',
    'duplicate attribute',
    'junk after document element',
    'illegal parameter entity reference',
    'undefined entity',
    'recursive entity reference',
    'asynchronous entity',
    'reference to invalid character number',
    'reference to binary entity',
    'reference to external entity in attribute',
    'XML or text declaration not at start of entity',
    'unknown encoding',
    'encoding specified in XML declaration is incorrect',
    'unclosed CDATA section',
    'error in processing external entity reference',
    'document is not standalone',
    'unexpected parser state - please send a bug report',
    'entity declared in parameter entity',
    'requested feature requires XML_DTD support in Expat',
    'cannot change setting once parsing has begun',
    'unbound prefix',
    'must not undeclare prefix',
    'incomplete markup in parameter entity',
    'XML declaration not well-formed',
    'text declaration not well-formed',
    'illegal character(s) in public id',
    'parser suspended',
    'parser not suspended',
    'parsing aborted',
    'parsing finished',
    'cannot suspend in external parameter entity',
    'reserved prefix (xml) must not be undeclared or bound to another '
    'namespace name',
    'reserved prefix (xmlns) must not be declared or undeclared',
    'prefix must not be bound to one of the reserved namespace names',
    'invalid argument',
    'a successful prior call to function XML_GetBuffer is required',
    'limit on input amplification factor (from DTD and entities) breached',
    'parser not started',
]
_ERROR_NAMES = [
    None, 'NO_MEMORY', 'SYNTAX', 'NO_ELEMENTS', 'INVALID_TOKEN',
    'UNCLOSED_TOKEN', 'PARTIAL_CHAR', 'TAG_MISMATCH', 'DUPLICATE_ATTRIBUTE',
    'JUNK_AFTER_DOC_ELEMENT', 'PARAM_ENTITY_REF', 'UNDEFINED_ENTITY',
    'RECURSIVE_ENTITY_REF', 'ASYNC_ENTITY', 'BAD_CHAR_REF',
    'BINARY_ENTITY_REF', 'ATTRIBUTE_EXTERNAL_ENTITY_REF', 'MISPLACED_XML_PI',
    'UNKNOWN_ENCODING', 'INCORRECT_ENCODING', 'UNCLOSED_CDATA_SECTION',
    'EXTERNAL_ENTITY_HANDLING', 'NOT_STANDALONE', 'UNEXPECTED_STATE',
    'ENTITY_DECLARED_IN_PE', 'FEATURE_REQUIRES_XML_DTD',
    'CANT_CHANGE_FEATURE_ONCE_PARSING', 'UNBOUND_PREFIX',
    'UNDECLARING_PREFIX', 'INCOMPLETE_PE', 'XML_DECL', 'TEXT_DECL',
    'PUBLICID', 'SUSPENDED', 'NOT_SUSPENDED', 'ABORTED', 'FINISHED',
    'SUSPEND_PE', 'RESERVED_PREFIX_XML', 'RESERVED_PREFIX_XMLNS',
    'RESERVED_NAMESPACE_URI', 'INVALID_ARGUMENT', 'NO_BUFFER',
    'AMPLIFICATION_LIMIT_BREACH', 'NOT_STARTED',
]

(_E_SYNTAX, _E_NO_ELEMENTS, _E_INVALID_TOKEN, _E_UNCLOSED_TOKEN, _E_PARTIAL_CHAR,
 _E_TAG_MISMATCH, _E_DUPLICATE_ATTRIBUTE, _E_JUNK, _E_PARAM_ENTITY_REF,
 _E_UNDEFINED_ENTITY, _E_RECURSIVE_ENTITY_REF, _E_ASYNC_ENTITY, _E_BAD_CHAR_REF,
 _E_BINARY_ENTITY_REF, _E_ATTRIBUTE_EXTERNAL_ENTITY_REF, _E_MISPLACED_XML_PI,
 _E_UNKNOWN_ENCODING, _E_INCORRECT_ENCODING, _E_UNCLOSED_CDATA_SECTION,
 _E_EXTERNAL_ENTITY_HANDLING, _E_NOT_STANDALONE) = range(2, 23)
_E_ENTITY_DECLARED_IN_PE = 24
_E_CANT_CHANGE = 26
_E_UNBOUND_PREFIX = 27
_E_UNDECLARING_PREFIX = 28
_E_XML_DECL = 30
_E_TEXT_DECL = 31
_E_PUBLICID = 32
_E_FINISHED = 36
_E_RESERVED_PREFIX_XML = 38
_E_RESERVED_PREFIX_XMLNS = 39
_E_RESERVED_NAMESPACE_URI = 40
_E_AMPLIFICATION = 43


def ErrorString(code):
    """Returns string error for given number."""
    if 0 < code < len(_MESSAGES):
        return _MESSAGES[code]
    return None


_module_type = type(_sys)
errors = _module_type('pyexpat.errors')
errors.__doc__ = 'Constants used to describe error conditions.'
errors.codes = {}
errors.messages = {}
for _code in range(1, len(_MESSAGES)):
    setattr(errors, 'XML_ERROR_' + _ERROR_NAMES[_code], _MESSAGES[_code])
    errors.codes[_MESSAGES[_code]] = _code
    errors.messages[_code] = _MESSAGES[_code]
del _code

model = _module_type('pyexpat.model')
model.__doc__ = 'Constants used to interpret content model information.'
model.XML_CTYPE_EMPTY = 1
model.XML_CTYPE_ANY = 2
model.XML_CTYPE_MIXED = 3
model.XML_CTYPE_NAME = 4
model.XML_CTYPE_CHOICE = 5
model.XML_CTYPE_SEQ = 6
model.XML_CQUANT_NONE = 0
model.XML_CQUANT_OPT = 1
model.XML_CQUANT_REP = 2
model.XML_CQUANT_PLUS = 3
_sys.modules.setdefault('pyexpat.errors', errors)
_sys.modules.setdefault('pyexpat.model', model)

# ---------------------------------------------------------------------------
# Character classes.  Expat's name characters outside ASCII follow the
# tables of XML 1.0 (second edition), Appendix B; characters outside the
# BMP are never name characters.

_NS_NONASCII = (
    r'\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u0131\u0134-\u013E\u0141-\u0148'
    r'\u014A-\u017E\u0180-\u01C3\u01CD-\u01F0\u01F4-\u01F5\u01FA-\u0217'
    r'\u0250-\u02A8\u02BB-\u02C1\u0386\u0388-\u038A\u038C\u038E-\u03A1'
    r'\u03A3-\u03CE\u03D0-\u03D6\u03DA\u03DC\u03DE\u03E0\u03E2-\u03F3'
    r'\u0401-\u040C\u040E-\u044F\u0451-\u045C\u045E-\u0481\u0490-\u04C4'
    r'\u04C7-\u04C8\u04CB-\u04CC\u04D0-\u04EB\u04EE-\u04F5\u04F8-\u04F9'
    r'\u0531-\u0556\u0559\u0561-\u0586\u05D0-\u05EA\u05F0-\u05F2\u0621-\u063A'
    r'\u0641-\u064A\u0671-\u06B7\u06BA-\u06BE\u06C0-\u06CE\u06D0-\u06D3\u06D5'
    r'\u06E5-\u06E6\u0905-\u0939\u093D\u0958-\u0961\u0985-\u098C\u098F-\u0990'
    r'\u0993-\u09A8\u09AA-\u09B0\u09B2\u09B6-\u09B9\u09DC-\u09DD\u09DF-\u09E1'
    r'\u09F0-\u09F1\u0A05-\u0A0A\u0A0F-\u0A10\u0A13-\u0A28\u0A2A-\u0A30'
    r'\u0A32-\u0A33\u0A35-\u0A36\u0A38-\u0A39\u0A59-\u0A5C\u0A5E\u0A72-\u0A74'
    r'\u0A85-\u0A8B\u0A8D\u0A8F-\u0A91\u0A93-\u0AA8\u0AAA-\u0AB0\u0AB2-\u0AB3'
    r'\u0AB5-\u0AB9\u0ABD\u0AE0\u0B05-\u0B0C\u0B0F-\u0B10\u0B13-\u0B28'
    r'\u0B2A-\u0B30\u0B32-\u0B33\u0B36-\u0B39\u0B3D\u0B5C-\u0B5D\u0B5F-\u0B61'
    r'\u0B85-\u0B8A\u0B8E-\u0B90\u0B92-\u0B95\u0B99-\u0B9A\u0B9C\u0B9E-\u0B9F'
    r'\u0BA3-\u0BA4\u0BA8-\u0BAA\u0BAE-\u0BB5\u0BB7-\u0BB9\u0C05-\u0C0C'
    r'\u0C0E-\u0C10\u0C12-\u0C28\u0C2A-\u0C33\u0C35-\u0C39\u0C60-\u0C61'
    r'\u0C85-\u0C8C\u0C8E-\u0C90\u0C92-\u0CA8\u0CAA-\u0CB3\u0CB5-\u0CB9\u0CDE'
    r'\u0CE0-\u0CE1\u0D05-\u0D0C\u0D0E-\u0D10\u0D12-\u0D28\u0D2A-\u0D39'
    r'\u0D60-\u0D61\u0E01-\u0E2E\u0E30\u0E32-\u0E33\u0E40-\u0E45\u0E81-\u0E82'
    r'\u0E84\u0E87-\u0E88\u0E8A\u0E8D\u0E94-\u0E97\u0E99-\u0E9F\u0EA1-\u0EA3'
    r'\u0EA5\u0EA7\u0EAA-\u0EAB\u0EAD-\u0EAE\u0EB0\u0EB2-\u0EB3\u0EBD'
    r'\u0EC0-\u0EC4\u0F40-\u0F47\u0F49-\u0F69\u10A0-\u10C5\u10D0-\u10F6\u1100'
    r'\u1102-\u1103\u1105-\u1107\u1109\u110B-\u110C\u110E-\u1112\u113C\u113E'
    r'\u1140\u114C\u114E\u1150\u1154-\u1155\u1159\u115F-\u1161\u1163\u1165'
    r'\u1167\u1169\u116D-\u116E\u1172-\u1173\u1175\u119E\u11A8\u11AB'
    r'\u11AE-\u11AF\u11B7-\u11B8\u11BA\u11BC-\u11C2\u11EB\u11F0\u11F9'
    r'\u1E00-\u1E9B\u1EA0-\u1EF9\u1F00-\u1F15\u1F18-\u1F1D\u1F20-\u1F45'
    r'\u1F48-\u1F4D\u1F50-\u1F57\u1F59\u1F5B\u1F5D\u1F5F-\u1F7D\u1F80-\u1FB4'
    r'\u1FB6-\u1FBC\u1FBE\u1FC2-\u1FC4\u1FC6-\u1FCC\u1FD0-\u1FD3\u1FD6-\u1FDB'
    r'\u1FE0-\u1FEC\u1FF2-\u1FF4\u1FF6-\u1FFC\u2126\u212A-\u212B\u212E'
    r'\u2180-\u2182\u3007\u3021-\u3029\u3041-\u3094\u30A1-\u30FA\u3105-\u312C'
    r'\u4E00-\u9FA5\uAC00-\uD7A3')
_NC_NONASCII = (
    r'\u00B7\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u0131\u0134-\u013E\u0141-\u0148'
    r'\u014A-\u017E\u0180-\u01C3\u01CD-\u01F0\u01F4-\u01F5\u01FA-\u0217'
    r'\u0250-\u02A8\u02BB-\u02C1\u02D0-\u02D1\u0300-\u0345\u0360-\u0361'
    r'\u0386-\u038A\u038C\u038E-\u03A1\u03A3-\u03CE\u03D0-\u03D6\u03DA\u03DC'
    r'\u03DE\u03E0\u03E2-\u03F3\u0401-\u040C\u040E-\u044F\u0451-\u045C'
    r'\u045E-\u0481\u0483-\u0486\u0490-\u04C4\u04C7-\u04C8\u04CB-\u04CC'
    r'\u04D0-\u04EB\u04EE-\u04F5\u04F8-\u04F9\u0531-\u0556\u0559\u0561-\u0586'
    r'\u0591-\u05A1\u05A3-\u05B9\u05BB-\u05BD\u05BF\u05C1-\u05C2\u05C4'
    r'\u05D0-\u05EA\u05F0-\u05F2\u0621-\u063A\u0640-\u0652\u0660-\u0669'
    r'\u0670-\u06B7\u06BA-\u06BE\u06C0-\u06CE\u06D0-\u06D3\u06D5-\u06E8'
    r'\u06EA-\u06ED\u06F0-\u06F9\u0901-\u0903\u0905-\u0939\u093C-\u094D'
    r'\u0951-\u0954\u0958-\u0963\u0966-\u096F\u0981-\u0983\u0985-\u098C'
    r'\u098F-\u0990\u0993-\u09A8\u09AA-\u09B0\u09B2\u09B6-\u09B9\u09BC'
    r'\u09BE-\u09C4\u09C7-\u09C8\u09CB-\u09CD\u09D7\u09DC-\u09DD\u09DF-\u09E3'
    r'\u09E6-\u09F1\u0A02\u0A05-\u0A0A\u0A0F-\u0A10\u0A13-\u0A28\u0A2A-\u0A30'
    r'\u0A32-\u0A33\u0A35-\u0A36\u0A38-\u0A39\u0A3C\u0A3E-\u0A42\u0A47-\u0A48'
    r'\u0A4B-\u0A4D\u0A59-\u0A5C\u0A5E\u0A66-\u0A74\u0A81-\u0A83\u0A85-\u0A8B'
    r'\u0A8D\u0A8F-\u0A91\u0A93-\u0AA8\u0AAA-\u0AB0\u0AB2-\u0AB3\u0AB5-\u0AB9'
    r'\u0ABC-\u0AC5\u0AC7-\u0AC9\u0ACB-\u0ACD\u0AE0\u0AE6-\u0AEF\u0B01-\u0B03'
    r'\u0B05-\u0B0C\u0B0F-\u0B10\u0B13-\u0B28\u0B2A-\u0B30\u0B32-\u0B33'
    r'\u0B36-\u0B39\u0B3C-\u0B43\u0B47-\u0B48\u0B4B-\u0B4D\u0B56-\u0B57'
    r'\u0B5C-\u0B5D\u0B5F-\u0B61\u0B66-\u0B6F\u0B82-\u0B83\u0B85-\u0B8A'
    r'\u0B8E-\u0B90\u0B92-\u0B95\u0B99-\u0B9A\u0B9C\u0B9E-\u0B9F\u0BA3-\u0BA4'
    r'\u0BA8-\u0BAA\u0BAE-\u0BB5\u0BB7-\u0BB9\u0BBE-\u0BC2\u0BC6-\u0BC8'
    r'\u0BCA-\u0BCD\u0BD7\u0BE7-\u0BEF\u0C01-\u0C03\u0C05-\u0C0C\u0C0E-\u0C10'
    r'\u0C12-\u0C28\u0C2A-\u0C33\u0C35-\u0C39\u0C3E-\u0C44\u0C46-\u0C48'
    r'\u0C4A-\u0C4D\u0C55-\u0C56\u0C60-\u0C61\u0C66-\u0C6F\u0C82-\u0C83'
    r'\u0C85-\u0C8C\u0C8E-\u0C90\u0C92-\u0CA8\u0CAA-\u0CB3\u0CB5-\u0CB9'
    r'\u0CBE-\u0CC4\u0CC6-\u0CC8\u0CCA-\u0CCD\u0CD5-\u0CD6\u0CDE\u0CE0-\u0CE1'
    r'\u0CE6-\u0CEF\u0D02-\u0D03\u0D05-\u0D0C\u0D0E-\u0D10\u0D12-\u0D28'
    r'\u0D2A-\u0D39\u0D3E-\u0D43\u0D46-\u0D48\u0D4A-\u0D4D\u0D57\u0D60-\u0D61'
    r'\u0D66-\u0D6F\u0E01-\u0E2E\u0E30-\u0E3A\u0E40-\u0E4E\u0E50-\u0E59'
    r'\u0E81-\u0E82\u0E84\u0E87-\u0E88\u0E8A\u0E8D\u0E94-\u0E97\u0E99-\u0E9F'
    r'\u0EA1-\u0EA3\u0EA5\u0EA7\u0EAA-\u0EAB\u0EAD-\u0EAE\u0EB0-\u0EB9'
    r'\u0EBB-\u0EBD\u0EC0-\u0EC4\u0EC6\u0EC8-\u0ECD\u0ED0-\u0ED9\u0F18-\u0F19'
    r'\u0F20-\u0F29\u0F35\u0F37\u0F39\u0F3E-\u0F47\u0F49-\u0F69\u0F71-\u0F84'
    r'\u0F86-\u0F8B\u0F90-\u0F95\u0F97\u0F99-\u0FAD\u0FB1-\u0FB7\u0FB9'
    r'\u10A0-\u10C5\u10D0-\u10F6\u1100\u1102-\u1103\u1105-\u1107\u1109'
    r'\u110B-\u110C\u110E-\u1112\u113C\u113E\u1140\u114C\u114E\u1150'
    r'\u1154-\u1155\u1159\u115F-\u1161\u1163\u1165\u1167\u1169\u116D-\u116E'
    r'\u1172-\u1173\u1175\u119E\u11A8\u11AB\u11AE-\u11AF\u11B7-\u11B8\u11BA'
    r'\u11BC-\u11C2\u11EB\u11F0\u11F9\u1E00-\u1E9B\u1EA0-\u1EF9\u1F00-\u1F15'
    r'\u1F18-\u1F1D\u1F20-\u1F45\u1F48-\u1F4D\u1F50-\u1F57\u1F59\u1F5B\u1F5D'
    r'\u1F5F-\u1F7D\u1F80-\u1FB4\u1FB6-\u1FBC\u1FBE\u1FC2-\u1FC4\u1FC6-\u1FCC'
    r'\u1FD0-\u1FD3\u1FD6-\u1FDB\u1FE0-\u1FEC\u1FF2-\u1FF4\u1FF6-\u1FFC'
    r'\u20D0-\u20DC\u20E1\u2126\u212A-\u212B\u212E\u2180-\u2182\u3005\u3007'
    r'\u3021-\u302F\u3031-\u3035\u3041-\u3094\u3099-\u309A\u309D-\u309E'
    r'\u30A1-\u30FA\u30FC-\u30FE\u3105-\u312C\u4E00-\u9FA5\uAC00-\uD7A3')

_NMSTRT = r'A-Za-z_' + _NS_NONASCII           # without ':'
_NMCHAR = r'A-Za-z_\-.0-9' + _NC_NONASCII      # without ':'
_INV = r'\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff'
_S = r'[ \t\r\n]'

_NAME = r'[%s:][%s:]*' % (_NMSTRT, _NMCHAR)
_QNAME = r'[%s][%s]*(?::[%s][%s]*)?' % (_NMSTRT, _NMCHAR, _NMSTRT, _NMCHAR)

_name_re = _re.compile(_NAME)
_inv_search = _re.compile(r'[%s]' % _INV).search
_pubid_bad = _re.compile(r"[^a-zA-Z0-9 \r\n\-'()+,./:=?;!*#@$_%]").search

_DATA_CH = r'[^<&\]\r\n%s]' % _INV
_data_match = _re.compile(
    r'%s*(?:\](?:(?=[^\]])|(?=\][^>]))%s*)*' % (_DATA_CH, _DATA_CH)).match
_cdata_match = _re.compile(r'[^\]\r\n%s]+' % _INV).match
_run_match = _re.compile(
    r'(?:[^<&\]\r%s]|\r(?=[\s\S])|\](?=[^\]])|\](?=\][^>]))*' % _INV).match


def _tag_regexes(name):
    att = (r'%s+(%s)%s*=%s*(?:"([^<"%s]*)"|\'([^<\'%s]*)\')'
           % (_S, name, _S, _S, _INV, _INV))
    stag = _re.compile(r'<(%s)((?:%s+%s%s*=%s*(?:"[^<"%s]*"|\'[^<\'%s]*\'))*)'
                      r'%s*(/?)>' % (name, _S, name, _S, _S, _INV, _INV, _S))
    etag = _re.compile(r'</(%s)%s*>' % (name, _S))
    att = _re.compile(att)
    return stag.match, etag.match, att.finditer, att.findall


_STAG, _ETAG, _ATTS, _ATTS_ALL = _tag_regexes(_NAME)
_NS_STAG, _NS_ETAG, _NS_ATTS, _NS_ATTS_ALL = _tag_regexes(_QNAME)
_TEXT = r'[^<&\]%s]*' % _INV


def _master(name):
    """Text, then an end tag, a start tag (with, for an element holding
    only text, that text and the end tag after it), a comment or a
    predefined entity reference.  Groups: text, end tag name, start tag
    name, attributes, '/' of an empty element, text after the start tag,
    name of the end tag after it, comment, entity name."""
    return _re.compile(
        r'(%s)(?:<(?:/(%s)%s*>|(%s)((?:%s+%s%s*=%s*(?:"[^<"%s]*"|\'[^<\'%s]*\'))*)'
        r'%s*(?:(/)>|>(?:(%s)</(%s)%s*>)?)|!--([^-%s]*(?:-[^-%s]+)*)-->)|'
        r'&(lt|gt|amp|quot|apos);)'
        % (_TEXT, name, _S, name, _S, name, _S, _S, _INV, _INV, _S, _TEXT,
           name, _S, _INV, _INV)).match


_fast_refs = _re.compile(
    r'&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9a-fA-F]{1,6}));')


_fast_refs_subn = _fast_refs.subn
# attribute text that needs more than splitting into names and values
_attr_plain = _re.compile(r'[&\t\n\r]').search


def _fast_ref(m):
    name = m.group(1)
    if name is not None:
        return _PREDEF[name]
    ch = _char_ref_value(m.group(2), m.group(3))
    if ch is None:
        raise ValueError
    return ch


_MASTER = _master(_NAME)
_NS_MASTER = _master(_QNAME)
_piece_iter = _re.compile(r'\r\n|\r|\n|[^\r\n]+').finditer

_ref_finder = _re.compile(
    r'&(?:#([0-9]+)|#x([0-9a-fA-F]+)|(%s));' % _NAME).match
_spaces_match = _re.compile(r'[ \t\n]*(?:\r(?=[\s\S])[ \t\n]*)*').match
_ws_chars = ' \t\r\n'

_PREDEF = {'lt': '<', 'gt': '>', 'amp': '&', 'quot': '"', 'apos': "'"}

_XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace'
_XMLNS_NAMESPACE = 'http://www.w3.org/2000/xmlns/'

# Byte types of ASCII characters, as expat's tokenizer classifies them.
_ASCII_TYPES = {}
for _c in range(0x80):
    _ch = chr(_c)
    if _ch.isalpha() or _ch == '_':
        _t = 'HEX' if _ch in 'abcdefABCDEF' else 'NMSTRT'
    elif _ch.isdigit():
        _t = 'DIGIT'
    else:
        _t = {' ': 'S', '\t': 'S', '\r': 'CR', '\n': 'LF', '!': 'EXCL',
              '"': 'QUOT', '#': 'NUM', '%': 'PERCNT', '&': 'AMP',
              "'": 'APOS', '(': 'LPAR', ')': 'RPAR', '*': 'AST',
              '+': 'PLUS', ',': 'COMMA', '-': 'MINUS', '.': 'NAME',
              '/': 'SOL', ':': 'COLON', ';': 'SEMI', '<': 'LT',
              '=': 'EQUALS', '>': 'GT', '?': 'QUEST', '[': 'LSQB',
              ']': 'RSQB', '|': 'VERBAR'}.get(_ch)
        if _t is None:
            _t = 'NONXML' if _c < 0x20 else 'OTHER'
    _ASCII_TYPES[_ch] = _t
del _c, _ch, _t
_is_nonascii_nmstrt = _re.compile(r'[%s]' % _NS_NONASCII).match
_is_nonascii_nmchar = _re.compile(r'[%s]' % _NC_NONASCII).match


def _ctype(c, ns):
    """Expat's byte type of character ``c``."""
    t = _ASCII_TYPES.get(c)
    if t is not None:
        if t == 'COLON' and not ns:
            return 'NMSTRT'
        return t
    if _is_nonascii_nmstrt(c):
        return 'NMSTRT'
    if _is_nonascii_nmchar(c):
        return 'NAME'
    o = ord(c)
    if 0xD800 <= o <= 0xDFFF or o in (0xFFFE, 0xFFFF):
        return 'NONXML'
    return 'OTHER'


_NMSTRT_T = frozenset(('NMSTRT', 'HEX'))
_NMCHAR_T = frozenset(('NMSTRT', 'HEX', 'DIGIT', 'NAME', 'MINUS'))
_SPACE_T = frozenset(('S', 'CR', 'LF'))


class _Partial(Exception):
    """A token runs past the end of the available text."""


class _Entity(object):
    __slots__ = ('name', 'text', 'systemId', 'publicId', 'notation', 'base',
                 'is_param', 'is_internal', 'open')

    def __init__(self, name, is_param):
        self.name = name
        self.is_param = is_param
        self.text = None
        self.systemId = None
        self.publicId = None
        self.notation = None
        self.base = None
        self.is_internal = True
        self.open = False


class _ParseError(Exception):
    def __init__(self, code, pos):
        self.code = code
        self.pos = pos


# ---------------------------------------------------------------------------
# Scanners that follow expat's tokenizer character by character.  They are
# used for the rare cases the fast regular expressions do not cover: to
# tell an incomplete token from a malformed one and to find the offending
# character.  Each returns (token, next) like expat; token 'PARTIAL' means
# more text is needed, 'INVALID' means ``next`` is the offending character.

def _scan_name(s, p, end, ns, mode='q'):
    """Scan name characters from p; returns (stop, error_pos).  In
    namespace mode ``mode`` says what a colon may do: 'q' one colon
    between two name parts, 'nc' none, 'any' anywhere."""
    had_colon = False
    while p < end:
        t = _ctype(s[p], ns)
        if t in _NMCHAR_T:
            p += 1
        elif t == 'COLON':
            if mode == 'any':
                p += 1
                continue
            if mode == 'nc' or had_colon:
                return p, p
            had_colon = True
            p += 1
            if p >= end:
                raise _Partial
            if _ctype(s[p], ns) not in _NMSTRT_T:
                return p, p
            p += 1
        else:
            return p, None
    raise _Partial


def _scan_ref(s, p, end, ns):
    """After '&'.  Returns ('ENTITY_REF'|'CHAR_REF'|'INVALID', next)."""
    if p >= end:
        raise _Partial
    t = _ctype(s[p], ns)
    if t == 'NUM':
        p += 1
        if p >= end:
            raise _Partial
        if s[p] == 'x':
            p += 1
            if p >= end:
                raise _Partial
            if not s[p] in '0123456789abcdefABCDEF':
                return 'INVALID', p
            p += 1
            while p < end:
                c = s[p]
                if c == ';':
                    return 'CHAR_REF', p + 1
                if c not in '0123456789abcdefABCDEF':
                    return 'INVALID', p
                p += 1
            raise _Partial
        if not s[p].isdigit() or not s[p].isascii():
            return 'INVALID', p
        p += 1
        while p < end:
            c = s[p]
            if c == ';':
                return 'CHAR_REF', p + 1
            if not ('0' <= c <= '9'):
                return 'INVALID', p
            p += 1
        raise _Partial
    if t not in _NMSTRT_T:
        return 'INVALID', p
    p += 1
    stop, bad = _scan_name(s, p, end, ns, 'nc')
    if bad is not None:
        return 'INVALID', bad
    if s[stop] == ';':
        return 'ENTITY_REF', stop + 1
    return 'INVALID', stop


def _scan_comment(s, p, end):
    """After '<!-'."""
    if p >= end:
        raise _Partial
    if s[p] != '-':
        return 'INVALID', p
    p += 1
    j = s.find('--', p, end)
    m = _inv_search(s, p, end if j < 0 else j)
    if m:
        return 'INVALID', m.start()
    if j < 0:
        raise _Partial
    if j + 2 >= end:
        raise _Partial
    if s[j + 2] != '>':
        return 'INVALID', j + 2
    return 'COMMENT', j + 3


def _scan_pi(s, p, end, ns):
    """After '<?'.  Returns ('PI'|'XML_DECL'|'INVALID', next)."""
    if p >= end:
        raise _Partial
    if _ctype(s[p], ns) not in _NMSTRT_T:
        return 'INVALID', p
    target = p
    p += 1
    stop, bad = _scan_name(s, p, end, ns, 'nc')
    if bad is not None:
        return 'INVALID', bad
    p = stop
    t = _ctype(s[p], ns)
    name = s[target:p]
    tok = 'PI'
    if len(name) == 3 and name.lower() == 'xml':
        if name != 'xml':
            if t in _SPACE_T or t == 'QUEST':
                return 'INVALID', p
        tok = 'XML_DECL'
    if t in _SPACE_T:
        p += 1
        while True:
            j = s.find('?>', p, end)
            m = _inv_search(s, p, end if j < 0 else j)
            if m:
                return 'INVALID', m.start()
            if j < 0:
                raise _Partial
            return tok, j + 2
    if t == 'QUEST':
        p += 1
        if p >= end:
            raise _Partial
        if s[p] == '>':
            return tok, p + 1
        return 'INVALID', p
    return 'INVALID', p


def _scan_lt(s, p, end, ns):
    """Content token starting with '<' at p.  Returns (token, next, atts)
    with token one of STAG, EMPTY, ETAG, COMMENT, CDATA_OPEN, PI, XML_DECL,
    INVALID; atts is a list of (name, name_pos, value, value_pos)."""
    q = p + 1
    if q >= end:
        raise _Partial
    t = _ctype(s[q], ns)
    if t == 'EXCL':
        q += 1
        if q >= end:
            raise _Partial
        c = s[q]
        if c == '-':
            tok, nxt = _scan_comment(s, q + 1, end)
            return tok, nxt, None
        if c == '[':
            q += 1
            if q + 6 > end:
                raise _Partial
            for i, ch in enumerate('CDATA['):
                if s[q + i] != ch:
                    return 'INVALID', q + i, None
            return 'CDATA_OPEN', q + 6, None
        return 'INVALID', q, None
    if t == 'QUEST':
        tok, nxt = _scan_pi(s, q + 1, end, ns)
        return tok, nxt, None
    if t == 'SOL':
        q += 1
        if q >= end:
            raise _Partial
        if _ctype(s[q], ns) not in _NMSTRT_T:
            return 'INVALID', q, None
        stop, bad = _scan_name(s, q + 1, end, ns, 'any')
        if bad is not None:
            return 'INVALID', bad, None
        q = stop
        while q < end:
            t = _ctype(s[q], ns)
            if t == 'GT':
                return 'ETAG', q + 1, None
            if t not in _SPACE_T:
                return 'INVALID', q, None
            q += 1
        raise _Partial
    if t not in _NMSTRT_T:
        return 'INVALID', q, None
    stop, bad = _scan_name(s, q + 1, end, ns)
    if bad is not None:
        return 'INVALID', bad, None
    q = stop
    atts = []
    while True:
        # q is just after the element name or after an attribute value
        t = _ctype(s[q], ns)
        if t == 'GT':
            return 'STAG', q + 1, atts
        if t == 'SOL':
            q += 1
            if q >= end:
                raise _Partial
            if s[q] != '>':
                return 'INVALID', q, None
            return 'EMPTY', q + 1, atts
        if t not in _SPACE_T:
            return 'INVALID', q, None
        while True:
            q += 1
            if q >= end:
                raise _Partial
            t = _ctype(s[q], ns)
            if t not in _SPACE_T:
                break
        if t == 'GT':
            return 'STAG', q + 1, atts
        if t == 'SOL':
            q += 1
            if q >= end:
                raise _Partial
            if s[q] != '>':
                return 'INVALID', q, None
            return 'EMPTY', q + 1, atts
        if t not in _NMSTRT_T:
            return 'INVALID', q, None
        # attribute name
        npos = q
        stop, bad = _scan_name(s, q + 1, end, ns)
        if bad is not None:
            return 'INVALID', bad, None
        q = stop
        name = s[npos:q]
        t = _ctype(s[q], ns)
        if t in _SPACE_T:
            while True:
                q += 1
                if q >= end:
                    raise _Partial
                t = _ctype(s[q], ns)
                if t == 'EQUALS':
                    break
                if t not in _SPACE_T:
                    return 'INVALID', q, None
        if t != 'EQUALS':
            return 'INVALID', q, None
        q += 1
        while True:
            if q >= end:
                raise _Partial
            c = s[q]
            if c == '"' or c == "'":
                break
            if c not in _ws_chars:
                return 'INVALID', q, None
            q += 1
        quote = c
        q += 1
        vpos = q
        while True:
            if q >= end:
                raise _Partial
            c = s[q]
            if c == quote:
                break
            if c == '<':
                return 'INVALID', q, None
            if c == '&':
                tok, nxt = _scan_ref(s, q + 1, end, ns)
                if tok == 'INVALID':
                    return 'INVALID', nxt, None
                q = nxt
                continue
            if _ctype(c, ns) == 'NONXML':
                return 'INVALID', q, None
            q += 1
        atts.append((name, npos, s[vpos:q], vpos))
        q += 1
        if q >= end:
            raise _Partial


def _char_ref_value(digits, hexdigits):
    """Character for a character reference, or None if not allowed."""
    if hexdigits is not None:
        if len(hexdigits) > 8:
            return None
        n = int(hexdigits, 16)
    else:
        if len(digits) > 9:
            return None
        n = int(digits)
    if n >= 0x110000:
        return None
    if n < 0x20:
        if n not in (9, 10, 13):
            return None
    elif 0xD800 <= n <= 0xDFFF or n in (0xFFFE, 0xFFFF):
        return None
    return chr(n)


_charref_re = _re.compile(r'&#(?:([0-9]+)|x([0-9a-fA-F]+));')


def _prolog_tok(s, p, end, ns, latin1=False):
    """Expat's prolog tokenizer.  Returns (token, next); token names follow
    expat's XML_TOK_*; a leading '-' marks a token cut by the end of the
    text (which may continue).  ``latin1``: the input is not UTF-8, so
    letters up to U+00FF count as ASCII ones do in declaration keywords."""
    if p >= end:
        return 'NONE', p
    c = s[p]
    t = _ctype(c, ns)
    try:
        if t == 'QUOT' or t == 'APOS':
            j = s.find(c, p + 1, end)
            m = _inv_search(s, p + 1, end if j < 0 else j)
            if m:
                return 'INVALID', m.start()
            if j < 0:
                return 'PARTIAL', p
            q = j + 1
            if q >= end:
                return '-LITERAL', q
            if s[q] in ' \t\r\n>%[':
                return 'LITERAL', q
            return 'INVALID', q
        if t == 'LT':
            q = p + 1
            if q >= end:
                return 'PARTIAL', p
            t2 = _ctype(s[q], ns)
            if t2 == 'EXCL':
                q += 1
                if q >= end:
                    return 'PARTIAL', p
                t3 = _ctype(s[q], ns)
                if t3 == 'MINUS':
                    return _scan_comment(s, q + 1, end)
                if t3 == 'LSQB':
                    return 'COND_SECT_OPEN', q + 1
                if t3 not in _NMSTRT_T or (s[q] >= '\x80' and not (
                        latin1 and s[q] < '\u0100')):
                    return 'INVALID', q
                q += 1
                while q < end:
                    t3 = _ctype(s[q], ns)
                    if t3 == 'PERCNT':
                        if q + 1 >= end:
                            return 'PARTIAL', p
                        if _ctype(s[q + 1], ns) in ('S', 'CR', 'LF',
                                                    'PERCNT'):
                            return 'INVALID', q
                        return 'DECL_OPEN', q
                    if t3 in _SPACE_T:
                        return 'DECL_OPEN', q
                    if t3 not in _NMSTRT_T or (s[q] >= '\x80' and not (
                            latin1 and s[q] < '\u0100')):
                        return 'INVALID', q
                    q += 1
                return 'PARTIAL', p
            if t2 == 'QUEST':
                return _scan_pi(s, q + 1, end, ns)
            if t2 in _NMSTRT_T or s[q] >= '\x80':
                return 'INSTANCE_START', p
            return 'INVALID', q
        if t == 'CR':
            if p + 1 == end:
                return '-PROLOG_S', end
            t = 'S'
        if t == 'S' or t == 'LF':
            q = _spaces_match(s, p + 1, end).end()
            if q < end and s[q] == '\r' and q + 1 == end:
                return 'PROLOG_S', q
            while q < end:
                c2 = s[q]
                if c2 == ' ' or c2 == '\t' or c2 == '\n':
                    q += 1
                elif c2 == '\r':
                    if q + 1 != end:
                        q += 1
                    else:
                        return 'PROLOG_S', q
                else:
                    return 'PROLOG_S', q
            return 'PROLOG_S', q
        if t == 'PERCNT':
            q = p + 1
            if q >= end:
                return 'PARTIAL', p
            t2 = _ctype(s[q], ns)
            if t2 in ('S', 'LF', 'CR', 'PERCNT'):
                return 'PERCENT', q
            if t2 not in _NMSTRT_T:
                return 'INVALID', q
            stop, bad = _scan_name(s, q + 1, end, ns, 'nc')
            if bad is not None:
                return 'INVALID', bad
            if s[stop] == ';':
                return 'PARAM_ENTITY_REF', stop + 1
            return 'INVALID', stop
        if t == 'COMMA':
            return 'COMMA', p + 1
        if t == 'LSQB':
            return 'OPEN_BRACKET', p + 1
        if t == 'RSQB':
            q = p + 1
            if q >= end:
                return '-CLOSE_BRACKET', q
            if s[q] == ']':
                if q + 2 > end:
                    return 'PARTIAL', p
                if s[q + 1] == '>':
                    return 'COND_SECT_CLOSE', q + 2
            return 'CLOSE_BRACKET', q
        if t == 'LPAR':
            return 'OPEN_PAREN', p + 1
        if t == 'RPAR':
            q = p + 1
            if q >= end:
                return '-CLOSE_PAREN', q
            t2 = _ctype(s[q], ns)
            if t2 == 'AST':
                return 'CLOSE_PAREN_ASTERISK', q + 1
            if t2 == 'QUEST':
                return 'CLOSE_PAREN_QUESTION', q + 1
            if t2 == 'PLUS':
                return 'CLOSE_PAREN_PLUS', q + 1
            if t2 in ('CR', 'LF', 'S', 'GT', 'COMMA', 'VERBAR', 'RPAR'):
                return 'CLOSE_PAREN', q
            return 'INVALID', q
        if t == 'VERBAR':
            return 'OR', p + 1
        if t == 'GT':
            return 'DECL_CLOSE', p + 1
        if t == 'NUM':
            q = p + 1
            if q >= end:
                return 'PARTIAL', p
            if _ctype(s[q], ns) not in _NMSTRT_T:
                return 'INVALID', q
            q += 1
            while q < end:
                t2 = _ctype(s[q], ns)
                if t2 in _NMCHAR_T:
                    q += 1
                elif t2 in ('CR', 'LF', 'S', 'RPAR', 'GT', 'PERCNT',
                            'VERBAR'):
                    return 'POUND_NAME', q
                else:
                    return 'INVALID', q
            return '-POUND_NAME', q
        if t in _NMSTRT_T:
            tok = 'NAME'
        elif t in ('DIGIT', 'NAME', 'MINUS'):
            tok = 'NMTOKEN'
        elif t == 'COLON':
            tok = 'NMTOKEN'
        else:
            return 'INVALID', p
        q = p + 1
        while q < end:
            t2 = _ctype(s[q], ns)
            if t2 in _NMCHAR_T:
                q += 1
            elif t2 in ('GT', 'RPAR', 'COMMA', 'VERBAR', 'LSQB', 'PERCNT',
                        'S', 'CR', 'LF'):
                return tok, q
            elif t2 == 'COLON':
                # only in namespace mode
                q += 1
                if tok == 'NAME':
                    if q >= end:
                        return 'PARTIAL', p
                    tok = 'PREFIXED_NAME'
                    if _ctype(s[q], ns) in _NMCHAR_T:
                        q += 1
                    else:
                        tok = 'NMTOKEN'
                elif tok == 'PREFIXED_NAME':
                    tok = 'NMTOKEN'
            elif t2 == 'PLUS':
                if tok == 'NMTOKEN':
                    return 'INVALID', q
                return 'NAME_PLUS', q + 1
            elif t2 == 'AST':
                if tok == 'NMTOKEN':
                    return 'INVALID', q
                return 'NAME_ASTERISK', q + 1
            elif t2 == 'QUEST':
                if tok == 'NMTOKEN':
                    return 'INVALID', q
                return 'NAME_QUESTION', q + 1
            else:
                return 'INVALID', q
        return '-' + tok, q
    except _Partial:
        return 'PARTIAL', p


def _normalize_pubid(s):
    return ' '.join(x for x in _re.split('[ \r\n\t]+', s) if x)


def _normalize_newlines(s):
    if '\r' in s:
        return s.replace('\r\n', '\n').replace('\r', '\n')
    return s


_bad_decl_byte = _re.compile(br'[\x00-\x08\x0b\x0c\x0e-\x1f]').search

_KNOWN_ENCODINGS = {
    'UTF-8': 'utf-8', 'UTF-16': 'utf-16', 'UTF-16BE': 'utf-16-be',
    'UTF-16LE': 'utf-16-le', 'ISO-8859-1': 'latin-1', 'US-ASCII': 'ascii'}


def _invalid_bytes_handler(exc):
    if isinstance(exc, UnicodeDecodeError):
        return '\uffff', exc.end
    raise exc


try:
    _codecs.lookup_error('pyexpat-invalid')
except LookupError:
    _codecs.register_error('pyexpat-invalid', _invalid_bytes_handler)


class _SingleByteDecoder(object):
    """Decoder for an encoding that maps each byte to one character, as
    pyexpat's unknown encoding handler builds it."""

    def __init__(self, table):
        self.table = table

    def decode(self, data, final=False):
        return bytes(data).decode('latin-1').translate(self.table)

    def getstate(self):
        return (b'', 0)


def _single_byte_table(name):
    """Translation table for a Python codec usable by expat as an unknown
    single-byte encoding; None if it is not one, 'lookup' if there is no
    such codec."""
    try:
        _codecs.lookup(name)
    except LookupError:
        return 'lookup'
    try:
        u = bytes(range(256)).decode(name, 'replace')
    except Exception:
        return None
    if len(u) != 256:
        return None
    table = {}
    for i, ch in enumerate(u):
        if ch == '\ufffd':
            ch = '\uffff'
        if ord(ch) != i:
            table[i] = ch
    return table


def _utf8_chunks(s):
    """s cut into the largest pieces of at most 1024 bytes of UTF-8."""
    if len(s) <= 256:
        return (s,)
    if s.isascii():
        return [s[i:i + 1024] for i in range(0, len(s), 1024)]
    out = []
    start = 0
    n = 0
    for i, ch in enumerate(s):
        o = ord(ch)
        w = 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
        if n + w > 1024:
            out.append(s[start:i])
            start = i
            n = 0
        n += w
    out.append(s[start:])
    return out


def _utf8_len(s):
    if s.isascii():
        return len(s)
    return len(s.encode('utf-8', 'surrogatepass'))


# ---------------------------------------------------------------------------
# The parser.

_HANDLER_NAMES = (
    'StartElementHandler', 'EndElementHandler',
    'ProcessingInstructionHandler', 'CharacterDataHandler',
    'UnparsedEntityDeclHandler', 'NotationDeclHandler',
    'StartNamespaceDeclHandler', 'EndNamespaceDeclHandler',
    'CommentHandler', 'StartCdataSectionHandler', 'EndCdataSectionHandler',
    'DefaultHandler', 'DefaultHandlerExpand', 'NotStandaloneHandler',
    'ExternalEntityRefHandler', 'StartDoctypeDeclHandler',
    'EndDoctypeDeclHandler', 'EntityDeclHandler', 'XmlDeclHandler',
    'ElementDeclHandler', 'AttlistDeclHandler', 'SkippedEntityHandler',
)

_AMP_THRESHOLD = 8388608
_AMP_FACTOR = 100.0


class XMLParserType(object):
    """XML parser"""

    def __init__(self, encoding=None, namespace_separator=None, intern=None,
                 _parent=None, _context=None):
        for name in _HANDLER_NAMES:
            object.__setattr__(self, '_' + name, None)
        self._dflt = None            # the effective default handler
        self._expand = True          # expat's defaultExpandInternalEntities
        self._buffer_text = False
        self._buffer_size = 8192
        self._tbuf = []
        self._tlen = 0
        self.ordered_attributes = False
        self.specified_attributes = False
        self._ns_triplets = False
        self._intern = intern
        self._ns = namespace_separator is not None
        self._sep = namespace_separator or ''
        self._proto = encoding
        self._decoder = None
        self._enc_kind = 'utf-8'
        self._raw = b''
        self._enc_error = None
        self._text_mode = False
        self._buf = ''
        self._pos = 0
        self._evpos = None
        self._posptr = None
        self._started = False
        self._finished = False
        self._error = None
        self._error_code = 0
        self._error_pos = None
        self._pchar = False
        self._partial_before = 0
        self._deferral = True
        self._base = None
        self._param_entity_parsing = 0
        self._use_foreign_dtd = False
        self._in_callback = False
        # position trackers (buffer coordinates)
        self._lc_pos = 0
        self._lc_line = 0
        self._lc_col = 0
        self._b_line = 0
        self._b_col = 0
        self._b_cr = False
        self._bt_pos = 0
        self._bt_bytes = 0
        self._b_bytes = 0
        # document state
        self._stack = []
        self._nsmap = {None: [None], 'xml': [_XML_NAMESPACE]}
        self._proc = 'prolog'
        self._pstate = 'prolog0'
        self._amp_direct = 0
        self._amp_indirect = 0
        # DTD
        self._gents = {}
        self._pents = {}
        self._eltypes = {}
        self._tokenized = set()
        self._notations = {}
        self._has_pe_refs = False
        self._standalone = False
        self._keep_processing = True
        self._dt_name = None
        self._dt_sysid = None
        self._dt_pubid = None
        self._decl_ent = None
        self._decl_not_name = None
        self._decl_not_pubid = None
        self._in_eldecl = False
        self._el_name = None
        self._scaffold = None
        self._group_conn = []
        self._level = 0
        self._att_el = None
        self._att_name = None
        self._att_type = None
        self._att_cdata = False
        self._att_id = False
        self._ext_entity = False
        if _parent is not None:
            self._init_child(_parent, _context)

    # ----- handler attributes -------------------------------------------

    def _set_handler(self, name, value):
        if name == 'CharacterDataHandler':
            self._flush()
        object.__setattr__(self, '_' + name, value)
        if name == 'DefaultHandler':
            self._dflt = value
            self._expand = False
        elif name == 'DefaultHandlerExpand':
            self._dflt = value
            self._expand = True

    @property
    def buffer_text(self):
        return self._buffer_text

    @buffer_text.setter
    def buffer_text(self, value):
        value = bool(value)
        if not value:
            self._flush()
        self._buffer_text = value

    @property
    def buffer_size(self):
        return self._buffer_size

    @buffer_size.setter
    def buffer_size(self, value):
        if not isinstance(value, int):
            raise TypeError('buffer_size must be an integer')
        if value <= 0:
            raise ValueError('buffer_size must be greater than zero')
        if value > 2147483647:
            raise ValueError('buffer_size must not be greater than %d'
                             % 2147483647)
        if self._buffer_text and value != self._buffer_size:
            self._flush()
        self._buffer_size = value

    @property
    def buffer_used(self):
        return self._tlen if self._buffer_text else 0

    @property
    def namespace_prefixes(self):
        return self._ns_triplets

    @namespace_prefixes.setter
    def namespace_prefixes(self, value):
        self._ns_triplets = bool(value)

    @property
    def intern(self):
        return self._intern

    @property
    def ErrorCode(self):
        return self._error_code

    @property
    def ErrorLineNumber(self):
        if self._error is not None:
            return self._err_lc[0] + 1
        return self._linecol(self._line_pos())[0] + 1

    @property
    def ErrorColumnNumber(self):
        if self._error is not None:
            return self._err_lc[1]
        return self._linecol(self._line_pos())[1]

    @property
    def ErrorByteIndex(self):
        p = self._cur_pos()
        if p is None:
            return -1
        return self._byte_index(p)

    def _line_pos(self):
        p = self._cur_pos()
        q = self._posptr
        if p is None or (q is not None and p < q and
                         self._error_pos is None):
            return q
        return p

    CurrentLineNumber = ErrorLineNumber
    CurrentColumnNumber = ErrorColumnNumber
    CurrentByteIndex = ErrorByteIndex

    def _cur_pos(self):
        if self._error_pos is not None:
            return self._error_pos
        return self._evpos

    # ----- methods --------------------------------------------------------

    def SetParamEntityParsing(self, flag):
        if self._started:
            return 0
        self._param_entity_parsing = flag
        return 1

    def UseForeignDTD(self, flag=True):
        if self._started:
            self._raise(_E_CANT_CHANGE, None)
        self._use_foreign_dtd = bool(flag)

    def GetReparseDeferralEnabled(self):
        return self._deferral

    def SetReparseDeferralEnabled(self, enabled):
        self._deferral = bool(enabled)

    def SetBase(self, base):
        self._base = base

    def GetBase(self):
        return self._base

    def GetInputContext(self):
        """Return the untranslated text of the input that caused the
        current event."""
        if not self._in_callback or self._evpos is None:
            return None
        text = self._buf[self._evpos:]
        kind = self._enc_kind
        if kind == 'utf-16':
            return text.encode(self._decoder_name, 'surrogatepass')
        if kind == 'single' and self._decoder is not None and \
                not self._text_mode:
            try:
                return text.encode(self._decoder_name)
            except Exception:
                pass
        return text.encode('utf-8', 'surrogatepass')

    def SetAllocTrackerActivationThreshold(self, threshold):
        return None

    def SetAllocTrackerMaximumAmplification(self, factor):
        return None

    def SetBillionLaughsAttackProtectionActivationThreshold(self, threshold):
        return None

    def SetBillionLaughsAttackProtectionMaximumAmplification(self, factor):
        return None

    def ExternalEntityParserCreate(self, context, encoding=None):
        child = XMLParserType(encoding, self._sep if self._ns else None,
                              self._intern, _parent=self, _context=context)
        return child

    def _init_child(self, parent, context):
        for name in _HANDLER_NAMES:
            object.__setattr__(self, '_' + name,
                               object.__getattribute__(parent, '_' + name))
        self._dflt = parent._dflt
        self._expand = parent._expand
        self._buffer_text = parent._buffer_text
        self._buffer_size = parent._buffer_size
        self.ordered_attributes = parent.ordered_attributes
        self.specified_attributes = parent.specified_attributes
        self._ns_triplets = parent._ns_triplets
        self._gents = parent._gents
        self._pents = parent._pents
        self._eltypes = parent._eltypes
        self._tokenized = parent._tokenized
        self._notations = parent._notations
        self._has_pe_refs = parent._has_pe_refs
        self._standalone = parent._standalone
        self._base = parent._base
        self._param_entity_parsing = parent._param_entity_parsing
        self._deferral = parent._deferral
        self._ext_entity = True
        self._parent = parent
        if context is None:
            self._proc = 'extsubset'
            self._pstate = 'extsubset0'
        else:
            self._proc = 'extcontent'
            if self._ns:
                for k, v in parent._nsmap.items():
                    if v and v[-1] is not None:
                        self._nsmap[k] = [v[-1]]

    def Parse(self, data, isfinal=False):
        """Parse XML data.  isfinal should be true at end of input."""
        if self._error is not None and self._error_code != _E_FINISHED:
            self._repeat_error()
        if self._finished:
            self._finished_error()
        if not self._started and self._decoder is None and not self._raw \
                and not self._ext_entity and data:
            if not isfinal and len(data) == 1 and \
                    data in ('\x00', '<', b'\x00', b'<'):
                # expat needs a second byte to look for UTF-16
                if isinstance(data, str):
                    data = data.encode('ascii')
                    if self._proto is None:
                        self._proto = 'utf-8'
                self._raw = bytes(data)
                self._text_mode = False
                self._evpos = self._posptr = 0
                self._partial_before = 1
                return 1
            self._nul_quirk(data)
        if self._proc == 'extsubset' and not self._started:
            self._parent._param_entity_read = True
        if isinstance(data, str):
            if not self._started and self._decoder is None and \
                    not self._raw:
                self._text_mode = True
                self._enc_kind = 'utf-8'
            if self._text_mode:
                text = data
            else:
                text = self._decode(data.encode('utf-8', 'surrogatepass'),
                                    isfinal)
        else:
            if isinstance(data, (bytes, bytearray)):
                pass
            else:
                data = memoryview(data).tobytes()
            if self._text_mode:
                # expat switches to the bytes; treat them as UTF-8
                text = data.decode('utf-8', 'pyexpat-invalid')
            elif self._decoder is None and self._deferral and not isfinal \
                    and self._partial_before and \
                    len(self._raw) + len(data) < 2 * self._partial_before:
                # the encoding is not known yet, and expat would not even
                # look again before the input has doubled
                self._raw += data
                self._evpos = self._posptr = self._pos
                return 1
            else:
                text = self._decode(data, isfinal)
        if text is None:
            if not isfinal:
                if self._raw.startswith(b'\xef\xbb\xbf') and not self._buf:
                    # expat takes in a byte order mark before anything else
                    self._raw = self._raw[3:]
                    self._buf = '\ufeff'
                    self._pos = 1
                    self._bom_done = True
                    self._started = True
                self._evpos = self._posptr = self._pos
                self._partial_before = len(self._raw)
                return 1
            text = ''
        if not self._started:
            if text:
                self._started = True
        if isfinal:
            self._started = True
        buf = self._buf
        pos = self._pos
        if pos and (pos == len(buf) or pos > 65536):
            self._rebase(pos)
            buf = self._buf
            pos = 0
        if text:
            buf = buf + text if buf else text
            self._buf = buf
        if isfinal:
            self._finished = True
        if self._deferral and not isfinal and self._partial_before:
            # expat's heuristic: do not retry an incomplete token before the
            # unparsed input has doubled
            if self._pending_bytes(pos) < 2 * self._partial_before:
                self._evpos = self._posptr = pos
                return 1
        self._posptr = pos
        self._in_callback = True
        try:
            self._run(bool(isfinal))
            if isfinal and self._pchar:
                raise _ParseError(_E_UNCLOSED_TOKEN if self._pchar == 'odd'
                                  else _E_PARTIAL_CHAR, self._pos)
        except _ParseError as e:
            self._in_callback = False
            self._fail(e)
        except BaseException:
            # a handler raised: expat stops at the end of that token
            self._in_callback = False
            self._finished = True
            self._abort_pos = self._token_end(self._evpos)
            self._error_code = 0
            raise
        self._in_callback = False
        if not isfinal:
            if self._pos == pos:
                self._partial_before = self._pending_bytes(pos)
            else:
                self._partial_before = 0
        if not isfinal:
            self._posptr = self._pos
            if self._evpos is None:
                self._evpos = self._pos
            # expat brings its position up to date at the end of each call
            self._linecol(self._pos)
        if self._tbuf:
            self._flush()
        return 1

    def ParseFile(self, file):
        """Parse XML data from file-like object."""
        read = getattr(file, 'read', None)
        if read is None:
            raise TypeError("argument must have 'read' attribute")
        while True:
            data = read(2048)
            if not isinstance(data, (bytes, bytearray)):
                raise TypeError(
                    'read() did not return a bytes object (type=%.400s)'
                    % type(data).__name__)
            if len(data) > 2048:
                raise ValueError(
                    'read() returned too much data: %i bytes requested, %d '
                    'returned' % (2048, len(data)))
            self.Parse(data, not data)
            if not data:
                return 1

    # ----- errors and positions -----------------------------------------

    def _fail(self, e):
        code = e.code
        pos = e.pos
        if pos is None:
            pos = self._evpos if self._evpos is not None else self._pos
        self._error_code = code
        self._error_pos = pos
        self._finished = True
        line, col = self._linecol(pos)
        self._err_lc = (line, col)
        start = self._posptr if self._posptr is not None else 0
        self._err_span = self._buf[min(start, pos):pos]
        self._raise_error()

    def _raise_error(self):
        code = self._error_code
        line, col = self._err_lc
        err = ExpatError('%s: line %d, column %d'
                         % (_MESSAGES[code], line + 1, col))
        err.code = code
        err.offset = col
        err.lineno = line + 1
        self._error = err
        raise err

    def _finished_error(self):
        if self._error is None:
            p = self._pos if self._abort_pos is None else self._abort_pos
            if self._evpos is not None and self._abort_pos is None:
                p = self._evpos
            line, col = self._linecol(p)
            self._err_lc = (line, col)
            self._error_pos = p
        self._error_code = _E_FINISHED
        self._raise_error()

    def _repeat_error(self):
        """Parse after an error: expat reports the error again, its
        position moved on by the text from the start of the failed call
        to the error once more."""
        line, col = self._err_lc
        span = self._err_span
        n = span.count('\n') + span.count('\r') - span.count('\r\n')
        if n:
            last = max(span.rfind('\n'), span.rfind('\r'))
            line += n
            col = len(span) - last - 1
        else:
            col += len(span)
        self._err_lc = (line, col)
        self._raise_error()

    def _token_end(self, p):
        """End of the token at p (after a handler raised)."""
        s = self._buf
        if p is None or p >= len(s):
            return p
        try:
            c = s[p]
            if c == '<':
                if self._proc in ('prolog', 'epilog'):
                    tok, q = _prolog_tok(s, p, len(s), self._ns)
                    return q if tok not in ('PARTIAL', 'INVALID') else p
                tok, q, atts = _scan_lt(s, p, len(s), self._ns)
                return q
            if c == '&':
                tok, q = _scan_ref(s, p + 1, len(s), self._ns)
                return q
            if c == '\r':
                return p + 2 if s[p + 1:p + 2] == '\n' else p + 1
            if c == '\n':
                return p + 1
            m = _data_match(s, p)
            return max(m.end(), p + 1)
        except _Partial:
            return p

    _abort_pos = None
    _err_lc = (0, 0)
    _err_span = ''

    def _raise(self, code, pos):
        self._fail(_ParseError(code, pos))

    def _rebase(self, pos):
        """Drop the consumed text before ``pos``."""
        buf = self._buf
        line, col = self._linecol(pos)
        self._b_bytes = self._byte_index(pos)
        self._b_line = line
        self._b_col = col
        self._b_cr = pos > 0 and buf[pos - 1] == '\r'
        self._buf = buf[pos:]
        self._pos -= pos
        self._lc_pos = 0
        self._lc_line = line
        self._lc_col = col
        self._bt_pos = 0
        self._bt_bytes = self._b_bytes
        if self._evpos is not None:
            self._evpos = max(0, self._evpos - pos)
        if self._posptr is not None:
            self._posptr = max(0, self._posptr - pos)

    def _linecol(self, p):
        """(0-based line, column) of buffer position p."""
        if p is None:
            p = self._pos
        buf = self._buf
        # Like expat, a CR and an LF on either side of a point the position
        # was brought up to count as two line breaks.
        if p >= self._lc_pos:
            a, line, col = self._lc_pos, self._lc_line, self._lc_col
        else:
            a, line, col = 0, self._b_line, self._b_col
        if p > a:
            seg = buf[a:p]
            n = seg.count('\n')
            r = seg.count('\r')
            if n or r:
                breaks = n + r
                if r and n:
                    breaks -= seg.count('\r\n')
                last = max(seg.rfind('\n'), seg.rfind('\r'))
                line += breaks
                col = len(seg) - last - 1
            else:
                col += len(seg)
            if p > self._lc_pos:
                self._lc_pos, self._lc_line, self._lc_col = p, line, col
        return line, col

    def _width(self, s):
        kind = self._enc_kind
        if kind == 'utf-8':
            return _utf8_len(s)
        if kind == 'utf-16':
            n = len(s)
            if not s.isascii():
                n += sum(1 for ch in s if ord(ch) > 0xFFFF)
            return 2 * n
        return len(s)

    def _byte_index(self, p):
        if p >= self._bt_pos:
            b = self._bt_bytes + self._width(self._buf[self._bt_pos:p])
            self._bt_pos, self._bt_bytes = p, b
            return b
        return self._b_bytes + self._width(self._buf[:p])

    # ----- decoding -------------------------------------------------------

    def _decode(self, data, final):
        """Decode input bytes; returns text or None when more bytes are
        needed to choose the encoding."""
        if self._decoder is not None:
            text = self._decoder.decode(data, False)
            if final:
                self._check_partial_char()
            return text
        raw = self._raw + data
        choice = self._choose_encoding(raw, final)
        if choice is None:
            self._raw = raw
            return None
        self._raw = b''
        name, skip = choice
        if not self._buf:
            self._b_bytes = self._bt_bytes = skip
            self._bt_pos = 0
        if isinstance(name, dict):
            self._decoder = _SingleByteDecoder(name)
            self._enc_kind = 'single'
            self._decoder_name = 'latin-1'
        else:
            self._decoder_name = name
            self._decoder = _codecs.getincrementaldecoder(name)(
                'pyexpat-invalid')
            self._enc_kind = ('utf-16' if name.startswith('utf-16') else
                              'utf-8' if name == 'utf-8' else 'single')
        self._set_convert()
        text = self._decoder.decode(raw[skip:], False)
        if final:
            self._check_partial_char()
        return text

    def _nul_quirk(self, data):
        """Expat looks at the first two bytes of a document even when the
        encoding is known: a zero byte there means UTF-16."""
        if isinstance(data, str):
            head = data[:2].encode('utf-8', 'surrogatepass')[:2]
        else:
            head = bytes(data[:2])
        if len(head) == 2 and (head[0] == 0 or head[1] == 0) and \
                head != b'\xff\xfe':
            name = 'utf-16-be' if head[0] == 0 else 'utf-16-le'
            self._decoder = _codecs.getincrementaldecoder(name)(
                'pyexpat-invalid')
            self._decoder_name = name
            self._enc_kind = 'utf-16'
            self._convert = True
            self._text_mode = False
            if isinstance(data, str) and self._proto is None:
                self._proto = 'utf-8'

    _decoder_name = 'utf-8'

    def _pending_bytes(self, pos):
        """Bytes of input not consumed yet (from pos on)."""
        n = self._width(self._buf[pos:]) if pos < len(self._buf) else 0
        if self._decoder is not None:
            try:
                n += len(self._decoder.getstate()[0])
            except Exception:
                pass
        return n

    def _pending_partial_char(self):
        try:
            return bool(self._decoder.getstate()[0])
        except Exception:
            return False

    def _check_partial_char(self):
        try:
            state = self._decoder.getstate()
        except Exception:
            return
        if state and state[0]:
            # UTF-16 with an odd byte left: expat sees an incomplete token
            self._pchar = 'odd' if (self._enc_kind == 'utf-16' and
                                    len(state[0]) % 2) else True

    def _choose_encoding(self, raw, final):
        proto = self._proto
        if proto is not None:
            up = proto.upper()
            name = _KNOWN_ENCODINGS.get(up)
            if name != 'utf-16' and not self._buf and len(raw) >= 2 and \
                    (raw[0] == 0 or raw[1] == 0) and raw[:2] != b'\xff\xfe':
                return ('utf-16-be' if raw[0] == 0 else 'utf-16-le'), 0
            if name == 'utf-16':
                if raw[:2] == b'\xff\xfe':
                    return 'utf-16-le', 0
                if raw[:2] == b'\xfe\xff':
                    return 'utf-16-be', 0
                if len(raw) < 2 and not final:
                    return None
                return 'utf-16-be', 0
            if name is not None:
                return name, 0
            table = _single_byte_table(proto)
            if table == 'lookup':
                raise LookupError('unknown encoding: %s' % proto)
            if table is None:
                self._finished = True
                self._evpos = 0
                self._raise(_E_UNKNOWN_ENCODING, 0)
            return table, 0
        if not final:
            # expat needs two bytes to look for a byte order mark or a
            # zero byte, three for a UTF-8 byte order mark
            if not raw or (len(raw) == 1 and raw[0] in b'\x00<\xfe\xff\xef') \
                    or raw == b'\xef\xbb':
                return None
        b2 = raw[:2]
        if self._buf:
            # a UTF-8 byte order mark came first
            b2 = b''
        if b2 == b'\xfe\xff':
            return 'utf-16-be', 0
        if b2 == b'\xff\xfe':
            return 'utf-16-le', 0
        if raw[:3] == b'\xef\xbb\xbf':
            skip = 3
        else:
            skip = 0
            if len(b2) == 2 and b2[0] == 0:
                return 'utf-16-be', 0
            if len(b2) == 2 and b2[1] == 0:
                return 'utf-16-le', 0
        head = raw[skip:]
        skip = 0
        if head.startswith(b'<?xml') and (len(head) == 5 or
                                          head[5] in b' \t\r\n'):
            end = head.find(b'?>')
            if end < 0:
                # expat would already see a character that is not allowed
                if not final and len(head) < 4096 and \
                        not _bad_decl_byte(head):
                    return None
                return 'utf-8', skip
            m = _re.search(br'''encoding[ \t\r\n]*=[ \t\r\n]*["']'''
                          br'''([A-Za-z][A-Za-z0-9._\-]*)["']''', head[:end])
            if m:
                ename = m.group(1).decode('ascii')
                name = _KNOWN_ENCODINGS.get(ename.upper())
                if name is None:
                    table = _single_byte_table(ename)
                    if table == 'lookup':
                        self._enc_error = ('lookup', ename)
                        return 'utf-8', skip
                    if table is None:
                        self._enc_error = (_E_UNKNOWN_ENCODING, ename)
                        return 'utf-8', skip
                    return table, skip
                if name.startswith('utf-16'):
                    self._enc_error = (_E_INCORRECT_ENCODING, ename)
                    return 'utf-8', skip
                return name, skip
            return 'utf-8', skip
        if not final and b'<?xml'.startswith(head):
            return None
        return 'utf-8', skip

    # ----- character data buffering ---------------------------------------

    def _flush(self):
        tbuf = self._tbuf
        if tbuf:
            data = tbuf[0] if len(tbuf) == 1 else ''.join(tbuf)
            self._tbuf = []
            self._tlen = 0
            h = self._CharacterDataHandler
            if h is not None:
                h(data)

    def _data(self, s):
        """Report character data (the handler is known to be set)."""
        if not self._buffer_text:
            self._CharacterDataHandler(s)
            return
        n = len(s) if s.isascii() else _utf8_len(s)
        if self._tlen + n > self._buffer_size:
            self._flush()
            if self._CharacterDataHandler is None:
                return
        if n > self._buffer_size:
            self._CharacterDataHandler(s)
            self._tlen = 0
        else:
            self._tbuf.append(s)
            self._tlen += n

    def _default(self, s):
        if self._tbuf:
            self._flush()
        if self._convert and not self._open_internal:
            # Expat converts such input to UTF-8 through a 1024-byte
            # buffer, a piece at a time, and leaves the event position at
            # the end of what it reported.
            for piece in _utf8_chunks(s):
                h = self._dflt
                if h is not None:
                    h(piece)
                if self._evpos is not None:
                    self._evpos += len(piece)
            return
        self._dflt(s)

    _convert = False

    def _set_convert(self):
        self._convert = not self._text_mode and (
            self._enc_kind == 'utf-16' or (self._enc_kind == 'single' and
                                           self._decoder_name != 'ascii'))

    def _conv_data(self, text, pos, doc):
        """Character data of non-UTF-8 input: expat reports it in pieces
        of at most 1024 bytes of UTF-8."""
        for piece in _utf8_chunks(text):
            if doc and pos is not None:
                self._evpos = pos
            cd = self._CharacterDataHandler
            if cd is None:
                return
            if self._buffer_text:
                self._data(piece)
            else:
                cd(piece)
            if pos is not None:
                pos += len(piece)

    def _name(self, s):
        d = self._intern
        if d is None:
            return s
        return d.setdefault(s, s)

    def _icall(self, h, args, which):
        """h(*args), the arguments at indexes ``which`` interned the way
        pyexpat's C code does it: right to left."""
        d = self._intern
        if d is not None:
            args = list(args)
            for i in reversed(which):
                a = args[i]
                args[i] = d.setdefault(a, a)
        return h(*args)


    # ----- driver ---------------------------------------------------------

    def _run(self, final):
        while True:
            proc = self._proc
            if proc == 'extcontent' and self._ext_init:
                if not self._ext_text_decl(final):
                    return
                continue
            if proc == 'content' or proc == 'extcontent':
                buf = self._buf
                pos = self._content(buf, self._pos, len(buf), final, 0,
                                    False)
                self._pos = pos
                if self._proc == proc:
                    return
            elif proc == 'prolog' or proc == 'extsubset':
                if not self._prolog(final):
                    return
            elif proc == 'cdata':
                buf = self._buf
                pos = self._cdata(buf, self._pos, len(buf), final, True)
                if pos is None:
                    return
                self._pos = pos
                self._proc = 'content'
            elif proc == 'epilog':
                self._epilog(final)
                return
            else:
                return

    _ext_init = True

    def _ext_text_decl(self, final):
        """Start of an external parsed entity: a byte order mark and a text
        declaration may come first."""
        buf = self._buf
        pos = self._pos
        end = len(buf)
        if pos < end and buf[pos] == '\ufeff' and not self._bom_done:
            pos += 1
        self._bom_done = True
        self._evpos = pos
        if buf.startswith('<?', pos) or (not final and
                                         '<?xml'.startswith(buf[pos:end])):
            try:
                tok, q = _scan_pi(buf, pos + 2, end, self._ns)
            except _Partial:
                if not final:
                    self._pos = pos
                    return False
                tok = None
            if tok == 'XML_DECL':
                self._xml_decl(buf, pos, q, True)
                pos = q
        self._pos = pos
        self._ext_init = False
        return True

    def _incomplete(self, code, pos, doc):
        """Error for text that ends inside a token at the end of input."""
        if doc and self._pchar:
            code = _E_UNCLOSED_TOKEN if self._pchar == 'odd' else \
                _E_PARTIAL_CHAR
        raise _ParseError(code, pos if doc else None)

    # ----- content --------------------------------------------------------

    def _content(self, s, pos, end, final, level0, in_ent):
        """Parse content s[pos:end]; returns where parsing stopped."""
        stack = self._stack
        ns = self._ns
        if ns:
            stag, etag, ref_match = _NS_STAG, _NS_ETAG, _ns_ref_finder
        else:
            stag, etag, ref_match = _STAG, _ETAG, _ref_finder
        data_match = _data_match
        run_match = _run_match
        doc = not in_ent
        ext = self._ext_entity
        fast_start = self._fast_start
        fast = self._fast
        convert = self._convert and doc
        while True:
            if pos < end and not convert:
                pos = fast(s, pos, end, level0, doc)
                if self._proc == 'epilog':
                    return pos
            if doc:
                self._evpos = pos
            if pos >= end:
                if not final:
                    return pos
                if in_ent or ext:
                    if len(stack) != level0:
                        raise _ParseError(_E_ASYNC_ENTITY, end if doc else None)
                    return pos
                self._incomplete(_E_NO_ELEMENTS, pos, doc)
            c = s[pos]
            if c == '<':
                c1 = s[pos + 1] if pos + 1 < end else ''
                if c1 == '/':
                    m = etag(s, pos, end)
                    if m is not None:
                        q = m.end()
                        name = m.group(1)
                        if len(stack) > level0:
                            top = stack[-1]
                            if top[0] == name and top[2] is None:
                                stack.pop()
                                h = self._EndElementHandler
                                if h is not None:
                                    if self._tbuf:
                                        self._flush()
                                    h(self._name(top[1]))
                                elif self._dflt is not None:
                                    self._default(s[pos:q])
                                pos = q
                                if not stack and doc and not ext:
                                    self._evpos = pos
                                    self._proc = 'epilog'
                                    return pos
                                continue
                        self._end_tag(name, s, pos, q, level0, doc)
                        pos = q
                        if not stack and doc and not ext:
                            self._evpos = pos
                            self._proc = 'epilog'
                            return pos
                        continue
                elif c1 == '!':
                    if s.startswith('<!--', pos):
                        j = s.find('--', pos + 4, end)
                        if 0 <= j < end - 2 and s[j + 2] == '>' and \
                                not _inv_search(s, pos + 4, j):
                            self._comment(s, pos, j + 3)
                            pos = j + 3
                            continue
                elif c1 != '?':
                    m = stag(s, pos, end)
                    if m is not None:
                        q = m.end()
                        name, attstr, empty = m.groups()
                        if not fast_start(name, attstr, empty, m, 2, s, pos,
                                          q, doc):
                            if m.group(2):
                                atts = []
                                for am in (_NS_ATTS if ns else _ATTS)(
                                        s, m.start(2), m.end(2)):
                                    g = am.lastindex
                                    atts.append((am.group(1), am.start(1),
                                                 am.group(g), am.start(g)))
                            else:
                                atts = ()
                            self._start_tag(m.group(1), atts, m.group(3), s,
                                            pos, q, doc)
                        pos = q
                        if not stack and doc and not ext:
                            self._evpos = pos
                            self._proc = 'epilog'
                            return pos
                        continue
                # slow path
                try:
                    tok, q, atts = _scan_lt(s, pos, end, ns)
                except _Partial:
                    if not final:
                        return pos
                    self._incomplete(_E_UNCLOSED_TOKEN, pos, doc)
                if tok == 'INVALID':
                    raise _ParseError(_E_INVALID_TOKEN, q if doc else None)
                if tok == 'COMMENT':
                    self._comment(s, pos, q)
                elif tok == 'PI':
                    self._pi(s, pos, q)
                elif tok == 'XML_DECL':
                    raise _ParseError(_E_MISPLACED_XML_PI, pos if doc else None)
                elif tok == 'CDATA_OPEN':
                    h = self._StartCdataSectionHandler
                    if h is not None:
                        if self._tbuf:
                            self._flush()
                        h()
                    elif self._dflt is not None:
                        self._default(s[pos:q])
                    r = self._cdata(s, q, end, final, doc)
                    if r is None:
                        self._proc = 'cdata'
                        return self._pos
                    q = r
                elif tok == 'ETAG':
                    name = s[pos + 2:q - 1].rstrip(' \t\r\n')
                    self._end_tag(name, s, pos, q, level0, doc)
                    if not stack and doc and not ext:
                        self._evpos = q
                        self._proc = 'epilog'
                        return q
                else:
                    name = _scan_tag_name(s, pos + 1, ns)
                    self._start_tag(name, atts, tok == 'EMPTY', s, pos, q,
                                    doc)
                    if not stack and doc and not ext:
                        self._evpos = q
                        self._proc = 'epilog'
                        return q
                pos = q
            elif c == '&':
                m = ref_match(s, pos, end)
                if m is None:
                    try:
                        tok, q = _scan_ref(s, pos + 1, end, ns)
                    except _Partial:
                        if not final:
                            return pos
                        self._incomplete(_E_UNCLOSED_TOKEN, pos, doc)
                    if tok == 'INVALID':
                        raise _ParseError(_E_INVALID_TOKEN, q if doc else None)
                    raise _ParseError(_E_INVALID_TOKEN, pos if doc else None)
                q = m.end()
                name = m.group(3)
                if name is not None:
                    ch = _PREDEF.get(name)
                    if ch is not None:
                        if self._CharacterDataHandler is not None:
                            self._data(ch)
                        elif self._dflt is not None:
                            self._default(s[pos:q])
                    else:
                        self._entity_ref(name, s, pos, q, doc)
                else:
                    ch = _char_ref_value(m.group(1), m.group(2))
                    if ch is None:
                        raise _ParseError(_E_BAD_CHAR_REF, pos if doc else None)
                    if self._CharacterDataHandler is not None:
                        self._data(ch)
                    elif self._dflt is not None:
                        self._default(s[pos:q])
                pos = q
            else:
                cd = self._CharacterDataHandler
                if cd is not None and self._buffer_text and not convert:
                    # Buffered text: a run of text with its line breaks
                    # gives the same buffer as expat's pieces, as long as
                    # the buffer does not fill up within the run.
                    m = run_match(s, pos, end)
                    q = m.end()
                    if q > pos:
                        if q < end - 2 and s[q] == ']' and s[q + 1] == ']' \
                                and s[q + 2] == '>':
                            raise _ParseError(_E_INVALID_TOKEN,
                                              q + 2 if doc else None)
                        text = s[pos:q]
                        if '\r' in text:
                            text = text.replace('\r\n', '\n').replace(
                                '\r', '\n')
                        n = len(text) if text.isascii() else _utf8_len(text)
                        if self._tlen + n <= self._buffer_size:
                            self._tbuf.append(text)
                            self._tlen += n
                            pos = q
                            continue
                    # otherwise one piece at a time below
                if c == '\n':
                    if cd is not None:
                        self._data('\n')
                    elif self._dflt is not None:
                        self._default('\n')
                    pos += 1
                    continue
                if c == '\r':
                    if pos + 1 < end:
                        q = pos + 2 if s[pos + 1] == '\n' else pos + 1
                    elif not final:
                        return pos
                    else:
                        # a CR at the very end: expat reports it, then
                        # fails at its position
                        q = pos + 1
                        if cd is not None:
                            self._data('\n')
                        elif self._dflt is not None:
                            self._default(s[pos:q])
                        if not (in_ent or ext):
                            self._incomplete(_E_NO_ELEMENTS, pos, doc)
                        pos = q
                        continue
                    if cd is not None:
                        self._data('\n')
                    elif self._dflt is not None:
                        self._default(s[pos:q])
                    pos = q
                    continue
                m = data_match(s, pos, end)
                q = m.end()
                if q > pos:
                    if q < end - 2 and s[q] == ']' and s[q + 1] == ']' and \
                            s[q + 2] == '>':
                        raise _ParseError(_E_INVALID_TOKEN,
                                          q + 2 if doc else None)
                    if convert and q - pos > 256 and cd is not None:
                        self._conv_data(s[pos:q], pos, doc)
                    elif cd is not None:
                        if self._buffer_text:
                            self._data(s[pos:q])
                        else:
                            cd(s[pos:q])
                    elif self._dflt is not None:
                        self._default(s[pos:q])
                    pos = q
                    continue
                if c == ']':
                    if pos + 2 < end and s[pos + 1] == ']' and \
                            s[pos + 2] == '>':
                        raise _ParseError(_E_INVALID_TOKEN,
                                          pos + 2 if doc else None)
                    # "]" or "]]" cut by the end of the text
                    if not final:
                        return pos
                    if cd is not None:
                        self._data(s[pos:end])
                    elif self._dflt is not None:
                        self._default(s[pos:end])
                    pos = end
                    continue
                raise _ParseError(_E_INVALID_TOKEN, pos if doc else None)

    def _fast(self, s, pos, end, level0, doc):
        """Runs of text followed by a start or end tag, the bulk of most
        documents, matched by one expression each; returns where it
        stopped (at anything else, or after the root element)."""
        stack = self._stack
        ext = self._ext_entity
        ns = self._ns
        match = _NS_MASTER if ns else _MASTER
        nsmap = self._nsmap
        eltypes = self._eltypes
        while True:
            m = match(s, pos, end)
            if m is None:
                return pos
            (text, ename, sname, attstr, empty, leaf, lname, comment,
             ref) = m.groups()
            if text:
                cd = self._CharacterDataHandler
                if cd is not None and self._buffer_text:
                    t = text
                    if '\r' in t:
                        t = t.replace('\r\n', '\n').replace('\r', '\n')
                    n = len(t) if t.isascii() else _utf8_len(t)
                    if self._tlen + n <= self._buffer_size:
                        self._tbuf.append(t)
                        self._tlen += n
                    else:
                        self._pieces(text, pos, doc)
                elif cd is not None or self._dflt is not None:
                    self._pieces(text, pos, doc)
                tpos = pos + len(text)
            else:
                tpos = pos
            if doc:
                self._evpos = tpos
            q = m.end()
            if ref is not None:
                if self._CharacterDataHandler is not None:
                    self._data(_PREDEF[ref])
                elif self._dflt is not None:
                    self._default(s[tpos:q])
                pos = q
                continue
            if comment is not None:
                h = self._CommentHandler
                if h is not None:
                    if self._tbuf:
                        self._flush()
                    h(_normalize_newlines(comment))
                elif self._dflt is not None:
                    self._default(s[tpos:q])
                pos = q
                continue
            if ename is not None:
                top = stack[-1] if len(stack) > level0 else None
                if top is not None and top[0] == ename and top[2] is None:
                    stack.pop()
                    h = self._EndElementHandler
                    if h is not None:
                        tb = self._tbuf
                        if tb:
                            self._tbuf = []
                            self._tlen = 0
                            cd = self._CharacterDataHandler
                            if cd is not None:
                                cd(tb[0] if len(tb) == 1 else ''.join(tb))
                        if self._intern is None:
                            h(top[1])
                        else:
                            h(self._intern.setdefault(top[1], top[1]))
                    elif self._dflt is not None:
                        self._default(s[tpos:q])
                else:
                    self._end_tag(ename, s, tpos, q, level0, doc)
                pos = q
                if not stack and doc and not ext:
                    self._evpos = pos
                    self._proc = 'epilog'
                    return pos
                continue
            # a start tag, ending at qs
            qs = q if leaf is None else m.start(6)
            if not attstr and not (eltypes and sname in eltypes) and \
                    (not ns or ':' not in sname):
                # without attributes
                if ns:
                    uri = nsmap[None][-1]
                    name = sname if uri is None else uri + self._sep + sname
                else:
                    name = sname
                intern = self._intern
                h = self._StartElementHandler
                if h is not None:
                    tb = self._tbuf
                    if tb:
                        self._tbuf = []
                        self._tlen = 0
                        cd = self._CharacterDataHandler
                        if cd is not None:
                            cd(tb[0] if len(tb) == 1 else ''.join(tb))
                    h(name if intern is None else
                      intern.setdefault(name, name),
                      [] if self.ordered_attributes else {})
                if empty:
                    h2 = self._EndElementHandler
                    if h2 is not None:
                        if self._tbuf:
                            self._flush()
                        if h is not None and doc:
                            self._evpos = qs
                        h2(name if intern is None else
                           intern.setdefault(name, name))
                    elif h is None and self._dflt is not None:
                        self._default(s[tpos:qs])
                else:
                    if h is None and self._dflt is not None:
                        self._default(s[tpos:qs])
                    stack.append((sname, name, None))
            elif not self._fast_start(sname, attstr, empty, m, 4, s, tpos,
                                      qs, doc):
                if attstr:
                    atts = []
                    for am in (_NS_ATTS if ns else _ATTS)(
                            s, m.start(4), m.end(4)):
                        g = am.lastindex
                        atts.append((am.group(1), am.start(1),
                                     am.group(g), am.start(g)))
                else:
                    atts = ()
                self._start_tag(sname, atts, empty, s, tpos, qs, doc)
            if leaf is not None:
                # the text of an element holding only text, and its end tag
                if leaf:
                    if doc:
                        self._evpos = qs
                    cd = self._CharacterDataHandler
                    if cd is not None and self._buffer_text:
                        t = leaf
                        if '\r' in t:
                            t = t.replace('\r\n', '\n').replace('\r', '\n')
                        n = len(t) if t.isascii() else _utf8_len(t)
                        if self._tlen + n <= self._buffer_size:
                            self._tbuf.append(t)
                            self._tlen += n
                        else:
                            self._pieces(leaf, qs, doc)
                    elif cd is not None or self._dflt is not None:
                        self._pieces(leaf, qs, doc)
                epos = qs + len(leaf)
                if doc:
                    self._evpos = epos
                top = stack[-1]
                if top[2] is None and top[0] == lname:
                    stack.pop()
                    h = self._EndElementHandler
                    if h is not None:
                        tb = self._tbuf
                        if tb:
                            self._tbuf = []
                            self._tlen = 0
                            cd = self._CharacterDataHandler
                            if cd is not None:
                                cd(tb[0] if len(tb) == 1 else ''.join(tb))
                        if self._intern is None:
                            h(top[1])
                        else:
                            h(self._intern.setdefault(top[1], top[1]))
                    elif self._dflt is not None:
                        self._default(s[epos:q])
                else:
                    self._end_tag(lname, s, epos, q, level0, doc)
            pos = q
            if not stack and doc and not ext:
                self._evpos = pos
                self._proc = 'epilog'
                return pos

    def _pieces(self, text, pos, doc):
        """Report a run of text piece by piece, as expat splits it: each
        line break is a piece of its own."""
        if '\r' in text:
            for mm in _piece_iter(text):
                if doc:
                    self._evpos = pos + mm.start()
                raw = mm.group()
                c = raw[0]
                if self._CharacterDataHandler is not None:
                    self._data('\n' if c == '\r' or c == '\n' else raw)
                elif self._dflt is not None:
                    self._default(raw)
            return
        first = True
        for part in text.split('\n'):
            if first:
                first = False
            else:
                if doc:
                    self._evpos = pos
                cd = self._CharacterDataHandler
                if cd is not None:
                    if self._buffer_text:
                        self._data('\n')
                    else:
                        cd('\n')
                elif self._dflt is not None:
                    self._default('\n')
                pos += 1
            if part:
                if doc:
                    self._evpos = pos
                cd = self._CharacterDataHandler
                if cd is not None:
                    if self._buffer_text:
                        self._data(part)
                    else:
                        cd(part)
                elif self._dflt is not None:
                    self._default(part)
                pos += len(part)

    def _fast_start(self, name, attstr, empty, m, g, s, pos, q, doc):
        """Start tag matched by a fast expression, in the common cases:
        returns False to leave it to _start_tag."""
        if self._eltypes and name in self._eltypes:
            return False
        ns = self._ns
        if attstr and not _attr_plain(attstr) and not (ns and ':' in name):
            # plain attributes: no references, no white space to
            # normalize, no namespace prefix or declaration
            atts = (_NS_ATTS_ALL if ns else _ATTS_ALL)(s, m.start(g),
                                                       m.end(g))
            plain = True
            if len(atts) > 1 and len(set([a[0] for a in atts])) != len(atts):
                plain = False
            elif ns:
                for a in atts:
                    if ':' in a[0] or a[0][:5] == 'xmlns':
                        plain = False
                        break
            h = self._StartElementHandler
            if plain and h is not None:
                intern = self._intern
                if self.ordered_attributes:
                    attrs = []
                    if intern is None:
                        for aname, v1, v2 in atts:
                            attrs.append(aname)
                            attrs.append(v1 or v2)
                    else:
                        for aname, v1, v2 in atts:
                            attrs.append(intern.setdefault(aname, aname))
                            attrs.append(v1 or v2)
                else:
                    attrs = {}
                    if intern is None:
                        for aname, v1, v2 in atts:
                            attrs[aname] = v1 or v2
                    else:
                        for aname, v1, v2 in atts:
                            attrs[intern.setdefault(aname, aname)] = v1 or v2
                if ns:
                    uri = self._nsmap[None][-1]
                    ename = name if uri is None else uri + self._sep + name
                else:
                    ename = name
                if self._tbuf:
                    self._flush()
                h(ename if intern is None else
                  intern.setdefault(ename, ename), attrs)
                if empty:
                    h2 = self._EndElementHandler
                    if h2 is not None:
                        if self._tbuf:
                            self._flush()
                        if doc:
                            self._evpos = q
                        h2(ename if intern is None else
                           intern.setdefault(ename, ename))
                else:
                    self._stack.append((name, ename, None))
                return True
        if attstr:
            atts = (_NS_ATTS_ALL if ns else _ATTS_ALL)(s, m.start(g),
                                                       m.end(g))
            values = []
            for aname, v1, v2 in atts:
                v = v1 or v2
                if '\t' in v or '\n' in v or '\r' in v:
                    v = v.replace('\r\n', ' ').replace('\r', ' ').replace(
                        '\n', ' ').replace('\t', ' ')
                if '&' in v:
                    try:
                        v2, n = _fast_refs_subn(_fast_ref, v)
                    except ValueError:
                        return False
                    if n != v.count('&'):
                        return False
                    v = v2
                values.append((aname, v))
            if len(values) > 1:
                seen = set()
                for aname, v in values:
                    seen.add(aname)
                if len(seen) != len(values):
                    return False
        else:
            values = ()
        if ns:
            if values:
                for aname, v in values:
                    if aname.startswith('xmlns') and (
                            len(aname) == 5 or aname[5] == ':'):
                        return False
                ename, values = self._ns_expand(name, values)
            elif ':' in name:
                ename, values = self._ns_expand(name, values)
            else:
                uri = self._nsmap[None][-1]
                ename = name if uri is None else uri + self._sep + name
        else:
            ename = name
        intern = self._intern
        h = self._StartElementHandler
        if h is not None:
            if values:
                if self.ordered_attributes:
                    attrs = []
                    if intern is None:
                        for k, v in values:
                            attrs.append(k)
                            attrs.append(v)
                    else:
                        for k, v in values:
                            attrs.append(intern.setdefault(k, k))
                            attrs.append(v)
                else:
                    attrs = {}
                    if intern is None:
                        for k, v in values:
                            attrs[k] = v
                    else:
                        for k, v in values:
                            attrs[intern.setdefault(k, k)] = v
            else:
                attrs = [] if self.ordered_attributes else {}
            if self._tbuf:
                self._flush()
            h(ename if intern is None else intern.setdefault(ename, ename),
              attrs)
        if empty:
            h2 = self._EndElementHandler
            if h2 is not None:
                if self._tbuf:
                    self._flush()
                if h is not None and doc:
                    self._evpos = q
                h2(ename if intern is None else
                   intern.setdefault(ename, ename))
            elif h is None and self._dflt is not None:
                self._default(s[pos:q])
        else:
            if h is None and self._dflt is not None:
                self._default(s[pos:q])
            self._stack.append((name, ename, None))
        return True

    def _cdata(self, s, pos, end, final, doc):
        """Inside a CDATA section; returns the position after ']]>' or None
        when more text is needed (self._pos is then set)."""
        while True:
            if doc:
                self._evpos = pos
            if pos >= end:
                if not final:
                    self._pos = pos
                    return None
                self._incomplete(_E_UNCLOSED_CDATA_SECTION, pos, doc)
            c = s[pos]
            if c == ']':
                if pos + 2 >= end:
                    if pos + 1 < end and s[pos + 1] != ']':
                        m = _cdata_match(s, pos + 1, end)
                        q = m.end() if m else pos + 1
                        self._cdata_chars(s[pos:q], s[pos:q])
                        pos = q
                        continue
                    if not final:
                        self._pos = pos
                        return None
                    self._incomplete(_E_UNCLOSED_CDATA_SECTION, pos, doc)
                if s[pos + 1] == ']':
                    if s[pos + 2] == '>':
                        h = self._EndCdataSectionHandler
                        if h is not None:
                            if self._tbuf:
                                self._flush()
                            h()
                        elif self._dflt is not None:
                            self._default(']]>')
                        return pos + 3
                    self._cdata_chars(']', ']')
                    pos += 1
                    continue
                m = _cdata_match(s, pos + 1, end)
                q = m.end() if m else pos + 1
                self._cdata_chars(s[pos:q], s[pos:q])
                pos = q
            elif c == '\n':
                self._cdata_chars('\n', '\n')
                pos += 1
            elif c == '\r':
                if pos + 1 >= end:
                    if not final:
                        self._pos = pos
                        return None
                    self._incomplete(_E_UNCLOSED_CDATA_SECTION, pos, doc)
                q = pos + 2 if s[pos + 1] == '\n' else pos + 1
                self._cdata_chars('\n', s[pos:q])
                pos = q
            else:
                m = _cdata_match(s, pos, end)
                if m is None:
                    raise _ParseError(_E_INVALID_TOKEN, pos if doc else None)
                q = m.end()
                self._cdata_chars(s[pos:q], s[pos:q])
                pos = q

    def _cdata_chars(self, text, raw):
        if self._CharacterDataHandler is not None:
            if self._convert and len(text) > 256 and not self._open_internal:
                self._conv_data(text, self._evpos, True)
                return
            self._data(text)
        elif self._dflt is not None:
            self._default(raw)

    def _comment(self, s, a, b):
        h = self._CommentHandler
        if h is not None:
            if self._tbuf:
                self._flush()
            h(_normalize_newlines(s[a + 4:b - 3]))
        elif self._dflt is not None:
            self._default(s[a:b])

    def _pi(self, s, a, b):
        h = self._ProcessingInstructionHandler
        if h is not None:
            m = _pi_target(s, a + 2)
            target = m.group()
            p = m.end()
            while s[p] in _ws_chars and p < b - 2:
                p += 1
            if self._tbuf:
                self._flush()
            self._icall(h, (target, _normalize_newlines(s[p:b - 2])), (0,))
        elif self._dflt is not None:
            self._default(s[a:b])

    def _end_tag(self, name, s, pos, q, level0, doc):
        stack = self._stack
        if len(stack) == level0:
            raise _ParseError(_E_ASYNC_ENTITY, pos if doc else None)
        top = stack[-1]
        if name != top[0]:
            raise _ParseError(_E_TAG_MISMATCH, pos + 2 if doc else None)
        stack.pop()
        h = self._EndElementHandler
        if h is not None:
            if self._tbuf:
                self._flush()
            h(self._name(top[1]))
        elif self._dflt is not None:
            self._default(s[pos:q])
        if top[2]:
            self._end_bindings(top[2])

    def _end_bindings(self, bindings):
        nsmap = self._nsmap
        h = self._EndNamespaceDeclHandler
        for prefix in reversed(bindings):
            nsmap[prefix].pop()
            if h is not None:
                if self._tbuf:
                    self._flush()
                h(prefix)
                h = self._EndNamespaceDeclHandler

    # ----- start tags and attributes --------------------------------------

    def _start_tag(self, name, atts, empty, s, pos, q, doc):
        if not empty or not self._ns:
            return self._start_tag2(name, atts, empty, s, pos, q, doc)
        self._pending_bindings = None
        try:
            return self._start_tag2(name, atts, empty, s, pos, q, doc)
        except _ParseError:
            if self._pending_bindings:
                self._end_bindings(self._pending_bindings)
            raise

    _pending_bindings = None

    def _start_tag2(self, name, atts, empty, s, pos, q, doc):
        eltype = self._eltypes.get(name)
        ns = self._ns
        bindings = None
        if atts and doc:
            for aname, npos, raw, vpos in atts:
                if '&' in raw:
                    self._check_refs(raw, vpos)
        if atts or eltype:
            if self._tokenized or ns:
                tokenized = self._tokenized
            else:
                tokenized = None
            values = []
            seen = {}
            for aname, npos, raw, vpos in atts:
                if aname in seen:
                    raise _ParseError(_E_DUPLICATE_ATTRIBUTE,
                                      npos if doc else None)
                seen[aname] = True
                cdata = True
                if tokenized and aname in tokenized and eltype:
                    for d in eltype:
                        if d[0] == aname:
                            cdata = d[2]
                            break
                if cdata and ('&' not in raw) and not (
                        '\t' in raw or '\n' in raw or '\r' in raw):
                    value = raw
                else:
                    value = self._attr_value(raw, vpos if doc else None,
                                             cdata, False)
                if ns and (aname == 'xmlns' or aname.startswith('xmlns:')):
                    if bindings is None:
                        bindings = self._pending_bindings = []
                    self._add_binding(aname[6:] or None, value, bindings)
                    continue
                values.append((aname, value))
            nspecified = len(values)
            if eltype:
                for aname, value, cdata in eltype:
                    if value is None or aname in seen:
                        continue
                    seen[aname] = True
                    if ns and (aname == 'xmlns' or
                               aname.startswith('xmlns:')):
                        if bindings is None:
                            bindings = self._pending_bindings = []
                        self._add_binding(aname[6:] or None, value, bindings)
                        continue
                    values.append((aname, value))
        else:
            values = ()
            nspecified = 0
        if ns:
            ename, values = self._ns_expand(name, values)
        else:
            ename = name
        stack = self._stack
        h = self._StartElementHandler
        if h is not None:
            if values:
                if self.specified_attributes:
                    values = values[:nspecified]
                if self.ordered_attributes:
                    attrs = []
                    for k, v in values:
                        attrs.append(self._name(k))
                        attrs.append(v)
                else:
                    attrs = {}
                    for k, v in values:
                        attrs[self._name(k)] = v
            else:
                attrs = [] if self.ordered_attributes else {}
            if self._tbuf:
                self._flush()
            h(self._name(ename), attrs)
        if empty:
            h2 = self._EndElementHandler
            if h2 is not None:
                if self._tbuf:
                    self._flush()
                if h is not None and doc:
                    self._evpos = q
                h2(self._name(ename))
            elif h is None and self._dflt is not None:
                self._default(s[pos:q])
            if bindings:
                self._end_bindings(bindings)
        else:
            if h is None and self._dflt is not None:
                self._default(s[pos:q])
            stack.append((name, ename, bindings or None))

    def _check_refs(self, raw, vpos):
        ref_match = _ns_ref_finder if self._ns else _ref_finder
        p = raw.find('&')
        n = len(raw)
        while p >= 0:
            m = ref_match(raw, p)
            if m is None:
                try:
                    tok, q = _scan_ref(raw, p + 1, n, self._ns)
                except _Partial:
                    q = n
                raise _ParseError(_E_INVALID_TOKEN, vpos + q)
            p = raw.find('&', m.end())

    def _attr_value(self, raw, vpos, cdata, validate):
        """Normalize an attribute value as expat does.  vpos is the position
        of raw in the document (None inside entities)."""
        out = []
        self._append_attr(raw, vpos, cdata, out, validate)
        v = ''.join(out)
        if not cdata and v.endswith(' '):
            v = v[:-1]
        return v

    def _append_attr(self, raw, vpos, cdata, out, validate):
        ns = self._ns
        ref_match = _ns_ref_finder if ns else _ref_finder
        p = 0
        n = len(raw)
        while p < n:
            c = raw[p]
            if c == '&':
                m = ref_match(raw, p)
                if m is None:
                    # only possible for literals in the DTD
                    try:
                        q = _scan_ref(raw, p + 1, n, ns)[1]
                    except _Partial:
                        q = p
                    raise _ParseError(_E_INVALID_TOKEN,
                                      vpos + q if vpos is not None else None)
                q = m.end()
                name = m.group(3)
                if name is None:
                    ch = _char_ref_value(m.group(1), m.group(2))
                    if ch is None:
                        raise _ParseError(_E_BAD_CHAR_REF, vpos + p
                                          if vpos is not None else None)
                    if not cdata and ch == ' ' and (
                            not out or out[-1][-1:] == ' '):
                        pass
                    else:
                        out.append(ch)
                else:
                    ch = _PREDEF.get(name)
                    if ch is not None:
                        out.append(ch)
                    else:
                        self._attr_entity(name, vpos, p, cdata, out)
                p = q
            elif c in _ws_chars:
                if c == '\r' and raw[p + 1:p + 2] == '\n':
                    p += 1
                if cdata or (out and out[-1][-1:] != ' '):
                    out.append(' ')
                p += 1
            else:
                m = _attv_run(raw, p)
                q = m.end() if m is not None else p
                if q == p:
                    raise _ParseError(_E_INVALID_TOKEN, vpos + p
                                      if vpos is not None else None)
                out.append(raw[p:q])
                p = q

    def _attr_entity(self, name, vpos, p, cdata, out):
        ent = self._gents.get(name)
        if self._in_prolog_value:
            check = (not self._open_internal) if self._standalone \
                else not self._has_pe_refs
        else:
            check = not self._has_pe_refs or self._standalone
        if check:
            if ent is None:
                raise _ParseError(_E_UNDEFINED_ENTITY, None)
            if not ent.is_internal:
                raise _ParseError(_E_ENTITY_DECLARED_IN_PE, None)
        elif ent is None:
            return
        if ent.open:
            raise _ParseError(_E_RECURSIVE_ENTITY_REF, None)
        if ent.notation is not None:
            raise _ParseError(_E_BINARY_ENTITY_REF,
                              vpos + p if vpos is not None else None)
        if ent.text is None:
            raise _ParseError(_E_ATTRIBUTE_EXTERNAL_ENTITY_REF,
                              vpos + p if vpos is not None else None)
        self._amplify(len(ent.text))
        ent.open = True
        self._open_internal += 1
        try:
            self._append_attr(ent.text, None, cdata, out, True)
        finally:
            ent.open = False
            self._open_internal -= 1

    _in_prolog_value = False
    _open_internal = 0

    def _amplify(self, n):
        self._amp_indirect += n
        p = self._evpos
        direct = self._byte_index(p if p is not None else 0) or 1
        total = direct + self._amp_indirect
        if total >= _AMP_THRESHOLD and total / direct > _AMP_FACTOR:
            raise _ParseError(_E_AMPLIFICATION, None)

    # ----- namespaces -----------------------------------------------------

    def _add_binding(self, prefix, uri, bindings):
        if not uri and prefix is not None:
            raise _ParseError(_E_UNDECLARING_PREFIX, None)
        if prefix == 'xmlns':
            raise _ParseError(_E_RESERVED_PREFIX_XMLNS, None)
        is_xml = uri == _XML_NAMESPACE
        if (prefix == 'xml') != is_xml:
            raise _ParseError(_E_RESERVED_PREFIX_XML if prefix == 'xml'
                              else _E_RESERVED_NAMESPACE_URI, None)
        if prefix != 'xml' and uri == _XMLNS_NAMESPACE:
            raise _ParseError(_E_RESERVED_NAMESPACE_URI, None)
        sep = self._sep
        if sep and sep in uri and not _is_uri_char(sep):
            raise _ParseError(_E_SYNTAX, None)
        stack = self._nsmap.get(prefix)
        if stack is None:
            stack = self._nsmap[prefix] = []
        stack.append(uri or None)
        bindings.append(prefix)
        h = self._StartNamespaceDeclHandler
        if h is not None:
            if self._tbuf:
                self._flush()
            self._icall(h, (prefix, uri or None), (0, 1))

    def _ns_expand(self, name, values):
        nsmap = self._nsmap
        sep = self._sep
        triplets = self._ns_triplets and sep
        out = values
        if values:
            out = []
            seen = None
            for aname, value in values:
                i = aname.find(':')
                if i > 0:
                    prefix = aname[:i]
                    stack = nsmap.get(prefix)
                    uri = stack[-1] if stack else None
                    if uri is None:
                        raise _ParseError(_E_UNBOUND_PREFIX, None)
                    ename = uri + sep + aname[i + 1:]
                    if seen is None:
                        seen = set()
                    if ename in seen:
                        raise _ParseError(_E_DUPLICATE_ATTRIBUTE, None)
                    seen.add(ename)
                    if triplets:
                        ename = ename + sep + prefix
                    out.append((ename, value))
                else:
                    out.append((aname, value))
        i = name.find(':')
        if i > 0:
            prefix = name[:i]
            stack = nsmap.get(prefix)
            uri = stack[-1] if stack else None
            if uri is None:
                raise _ParseError(_E_UNBOUND_PREFIX, None)
            ename = uri + sep + name[i + 1:]
            if triplets:
                ename = ename + sep + prefix
            return ename, out
        uri = nsmap[None][-1]
        if uri is None:
            return name, out
        return uri + sep + name, out

    # ----- entity references in content -----------------------------------

    def _entity_ref(self, name, s, pos, q, doc):
        ent = self._gents.get(name)
        if not self._has_pe_refs or self._standalone:
            if ent is None:
                raise _ParseError(_E_UNDEFINED_ENTITY, pos if doc else None)
            if not ent.is_internal:
                raise _ParseError(_E_ENTITY_DECLARED_IN_PE,
                                  pos if doc else None)
        elif ent is None:
            h = self._SkippedEntityHandler
            if h is not None:
                if self._tbuf:
                    self._flush()
                self._icall(h, (name, 0), (0,))
            elif self._dflt is not None:
                self._default(s[pos:q])
            return
        if ent.open:
            raise _ParseError(_E_RECURSIVE_ENTITY_REF, pos if doc else None)
        if ent.notation is not None:
            raise _ParseError(_E_BINARY_ENTITY_REF, pos if doc else None)
        if ent.text is not None:
            if not self._expand:
                h = self._SkippedEntityHandler
                if h is not None:
                    if self._tbuf:
                        self._flush()
                    self._icall(h, (name, 0), (0,))
                elif self._dflt is not None:
                    self._default(s[pos:q])
                return
            if True:
                text = ent.text
                self._amplify(len(text))
                ent.open = True
                self._open_internal += 1
                try:
                    self._content(text, 0, len(text), True,
                                  len(self._stack), True)
                finally:
                    ent.open = False
                    self._open_internal -= 1
            return
        h = self._ExternalEntityRefHandler
        if h is not None:
            if self._tbuf:
                self._flush()
            ent.open = True
            try:
                rv = self._icall(h, (self._context(name), ent.base,
                                     ent.systemId, ent.publicId), (1, 2, 3))
            finally:
                ent.open = False
            if not _as_int(rv):
                raise _ParseError(_E_EXTERNAL_ENTITY_HANDLING,
                                  pos if doc else None)
        elif self._dflt is not None:
            self._default(s[pos:q])

    def _context(self, name):
        parts = []
        if self._ns:
            d = self._nsmap.get(None)
            if d and d[-1]:
                parts.append('=' + d[-1])
            for prefix, stack in self._nsmap.items():
                if prefix is None or not stack or stack[-1] is None:
                    continue
                parts.append(prefix + '=' + stack[-1])
        if name is not None:
            parts.append(name)
        return '\f'.join(parts)

    # ----- epilog ---------------------------------------------------------

    def _epilog(self, final):
        s = self._buf
        end = len(s)
        pos = self._pos
        ns = self._ns
        while True:
            self._evpos = pos
            self._pos = pos
            tok, q = _prolog_tok(s, pos, end, ns, self._latin1)
            if tok == '-PROLOG_S':
                if self._dflt is not None:
                    self._default(s[pos:q])
                self._pos = q
                return
            if tok == 'NONE':
                return
            if tok == 'PROLOG_S':
                if self._dflt is not None:
                    self._default(s[pos:q])
            elif tok == 'PI':
                self._pi(s, pos, q)
            elif tok == 'COMMENT':
                self._comment(s, pos, q)
            elif tok == 'INVALID':
                raise _ParseError(_E_INVALID_TOKEN, q)
            elif tok == 'PARTIAL':
                if not final:
                    return
                self._incomplete(_E_UNCLOSED_TOKEN, pos, True)
            elif tok[0] == '-' and not final and q == end and \
                    self._pending_partial_char():
                # a name cut in the middle of a character: expat waits
                return
            else:
                raise _ParseError(_E_JUNK, pos)
            pos = q


    # ----- prolog and DTD -------------------------------------------------

    def _prolog(self, final):
        """Prolog processor; returns True when another processor takes
        over, False when it stops (more input needed or done)."""
        s = self._buf
        pos = self._pos
        if not self._bom_done and pos < len(s):
            self._bom_done = True
            if s[pos] == '\ufeff':
                pos += 1
        return self._prolog_run(s, pos, len(s), final, True)

    def _param_entity(self, ent):
        """Expand an internal parameter entity between declarations."""
        text = ent.text
        self._amplify(len(text))
        ent.open = True
        self._open_internal += 1
        try:
            self._prolog_run(text, 0, len(text), True, False)
        except _ParseError as e:
            e.pos = None
            raise
        finally:
            ent.open = False
            self._open_internal -= 1

    def _prolog_run(self, s, pos, end, final, doc):
        ns = self._ns
        ext = self._proc == 'extsubset'
        while True:
            if doc:
                self._evpos = pos
                self._pos = pos
            tok, q = _prolog_tok(s, pos, end, ns, self._latin1)
            if tok == 'INVALID':
                raise _ParseError(_E_INVALID_TOKEN, q)
            if tok == 'PARTIAL' or tok == 'NONE' or tok[0] == '-':
                if not final:
                    return False
                if tok == 'PARTIAL':
                    self._incomplete(_E_UNCLOSED_TOKEN, pos, doc)
                if tok == 'NONE':
                    if not doc:
                        if self._pstate != 'internalSubset':
                            raise _ParseError(29, None)
                        return False
                    if ext:
                        return False
                    self._incomplete(_E_NO_ELEMENTS, pos, True)
                tok = tok[1:]
                q = end
            if ext and self._pstate == 'extsubset0':
                self._pstate = 'internalSubset'
                if tok == 'XML_DECL':
                    self._xml_decl(s, pos, q, True)
                    pos = q
                    continue
            role = self._xmlrole(tok, s, pos, q, ext)
            hd = True
            if role == 'INSTANCE_START':
                if not doc:
                    raise _ParseError(_E_SYNTAX, None)
                self._proc = 'content'
                return True
            if role == 'NONE':
                pass
            elif role == 'XML_DECL':
                self._xml_decl(s, pos, q, False)
                hd = False
                if self._buf is not s:
                    # the input was read again in another encoding
                    s = self._buf
                    end = len(s)
                    q = self._switched_end
            elif role == 'ERROR':
                if tok == 'PARAM_ENTITY_REF':
                    code = _E_PARAM_ENTITY_REF
                elif tok == 'XML_DECL':
                    code = _E_MISPLACED_XML_PI
                else:
                    code = _E_SYNTAX
                raise _ParseError(code, pos)
            elif role == 'PI':
                self._pi(s, pos, q)
                hd = False
            elif role == 'COMMENT':
                self._comment(s, pos, q)
                hd = False
            else:
                hd = self._dtd_role(role, tok, s, pos, q)
            if hd and self._dflt is not None:
                self._default(s[pos:q])
            pos = q

    def _xmlrole(self, tok, s, pos, q, ext):
        """Expat's prolog state machine (xmlrole.c); returns the role."""
        st = self._pstate
        if tok == 'PROLOG_S':
            if st in ('prolog0', 'prolog1'):
                self._pstate = 'prolog1'
                return 'NONE'
            if st in ('prolog2', 'internalSubset'):
                return 'NONE'
            return self._role_none
        if st == 'prolog0' or st == 'prolog1':
            if tok == 'XML_DECL' and st == 'prolog0':
                self._pstate = 'prolog1'
                return 'XML_DECL'
            if tok == 'PI' or tok == 'COMMENT':
                self._pstate = 'prolog1'
                return tok
            if tok == 'BOM':
                return 'NONE'
            if tok == 'DECL_OPEN' and s[pos + 2:q] == 'DOCTYPE':
                self._pstate = 'doctype0'
                self._role_none = 'DOCTYPE_NONE'
                return 'DOCTYPE_NONE'
            if tok == 'INSTANCE_START':
                self._pstate = 'error'
                return 'INSTANCE_START'
        elif st == 'prolog2':
            if tok == 'PI' or tok == 'COMMENT':
                return tok
            if tok == 'INSTANCE_START':
                self._pstate = 'error'
                return 'INSTANCE_START'
        elif st == 'doctype0':
            if tok == 'NAME' or tok == 'PREFIXED_NAME':
                self._pstate = 'doctype1'
                return 'DOCTYPE_NAME'
        elif st == 'doctype1' or st == 'doctype4':
            if tok == 'OPEN_BRACKET':
                self._pstate = 'internalSubset'
                return 'DOCTYPE_INTERNAL_SUBSET'
            if tok == 'DECL_CLOSE':
                self._pstate = 'prolog2'
                return 'DOCTYPE_CLOSE'
            if st == 'doctype1' and tok == 'NAME':
                kw = s[pos:q]
                if kw == 'SYSTEM':
                    self._pstate = 'doctype3'
                    return 'DOCTYPE_NONE'
                if kw == 'PUBLIC':
                    self._pstate = 'doctype2'
                    return 'DOCTYPE_NONE'
        elif st == 'doctype2':
            if tok == 'LITERAL':
                self._pstate = 'doctype3'
                return 'DOCTYPE_PUBLIC_ID'
        elif st == 'doctype3':
            if tok == 'LITERAL':
                self._pstate = 'doctype4'
                return 'DOCTYPE_SYSTEM_ID'
        elif st == 'doctype5':
            if tok == 'DECL_CLOSE':
                self._pstate = 'prolog2'
                return 'DOCTYPE_CLOSE'
        elif st == 'internalSubset':
            if tok == 'DECL_OPEN':
                kw = s[pos + 2:q]
                if kw == 'ENTITY':
                    self._pstate = 'entity0'
                    self._role_none = 'ENTITY_NONE'
                    return 'ENTITY_NONE'
                if kw == 'ATTLIST':
                    self._pstate = 'attlist0'
                    self._role_none = 'ATTLIST_NONE'
                    return 'ATTLIST_NONE'
                if kw == 'ELEMENT':
                    self._pstate = 'element0'
                    self._role_none = 'ELEMENT_NONE'
                    return 'ELEMENT_NONE'
                if kw == 'NOTATION':
                    self._pstate = 'notation0'
                    self._role_none = 'NOTATION_NONE'
                    return 'NOTATION_NONE'
            elif tok == 'PI' or tok == 'COMMENT':
                return tok
            elif tok == 'PARAM_ENTITY_REF':
                return 'PARAM_ENTITY_REF'
            elif tok == 'CLOSE_BRACKET' and not ext:
                self._pstate = 'doctype5'
                self._role_none = 'DOCTYPE_NONE'
                return 'DOCTYPE_NONE'
        elif st.startswith('entity'):
            r = self._entity_role(st, tok, s, pos, q)
            if r is not None:
                return r
        elif st.startswith('attlist'):
            r = self._attlist_role(st, tok, s, pos, q)
            if r is not None:
                return r
        elif st.startswith('element'):
            r = self._element_role(st, tok, s, pos, q)
            if r is not None:
                return r
        elif st.startswith('notation'):
            if st == 'notation0':
                if tok == 'NAME':
                    self._pstate = 'notation1'
                    return 'NOTATION_NAME'
            elif st == 'notation1':
                if tok == 'NAME':
                    kw = s[pos:q]
                    if kw == 'SYSTEM':
                        self._pstate = 'notation3'
                        return 'NOTATION_NONE'
                    if kw == 'PUBLIC':
                        self._pstate = 'notation2'
                        return 'NOTATION_NONE'
            elif st == 'notation2':
                if tok == 'LITERAL':
                    self._pstate = 'notation4'
                    return 'NOTATION_PUBLIC_ID'
            elif st == 'notation3' or st == 'notation4':
                if tok == 'LITERAL':
                    self._pstate = 'declClose'
                    return 'NOTATION_SYSTEM_ID'
                if st == 'notation4' and tok == 'DECL_CLOSE':
                    self._pstate = 'internalSubset'
                    return 'NOTATION_NO_SYSTEM_ID'
        elif st == 'declClose':
            if tok == 'DECL_CLOSE':
                self._pstate = 'internalSubset'
                return self._role_none
        # common()
        if ext and tok == 'PARAM_ENTITY_REF':
            return 'INNER_PARAM_ENTITY_REF'
        self._pstate = 'error'
        return 'ERROR'

    _role_none = 'NONE'
    _bom_done = False

    @property
    def _latin1(self):
        return self._enc_kind != 'utf-8' and not self._text_mode
    _param_entity_read = False

    def _entity_role(self, st, tok, s, pos, q):
        if st == 'entity0':
            if tok == 'PERCENT':
                self._pstate = 'entity1'
                return 'ENTITY_NONE'
            if tok == 'NAME':
                self._pstate = 'entity2'
                return 'GENERAL_ENTITY_NAME'
        elif st == 'entity1':
            if tok == 'NAME':
                self._pstate = 'entity7'
                return 'PARAM_ENTITY_NAME'
        elif st == 'entity2' or st == 'entity7':
            if tok == 'NAME':
                kw = s[pos:q]
                if kw == 'SYSTEM':
                    self._pstate = 'entity4' if st == 'entity2' else 'entity9'
                    return 'ENTITY_NONE'
                if kw == 'PUBLIC':
                    self._pstate = 'entity3' if st == 'entity2' else 'entity8'
                    return 'ENTITY_NONE'
            elif tok == 'LITERAL':
                self._pstate = 'entity10'
                return 'ENTITY_VALUE'
        elif st == 'entity3' or st == 'entity8':
            if tok == 'LITERAL':
                self._pstate = 'entity4' if st == 'entity3' else 'entity9'
                return 'ENTITY_PUBLIC_ID'
        elif st == 'entity4' or st == 'entity9':
            if tok == 'LITERAL':
                self._pstate = 'entity5' if st == 'entity4' else 'entity10'
                return 'ENTITY_SYSTEM_ID'
        elif st == 'entity5':
            if tok == 'DECL_CLOSE':
                self._pstate = 'internalSubset'
                return 'ENTITY_COMPLETE'
            if tok == 'NAME' and s[pos:q] == 'NDATA':
                self._pstate = 'entity6'
                return 'ENTITY_NONE'
        elif st == 'entity6':
            if tok == 'NAME':
                self._pstate = 'declClose'
                return 'ENTITY_NOTATION_NAME'
        elif st == 'entity10':
            if tok == 'DECL_CLOSE':
                self._pstate = 'internalSubset'
                return 'ENTITY_COMPLETE'
        return None

    _ATT_TYPES = ('CDATA', 'ID', 'IDREF', 'IDREFS', 'ENTITY', 'ENTITIES',
                  'NMTOKEN', 'NMTOKENS')

    def _attlist_role(self, st, tok, s, pos, q):
        if st == 'attlist0':
            if tok == 'NAME' or tok == 'PREFIXED_NAME':
                self._pstate = 'attlist1'
                return 'ATTLIST_ELEMENT_NAME'
        elif st == 'attlist1':
            if tok == 'DECL_CLOSE':
                self._pstate = 'internalSubset'
                return 'ATTLIST_NONE'
            if tok == 'NAME' or tok == 'PREFIXED_NAME':
                self._pstate = 'attlist2'
                return 'ATTRIBUTE_NAME'
        elif st == 'attlist2':
            if tok == 'NAME':
                kw = s[pos:q]
                if kw in self._ATT_TYPES:
                    self._pstate = 'attlist8'
                    return 'ATTRIBUTE_TYPE_' + kw
                if kw == 'NOTATION':
                    self._pstate = 'attlist5'
                    return 'ATTLIST_NONE'
            elif tok == 'OPEN_PAREN':
                self._pstate = 'attlist3'
                return 'ATTLIST_NONE'
        elif st == 'attlist3':
            if tok in ('NMTOKEN', 'NAME', 'PREFIXED_NAME'):
                self._pstate = 'attlist4'
                return 'ATTRIBUTE_ENUM_VALUE'
        elif st == 'attlist4' or st == 'attlist7':
            if tok == 'CLOSE_PAREN':
                self._pstate = 'attlist8'
                return 'ATTLIST_NONE'
            if tok == 'OR':
                self._pstate = 'attlist3' if st == 'attlist4' else 'attlist6'
                return 'ATTLIST_NONE'
        elif st == 'attlist5':
            if tok == 'OPEN_PAREN':
                self._pstate = 'attlist6'
                return 'ATTLIST_NONE'
        elif st == 'attlist6':
            if tok == 'NAME':
                self._pstate = 'attlist7'
                return 'ATTRIBUTE_NOTATION_VALUE'
        elif st == 'attlist8':
            if tok == 'POUND_NAME':
                kw = s[pos + 1:q]
                if kw == 'IMPLIED':
                    self._pstate = 'attlist1'
                    return 'IMPLIED_ATTRIBUTE_VALUE'
                if kw == 'REQUIRED':
                    self._pstate = 'attlist1'
                    return 'REQUIRED_ATTRIBUTE_VALUE'
                if kw == 'FIXED':
                    self._pstate = 'attlist9'
                    return 'ATTLIST_NONE'
            elif tok == 'LITERAL':
                self._pstate = 'attlist1'
                return 'DEFAULT_ATTRIBUTE_VALUE'
        elif st == 'attlist9':
            if tok == 'LITERAL':
                self._pstate = 'attlist1'
                return 'FIXED_ATTRIBUTE_VALUE'
        return None

    _NAME_QUANT = {'NAME': 0, 'PREFIXED_NAME': 0, 'NAME_QUESTION': 1,
                   'NAME_ASTERISK': 2, 'NAME_PLUS': 3}
    _CLOSE_QUANT = {'CLOSE_PAREN': 0, 'CLOSE_PAREN_QUESTION': 1,
                    'CLOSE_PAREN_ASTERISK': 2, 'CLOSE_PAREN_PLUS': 3}

    def _element_role(self, st, tok, s, pos, q):
        if st == 'element0':
            if tok == 'NAME' or tok == 'PREFIXED_NAME':
                self._pstate = 'element1'
                return 'ELEMENT_NAME'
        elif st == 'element1':
            if tok == 'NAME':
                kw = s[pos:q]
                if kw == 'EMPTY':
                    self._pstate = 'declClose'
                    return 'CONTENT_EMPTY'
                if kw == 'ANY':
                    self._pstate = 'declClose'
                    return 'CONTENT_ANY'
            elif tok == 'OPEN_PAREN':
                self._pstate = 'element2'
                self._level = 1
                return 'GROUP_OPEN'
        elif st == 'element2' or st == 'element6':
            if st == 'element2' and tok == 'POUND_NAME':
                if s[pos + 1:q] == 'PCDATA':
                    self._pstate = 'element3'
                    return 'CONTENT_PCDATA'
            elif tok == 'OPEN_PAREN':
                self._level = 2 if st == 'element2' else self._level + 1
                self._pstate = 'element6'
                return 'GROUP_OPEN'
            elif tok in self._NAME_QUANT:
                self._pstate = 'element7'
                return 'CONTENT_ELEMENT'
        elif st == 'element3':
            if tok == 'CLOSE_PAREN' or tok == 'CLOSE_PAREN_ASTERISK':
                self._pstate = 'declClose'
                return 'GROUP_CLOSE'
            if tok == 'OR':
                self._pstate = 'element4'
                return 'ELEMENT_NONE'
        elif st == 'element4':
            if tok == 'NAME' or tok == 'PREFIXED_NAME':
                self._pstate = 'element5'
                return 'CONTENT_ELEMENT'
        elif st == 'element5':
            if tok == 'CLOSE_PAREN_ASTERISK':
                self._pstate = 'declClose'
                return 'GROUP_CLOSE'
            if tok == 'OR':
                self._pstate = 'element4'
                return 'ELEMENT_NONE'
        elif st == 'element7':
            if tok in self._CLOSE_QUANT:
                self._level -= 1
                if self._level == 0:
                    self._pstate = 'declClose'
                return 'GROUP_CLOSE'
            if tok == 'COMMA':
                self._pstate = 'element6'
                return 'GROUP_SEQUENCE'
            if tok == 'OR':
                self._pstate = 'element6'
                return 'GROUP_CHOICE'
        return None

    def _dtd_role(self, role, tok, s, pos, q):
        """Actions of doProlog for the DTD roles; returns whether the token
        goes to the default handler."""
        hd = True
        keep = self._keep_processing
        if role == 'DOCTYPE_NONE':
            if self._StartDoctypeDeclHandler is not None:
                hd = False
        elif role == 'DOCTYPE_NAME':
            if self._StartDoctypeDeclHandler is not None:
                self._dt_name = s[pos:q]
                self._dt_pubid = None
                hd = False
            self._dt_sysid = None
        elif role == 'DOCTYPE_INTERNAL_SUBSET':
            h = self._StartDoctypeDeclHandler
            if h is not None:
                if self._tbuf:
                    self._flush()
                self._icall(h, (self._dt_name, self._dt_sysid,
                                self._dt_pubid, 1), (0, 1, 2))
                self._dt_name = None
                hd = False
        elif role == 'DOCTYPE_PUBLIC_ID':
            self._use_foreign_dtd = False
            self._decl_ent = self._ext_subset = _Entity('#', True)
            self._has_pe_refs = True
            lit = s[pos + 1:q - 1]
            m = _pubid_bad(lit)
            if m:
                raise _ParseError(_E_PUBLICID, pos + 1 + m.start())
            if self._StartDoctypeDeclHandler is not None:
                self._dt_pubid = _normalize_pubid(lit)
                hd = False
            if keep and self._decl_ent is not None:
                self._decl_ent.publicId = _normalize_pubid(lit)
        elif role == 'DOCTYPE_SYSTEM_ID':
            self._has_pe_refs = True
            lit = s[pos + 1:q - 1]
            if self._StartDoctypeDeclHandler is not None:
                self._dt_sysid = lit
                hd = False
            else:
                self._dt_sysid = '#'
            if not self._standalone and not self._param_entity_parsing:
                h = self._NotStandaloneHandler
                if h is not None:
                    if self._tbuf:
                        self._flush()
                    if not _as_int(h()):
                        raise _ParseError(_E_NOT_STANDALONE, pos)
            if self._decl_ent is None:
                self._decl_ent = self._ext_subset = _Entity('#', True)
            if keep and self._decl_ent is not None:
                self._decl_ent.systemId = lit
                self._decl_ent.base = self._base
        elif role == 'DOCTYPE_CLOSE':
            if self._dt_name is not None:
                h = self._StartDoctypeDeclHandler
                if self._tbuf:
                    self._flush()
                self._icall(h, (self._dt_name, self._dt_sysid,
                                self._dt_pubid, 0), (0, 1, 2))
                self._dt_name = None
                hd = False
            if self._dt_sysid is not None or self._use_foreign_dtd:
                had = self._has_pe_refs
                self._has_pe_refs = True
                h = self._ExternalEntityRefHandler
                if self._param_entity_parsing and h is not None:
                    ent = getattr(self, '_ext_subset', None) or \
                        _Entity('#', True)
                    if self._tbuf:
                        self._flush()
                    self._param_entity_read = False
                    if not _as_int(self._icall(h, (None, ent.base,
                                                   ent.systemId,
                                                   ent.publicId),
                                               (1, 2, 3))):
                        raise _ParseError(_E_EXTERNAL_ENTITY_HANDLING, pos)
                    if self._param_entity_read:
                        if not self._standalone:
                            h = self._NotStandaloneHandler
                            if h is not None:
                                if self._tbuf:
                                    self._flush()
                                if not _as_int(h()):
                                    raise _ParseError(_E_NOT_STANDALONE,
                                                      pos)
                    elif self._dt_sysid is None:
                        self._has_pe_refs = had
                self._use_foreign_dtd = False
            self._decl_ent = None
            h = self._EndDoctypeDeclHandler
            if h is not None:
                if self._tbuf:
                    self._flush()
                h()
                hd = False
        elif role == 'PARAM_ENTITY_REF' or role == 'INNER_PARAM_ENTITY_REF':
            self._has_pe_refs = True
            if not self._param_entity_parsing:
                self._keep_processing = self._standalone
            else:
                name = s[pos + 1:q - 1]
                ent = self._pents.get(name)
                if self._standalone and not self._open_internal and \
                        not self._ext_entity:
                    if ent is None:
                        raise _ParseError(_E_UNDEFINED_ENTITY, pos)
                if ent is None:
                    self._keep_processing = self._standalone
                    h = self._SkippedEntityHandler
                    if h is not None and role == 'PARAM_ENTITY_REF':
                        if self._tbuf:
                            self._flush()
                        self._icall(h, (name, 1), (0,))
                        hd = False
                    return hd
                if ent.open:
                    raise _ParseError(_E_RECURSIVE_ENTITY_REF, pos)
                if ent.text is not None:
                    self._param_entity(ent)
                    return False
                h = self._ExternalEntityRefHandler
                if h is not None:
                    if self._tbuf:
                        self._flush()
                    self._param_entity_read = False
                    ent.open = True
                    try:
                        rv = self._icall(h, (None, ent.base, ent.systemId,
                                             ent.publicId), (1, 2, 3))
                    finally:
                        ent.open = False
                    if not _as_int(rv):
                        raise _ParseError(_E_EXTERNAL_ENTITY_HANDLING, pos)
                    hd = False
                    if not self._param_entity_read:
                        self._keep_processing = self._standalone
                        return hd
                else:
                    self._keep_processing = self._standalone
                    return hd
            if not self._standalone:
                h = self._NotStandaloneHandler
                if h is not None:
                    if self._tbuf:
                        self._flush()
                    if not _as_int(h()):
                        raise _ParseError(_E_NOT_STANDALONE, pos)
        # --- entity declarations
        elif role == 'ENTITY_NONE':
            if keep and self._EntityDeclHandler is not None:
                hd = False
        elif role == 'GENERAL_ENTITY_NAME' or role == 'PARAM_ENTITY_NAME':
            name = s[pos:q]
            is_param = role == 'PARAM_ENTITY_NAME'
            if not is_param and name in _PREDEF:
                self._decl_ent = None
            elif keep:
                table = self._pents if is_param else self._gents
                if name in table:
                    self._decl_ent = None
                else:
                    ent = table[name] = _Entity(name, is_param)
                    ent.is_internal = not (self._ext_entity or
                                           self._open_internal)
                    self._decl_ent = ent
                    if self._EntityDeclHandler is not None:
                        hd = False
            else:
                self._decl_ent = None
        elif role == 'ENTITY_VALUE':
            if keep:
                text, err = self._entity_value(s, pos + 1, q - 1)
                ent = self._decl_ent
                if ent is not None:
                    ent.text = text
                    h = self._EntityDeclHandler
                    if h is not None:
                        if self._tbuf:
                            self._flush()
                        if err is not None:
                            self._evpos = err.pos
                        self._icall(h, (ent.name, int(ent.is_param), text,
                                        self._base, None, None, None),
                                    (0, 3, 4, 5, 6))
                        hd = False
                if err is not None:
                    raise err
        elif role == 'ENTITY_PUBLIC_ID':
            lit = s[pos + 1:q - 1]
            m = _pubid_bad(lit)
            if m:
                raise _ParseError(_E_PUBLICID, pos + 1 + m.start())
            if keep and self._decl_ent is not None:
                self._decl_ent.publicId = _normalize_pubid(lit)
                if self._EntityDeclHandler is not None:
                    hd = False
        elif role == 'ENTITY_SYSTEM_ID':
            if keep and self._decl_ent is not None:
                self._decl_ent.systemId = s[pos + 1:q - 1]
                self._decl_ent.base = self._base
                if self._EntityDeclHandler is not None:
                    hd = False
        elif role == 'ENTITY_COMPLETE':
            ent = self._decl_ent
            h = self._EntityDeclHandler
            if keep and h is not None:
                hd = False
                if ent is not None and ent.text is None:
                    if self._tbuf:
                        self._flush()
                    self._icall(h, (ent.name, int(ent.is_param), None,
                                    ent.base, ent.systemId, ent.publicId,
                                    None), (0, 3, 4, 5, 6))
        elif role == 'ENTITY_NOTATION_NAME':
            ent = self._decl_ent
            if keep and ent is not None:
                ent.notation = s[pos:q]
                h = self._UnparsedEntityDeclHandler
                if h is not None:
                    if self._tbuf:
                        self._flush()
                    self._icall(h, (ent.name, ent.base, ent.systemId,
                                    ent.publicId, ent.notation),
                                (0, 1, 2, 3, 4))
                    hd = False
                else:
                    h = self._EntityDeclHandler
                    if h is not None:
                        if self._tbuf:
                            self._flush()
                        self._icall(h, (ent.name, 0, None, ent.base,
                                        ent.systemId, ent.publicId,
                                        ent.notation), (0, 3, 4, 5, 6))
                        hd = False
        # --- notations
        elif role == 'NOTATION_NONE':
            if self._NotationDeclHandler is not None:
                hd = False
        elif role == 'NOTATION_NAME':
            self._decl_not_pubid = None
            self._decl_not_name = None
            if self._NotationDeclHandler is not None:
                self._decl_not_name = s[pos:q]
                hd = False
        elif role == 'NOTATION_PUBLIC_ID':
            lit = s[pos + 1:q - 1]
            m = _pubid_bad(lit)
            if m:
                raise _ParseError(_E_PUBLICID, pos + 1 + m.start())
            if self._decl_not_name is not None:
                self._decl_not_pubid = _normalize_pubid(lit)
                hd = False
        elif role == 'NOTATION_SYSTEM_ID':
            h = self._NotationDeclHandler
            if self._decl_not_name is not None and h is not None:
                if self._tbuf:
                    self._flush()
                self._icall(h, (self._decl_not_name, self._base,
                                s[pos + 1:q - 1], self._decl_not_pubid),
                            (0, 1, 2, 3))
                hd = False
        elif role == 'NOTATION_NO_SYSTEM_ID':
            h = self._NotationDeclHandler
            if self._decl_not_pubid is not None and h is not None:
                if self._tbuf:
                    self._flush()
                self._icall(h, (self._decl_not_name, self._base, None,
                                self._decl_not_pubid), (0, 1, 2, 3))
                hd = False
        # --- attribute lists
        elif role == 'ATTLIST_NONE':
            if keep and self._AttlistDeclHandler is not None:
                hd = False
        elif role == 'ATTLIST_ELEMENT_NAME':
            self._att_el = s[pos:q]
            if keep and self._AttlistDeclHandler is not None:
                hd = False
        elif role == 'ATTRIBUTE_NAME':
            self._att_name = s[pos:q]
            self._att_cdata = False
            self._att_type = None
            self._att_id = False
            if keep and self._AttlistDeclHandler is not None:
                hd = False
        elif role.startswith('ATTRIBUTE_TYPE_'):
            kind = role[15:]
            if kind == 'CDATA':
                self._att_cdata = True
            elif kind == 'ID':
                self._att_id = True
            self._att_type = kind
            if keep and self._AttlistDeclHandler is not None:
                hd = False
        elif role == 'ATTRIBUTE_ENUM_VALUE' or \
                role == 'ATTRIBUTE_NOTATION_VALUE':
            if keep and self._AttlistDeclHandler is not None:
                t = self._att_type
                if t:
                    prefix = '|'
                elif role == 'ATTRIBUTE_NOTATION_VALUE':
                    prefix = 'NOTATION('
                else:
                    prefix = '('
                self._att_type = (t or '') + prefix + s[pos:q]
                hd = False
        elif role in ('IMPLIED_ATTRIBUTE_VALUE', 'REQUIRED_ATTRIBUTE_VALUE',
                      'DEFAULT_ATTRIBUTE_VALUE', 'FIXED_ATTRIBUTE_VALUE'):
            if keep:
                value = None
                if role == 'DEFAULT_ATTRIBUTE_VALUE' or \
                        role == 'FIXED_ATTRIBUTE_VALUE':
                    self._in_prolog_value = True
                    try:
                        value = self._attr_value(s[pos + 1:q - 1], pos + 1,
                                                 self._att_cdata, True)
                    finally:
                        self._in_prolog_value = False
                self._define_att(self._att_el, self._att_name,
                                 self._att_cdata, self._att_id, value)
                h = self._AttlistDeclHandler
                t = self._att_type
                if h is not None and t:
                    if t[0] == '(' or t.startswith('NO'):
                        t = t + ')'
                    if self._tbuf:
                        self._flush()
                    if value is None:
                        req = role == 'REQUIRED_ATTRIBUTE_VALUE'
                    else:
                        req = role == 'FIXED_ATTRIBUTE_VALUE'
                    self._icall(h, (self._att_el, self._att_name, t, value,
                                    int(req)), (0, 1))
                    hd = False
        # --- element declarations
        elif role == 'ELEMENT_NONE':
            if self._ElementDeclHandler is not None:
                hd = False
        elif role == 'ELEMENT_NAME':
            if self._ElementDeclHandler is not None:
                self._el_name = s[pos:q]
                self._scaffold = []
                self._in_eldecl = True
                hd = False
            self._group_conn = [None]
        elif role == 'CONTENT_ANY' or role == 'CONTENT_EMPTY':
            if self._in_eldecl:
                h = self._ElementDeclHandler
                if h is not None:
                    if self._tbuf:
                        self._flush()
                    h(self._name(self._el_name),
                      (2 if role == 'CONTENT_ANY' else 1, 0, None, ()))
                    hd = False
                self._in_eldecl = False
        elif role == 'GROUP_OPEN':
            level = self._level
            conn = self._group_conn
            while len(conn) <= level:
                conn.append(None)
            conn[level] = None
            if self._in_eldecl:
                node = [6, 0, None, []]
                if self._scaffold:
                    self._scaffold[-1][3].append(node)
                else:
                    self._model_root = node
                self._scaffold.append(node)
                if self._ElementDeclHandler is not None:
                    hd = False
        elif role == 'GROUP_SEQUENCE':
            level = self._level
            if self._group_conn[level] == '|':
                raise _ParseError(_E_SYNTAX, pos)
            self._group_conn[level] = ','
            if self._in_eldecl and self._ElementDeclHandler is not None:
                hd = False
        elif role == 'GROUP_CHOICE':
            level = self._level
            if self._group_conn[level] == ',':
                raise _ParseError(_E_SYNTAX, pos)
            if self._in_eldecl and self._group_conn[level] is None and \
                    self._scaffold[-1][0] != 3:
                self._scaffold[-1][0] = 5
                if self._ElementDeclHandler is not None:
                    hd = False
            self._group_conn[level] = '|'
        elif role == 'CONTENT_PCDATA':
            if self._in_eldecl:
                self._scaffold[-1][0] = 3
                if self._ElementDeclHandler is not None:
                    hd = False
        elif role == 'CONTENT_ELEMENT':
            if self._in_eldecl:
                quant = self._NAME_QUANT[tok]
                name = s[pos:q - 1] if quant else s[pos:q]
                self._scaffold[-1][3].append([4, quant, name, []])
                if self._ElementDeclHandler is not None:
                    hd = False
        elif role == 'GROUP_CLOSE':
            if self._in_eldecl:
                h = self._ElementDeclHandler
                if h is not None:
                    hd = False
                node = self._scaffold.pop()
                node[1] = self._CLOSE_QUANT[tok]
                if not self._scaffold:
                    if not hd:
                        if self._tbuf:
                            self._flush()
                        h(self._name(self._el_name),
                          _model_tuple(self._model_root))
                    self._in_eldecl = False
        return hd

    def _define_att(self, el, att, cdata, is_id, value):
        lst = self._eltypes.get(el)
        if lst is None:
            lst = self._eltypes[el] = []
        if value is not None or is_id:
            for d in lst:
                if d[0] == att:
                    return
        lst.append((att, value, cdata))
        if not cdata:
            self._tokenized.add(att)

    def _entity_value(self, s, a, b):
        """Replacement text of an entity value literal s[a:b]; returns
        (text, error or None)."""
        out = []
        p = a
        ns = self._ns
        while p < b:
            c = s[p]
            if c == '%':
                try:
                    if p + 1 >= b:
                        raise _Partial
                    t = _ctype(s[p + 1], ns)
                    if t in ('S', 'LF', 'CR', 'PERCNT'):
                        return ''.join(out), _ParseError(_E_INVALID_TOKEN,
                                                         p + 1)
                    if t not in _NMSTRT_T:
                        return ''.join(out), _ParseError(_E_INVALID_TOKEN,
                                                         p + 1)
                    stop, bad = _scan_name(s, p + 2, b, ns, 'nc')
                    if bad is not None:
                        return ''.join(out), _ParseError(_E_INVALID_TOKEN,
                                                         bad)
                    if s[stop] != ';':
                        return ''.join(out), _ParseError(_E_INVALID_TOKEN,
                                                         stop)
                except _Partial:
                    return ''.join(out), _ParseError(_E_INVALID_TOKEN, p)
                return ''.join(out), _ParseError(_E_PARAM_ENTITY_REF, p)
            if c == '&':
                try:
                    tok, nxt = _scan_ref(s, p + 1, b, ns)
                except _Partial:
                    return ''.join(out), _ParseError(_E_INVALID_TOKEN, p)
                if tok == 'INVALID':
                    return ''.join(out), _ParseError(_E_INVALID_TOKEN, nxt)
                if tok == 'CHAR_REF':
                    m = _charref_re.match(s, p, nxt)
                    ch = _char_ref_value(m.group(1), m.group(2))
                    if ch is None:
                        return ''.join(out), _ParseError(_E_BAD_CHAR_REF, p)
                    out.append(ch)
                else:
                    out.append(s[p:nxt])
                p = nxt
            elif c == '\r':
                out.append('\n')
                p += 2 if s[p + 1:p + 2] == '\n' and p + 1 < b else 1
            else:
                m = _entval_run(s, p, b)
                q = m.end()
                if q == p:
                    q = p + 1
                out.append(s[p:q])
                p = q
        return ''.join(out), None

    def _switch_decoder(self, table, pos):
        """Read the input from pos on again with a single-byte table, as
        expat does when a UTF-16 document declares such an encoding.  Its
        position counting then also takes the bytes before, back to where
        its position was last brought up to date, one column a byte."""
        buf = self._buf
        nbytes = self._byte_index(pos)
        rest = buf[pos:].encode(self._decoder_name, 'surrogatepass')
        try:
            rest += self._decoder.getstate()[0]
        except Exception:
            pass
        lc = min(self._lc_pos, pos)
        old = buf[lc:pos]
        new = old.encode(self._decoder_name, 'surrogatepass').decode(
            'latin-1')
        evpos = self._evpos
        if evpos is not None and evpos > lc:
            evpos = lc + len(buf[lc:evpos].encode(self._decoder_name,
                                                  'surrogatepass'))
        self._decoder = _SingleByteDecoder(table)
        self._decoder_name = 'latin-1'
        self._enc_kind = 'single'
        self._set_convert()
        self._buf = buf[:lc] + new + self._decoder.decode(rest)
        self._switched_end = lc + len(new)
        self._evpos = evpos
        self._pos = min(self._pos, lc) if self._pos > lc else self._pos
        if self._posptr is not None and self._posptr > lc:
            self._posptr = lc
        self._bt_pos = self._switched_end
        self._bt_bytes = nbytes

    _switched_end = 0

    def _xml_decl(self, s, a, b, text_decl):
        """processXmlDecl."""
        try:
            version, encoding, epos, standalone = _parse_xml_decl(
                s, a, b, text_decl)
        except _Bad as e:
            raise _ParseError(_E_TEXT_DECL if text_decl else _E_XML_DECL,
                              e.pos)
        if not text_decl and standalone == 1:
            self._standalone = True
            if self._param_entity_parsing == 1:
                self._param_entity_parsing = 0
        h = self._XmlDeclHandler
        if h is not None:
            if self._tbuf:
                self._flush()
            h(version, encoding, standalone)
        elif self._dflt is not None:
            self._default(s[a:b])
        if self._text_mode or self._proto is not None or encoding is None:
            return
        err = self._enc_error
        if err is not None:
            code, name = err
            if code == 'lookup':
                raise LookupError('unknown encoding: %s' % name)
            raise _ParseError(code, epos)
        up = encoding.upper()
        known = _KNOWN_ENCODINGS.get(up)
        if self._enc_kind == 'utf-16':
            if known is not None:
                if not known.startswith('utf-16'):
                    raise _ParseError(_E_INCORRECT_ENCODING, epos)
                if known != 'utf-16' and self._decoder_name != known:
                    raise _ParseError(_E_INCORRECT_ENCODING, epos)
            else:
                table = _single_byte_table(encoding)
                if table == 'lookup':
                    raise LookupError('unknown encoding: %s' % encoding)
                if table is None:
                    raise _ParseError(_E_UNKNOWN_ENCODING, epos)
                # expat takes the rest of the input in that encoding
                self._switch_decoder(table, b)



def _handler_property(name):
    attr = '_' + name

    def fget(self):
        return object.__getattribute__(self, attr)

    def fset(self, value):
        self._set_handler(name, value)

    return property(fget, fset)


for _n in _HANDLER_NAMES:
    setattr(XMLParserType, _n, _handler_property(_n))
del _n

XMLParserType.__name__ = 'xmlparser'
XMLParserType.__qualname__ = 'xmlparser'
XMLParserType.__module__ = 'pyexpat'

_NO_INTERN = object()


def ParserCreate(encoding=None, namespace_separator=None, intern=_NO_INTERN):
    """Return a new XML parser object."""
    if encoding is not None and not isinstance(encoding, str):
        raise TypeError("ParserCreate() argument 'encoding' must be str or "
                        "None, not %s" % type(encoding).__name__)
    if namespace_separator is not None:
        if not isinstance(namespace_separator, str):
            raise TypeError("ParserCreate() argument 'namespace_separator' "
                            "must be str or None, not %s"
                            % type(namespace_separator).__name__)
        if len(namespace_separator) > 1:
            raise ValueError('namespace_separator must be at most one '
                             'character, omitted, or None')
    if intern is _NO_INTERN:
        intern = {}
    elif intern is not None and not isinstance(intern, dict):
        raise TypeError('intern must be a dictionary')
    return XMLParserType(encoding, namespace_separator, intern)


# ---------------------------------------------------------------------------
# Helpers used by the parser.

_ns_ref_finder = _re.compile(
    r'&(?:#([0-9]+)|#x([0-9a-fA-F]+)|([%s][%s]*));'
    % (_NMSTRT, _NMCHAR)).match
_pi_target = _name_re.match
_attv_run = _re.compile(r'[^&<\t\n\r %s]+' % _INV).match
_entval_run = _re.compile(r'[^%&\r]+').match
_URI_CHARS = frozenset('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
                       "0123456789-._~:/?#[]@!$&'()*+,;=%")


def _is_uri_char(c):
    return c in _URI_CHARS


def _scan_tag_name(s, p, ns):
    return _name_re.match(s, p).group()


def _model_tuple(node):
    return (node[0], node[1], node[2],
            tuple(_model_tuple(c) for c in node[3]))


def _as_int(rv):
    if isinstance(rv, int):
        return rv
    index = getattr(type(rv), '__index__', None)
    if index is None:
        raise TypeError("'%s' object cannot be interpreted as an integer"
                        % type(rv).__name__)
    return index(rv)


_version_re = _re.compile(r'1\.[0-9]+\Z').match


class _Bad(Exception):
    def __init__(self, pos):
        self.pos = pos


def _is_decl_space(s, p, end):
    return p < end and s[p] in ' \t\r\n'


def _pseudo_attribute(s, p, end):
    """parsePseudoAttribute: returns (name, name_pos, value, value_pos,
    next); name is None at the end."""
    if p == end:
        return None, None, None, None, p
    if s[p] not in ' \t\r\n':
        raise _Bad(p)
    p += 1
    while _is_decl_space(s, p, end):
        p += 1
    if p == end:
        return None, None, None, None, p
    npos = p
    while True:
        c = s[p] if p < end else '\x80'
        if c >= '\x80':
            raise _Bad(p)
        if c == '=':
            name_end = p
            break
        if c in ' \t\r\n':
            name_end = p
            while _is_decl_space(s, p, end):
                p += 1
            if p >= end or s[p] != '=':
                raise _Bad(p)
            break
        p += 1
    if p == npos:
        raise _Bad(p)
    p += 1
    while _is_decl_space(s, p, end):
        p += 1
    c = s[p] if p < end else ''
    if c != '"' and c != "'":
        raise _Bad(p)
    quote = c
    p += 1
    vpos = p
    while True:
        c = s[p] if p < end else ''
        if c == quote:
            break
        if not (c and c < '\x80' and (c.isalnum() or c in '._-')):
            raise _Bad(p)
        p += 1
    return s[npos:name_end], npos, s[vpos:p], vpos, p + 1


def _parse_xml_decl(s, a, b, text_decl):
    """XmlParseXmlDecl: returns (version, encoding, encoding_pos,
    standalone) or raises _Bad."""
    p = a + 5
    end = b - 2
    version = encoding = epos = None
    standalone = -1
    name, npos, val, vpos, q = _pseudo_attribute(s, p, end)
    if name is None:
        raise _Bad(p)
    p = q
    if name != 'version':
        if not text_decl:
            raise _Bad(npos)
    else:
        if not _version_re(val):
            raise _Bad(vpos)
        version = val
        name, npos, val, vpos, q = _pseudo_attribute(s, p, end)
        if name is None:
            if text_decl:
                raise _Bad(p)
            return version, encoding, epos, standalone
        p = q
    if name == 'encoding':
        c = val[:1]
        if not (c and c < '\x80' and c.isalpha()):
            raise _Bad(vpos)
        encoding = val
        epos = vpos
        name, npos, val, vpos, q = _pseudo_attribute(s, p, end)
        if name is None:
            return version, encoding, epos, standalone
        p = q
    if name != 'standalone' or text_decl:
        raise _Bad(npos)
    if val == 'yes':
        standalone = 1
    elif val == 'no':
        standalone = 0
    else:
        raise _Bad(vpos)
    while _is_decl_space(s, p, end):
        p += 1
    if p != end:
        raise _Bad(p)
    return version, encoding, epos, standalone


expat_CAPI = None
