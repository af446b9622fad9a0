"""The sandbox's ``_string``: RustPython's, with ``formatter_parser`` as CPython's (``string.Formatter().parse``):
an escaped brace ends a literal chunk with the brace kept (``"c{{lit}}d"`` is ``c{``, ``lit}``, ``d``), and each
malformed field raises CPython's ValueError. The native module is handed over as ``_string_native`` only while
this imports."""

from _sandbox_native import adopt, handed_over

adopt(handed_over("_string"), globals())
del adopt, handed_over


def formatter_parser(text):
    """(literal, field name, format spec, conversion) for each piece of a format string, as ``str.format`` reads it:
    a piece without a field is ``(literal, None, None, None)``."""
    if not isinstance(text, str):
        raise TypeError(f"descriptor 'formatter_parser' requires a 'str' object but received a '{type(text).__name__}'")
    return _pieces(text)


def _pieces(text):
    at, end = 0, len(text)
    while at < end:
        start = at
        brace = ""
        while at < end:
            character = text[at]
            at += 1
            if character == "{" or character == "}":
                brace = character
                break
        literal_end = at
        at_end = at >= end
        if brace == "}" and (at_end or text[at] != "}"):
            raise ValueError("Single '}' encountered in format string")
        if brace == "{" and at_end:
            raise ValueError("Single '{' encountered in format string")
        field = bool(brace)
        if brace:
            if text[at] == brace:
                # An escaped brace: the literal keeps one, and no field follows.
                at += 1
                field = False
            else:
                literal_end -= 1
        literal = text[start:literal_end]
        if not field:
            yield (literal, None, None, None)
            continue
        name, spec, conversion, at = _field(text, at, end)
        yield (literal, name, spec, conversion)


def _field(text, at, end):
    name_start = at
    character = ""
    while at < end:
        character = text[at]
        at += 1
        if character == "{":
            raise ValueError("unexpected '{' in field name")
        if character == "[":
            while at < end and text[at] != "]":
                at += 1
            continue
        if character in "}:!":
            break
    name = text[name_start : at - 1] if character in "}:!" else text[name_start:at]
    if character not in "!:":
        if character != "}":
            raise ValueError("expected '}' before end of string")
        return name, "", None, at
    conversion = None
    if character == "!":
        if at >= end:
            raise ValueError("end of string while looking for conversion specifier")
        conversion = text[at]
        at += 1
        if at < end:
            after = text[at]
            at += 1
            if after == "}":
                return name, "", conversion, at
            if after != ":":
                raise ValueError("expected ':' after conversion specifier")
    spec_start = at
    depth = 1
    while at < end:
        character = text[at]
        at += 1
        if character == "{":
            depth += 1
        elif character == "}":
            depth -= 1
            if depth == 0:
                return name, text[spec_start : at - 1], conversion, at
    raise ValueError("unmatched '{' in format spec")
