"""Results stored as they come: one JSON line per run, appended and flushed to disk.

An interrupted evaluation (Ctrl-C, a crash, a reboot) loses at most the run in progress:
every finished run is a complete line, a torn last line is ignored on reading, and the
next evaluation skips every key already stored; writers lock the file, so several
evaluations can share one. A damaged line (not UTF-8, not JSON, not a run) is skipped and
its number kept (:attr:`ResultStore.damaged`), so the caller can say so; the line stays in
the file. JSON lines keep the file readable, easy to diff, and safe to commit beside the
report it feeds.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from taskforce.errors import ConfigurationError, FileAccessError
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
        self.damaged: list[int] = []
        """The numbers of the lines the last complete reading skipped as damaged."""

    def records(self) -> Iterator[RunRecord]:
        """Every complete stored record, oldest first (later duplicates win in ``latest``).

        Raises:
            FileAccessError: the file exists but cannot be read.
        """
        damaged: list[int] = []
        try:
            if not self.path.exists():
                self.damaged = damaged
                return
            with self.path.open("rb") as lines:
                for number, line in enumerate(lines, start=1):
                    if not line.endswith(b"\n"):
                        break  # a torn last line: the run it belongs to runs again
                    try:  # a bad byte is a UnicodeDecodeError, a ValueError
                        record = RunRecord.from_dict(json.loads(line.decode("utf-8")))
                    except (ValueError, TypeError, KeyError, AttributeError):
                        damaged.append(number)  # not ours or damaged: skipped, never fatal
                        continue
                    yield record
        except OSError as exc:
            raise FileAccessError.of(exc, f"cannot read results file {str(self.path)!r}") from exc
        self.damaged = damaged

    def latest(self) -> list[RunRecord]:
        """One record per key (the newest), in first-stored order."""
        by_key: dict[str, RunRecord] = {}
        for record in self.records():
            by_key[record.key.text()] = record
        return list(by_key.values())

    def latest_of(
        self, suite: str, arms: Sequence[str] = (), missions: Sequence[str] = ()
    ) -> list[RunRecord]:
        """The latest records of `suite`, only of these arms and missions (empty: all)."""
        return [
            r
            for r in self.latest()
            if r.key.suite == suite
            and (not arms or r.key.arm in arms)
            and (not missions or r.key.mission in missions)
        ]

    def has(self, key_text: str) -> bool:
        """Whether a run with this key is stored."""
        if self._keys is None:
            self._keys = {r.key.text() for r in self.records()}
        return key_text in self._keys

    def add(self, record: RunRecord) -> None:
        """Append one record and push it to disk before returning.

        Raises:
            FileAccessError: the file cannot be written (the evaluation stops there).
        """
        data = record.as_dict()
        line = json.dumps(data, ensure_ascii=False, default=str)
        if not line.isascii():
            try:
                line.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate from a model: stored escaped
                line = json.dumps(data, default=str)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as out:
                _lock(out.fileno())  # several evaluations may share one file
                if out.tell() > 0 and not self._ends_with_newline():
                    out.write("\n")  # close a torn line so this record stands on its own
                out.write(line + "\n")
                out.flush()
                os.fsync(out.fileno())  # closing the file releases the lock
        except OSError as exc:
            raise FileAccessError.of(exc, f"cannot write results file {str(self.path)!r}") from exc
        if self._keys is not None:
            self._keys.add(record.key.text())

    def _ends_with_newline(self) -> bool:
        with self.path.open("rb") as raw:
            raw.seek(-1, os.SEEK_END)
            return raw.read(1) == b"\n"
