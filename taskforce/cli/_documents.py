"""`plan export`, `plan import` and `sessions --summary`: plans as documents and a dashboard."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from taskforce.cli._errors import database_errors
from taskforce.cli._safe import cell, escape_json, one_line, printable
from taskforce.cli._settings import Settings
from taskforce.cli._tables import clip, table_console

_OBJECTIVE_WIDTH = 60


def plan_export_command(
    settings: Settings,
    session_id: str | None,
    output: Path | None,
    folder: Path | None,
    *,
    overwrite: bool = False,
) -> None:
    """Print or write one session's Plan.md, or export every plan into a folder."""
    from taskforce.cli import _store_calls as commands

    url = settings.resolved_db_url()
    with database_errors(url):
        if folder is not None:
            report = commands.export_folder(url, folder, datetime.now().astimezone())
            print(
                f"{one_line(folder)}: {len(report.written)} written, "
                f"{len(report.unchanged)} unchanged, {len(report.removed)} removed "
                "(finished plans under Done/)"
            )
            for error in report.errors:
                print(f"warning: {one_line(error)}")
            return
        assert session_id is not None
        text = commands.export_plan(url, session_id, output, overwrite=overwrite)
    if output is None:
        print(printable(text), end="")
    else:
        print(f"wrote {one_line(output)}")


def plan_import_command(
    settings: Settings, path: Path, session_id: str | None, *, replace: bool
) -> None:
    """Create a session from a Plan.md file and print its id."""
    from taskforce.cli import _store_calls as commands

    url = settings.resolved_db_url()
    with database_errors(url):
        created = commands.import_plan(url, path, session_id, replace=replace)
    print(one_line(created))


def summary_command(settings: Settings, *, as_json: bool) -> None:
    """Print the dashboard: counts (active, paused, completed today) and one row per plan."""
    from taskforce.cli import _store_calls as commands

    url = settings.resolved_db_url()
    with database_errors(url):
        summary = commands.sessions_summary(url, datetime.now().astimezone())
    if as_json:
        print(escape_json(summary.to_json()), end="")
        return
    from rich.table import Table

    data = summary.to_dict()
    console = table_console()
    console.print(
        f"active {data['active_plans']} · paused {data['paused_plans']} · "
        f"completed today {data['completed_today']} · completed {data['completed_plans']} · "
        f"failed {data['failed_plans']} · total {data['total_plans']}"
    )
    if not data["plans"]:
        return
    table = Table(header_style="bold")
    width = max(len(row["id"]) for row in data["plans"])
    status_width = max(9, *(len(row["status"]) for row in data["plans"]))
    # rich crops (rather than shortens) a no-wrap column that does not fit: size it here.
    objective_width = max(12, min(_OBJECTIVE_WIDTH, console.width - width - status_width - 21))
    table.add_column("id", no_wrap=True, style="cyan", min_width=width)
    table.add_column("objective", no_wrap=True, max_width=objective_width)
    table.add_column("status", no_wrap=True, min_width=9)
    table.add_column("progress", justify="right", no_wrap=True, min_width=8)
    for row in data["plans"]:
        table.add_row(
            cell(row["id"]),
            cell(clip(one_line(row["objective"]), objective_width) or "—"),
            cell(row["status"]),
            f"{row['steps_done']}/{row['steps_total']}",
        )
    console.print(table)
