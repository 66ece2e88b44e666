"""The workspace demo tools: files and notes inside one folder, nothing outside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from taskforce.errors import ToolInputError
from taskforce.tools.demo import DEMO_TOOL_NAMES, demo_tools
from taskforce.tools.workspace import NOTES_FILE, Workspace


def _outside(tmp_path: Path) -> list[Path]:
    """Every file under tmp_path that is not inside the workspace folder `ws`."""
    return [p for p in tmp_path.rglob("*") if p.is_file() and "ws" not in p.parts]


def test_write_read_list_and_replace(tmp_path: Path) -> None:
    space = Workspace(tmp_path / "ws")
    assert space.list_files() == "the workspace is empty"  # the folder need not exist yet
    assert space.write_file("agenda.md", "# Agenda\n") == "wrote agenda.md (9 bytes)"
    assert space.write_file("days/day 1.txt", "é") == "wrote days/day 1.txt (2 bytes)"
    assert space.write_file("agenda.md", "# Agenda v2\n") == "replaced agenda.md (12 bytes)"
    assert (tmp_path / "ws" / "agenda.md").read_text() == "# Agenda v2\n"
    assert space.read_file("days/day 1.txt") == "é"
    assert space.list_files() == "agenda.md (12 bytes)\ndays/day 1.txt (2 bytes)"
    assert space.files() == [("agenda.md", 12), ("days/day 1.txt", 2)]
    assert not [p for p in (tmp_path / "ws").iterdir() if p.name.startswith(".")]  # no temp


def test_notes_append_one_line_each(tmp_path: Path) -> None:
    space = Workspace(tmp_path / "ws")
    assert (
        space.add_note("Venue:\n Lakeside  Hall")
        == 'noted "Venue: Lakeside Hall" in notes.md (1 note)'
    )
    assert space.add_note("Budget 480") == 'noted "Budget 480" in notes.md (2 notes)'
    assert space.read_file(NOTES_FILE) == "- Venue: Lakeside Hall\n- Budget 480\n"
    with pytest.raises(ToolInputError, match="empty"):
        space.add_note("  \n ")
    with pytest.raises(ToolInputError, match="at most 1000"):
        space.add_note("x" * 1001)


@pytest.mark.parametrize(
    "path",
    [
        "../escape.md",
        "a/../../escape.md",
        "/etc/passwd",
        "/tmp/x.md",
        "C:\\Windows\\x.md",
        "C:x.md",
        "\\\\server\\share\\x.md",
        "~/x.md",
        ".hidden",
        "a/.git/config",
        "..",
        ".",
        "",
        "a//b.md",
        "a\\b.md",
        "nul\x00.md",
        "line\nbreak.md",
        "a/b/c/d/e.md",
        "x" * 101,
    ],
)
def test_paths_outside_or_odd_are_refused(tmp_path: Path, path: str) -> None:
    space = Workspace(tmp_path / "ws")
    with pytest.raises(ToolInputError):
        space.write_file(path, "data")
    with pytest.raises(ToolInputError):
        space.read_file(path)
    assert _outside(tmp_path) == []


def test_symlinks_out_of_the_workspace_are_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("do not read")
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "link.md").symlink_to(secret)
    (folder / "out").symlink_to(tmp_path)
    space = Workspace(folder)
    for path in ("link.md", "out/secret.txt", "out/new.md"):
        with pytest.raises(ToolInputError, match="symbolic link"):
            space.read_file(path)
        with pytest.raises(ToolInputError, match="symbolic link"):
            space.write_file(path, "overwritten")
    assert secret.read_text() == "do not read" and not (tmp_path / "new.md").exists()
    assert space.files() == []  # links are neither listed nor followed


def test_special_files_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ws"
    (folder / "sub").mkdir(parents=True)
    space = Workspace(folder)
    with pytest.raises(ToolInputError, match="not a regular file"):
        space.write_file("sub", "x")
    with pytest.raises(ToolInputError, match="no file"):
        space.read_file("missing.md")
    if hasattr(os, "mkfifo"):
        os.mkfifo(folder / "pipe")
        with pytest.raises(ToolInputError, match="not a regular file"):
            space.read_file("pipe")


def test_sizes_are_bounded(tmp_path: Path) -> None:
    space = Workspace(tmp_path / "ws", max_file_bytes=100, max_total_bytes=250, max_files=3)
    with pytest.raises(ToolInputError, match="a file is at most 100 bytes"):
        space.write_file("big.md", "x" * 101)
    space.write_file("a.md", "x" * 100)
    space.write_file("b.md", "x" * 100)
    with pytest.raises(ToolInputError, match="limited to 250 bytes"):
        space.write_file("c.md", "x" * 60)
    space.write_file("a.md", "x" * 10)  # replacing counts the new size only
    space.write_file("c.md", "x" * 60)
    with pytest.raises(ToolInputError, match="already holds 3 files"):
        space.write_file("d.md", "x")
    (tmp_path / "ws" / "outsider.md").write_text("x" * 500)  # too big to read back
    with pytest.raises(ToolInputError, match="larger than 100 bytes"):
        space.read_file("outsider.md")
    assert sorted(p.name for p in (tmp_path / "ws").iterdir()) == [
        "a.md", "b.md", "c.md", "outsider.md"
    ]  # fmt: skip


def test_text_that_utf8_cannot_store_is_refused(tmp_path: Path) -> None:
    space = Workspace(tmp_path / "ws")
    with pytest.raises(ToolInputError, match="UTF-8 cannot store"):
        space.write_file("a.md", "half \ud800 emoji")
    with pytest.raises(ToolInputError, match="UTF-8 cannot store"):
        space.add_note("\udcff")
    assert space.files() == []


async def test_demo_tools_are_real_tools_with_error_results(tmp_path: Path) -> None:
    tools = {t.name: t for t in demo_tools(tmp_path / "ws")}
    assert tuple(tools) == DEMO_TOOL_NAMES
    written = await tools["write_file"].execute(path="plan.md", content="hello")
    assert written == {"success": True, "output": "wrote plan.md (5 bytes)"}
    escaped = await tools["write_file"].execute(path="../x.md", content="hello")
    assert escaped["success"] is False and "bad path" in escaped["error"]
    assert (await tools["read_file"].execute(path="plan.md"))["output"] == "hello"
    assert (await tools["list_files"].execute())["output"] == "plan.md (5 bytes)"
    assert not tools["write_file"].supports_parallelism and tools["read_file"].supports_parallelism
    assert _outside(tmp_path) == []
