"""The workspace demo tools: text files and notes inside one folder, and nowhere else.

A :class:`Workspace` is a toolbox: its public methods `write_file`, `read_file`,
`list_files` and `add_note` become tools (:meth:`Workspace.tools`). Every path is relative
to the workspace folder and checked before use: absolute paths, drive letters, ``..``,
hidden names, backslashes and control characters are refused, and so is any symbolic link
on the way (a link could lead out of the folder). Sizes are bounded per file, in total and
in number of files. Files are written whole (a temporary file renamed into place), so a
reader never sees half a file.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from pathlib import Path, PurePosixPath, PureWindowsPath

from taskforce.errors import ToolInputError
from taskforce.plan.text import plural
from taskforce.tools.function import FunctionTool

NOTES_FILE = "notes.md"
"""The file :meth:`Workspace.add_note` appends to."""

_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._ +-]{0,99}")
_MAX_DEPTH = 4
_MAX_NOTE = 1000


class Workspace:
    """A folder the demo tools read and write in; nothing outside it is touched.

    Args:
        root: The folder (created on the first write). It is resolved once, here; links
            inside it are refused.
        max_file_bytes: Largest file written or read (UTF-8 bytes).
        max_total_bytes: Largest total size of the files in the workspace.
        max_files: Most files the workspace may hold.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        max_file_bytes: int = 64 * 1024,
        max_total_bytes: int = 1024 * 1024,
        max_files: int = 100,
    ) -> None:
        self.root = Path(os.path.realpath(Path(root).expanduser()))
        self.max_file_bytes = max_file_bytes
        self.max_total_bytes = max_total_bytes
        self.max_files = max_files

    # ---- the tools ---------------------------------------------------------------------

    def write_file(self, path: str, content: str) -> str:
        """Write a UTF-8 text file at a relative path (e.g. `agenda.md`) in the workspace.

        A file of that name is replaced.
        """
        target, shown = self._target(path)
        data = _encode(content, "content")
        existing = self._existing_size(target)
        self._check_room(len(data), existing, shown)
        self._write(target, data)
        verb = "replaced" if existing is not None else "wrote"
        return f"{verb} {shown} ({_bytes(len(data))})"

    def read_file(self, path: str) -> str:
        """Read a text file from the workspace folder (a relative path, e.g. `agenda.md`)."""
        target, shown = self._target(path)
        if self._existing_size(target) is None:
            raise ToolInputError(f"no file {shown} in the workspace")
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
        with os.fdopen(os.open(target, flags), "rb") as handle:
            data = handle.read(self.max_file_bytes + 1)
        if len(data) > self.max_file_bytes:
            raise ToolInputError(f"{shown} is larger than {_bytes(self.max_file_bytes)}")
        return data.decode("utf-8", errors="replace")

    def list_files(self) -> str:
        """List the files in the workspace folder with their sizes."""
        found = self.files()
        if not found:
            return "the workspace is empty"
        return "\n".join(f"{name} ({_bytes(size)})" for name, size in found)

    def add_note(self, text: str) -> str:
        """Add a one-line note to notes.md in the workspace folder."""
        line = " ".join(_encode(text, "text").decode("utf-8").split())
        if not line:
            raise ToolInputError("the note is empty")
        if len(line) > _MAX_NOTE:
            raise ToolInputError(f"a note is at most {_MAX_NOTE} characters")
        target, shown = self._target(NOTES_FILE)
        existing = self._existing_size(target)
        old = self.read_file(NOTES_FILE).encode("utf-8") if existing is not None else b""
        data = old + (b"" if not old or old.endswith(b"\n") else b"\n") + f"- {line}\n".encode()
        self._check_room(len(data), existing, shown)
        self._write(target, data)
        count = sum(1 for row in data.decode("utf-8").splitlines() if row.startswith("- "))
        quoted = line if len(line) <= 80 else line[:79] + "…"
        return f'noted "{quoted}" in {shown} ({plural(count, "note")})'

    def tools(self) -> list[FunctionTool]:
        """`write_file`, `read_file`, `list_files` and `add_note` as tools over this folder."""
        return [
            FunctionTool(self.write_file, supports_parallelism=False),
            FunctionTool(self.read_file, read_only=True),
            FunctionTool(self.list_files, read_only=True),
            FunctionTool(self.add_note, supports_parallelism=False),
        ]

    # ---- reading the folder -----------------------------------------------------------

    def files(self) -> list[tuple[str, int]]:
        """(relative path, size) of every regular file, sorted.

        Links are not followed; hidden names (which the tools never create) are left out.
        """
        if not self.root.is_dir():
            return []
        found: list[tuple[str, int]] = []
        for folder, dirs, names in os.walk(self.root, followlinks=False):
            dirs.sort()
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in sorted(n for n in names if not n.startswith(".")):
                info = os.lstat(os.path.join(folder, name))
                if stat.S_ISREG(info.st_mode):
                    relative = Path(folder, name).relative_to(self.root).as_posix()
                    found.append((relative, info.st_size))
        return sorted(found)

    # ---- checks -----------------------------------------------------------------------

    def _target(self, path: str) -> tuple[Path, str]:
        """The checked absolute path for a relative `path`, and how it is shown."""
        text = str(path).strip()
        if not text:
            raise ToolInputError("the path is empty")
        if PurePosixPath(text).is_absolute() or PureWindowsPath(text).drive or text[0] == "~":
            raise ToolInputError(f"{text[:80]!r} is not a relative path inside the workspace")
        parts = text.split("/")
        if len(parts) > _MAX_DEPTH or not all(_PART.fullmatch(p) for p in parts):
            raise ToolInputError(
                f"bad path {text[:80]!r}: use up to {_MAX_DEPTH} names of letters, digits and "
                "'._ +-' separated by '/' (no '..', no hidden names, no backslashes)"
            )
        target = self.root
        for part in parts:
            target = target / part
            with contextlib.suppress(FileNotFoundError):
                if stat.S_ISLNK(os.lstat(target).st_mode):
                    raise ToolInputError(f"{text!r} goes through a symbolic link: refused")
        if not os.path.realpath(target).startswith(str(self.root) + os.sep):
            raise ToolInputError(f"{text!r} leads out of the workspace: refused")
        return target, "/".join(parts)

    def _existing_size(self, target: Path) -> int | None:
        try:
            info = os.lstat(target)
        except FileNotFoundError:
            return None
        if not stat.S_ISREG(info.st_mode):
            raise ToolInputError(f"{target.name!r} exists and is not a regular file")
        return info.st_size

    def _check_room(self, size: int, existing: int | None, shown: str) -> None:
        if size > self.max_file_bytes:
            raise ToolInputError(
                f"{shown} would be {_bytes(size)}; a file is at most {_bytes(self.max_file_bytes)}"
            )
        found = self.files()
        total = sum(s for _, s in found) - (existing or 0) + size
        if total > self.max_total_bytes:
            raise ToolInputError(
                f"the workspace would hold {_bytes(total)}; it is limited to "
                f"{_bytes(self.max_total_bytes)}"
            )
        if existing is None and len(found) >= self.max_files:
            raise ToolInputError(f"the workspace already holds {plural(self.max_files, 'file')}")

    def _write(self, target: Path, data: bytes) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        self._target(target.relative_to(self.root).as_posix())  # no link appeared meanwhile
        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        try:
            with os.fdopen(os.open(temporary, flags, 0o666), "wb") as handle:
                handle.write(data)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def _encode(text: str, what: str) -> bytes:
    try:
        return str(text).encode("utf-8")
    except UnicodeEncodeError:
        raise ToolInputError(f"the {what} holds characters UTF-8 cannot store") from None


def _bytes(size: int) -> str:
    if size < 1024:
        return plural(size, "byte")
    return f"{size / 1024:.1f} KiB"
