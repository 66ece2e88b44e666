"""Consoles for tables: fit the terminal on a terminal; in a pipe, whole rows.

A table printed to a terminal is fitted to its width (long cells are shortened with an
ellipsis). Printed to a pipe or a file there is no width to fit, and rich's default of
80 columns would cut rows: there the console is wide enough for the table's natural
width, so every cell is whole (cells are one line, and long text is clipped to a
readable width by the caller).
"""

from __future__ import annotations

from rich.console import Console

PIPE_WIDTH = 1000
"""The width a table may take when printed to a pipe (it takes only what it needs)."""


def table_console() -> Console:
    """The terminal's console, or a wide one that never cuts a table's rows."""
    console = Console(highlight=False)
    return console if console.is_terminal else Console(highlight=False, width=PIPE_WIDTH)


def text_console() -> Console:
    """The terminal's console, or (in a pipe) one that never breaks long lines."""
    console = Console(highlight=False)
    return console if console.is_terminal else Console(highlight=False, soft_wrap=True)


def clip(text: str, width: int) -> str:
    """`text` cut to `width` characters with an ellipsis (rich crops, not clips, no_wrap cells)."""
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"
