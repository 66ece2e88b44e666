"""`taskforce eval --list`: the built-in suites and the arms, or the missions of one suite."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from taskforce.cli._safe import cell, one_line
from taskforce.cli._tables import clip
from taskforce.plan.text import plural

_TEXT_CHARS = 110


def list_command(console: Console, suite: str | None = None) -> None:
    """Print the built-in suites and the base arms; with `suite`, that suite's missions.

    Raises:
        ConfigurationError: `suite` is no suite (an unknown name, a missing or broken file).
    """
    from taskforce.evals import BASES, BUILTIN_SUITES, load_suite

    if suite is None:
        table = Table(title="Suites (--suite NAME, or a .py file of your own)")
        table.add_column("name")
        table.add_column("what")
        for name, (what, _) in BUILTIN_SUITES.items():
            table.add_row(name, what)
        console.print(table)
        named = ""
    else:
        loaded = load_suite(suite)
        table = Table(title=cell(f"{loaded.name}: {plural(len(loaded.missions), 'mission')}"))
        for column in ("mission", "tags", "text"):
            table.add_column(column)
        for mission in loaded.missions:
            short = clip(one_line(mission.text), _TEXT_CHARS)
            table.add_row(cell(mission.id), cell(", ".join(mission.tags)), cell(short))
        console.print(table)
        named = "".join(f", {one_line(n)} ({one_line(a)})" for n, a in loaded.arms.items())
    console.print(
        f"Arms (--arms): {', '.join(BASES)}{named}, or NAME=planner+OPTION=VALUE (LeanAgent "
        "options), e.g. strict=planner+require_work_before_done=true",
        markup=False,
        highlight=False,
    )
