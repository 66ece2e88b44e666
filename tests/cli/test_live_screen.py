"""The live view as a user sees it: a real terminal (a pty), the screen read by pyte.

On a terminal `taskforce run` redraws the checklist and a spinner in place; what must stay
on the screen when the run ends is the log of tool calls and their results, then the
answer, the plan (once) and the session line.
"""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios
from pathlib import Path

import pytest

from tests.cli.conftest import TASKFORCE

pyte = pytest.importorskip("pyte")
pytestmark = pytest.mark.skipif(not TASKFORCE.exists(), reason="taskforce is not installed")

COLS, ROWS = 110, 200
MISSION = """Prepare a team offsite for 8 people:
1. Work out the food budget: 8 * 45 + 120
2. Note the venue options: Lakeside Hall or the Old Mill
3. Write the agenda to agenda.md
4. Book the venue"""


def final_screen(args: list[str], env: dict[str, str]) -> tuple[int, list[str]]:
    """Run on a pty of COLS x ROWS; the exit code and the screen's lines when it ended."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    screen = pyte.Screen(COLS, ROWS)
    pyte.ByteStream(screen).feed(b"".join(chunks))
    return proc.wait(timeout=60), [line.rstrip() for line in screen.display if line.strip()]


def test_the_tool_calls_stay_on_screen_after_the_run(tmp_path: Path) -> None:
    env = {**os.environ, "TASKFORCE_DB_URL": f"sqlite+aiosqlite:///{tmp_path / 'tf.db'}",
           "TERM": "xterm-256color", "COLUMNS": str(COLS), "LINES": str(ROWS)}  # fmt: skip
    for name in ("TASKFORCE_MODEL", "NO_COLOR", "TASKFORCE_WORKSPACE"):
        env.pop(name, None)
    code, lines = final_screen([str(TASKFORCE), "run", MISSION], env)
    assert code == 0, "\n".join(lines)
    text = "\n".join(lines)
    # the log of the run: every call and its result, in order, still there
    log = [
        "→ calculator expression='8 * 45 + 120'",
        "← 8 * 45 + 120 = 480",
        "→ add_note text='Venue options: Lakeside Hall or the Old Mill'",
        "→ write_file path='agenda.md'",
        "← wrote agenda.md (",
        "→ planner mark_done step_index=[4] status='SKIPPED'",
    ]
    where = [next(i for i, line in enumerate(lines) if part in line) for part in log]
    assert where == sorted(where), text
    # the transient part (spinner, the plan as it changed) is gone; the plan shows once
    assert "model thinking" not in text and "(no plan yet)" not in text
    assert text.count("╭─ plan") == 1 and text.count("╭─ answer") == 1
    assert "• step 1, calculator: 8 * 45 + 120 = 480" in text
    assert f"files in {tmp_path / 'workspaces'}" in text and "agenda.md, notes.md" in text
    assert "status: completed" in text
    assert lines.index(next(line for line in lines if "╭─ answer" in line)) > max(where)
