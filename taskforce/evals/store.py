"""Results stored as they come: one JSON line per run, appended and flushed to disk.

An interrupted evaluation (Ctrl-C, a crash, a reboot) loses at most the run in progress:
every finished run is a complete line, a torn last line is ignored on reading, and the
next evaluation skips every key already stored; writers lock the file, so several
evaluations can share one. JSON lines keep the file readable, easy
to diff, and safe to commit beside the report it feeds.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

from taskforce.errors import ConfigurationError
from taskforce.evals.record import RunRecord

__all__ = ["ResultStore"]


def _lock(fd: int) -> None:
    """An exclusive lock on the open file (POSIX; elsewhere one writer at a time)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return
    fcntl.flock(fd, fcntl.LOCK_EX)


class ResultStore:
    """The JSONL results file at `path` (created with its folder on the first write)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.exists() and self.path.is_dir():
            raise ConfigurationError(f"{self.path} is a folder; give a results file (.jsonl)")
        self._keys: set[str] | None = None

    def records(self) -> Iterator[RunRecord]:
        """Every complete stored record, oldest first (later duplicates win in ``latest``)."""
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8") as lines:
            for line in lines:
                if not line.endswith("\n"):
                    break  # a torn last line: the run it belongs to runs again
                try:
                    yield RunRecord.from_dict(json.loads(line))
                except (ValueError, TypeError, KeyError):
                    continue  # not ours or damaged: skipped, never fatal

    def latest(self) -> list[RunRecord]:
        """One record per key (the newest), in first-stored order."""
        by_key: dict[str, RunRecord] = {}
        for record in self.records():
            by_key[record.key.text()] = record
        return list(by_key.values())

    def has(self, key_text: str) -> bool:
        """Whether a run with this key is stored."""
        if self._keys is None:
            self._keys = {r.key.text() for r in self.records()}
        return key_text in self._keys

    def add(self, record: RunRecord) -> None:
        """Append one record and push it to disk before returning."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(record.as_dict(), ensure_ascii=False, default=str)
        with self.path.open("a", encoding="utf-8") as out:
            _lock(out.fileno())  # several evaluations may share one file
            if out.tell() > 0 and not self._ends_with_newline():
                out.write("\n")  # close a torn line so this record stands on its own
            out.write(line + "\n")
            out.flush()
            os.fsync(out.fileno())  # closing the file releases the lock
        if self._keys is not None:
            self._keys.add(record.key.text())

    def _ends_with_newline(self) -> bool:
        with self.path.open("rb") as raw:
            raw.seek(-1, os.SEEK_END)
            return raw.read(1) == b"\n"
