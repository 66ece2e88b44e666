"""An SQLite database on a read-only file system: the store reads it, and refuses writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from taskforce.errors import StateError
from taskforce.store import StateManager
from taskforce.store._config import read_only_query
from taskforce.store.readonly import read_sessions, read_state
from tests.filesystems import make_read_only, make_writable, tmpfs


async def test_a_read_only_database_is_read_and_never_written(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "mnt") as mount:
        url = f"sqlite+aiosqlite:///{mount / 'tf.db'}"
        async with StateManager(url) as store:
            await store.save_state("s", {"mission": "m", "plan": {"tasks": []}})
        assert read_only_query(mount / "tf.db") is None
        make_read_only(mount)
        try:
            assert read_only_query(mount / "tf.db") == "mode=ro&immutable=1"
            async with StateManager(url) as store:
                assert (await store.load_state("s") or {})["mission"] == "m"
                assert [s.session_id for s in await store.list_sessions()] == ["s"]
                assert await store.current_revision() is not None
                with pytest.raises(StateError, match="read-only"):
                    await store.save_state("t", {"mission": "x"})
                assert url.split("///")[1] in store.url  # messages name the file as given
            assert [s.session_id for s in read_sessions(url)] == ["s"]  # the fast path too
            assert (read_state(url, "s") or {})["mission"] == "m"
        finally:
            make_writable(mount)


def test_writable_and_missing_files_open_normally(tmp_path: Path) -> None:
    assert read_only_query(tmp_path / "missing.db") is None
    (tmp_path / "x.db").write_bytes(b"")
    assert read_only_query(tmp_path / "x.db") is None
