"""The demo tools of a run, and the workspace folder they write in.

The offline model gets the demo tools unless ``--no-demo-tools``; any other model only
with ``--demo-tools``. A session's workspace is ``--workspace`` (or
``TASKFORCE_WORKSPACE``) when given, else ``workspaces/<session id>`` next to the SQLite
database file (the user data directory for other databases), so a continued session
finds the files it wrote.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from taskforce.cli._settings import Settings

if TYPE_CHECKING:
    from taskforce.tools.base import ToolProtocol


def demo_tools_on(settings: Settings) -> bool:
    """Whether this run gets the demo tools (by default: with the offline model)."""
    return settings.offline if settings.demo_tools is None else settings.demo_tools


def workspace_of(settings: Settings, session_id: str) -> Path:
    """The folder the demo tools of `session_id` write in (not created here)."""
    if settings.workspace and settings.workspace.strip():
        return Path(settings.workspace.strip()).expanduser().resolve()
    from taskforce.store import default_db_path, sqlite_path

    path = sqlite_path(settings.resolved_db_url())
    home = Path(path).parent if path and path != ":memory:" else default_db_path().parent
    return (home / "workspaces" / session_id).resolve()


def run_tools(settings: Settings, session_id: str) -> list[ToolProtocol]:
    """The tools a run of `session_id` gets besides the planner."""
    if not demo_tools_on(settings):
        return []
    from taskforce.tools.demo import demo_tools

    return demo_tools(workspace_of(settings, session_id))


def files_line(settings: Settings, session_id: str) -> str | None:
    """`files in PATH: agenda.md, notes.md`, when the session's workspace has any."""
    from taskforce.tools.workspace import Workspace

    folder = Workspace(workspace_of(settings, session_id))
    found = folder.files()
    if not found:
        return None
    shown = ", ".join(name for name, _ in found[:10])
    more = f", … {len(found) - 10} more" if len(found) > 10 else ""
    return f"files in {folder.root}: {shown}{more}"
