"""Memory a cell frees stays with its session for the next cell, up to an allowance, instead of going back to
the kernel and being faulted in again (src/memory: the page heap's spare pages and the system allocator's trim
threshold, a sixteenth of the memory limit). Counted by the session process's minor page faults, which do not
depend on the machine's speed."""

from __future__ import annotations

import pytest


def minor_faults(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        # Field 10 is minflt; the command name (field 2) is in parentheses and may hold spaces.
        return int(stat.read().rsplit(")", 1)[1].split()[7])


@pytest.mark.parametrize(
    ("what", "cell"),
    [
        ("small objects", "words = context.split()\ncounts = {}\nfor w in words:\n    counts[w] = counts.get(w, 0) + 1"),
        ("4 KB slices", "chunks = [context[i:i + 4000] for i in range(0, len(context), 4000)]"),
    ],
)
def test_a_cell_run_again_reuses_the_memory_the_last_run_freed(make_interp, what, cell):
    interp = make_interp()
    interp.execute("context = ' '.join(f'w{i % 5000}' for i in range(200_000))")
    for _ in range(3):
        interp.execute(cell + "\ndel " + cell.split(" =", 1)[0])
    pid = interp._session.pid
    faults = []
    for _ in range(10):
        before = minor_faults(pid)
        interp.execute(cell + "\ndel " + cell.split(" =", 1)[0])
        faults.append(minor_faults(pid) - before)
    # Each run makes and frees megabytes: given back and faulted in again, a run cost 6,000 faults (small
    # objects) and 126 (4 KB slices) before; kept, a few dozen at most. The median: a checkpoint falls due once
    # the runs since the last one took a second, and the run after it pays copy-on-write faults (~6,000 here),
    # once or twice in ten runs on a loaded machine.
    assert sorted(faults)[len(faults) // 2] < 40, f"{what}: minor faults per run {faults}"
