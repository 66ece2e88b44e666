"""Golden-file comparison: ``TASKFORCE_UPDATE_GOLDEN=1`` rewrites the files instead."""

from __future__ import annotations

import os
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"


def assert_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("TASKFORCE_UPDATE_GOLDEN") == "1":
        path.write_bytes(text.encode("utf-8"))
    expected = path.read_bytes().decode("utf-8")
    assert text == expected, f"{name} differs from the golden file (TASKFORCE_UPDATE_GOLDEN=1)"
