"""The sandbox's own `help()`: signature and documentation of tools and of anything else, printed."""

from __future__ import annotations


def search(query: str, k: int = 3, *, exact: bool = False) -> list[str]:
    """Search the corpus.

    Returns up to k titles."""
    return [query, k, exact]


def test_help_on_a_tool_shows_its_name_signature_and_docstring(make_interp):
    interp = make_interp(tools={"search": search})
    assert interp.execute("help(search)") == (
        "search(query: 'str', k: 'int' = 3, *, exact: 'bool' = False) -> 'list[str]'\n"
        "    Search the corpus.\n"
        "\n"
        "    Returns up to k titles.\n"
    )


def test_help_on_a_tool_without_docstring_says_so(make_interp):
    def lookup(key):
        return key

    interp = make_interp(tools={"lookup": lookup})
    output = interp.execute("help(lookup)")
    assert output.startswith("lookup(key)\n")
    assert "Host tool 'lookup'." in output or "(no documentation)" in output


def test_help_on_a_sandbox_function(interp):
    code = 'def area(w, h=1):\n    """Area of a w by h rectangle."""\n    return w * h\nhelp(area)'
    assert interp.execute(code) == "area(w, h=1)\n    Area of a w by h rectangle.\n"


def test_help_on_a_class_lists_its_public_methods(interp):
    code = (
        "class Stack:\n"
        '    """A last-in, first-out stack."""\n'
        "    def push(self, item):\n"
        '        """Put item on top."""\n'
        "    def _hidden(self):\n"
        "        pass\n"
        "help(Stack)"
    )
    output = interp.execute(code)
    assert output.startswith("class Stack")
    assert "A last-in, first-out stack." in output
    assert "push(self, item): Put item on top." in output
    assert "_hidden" not in output


def test_help_on_a_module_lists_its_public_names(interp):
    output = interp.execute("import json\nhelp(json)")
    assert output.startswith("module json\n")
    assert "dumps" in output and "loads" in output


def test_help_on_a_value_describes_its_type(interp):
    output = interp.execute("help([1, 2])")
    assert output.startswith("list object: [1, 2]\n")
    assert "append" in output


def test_help_with_a_name_string_explains_to_pass_the_object(interp):
    assert "help(len), not help('len')" in interp.execute("help('len')")


def test_help_without_argument_explains_itself(interp):
    assert interp.execute("help()").startswith("help(x) prints the signature and documentation of x")


def test_help_on_a_builtin_function_shows_its_signature(interp):
    # The VM is built without the builtins' docstrings: the signature is what there is.
    assert interp.execute("help(len)").startswith("len(obj, /)")
