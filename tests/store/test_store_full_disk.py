"""A full disk: a clear error, nothing half-written, the data as it was (SQLite on a tmpfs)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from taskforce.errors import CommitUncertainError, StateError
from taskforce.store import StateManager
from tests.filesystems import tmpfs


def _fill(where: Path) -> Path:
    """Fill the file system at `where` until no byte more fits."""
    filler = where / "filler"
    with filler.open("wb", buffering=0) as out:
        for chunk in (65536, 4096, 512, 1):
            try:
                while True:
                    out.write(b"\0" * chunk)
            except OSError:
                continue
    return filler


def _state(size: int) -> dict[str, object]:
    tasks = [{"id": f"s{i}", "description": f"step {i} " + "x" * 400, "status": "PENDING"}
             for i in range(1, size + 1)]  # fmt: skip
    return {"mission": "m", "plan": {"tasks": tasks, "version": 1, "next_id": size + 1}}


async def test_a_full_disk_is_reported_clearly_and_loses_nothing(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "mnt", size_kb=1024) as mount:
        url = f"sqlite+aiosqlite:///{mount / 'tf.db'}"
        async with StateManager(url) as store:
            version = await store.save_state("s", _state(3))
            filler = _fill(mount)
            with pytest.raises(StateError) as caught:
                for _ in range(50):  # until the disk is too full for a save
                    version = await store.save_state("s", _state(300), version)
            assert not isinstance(caught.value, CommitUncertainError)
            message = str(caught.value)
            assert "full" in message and "sqlalche.me" not in message
            assert "outcome unknown" not in message
            filler.unlink()
            stored = await store.load_state("s")
            assert stored is not None and stored["version"] == version  # as it was
        conn = sqlite3.connect(mount / "tf.db")
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        finally:
            conn.close()
