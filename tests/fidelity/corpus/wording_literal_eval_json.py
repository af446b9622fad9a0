# Parsing a sub-LLM's structured replies: ast.literal_eval and json.loads failures, with positions.
# %% helpers
import ast
import json
import re

def show(f):
    try:
        r = f()
        print("ok", repr(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)

def show_node(f):
    """Like show, but hides the memory address CPython puts in 'malformed node' messages."""
    try:
        print("ok", repr(f()))
    except Exception as e:
        print(type(e).__name__ + ":", re.sub(r" at 0x[0-9a-fA-F]+", "", str(e)))

replies = [
    "{'label': 'bug', 'score': 0.9}",
    "[1, 2, 3]",
    "{'label': 'ui', 'score': .5,}",
    "('x', None, True)",
]
for r in replies:
    show(lambda: ast.literal_eval(r))

# %% literal_eval syntax errors that match
show(lambda: ast.literal_eval("1 +"))
show(lambda: ast.literal_eval("{'a': 1,, }"))
show(lambda: ast.literal_eval("'unterminated"))
show(lambda: ast.literal_eval("x = 1"))
show(lambda: ast.literal_eval("\tNone"))
show(lambda: ast.literal_eval("set()"))
show(lambda: ast.literal_eval(5))
show(lambda: ast.literal_eval(None))
show(lambda: ast.literal_eval("-5 + 3j"))
show(lambda: ast.literal_eval("{'a': [1, {2, 3}], 'b': (None,)}"))

# %% literal_eval of an unclosed list
show(lambda: ast.literal_eval("[1, 2"))

# %% literal_eval with an extra closing brace
show(lambda: ast.literal_eval("{1: 2}}"))

# %% literal_eval of an empty reply
# differs: "invalid syntax (<unknown>, line 1)" instead of "invalid syntax (<unknown>, line 0)"
show(lambda: ast.literal_eval(""))
show(lambda: ast.literal_eval("   "))

# %% literal_eval of a bare name (JSON's true / null)
show_node(lambda: ast.literal_eval("true"))
show_node(lambda: ast.literal_eval('{"a": null}'))

# %% literal_eval of an expression
show_node(lambda: ast.literal_eval("2 * 3"))
show_node(lambda: ast.literal_eval("len([1])"))

# %% literal_eval of a set with a list inside
show(lambda: ast.literal_eval("{1, [2]}"))

# %% a JSON reply with Python literals, uncaught
reply = "{'label': 'bug', 'score': 0.9, 'tags': ('a', 'b')}"
data = json.loads(reply)

# %% what the decode error carries
try:
    json.loads('{\n  "label": "bug",\n  "score": 0.9,\n}')
except json.JSONDecodeError as e:
    print(e.msg, "| pos", e.pos, "| line", e.lineno, "| col", e.colno)
    print(str(e))
    print(repr(e.doc[e.pos - 5:e.pos + 1]))

# %% json.loads failures
show(lambda: json.loads(""))
show(lambda: json.loads("{"))
show(lambda: json.loads("{'a': 1}"))
show(lambda: json.loads('{"a": 1,}'))
show(lambda: json.loads('[1, 2,]'))
show(lambda: json.loads('{"a" 1}'))
show(lambda: json.loads('{"a": }'))
show(lambda: json.loads('[1 2]'))
show(lambda: json.loads('{"a": 1} x'))
show(lambda: json.loads('"abc'))
show(lambda: json.loads('nul'))
show(lambda: json.loads('True'))
show(lambda: json.loads('NaN'))
show(lambda: json.loads('{"a": 1}\n{"b": 2}'))
show(lambda: json.loads('\n\n  {"a": [1, 2,\n  ]}'))

# %% json.loads on odd input types and shapes
show(lambda: json.loads(5))
show(lambda: json.loads(None))
show(lambda: json.loads(b'{"a": 1}'))
show(lambda: json.loads("[1]", foo=1))
show(lambda: json.loads())
show(lambda: json.loads("```json\n{}\n```"))
show(lambda: json.loads('{"a": 01}'))
show(lambda: json.loads('{"a": .5}'))
show(lambda: json.loads('{"a": -}'))
show(lambda: json.loads('{1: 2}'))
show(lambda: json.loads(' '))
show(lambda: json.loads('"\\ud800"'))
show(lambda: json.loads('"\\u12"'))

# %% json.loads with a bad escape
show(lambda: json.loads('"C:\\x"'))

# %% json.loads with a raw newline inside a string
# differs: "Invalid control character U+000A at: line 1 column 3 (char 2)" instead of "Invalid control character at: line 1 column 3 (char 2)"
show(lambda: json.loads('"a\nb"'))

# %% json.dumps failures
show(lambda: json.dumps({1, 2}))
show(lambda: json.dumps(object()) and None)
show(lambda: json.dumps({(1, 2): 3}))
show(lambda: json.dumps(b"a"))
show(lambda: json.dumps(float("nan"), allow_nan=False))
show(lambda: json.dumps([1], indent="x", foo=1))
show(lambda: json.dumps())
show(lambda: json.dumps({"b": 1, "a": [1, 2]}, sort_keys=True, indent=1))

# %% a robust reply parser
def parse_reply(text: str):
    text = text.strip().removeprefix("```json").removesuffix("```").strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError) as e:
            return {"error": type(e).__name__}

for r in replies + ["```json\n{\"ok\": true}\n```", "nonsense here"]:
    print(repr(parse_reply(r)))
