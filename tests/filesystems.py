"""Real file-system conditions for tests: read-only and full file systems.

Both need to mount a tmpfs (root, as in CI's container); elsewhere the tests using them
are skipped with the reason. Permission bits are no substitute: root ignores them.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _run(*args: str) -> bool:
    return subprocess.run(args, capture_output=True).returncode == 0


@contextmanager
def tmpfs(where: Path, size_kb: int = 4096) -> Iterator[Path]:
    """A fresh tmpfs of `size_kb` mounted at `where` (created); unmounted afterwards."""
    where.mkdir(parents=True, exist_ok=True)
    if not _run("mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(where)):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield where
    finally:
        _run("umount", "-l", str(where))


def make_read_only(mount: Path) -> None:
    """Remount a :func:`tmpfs` read-only: nothing under it can be written or created."""
    assert _run("mount", "-o", "remount,ro", str(mount)), f"cannot remount {mount} read-only"


def make_writable(mount: Path) -> None:
    """Undo :func:`make_read_only`."""
    assert _run("mount", "-o", "remount,rw", str(mount)), f"cannot remount {mount} read-write"
