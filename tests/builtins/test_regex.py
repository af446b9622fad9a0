"""Regular expressions searched by a finite automaton first (src/builtins/regex/).

What CPython gives is pinned by tests/fidelity/cases/re_automaton.py and by the differential fuzzer
(fuzz/fuzz_regex.py); here, what CPython cannot show: patterns on which a backtracking engine (CPython's, and
RustPython's `_sre` alone) runs for ever, answered by the automaton within the session's time limit.
"""

from __future__ import annotations

import pytest

# Each would take longer than the age of the universe backtracking; the answer is known without trying.
CATASTROPHIC = [
    ("re.match(r'(a+)+$', 'a' * 100_000 + 'b')", None),
    ("re.search(r'(x+x+)+y', 'x' * 100_000)", None),
    ("re.fullmatch(r'(\\w+\\s?)+', 'word ' * 20_000 + '!')", None),
    ("re.findall(r'(a|aa)+c', 'a' * 50_000)", []),
    ("re.sub(r'(a*)*b', '-', 'a' * 50_000)", "a" * 50_000),
    ("re.split(r'(?:\\d+)+x', '1' * 50_000)", ["1" * 50_000]),
    ("len(list(re.finditer(r'(?:a|a)*c', 'a' * 30_000)))", 0),
    ("re.compile(r'^(\\s*\\w+)*;$', re.M).search('ab cd ef ' * 5_000)", None),
    # Not ASCII: the automaton reads UTF-8 and the engine's positions are characters.
    ("re.search(r'(é+)+ü', 'é' * 50_000)", None),
]


@pytest.mark.parametrize("code, expected", CATASTROPHIC, ids=[code for code, _ in CATASTROPHIC])
def test_a_pattern_that_backtracks_for_ever_is_answered(make_interp, code, expected):
    interp = make_interp(timeout=20, abandon_after=1)
    assert interp.execute(f"import re\n{code}") == expected


def test_a_match_found_after_a_long_run_is_the_engines_own(make_interp):
    interp = make_interp(timeout=20)
    code = "m = re.search(r'(?P<run>(?:ab)+)c', 'ab' * 50_000 + 'c')\n(m.span(), len(m.group('run')), m.lastgroup)"
    assert interp.execute("import re\n" + code) == ((0, 100_001), 100_000, "run")


def test_a_pattern_the_automaton_cannot_read_keeps_the_engines_search(make_interp):
    # A backreference: RustPython's own search, same answers.
    interp = make_interp()
    assert interp.execute("import re\nre.findall(r'(\\w)\\1', 'aabccd'), re.sub(r'(a)\\1', 'X', 'aaa')") == (
        ["a", "c"],
        "Xa",
    )


def test_module_functions_follow_purge_and_flags(make_interp):
    # `re.search` and friends keep compiled patterns in a table of their own; `re.purge()` empties it too.
    interp = make_interp()
    interp.execute("import re\nfirst = re.compile('a')\nre.search('a', 'a')")
    assert interp.execute("re.purge()\nre._cache == {} and re._cache2 == {}") is True
    assert interp.execute("re.search('A', 'xa', re.I).span(), re.search('A', 'xa', flags=re.I).span()") == (
        (1, 2),
        (1, 2),
    )
    assert interp.execute("re.findall('a', 'Aa', re.I | re.M), re.findall('a', 'Aa', 0)") == (["A", "a"], ["a"])


def test_argument_errors_keep_their_words(make_interp):
    interp = make_interp()
    interp.execute("import re\np = re.compile('a')")
    for code, words in [
        ("p.search(1)", "expected string"),
        ("re.search('a', 'a', flags='x')", None),
        ("re.sub('(a)', '\\\\2', 'a')", "invalid group reference 2"),
        ("p.search('a', pos='x')", None),
    ]:
        with pytest.raises(Exception) as raised:
            interp.execute(code)
        if words:
            assert words in str(raised.value), (code, str(raised.value))
