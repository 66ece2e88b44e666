"""A database on a read-only file system can still be read: sessions, plan show, db current."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Invoke, session_of
from tests.filesystems import make_read_only, make_writable, tmpfs


def test_a_read_only_database_can_be_read(cli: Invoke, tmp_path: Path) -> None:
    with tmpfs(tmp_path / "mnt") as mount:
        url = f"sqlite+aiosqlite:///{mount / 'tf.db'}"
        sid = session_of(cli("run", "Collect the notes; write the summary", "--db", url).stdout)
        assert not (mount / "tf.db-wal").exists()  # closed cleanly: no WAL files left
        make_read_only(mount)
        try:
            listing = cli("sessions", "--db", url)
            assert listing.exit_code == 0, listing.output
            assert sid in listing.stdout
            for args in (["plan", "show", sid], ["plan", "show", sid, "--json"],
                         ["plan", "export", sid], ["sessions", "--summary"],
                         ["sessions", "--json"]):  # fmt: skip
                result = cli(*args, "--db", url)
                assert result.exit_code == 0, (args, result.output)
                assert "Collect the notes" in result.stdout or sid in result.stdout, args
            current = cli("db", "current", "--db", url)
            assert current.exit_code == 0, current.output
            assert "up to date" in current.stdout
            write = cli("run", "Another one", "--db", url)
            assert write.exit_code == 4, write.output
            assert "read-only" in write.stderr.lower() or "readonly" in write.stderr.lower()
            assert "Traceback" not in write.stderr
        finally:
            make_writable(mount)
