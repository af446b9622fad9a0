"""What the model reads when its code fails in ways the sandbox, not the code, explains (issue 53): the exact text,
in CPython's words where CPython has them, with the reason where CPython's words alone would mislead."""

from __future__ import annotations

import pytest

from dspy_rust_interpreter import CodeExecutionError


def failure(interp, code: str) -> str:
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute(code)
    return str(raised.value)


def test_a_refused_allocation_names_the_limit_and_what_survived(make_interp):
    interp = make_interp(memory_limit=64 << 20)
    interp.execute("kept = 41")
    text = failure(interp, "x = 'a' * (10**10)")
    assert text.startswith(
        "MemoryError: the code asked for more memory than the sandbox's memory limit of 64 MiB allows, and the "
        "operation was refused; the session's variables are intact."
    ), text
    assert interp.execute("kept + 1") == 42


def test_https_fails_as_http_does_saying_there_is_no_network(interp):
    for scheme in ("http", "https"):
        text = failure(interp, f"import urllib.request\nurllib.request.urlopen('{scheme}://example.com/data.json')")
        assert text.startswith("URLError: <urlopen error [Errno 13] the sandbox has no network"), (scheme, text)
    printed = interp.execute(
        "import http.client\nc = http.client.HTTPSConnection('example.com', timeout=3)\n"
        "print(c.port, 'HTTPSConnection' in http.client.__all__)"
    )
    assert printed == "443 True\n"


def test_a_missing_file_shows_the_users_frame_only_as_cpython_does(interp):
    text = failure(interp, "data = open('/data/missing.csv').read()")
    assert text.startswith("FileNotFoundError: [Errno 2] No such file or directory: '/data/missing.csv'"), text
    assert "<sandbox _sandbox_" not in text and text.count('File "') == 1, text
    text = failure(interp, "import os\nos.listdir('/nowhere')")
    assert "<sandbox _sandbox_" not in text and text.count('File "') == 1, text


@pytest.mark.parametrize("module", ["requests", "numpy", "pandas"])
def test_a_missing_module_says_why_in_cpythons_type(interp, module):
    text = failure(interp, f"import {module}")
    assert text.startswith(
        f"ModuleNotFoundError: No module named '{module}': the sandbox has Python's standard library and the "
        "third-party packages its host installed for it"
    ), text
    assert f'the host gives it one it has installed with RustInterpreter(packages=["{module}"])' in text, text
    # Code that probes for an optional module still sees CPython's exception and words.
    assert interp.execute(f"import importlib.util\nimportlib.util.find_spec('{module}') is None") is True
    assert interp.execute(f"try:\n    import {module}\nexcept ImportError as e:\n    r = str(e)\nr") == (
        f"No module named '{module}'"
    )
