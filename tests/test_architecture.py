"""The shape of the code, checked: who may know what."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "taskforce"
ACTION_NAMES = re.compile(r"\b(mark_done|create_plan|update_plan|read_plan)\b")


def test_the_agent_never_spells_a_planner_action() -> None:
    """The agent asks the planner (typed requests, gates); the action names are the tool's."""
    found = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in sorted((PACKAGE / "agent").glob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if ACTION_NAMES.search(line)
    ]
    assert found == []
