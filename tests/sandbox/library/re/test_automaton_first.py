"""Regular expressions searched by a finite automaton first (src/sandbox/library/re/).

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


# An automaton looser than the engine (a lookbehind; `\b` on a subject that is not ASCII) names starts the
# engine refuses; in a long run each one was found by scanning the run again (quadratic: 30,000 letters took
# 2.6 s, 100,000 the time limit). The engine's own search takes over after a few refusals.
LOOSENED = [
    (r"re.search(r'(?<=\d)[a-z]+', 'a' * 200_000)", None),
    ("re.findall(r'\b[a-z]{2,}', 'é' + 'x' * 200_000)", []),
    (r"len(re.sub(r'(?<![\w/+])[\w/+]{20,}', '-', 'a' * 100_000 + ' ' + 'b' * 30))", 3),
    (r"re.split(r'(?<=\d)[a-z]+', 'a' * 200_000) == ['a' * 200_000]", True),
]


@pytest.mark.parametrize("code, expected", LOOSENED, ids=[code for code, _ in LOOSENED])
def test_a_loosened_automaton_stays_linear(make_interp, code, expected):
    interp = make_interp(timeout=20, abandon_after=1)
    assert interp.execute(f"import re\n{code}") == expected


def test_automata_are_bounded_per_pattern_and_per_session(make_interp):
    # 400 distinct patterns with big Unicode repeats (each kept alive by `re`'s cache): the automata stop being
    # built past the session's budget instead of filling the memory limit; and a pattern whose reading alone
    # would be huge keeps the engine's search.
    interp = make_interp(timeout=60, memory_limit=512 << 20)
    code = "import re\n[re.search(r'\\w{0,80}x%d' % i, 'é' * 2000) for i in range(400)].count(None)"
    assert interp.execute(code) == 400
    assert interp.execute("re.compile(r'\\w' * 90_000).search('a' * 10) is None") is True


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


def test_a_debug_pattern_is_compiled_and_shown_each_time(make_interp):
    # `re._compile` never caches a `re.DEBUG` pattern; neither does the module functions' table.
    output = make_interp().execute("import re\nre.search('ab', 'xab', re.DEBUG)\nre.search('ab', 'xab', re.DEBUG)\n")
    assert output.count("LITERAL 97") == 2, output
