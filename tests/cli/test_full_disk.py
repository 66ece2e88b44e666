"""A full disk at the command line: one clear line, exit 4, no link, no "outcome unknown"."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Invoke
from tests.filesystems import tmpfs
from tests.store.test_store_full_disk import _fill


def test_the_cli_says_the_disk_is_full(cli: Invoke, tmp_path: Path) -> None:
    with tmpfs(tmp_path / "mnt", size_kb=1024) as mount:
        url = f"sqlite+aiosqlite:///{mount / 'tf.db'}"
        assert cli("db", "upgrade", "--db", url).exit_code == 0
        filler = _fill(mount)
        result = cli("run", "Plan " + "a; " * 200 + "b", "--db", url)
        filler.unlink()
    assert result.exit_code == 4, result.output
    assert "full" in result.stderr and "sqlalche.me" not in result.stderr
    assert "outcome unknown" not in result.stderr and "Traceback" not in result.stderr
