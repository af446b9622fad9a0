"""_sandbox_traceback: one frame of a traceback as CPython prints it, the source line and under it the markers
of the failing expression (`^^^^`, and `~~~^~~~` around an operator, a subscript or a call), placed from the
code's instruction positions. The report of an exception is assembled in Rust (frames filtered, repeats
counted); the text of each frame of a cell comes from here."""

import itertools
import traceback


def frame(code, lasti, filename, lineno, name, line):
    lines = dict(end_lineno=None, colno=None, end_colno=None)
    if lasti >= 0:
        position = next(itertools.islice(code.co_positions(), lasti // 2, None), None)
        # Markers only for an expression on this one line: the report shows one source line per frame.
        if position is not None and position[0] == position[1] == lineno and None not in position[2:]:
            lines = dict(end_lineno=lineno, colno=position[2], end_colno=position[3])
    summary = traceback.FrameSummary(filename, lineno, name, lookup_line=False, line=line, **lines)
    return "".join(traceback.StackSummary.from_list([summary]).format())
