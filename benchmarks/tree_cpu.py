"""A command's wall clock, its whole process tree's CPU, and how long nothing in the tree could run (idle waiting).

``python benchmarks/tree_cpu.py python -m pytest -q -n 0 tests/test_web_browser.py`` prints, when the command ends:

- ``wall``: seconds from start to end;
- ``tree_cpu``: user+system seconds of every process the command started, children of children included, read
  from ``/proc/<pid>/stat`` every 20 ms while they run (a browser that pytest's ``getrusage(RUSAGE_CHILDREN)``
  never sees because its parent reaps it only at the end of the module is counted here); grouped by process
  name and Chromium's ``--type=``;
- ``rusage``: ``getrusage(RUSAGE_CHILDREN)``, what the waited-for children reported (a cross-check);
- ``idle``: seconds during which no thread of the tree was running or runnable (state ``R``): fixed sleeps,
  polling intervals, timeouts that expire, waiting on a server that does nothing. CPU contention from other
  processes of the machine is not idle (a runnable thread waiting for a core is ``R``), so on a loaded machine
  this is the part of the wall clock a faster machine would not remove; short gaps between two processes
  handing a message to each other count too (a few ms each).

Linux only (``/proc``). Why: issue 34's slow tests hold a worker far longer than their recorded CPU, and only
the whole tree tells the browser's or a server's work from waiting.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, float, str, str] | None:
    """(parent pid, CPU seconds, start time, name) of ``pid``, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    rest = text[text.rindex(")") + 2:].split()
    return int(rest[1]), (int(rest[11]) + int(rest[12])) / TICK, rest[19], text[text.index("(") + 1:text.rindex(")")]


def _kind(pid: int, name: str) -> str:
    """The process's name, with Chromium's ``--type=`` (renderer, gpu-process…) when it has one."""
    try:
        with open(f"/proc/{pid}/cmdline", encoding="utf-8", errors="replace") as f:
            words = f.read().replace("\0", " ").split()
    except OSError:
        return name
    return name + next((w[6:] for w in words if w.startswith("--type=")), "")


def _running(pids: set[int]) -> bool:
    """Whether a thread of one of ``pids`` is running or runnable."""
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/stat", encoding="utf-8", errors="replace") as f:
                    text = f.read()
            except OSError:
                continue
            if text[text.rindex(")") + 2] == "R":
                return True
    return False


def main(argv: list[str]) -> int:
    start = time.monotonic()
    proc = subprocess.Popen(argv)
    cpu: dict[tuple[int, str], float] = {}
    kinds: dict[tuple[int, str], str] = {}
    idle, last = 0.0, None
    while proc.poll() is None:
        table = {pid: st for pid in (int(d) for d in os.listdir("/proc") if d.isdigit())
                 if (st := _stat(pid)) is not None}
        tree, grew = {proc.pid}, True
        while grew:
            grew = False
            for pid, (parent, _, _, _) in table.items():
                if parent in tree and pid not in tree:
                    tree.add(pid)
                    grew = True
        for pid in tree & table.keys():
            _, seconds, started, name = table[pid]
            cpu[(pid, started)] = seconds
            if (pid, started) not in kinds:
                kinds[(pid, started)] = _kind(pid, name)
        now = time.monotonic()
        if last is not None and not _running(tree):
            idle += now - last
        last = now
        time.sleep(0.02)
    wall = time.monotonic() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    by: dict[str, float] = {}
    for key, seconds in cpu.items():
        by[kinds[key]] = by.get(kinds[key], 0.0) + seconds
    print(f"tree_cpu: wall {wall:.1f} s, tree_cpu {sum(cpu.values()):.1f} s, idle {idle:.1f} s, "
          f"rusage {usage.ru_utime + usage.ru_stime:.1f} s, load {os.getloadavg()[0]:.1f}; "
          + ", ".join(f"{k} {v:.1f}" for k, v in sorted(by.items(), key=lambda kv: -kv[1]) if v >= 0.05),
          file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
