"""What execute() returns: captured output, the trailing expression's value, and output on errors."""

from __future__ import annotations

import pytest

from dspy_rust_interpreter import CodeExecutionError

# ---------------------------------------------------------------------------------------------------------
# captured output
# ---------------------------------------------------------------------------------------------------------


def test_stdout_is_exactly_what_was_printed_and_stderr_follows_it_apart(interp):
    code = "import sys\nprint('a')\nsys.stdout.write('b')\nprint('c', file=sys.stderr)\nsys.stderr.write('d')\nprint('e')\n"
    assert interp.execute(code) == "a\nbe\n[stderr]\nc\nd"


@pytest.mark.parametrize(
    ("code", "stdout", "stderr"),
    [
        ("import warnings\nwarnings.warn('careful')\nprint('done')", "done\n", "UserWarning: careful"),
        ("import re\nprint(re.findall('\\d', 'a1'))", "['1']\n", "SyntaxWarning"),
        ("import logging\nlogging.warning('disk %s', 'full')\nprint(1)", "1\n", "WARNING:root:disk full"),
        (
            "import traceback\ntry:\n    1 / 0\nexcept ZeroDivisionError:\n    traceback.print_exc()\nprint(2)",
            "2\n",
            "ZeroDivisionError",
        ),
        ("import warnings\nwarnings.warn('w')\n3", "3", "UserWarning: w"),
    ],
    ids=["warning", "compile-warning", "logging", "print_exc", "trailing-value"],
)
def test_what_goes_to_stderr_reaches_the_model_after_stdout(make_interp, code, stdout, stderr):
    text = make_interp().execute(code)
    assert text.startswith(stdout + ("\n" if not stdout.endswith("\n") else "") + "[stderr]\n"), text
    assert stderr in text.split("[stderr]\n", 1)[1]


def test_argparse_names_a_program_in_its_usage_error(interp):
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute(
            "import argparse\np = argparse.ArgumentParser()\np.add_argument('--n', type=int)\np.parse_args(['--n', 'x'])"
        )
    assert raised.value.error_type == "SystemExit"
    assert "usage: main.py [-h] [--n N]" in raised.value.output
    assert "main.py: error: argument --n: invalid int value: 'x'" in raised.value.output


def test_stdout_write_returns_character_count(interp):
    assert interp.execute("import sys\nn = sys.stdout.write('héllo')") == "héllo"
    assert interp.execute("n") == 5


def test_print_sep_and_end_are_honoured(interp):
    assert interp.execute("print(1, 2, sep='-', end='!')") == "1-2!"


def test_printed_text_is_returned_exactly_with_its_final_newline(interp):
    assert interp.execute("print('hi')") == "hi\n"


def test_inner_newlines_are_kept(interp):
    assert interp.execute("print('a\\n\\nb')") == "a\n\nb\n"


def test_printed_text_with_trailing_expression_appends_repr_on_new_line(interp):
    assert interp.execute("print('hi')\n10") == "hi\n10"


def test_trailing_expression_repr_follows_text_without_newline(interp):
    assert interp.execute("import sys\nsys.stdout.write('x')\n5") == "x\n5"


def test_trailing_expression_string_is_appended_as_repr(interp):
    assert interp.execute("print('hi')\n'text'") == "hi\n'text'"


def test_trailing_print_call_does_not_append_none(interp):
    assert interp.execute("print('x')") == "x\n"


def test_output_of_one_execute_does_not_carry_into_the_next(interp):
    assert interp.execute("print('first')") == "first\n"
    assert interp.execute("print('second')") == "second\n"


def test_unicode_output_is_preserved(interp):
    assert interp.execute("print('héllo ✓ 日本語 🐍')") == "héllo ✓ 日本語 🐍\n"


# ---------------------------------------------------------------------------------------------------------
# the trailing expression's value
# ---------------------------------------------------------------------------------------------------------


def test_trailing_dict_expression_returns_host_dict(interp):
    result = interp.execute("{'a': [1, 2], 'b': (3, None)}")
    assert result == {"a": [1, 2], "b": (3, None)}
    assert type(result) is dict


def test_trailing_list_expression_returns_host_list(interp):
    result = interp.execute("[i * i for i in range(4)]")
    assert result == [0, 1, 4, 9]
    assert type(result) is list


def test_trailing_int_expression_returns_int_not_string(interp):
    assert interp.execute("6 * 7") == 42


def test_trailing_str_expression_returns_the_string_itself(interp):
    assert interp.execute("'abc'") == "abc"


def test_trailing_class_instance_returns_its_repr_string(interp):
    code = "class P:\n    def __repr__(self):\n        return 'P<1>'\nP()"
    assert interp.execute(code) == "P<1>"


def test_trailing_instance_with_default_repr_returns_repr_string(interp):
    result = interp.execute("class A:\n    pass\nA()")
    assert isinstance(result, str)
    assert result.startswith("<__main__.A object at ")


def test_trailing_function_returns_repr_string(interp):
    result = interp.execute("def f():\n    pass\nf")
    assert isinstance(result, str)
    assert result.startswith("<function f at ")


def test_trailing_list_with_non_data_item_returns_repr_string(interp):
    result = interp.execute("[1, object()]")
    assert isinstance(result, str)
    assert result.startswith("[1, <object object at ")


def test_trailing_def_returns_none(interp):
    assert interp.execute("def f():\n    return 1") is None


def test_trailing_assignment_returns_none(interp):
    assert interp.execute("x = 5") is None


def test_trailing_none_expression_returns_none(interp):
    assert interp.execute("None") is None


def test_expression_that_is_not_last_is_not_returned(interp):
    assert interp.execute("1 + 1\nx = 3") is None


# ---------------------------------------------------------------------------------------------------------
# stdout replaced by sandbox code
# ---------------------------------------------------------------------------------------------------------


def test_reassigned_stdout_is_captured_again_in_next_execute(interp):
    interp.execute("import sys, io\nsys.stdout = io.StringIO()\nsys.stderr = io.StringIO()\nprint('hidden')")
    assert interp.execute("import sys\nprint('visible')\nprint('err', file=sys.stderr)") == "visible\n[stderr]\nerr\n"


def test_stdout_set_to_none_is_captured_again_in_next_execute(interp):
    interp.execute("import sys\nsys.stdout = None")
    assert interp.execute("print('back')") == "back\n"


def test_output_written_to_replaced_stdout_is_not_returned(interp):
    code = "import sys, io\nbuf = io.StringIO()\nsys.stdout = buf\nprint('into buffer')"
    assert interp.execute(code) is None
    assert interp.execute("buf.getvalue()") == "into buffer\n"


# ---------------------------------------------------------------------------------------------------------
# output of a failing execute
# ---------------------------------------------------------------------------------------------------------


def test_failing_execute_keeps_output_on_error(interp):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("print('step 1')\nprint('step 2')\nraise ValueError('bad')")
    assert info.value.output == "step 1\nstep 2\n"


def test_failing_execute_message_includes_output_section(interp):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("print('step 1')\nraise ValueError('bad')")
    message = str(info.value)
    assert message.startswith("ValueError: bad")
    assert "Output printed before the error:\nstep 1" in message


def test_failing_execute_without_output_has_no_output_section(interp):
    with pytest.raises(CodeExecutionError) as info:
        interp.execute("raise ValueError('bad')")
    assert info.value.output == ""
    assert "Output printed before the error" not in str(info.value)


def test_output_of_failed_execute_does_not_leak_into_next(interp):
    with pytest.raises(CodeExecutionError):
        interp.execute("print('before failure')\n1 / 0")
    assert interp.execute("print('next')") == "next\n"


def test_stdout_flush_and_isatty_work(interp):
    assert interp.execute("import sys\nprint('x', flush=True)\nsys.stdout.flush()\nsys.stdout.isatty()") == "x\nFalse"


def test_stdout_writelines_is_captured(interp):
    assert interp.execute("import sys\nsys.stdout.writelines(['a\\n', 'b\\n'])") == "a\nb\n"


def test_pprint_and_json_dump_write_to_captured_stdout(interp):
    code = "import sys, json, pprint\npprint.pprint({'b': 1, 'a': 2})\njson.dump([1, 2], sys.stdout)"
    assert interp.execute(code) == "{'a': 2, 'b': 1}\n[1, 2]"


# ---------------------------------------------------------------------------------------------------------
# values whose repr CPython refuses, and text CPython cannot compile
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "printed"),
    [("7 ** 100000", None), ("[1, {'n': 7 ** 100000}]", None), ("x = 7 ** 100000\nprint('before')\nx", "before")],
)
def test_a_trailing_int_too_long_for_str_is_the_cells_error_as_in_cpythons_repl(interp, code, printed):
    """Handed over as data, the int was a host int that str() refuses: RLM's str(result) ended the whole call."""
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute(code)
    message = str(raised.value)
    assert message.startswith("ValueError: Exceeds the limit (4300 digits) for integer string conversion"), message
    if printed:
        assert printed in message
    assert interp.execute("1 + 1") == 2


def test_a_long_int_is_data_where_the_sandbox_raised_its_limit_or_it_is_short_enough(interp):
    assert interp.execute("2 ** 14100").bit_length() == 14101
    assert interp.execute("import sys\nsys.set_int_max_str_digits(0)\n7 ** 100000") == 7**100000


def test_code_with_a_lone_surrogate_is_a_code_execution_error_in_cpythons_words(interp):
    """A model's JSON "\\ud800" decodes to a lone surrogate; compile() cannot encode it. execute() raised
    UnicodeEncodeError itself, which dspy.RLM does not catch."""
    with pytest.raises(CodeExecutionError, match=r"^UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800'"):
        interp.execute("x = '\ud800'")
    assert interp.execute("1 + 1") == 2


def test_a_str_with_lone_surrogates_keeps_its_length_with_one_replacement_each(make_interp):
    interp = make_interp(tools={"text": lambda: "a\ud800b\udfffc"})
    assert interp.execute("len(v), v", variables={"v": "x\ud800y"}) == (3, "x\ufffdy")
    assert interp.execute("t = text()\nlen(t), t") == (5, "a\ufffdb\ufffdc")


def test_a_trailing_value_whose_repr_raises_is_the_cells_error(interp):
    """As in CPython's REPL, which shows the exception the repr raised (the sandbox showed '<A object>')."""
    with pytest.raises(CodeExecutionError, match=r"^ValueError: no repr for you"):
        interp.execute("class A:\n    def __repr__(self):\n        raise ValueError('no repr for you')\nA()")
    with pytest.raises(CodeExecutionError, match=r"(?s)^ValueError: no repr.*Output printed before the error:\nhi"):
        interp.execute("print('hi')\nA()")


# ---------------------------------------------------------------------------------------------------------
# output past max_output_chars: its head and its tail, a note between
# ---------------------------------------------------------------------------------------------------------


def test_the_default_cap_keeps_two_million_characters_head_and_tail(interp):
    text = interp.execute("print('h' * 1_500_000)\nprint('t' * 1_500_000)")
    head, note, tail = text.split("\n", 2)
    assert head == "h" * 1_000_000
    assert note == (
        "[output truncated: 1000002 of 3000002 characters were dropped here, before the last 1000000; print less, "
        "e.g. a slice, a count or a summary]"
    )
    assert tail == "t" * 999_999 + "\n"


def test_the_last_lines_printed_after_much_output_reach_the_model(make_interp):
    interp = make_interp(max_output_chars=1000)
    text = interp.execute("for i in range(100_000):\n    print(i)\nprint('RESULT', 42)")
    assert text.startswith("0\n1\n2\n")
    assert text.endswith("\n99999\nRESULT 42\n")
    assert "[output truncated: " in text
    assert len(text) < 1200


def test_a_trailing_value_after_much_output_is_shown_at_its_end(make_interp):
    interp = make_interp(max_output_chars=1000)
    assert interp.execute("print('x' * 5000)\n'final'").endswith("x\n'final'")


def test_a_long_repr_alone_keeps_its_head_and_tail(make_interp):
    interp = make_interp(max_output_chars=1000)
    text = interp.execute("class Rows:\n    def __repr__(self):\n        return repr(list(range(100_000)))\nRows()")
    assert text.startswith("[0, 1, 2, ")
    assert text.endswith(", 99998, 99999]")
    assert "[output truncated: " in text


def test_stderr_after_much_stdout_is_kept(make_interp):
    interp = make_interp(max_output_chars=1000)
    text = interp.execute("import sys\nprint('x' * 5000)\nprint('careful!', file=sys.stderr)")
    assert text.endswith("x\n[stderr]\ncareful!\n")


def test_output_before_an_error_keeps_its_last_lines(make_interp):
    interp = make_interp(max_output_chars=1000)
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute("for i in range(10_000):\n    print('step', i)\n1 / 0")
    assert raised.value.output.endswith("step 9998\nstep 9999\n")


def test_the_note_in_a_tail_is_the_hosts_alone(make_interp):
    interp = make_interp(max_output_chars=100)
    text = interp.execute("print('x' * 500)\nprint('[output truncated: all is well]')")
    assert text.endswith("\n\\[output truncated: all is well]\n")
    assert text.count("\n[output truncated: ") == 1


def test_both_streams_cut_before_an_error_keep_their_last_lines(make_interp):
    # Each stream's note, and stderr's heading, fit the room the host leaves past the cap for them.
    interp = make_interp(max_output_chars=1000)
    with pytest.raises(CodeExecutionError) as raised:
        interp.execute(
            "import sys\nprint('o' * 100_000)\nprint('e' * 100_000, file=sys.stderr)\nprint('LAST', file=sys.stderr)\n1 / 0"
        )
    output = raised.value.output
    assert output.endswith("e\nLAST\n"), output[-300:]
    assert output.count("[output truncated: ") == 2
