"""Synchronous one-call entry points for the CLI: export, folder export, import, summary.

Each opens the store at `url` (None: ``TASKFORCE_DB_URL`` or the default SQLite file),
does one thing and closes it. They use ``asyncio.run``, so call them from synchronous
code only. Errors are taskforce errors (``SessionNotFoundError``, ``UserError``, ...) for
the CLI to map to exit codes. ``sessions_summary`` reads through the store's fast
read-only path, so it starts without SQLAlchemy for an SQLite file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from taskforce.documents.dashboard import DashboardSummary, summarize
from taskforce.documents.store_io import (
    ExportReport,
    export_all,
    export_plan_md,
    import_plan_md,
    write_if_changed,
)
from taskforce.errors import FileAccessError, UserError

if TYPE_CHECKING:
    from taskforce.store import StateManager

T = TypeVar("T")
_PAGE = 500


def _with_store(url: str | None, call: Callable[[StateManager], Awaitable[T]]) -> T:
    from taskforce.store import StateManager

    async def main() -> T:
        async with StateManager(url) as manager:
            return await call(manager)

    return asyncio.run(main())


@contextmanager
def _file_errors(path: Path, verb: str) -> Iterator[None]:
    """An OS error while using `path` becomes a `FileAccessError` naming it."""
    try:
        yield
    except OSError as exc:
        raise FileAccessError.of(exc, f"cannot {verb} {str(path)!r}") from exc


def export_plan(
    url: str | None,
    session_id: str,
    output: str | Path | None = None,
    *,
    overwrite: bool = False,
) -> str:
    """``taskforce plan export SESSION [-o FILE]``: the Plan.md text (also written to `output`).

    Raises:
        FileAccessError: `output` exists (and not `overwrite`), is a directory, or cannot
            be written. Checked before the store is read, so nothing is half done.
    """
    target = Path(output) if output is not None else None
    if target is not None:
        if target.is_dir():
            raise FileAccessError(f"cannot write {str(target)!r}: it is a directory")
        if target.exists() and not overwrite:
            raise FileAccessError(f"{str(target)!r} exists; add --force to overwrite it")
    text = _with_store(url, lambda sm: export_plan_md(sm, session_id))
    if target is not None:
        with _file_errors(target, "write"):
            write_if_changed(target, text)
    return text


def export_folder(url: str | None, directory: str | Path, now: datetime) -> ExportReport:
    """``taskforce plan export --all DIR``: every plan into `directory`, finished ones in Done/."""
    with _file_errors(Path(directory), "export into"):
        return _with_store(url, lambda sm: export_all(sm, directory, now))


def import_plan(
    url: str | None, path: str | Path, session_id: str | None = None, *, replace: bool = False
) -> str:
    """``taskforce plan import FILE [--session ID]``: the id of the session created."""
    with _file_errors(Path(path), "read"):
        try:
            text = Path(path).read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:  # the content, not the file, is at fault
            raise UserError(f"cannot read {str(path)!r}: {exc}") from exc
    return _with_store(
        url, lambda sm: import_plan_md(sm, text, session_id=session_id, replace=replace)
    )


def sessions_summary(url: str | None, now: datetime) -> DashboardSummary:
    """``taskforce sessions --summary [--json]``: the dashboard of every session."""
    from taskforce.store.readonly import read_sessions

    rows: list[Any] = []
    while True:
        page = read_sessions(url, limit=_PAGE, offset=len(rows))
        rows.extend(page)
        if len(page) < _PAGE:
            return summarize(rows, now)
