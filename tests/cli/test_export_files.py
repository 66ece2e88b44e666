"""`plan export -o`, `--all` and `plan import`: file problems are file errors (exit 8)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import Result

from tests.cli.conftest import Invoke, session_of
from tests.filesystems import make_read_only, tmpfs

EXIT_FILE = 8


@pytest.fixture
def sid(cli: Invoke) -> str:
    return session_of(cli("run", "Collect the notes; write the summary", "--plain").stdout)


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _file_error(result: Result, *words: str) -> str:
    assert result.exit_code == EXIT_FILE, result.output
    err = result.stderr
    assert "database" not in err and "Traceback" not in err
    assert all(w in err for w in words), err
    return err


def test_exports_are_created_with_the_usual_permissions(
    cli: Invoke, sid: str, tmp_path: Path, umask: None
) -> None:
    target = tmp_path / "Plan.md"
    assert cli("plan", "export", sid, "-o", str(target)).exit_code == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    os.umask(0o002)
    folder = tmp_path / "vault"
    assert cli("plan", "export", "--all", str(folder)).exit_code == 0
    modes = {stat.S_IMODE(p.stat().st_mode) for p in folder.rglob("*.md")}
    assert modes == {0o664}


def test_an_existing_file_is_kept_unless_forced(cli: Invoke, sid: str, tmp_path: Path) -> None:
    target = tmp_path / "Plan.md"
    target.write_text("my notes\n")
    target.chmod(0o640)
    _file_error(cli("plan", "export", sid, "-o", str(target)), "exists", "--force")
    assert target.read_text() == "my notes\n"
    forced = cli("plan", "export", sid, "-o", str(target), "--force")
    assert forced.exit_code == 0, forced.output
    assert "Collect the notes" in target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # a replaced file keeps its mode


@pytest.mark.parametrize("where", ["dir", "empty", "under-a-file"])
def test_unusable_output_paths_are_file_errors(
    cli: Invoke, sid: str, tmp_path: Path, where: str
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    path = {"dir": str(tmp_path), "empty": "", "under-a-file": str(blocker / "Plan.md")}[where]
    _file_error(cli("plan", "export", sid, "-o", path, "--force"), "cannot write")
    assert blocker.read_text() == "x"


def test_a_read_only_file_system_is_a_file_error(cli: Invoke, sid: str, tmp_path: Path) -> None:
    with tmpfs(tmp_path / "ro") as mount:
        make_read_only(mount)
        _file_error(cli("plan", "export", sid, "-o", str(mount / "Plan.md")), "Read-only")
        _file_error(cli("plan", "export", "--all", str(mount / "vault")), "Read-only")


def test_folder_export_into_a_file_and_import_of_a_missing_file(
    cli: Invoke, sid: str, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    _file_error(cli("plan", "export", "--all", str(blocker)), "cannot export into")
    _file_error(cli("plan", "import", str(tmp_path / "missing.md")), "cannot read")
    _file_error(cli("plan", "import", str(tmp_path)), "cannot read")
