"""Hostile text for terminals, and the check that none of it reached one raw."""

from __future__ import annotations

import os
import pty
import re
import subprocess
from collections.abc import Sequence

HOSTILE = {
    "clear": "\x1b[2J\x1b[Hcleared",
    "link": "\x1b]8;;http://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
    "erase": "\x1b[1A\x1b[2Kgotcha",
    "title": "\x1b]0;owned\x07",
    "c1": "\x9b31mred\x9b0m",
    "rlo": "file\u202egnp.exe",
    "cr": "safe\roverwritten",
    "bell": "ding\x07\x08\x7f",
    "markup": "[red]red[/red] [link=http://evil.example/]x[/link] [bold]b",
}
"""Text a model, a mission or a Plan.md could hold; none of it may act on a terminal."""

# What rich itself writes on a terminal: colours, cursor hiding, erase line, cursor up.
_RICH = re.compile(r"\x1b\[[0-9;]*m|\x1b\[\?25[lh]|\x1b\[2K|\x1b\[[0-9]*A")
_RAW = re.compile(r"[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def raw_controls(output: str, *, terminal: bool = False) -> list[str]:
    """Control characters in `output` that no sanitiser stood in for ([] is safe).

    With `terminal`, rich's own sequences (and carriage returns) are allowed; the
    hostile payloads' own sequences must still be absent.
    """
    found = []
    if terminal:
        found += [name for name, text in HOSTILE.items() if "\x1b" in text and text in output]
        output = _RICH.sub("", output).replace("\r", "")
    else:
        output = output.replace("\r\n", "\n")
    found += [repr(m.group()) for m in _RAW.finditer(output)]
    if not terminal:
        found += [repr(c) for c in output if c == "\r"]
    return found


def run_in_pty(args: Sequence[str], env: dict[str, str], timeout: float = 120) -> tuple[int, str]:
    """Run a command on a pseudo-terminal (so rich draws its live view); (code, output)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        list(args), stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True
    )
    os.close(slave)
    chunks = []
    try:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the terminal closed
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
    code = proc.wait(timeout=timeout)
    return code, b"".join(chunks).decode("utf-8", errors="replace")
