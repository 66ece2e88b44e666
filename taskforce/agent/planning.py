"""Plan-first decisions and plan reading, from the plan-state contract only.

Pure functions: whether a mission needs a plan (a complexity heuristic), turning a list in
free text into plan tasks, and reading open/current steps out of ``PlannerTool.get_state()``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from taskforce.checklist import clean_text

OPEN_STATUSES = frozenset({"PENDING", "IN_PROGRESS"})
MAX_AUTO_TASKS = 12
_TASK_CHARS = 200

_LIST_ITEM = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*•+]|step\s*\d{1,3}\s*[:.)])\s+(\S.*)$", re.I)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
_JOINERS = re.compile(r",?\s+(?:and\s+then|then|after\s+that|afterwards|finally)\s+|;\s*", re.I)
_VERBS = (
    "add|analy[sz]e|ask|book|calculate|check|compare|compute|convert|count|create|delete|"
    "divide|download|draft|email|fetch|find|get|list|look|make|multiply|note|open|plan|post|"
    "read|record|remember|report|research|save|search|send|sort|store|subtract|sum|"
    "summari[sz]e|tell|translate|update|upload|verify|write"
)
_VERB = re.compile(rf"\b(?:{_VERBS})\b", re.I)
_AND_VERB = re.compile(rf",?\s+and\s+(?=(?:{_VERBS})\b)", re.I)


@runtime_checkable
class PlanHolder(Protocol):
    """What the loop needs of the planner tool (``PlannerTool`` satisfies it)."""

    @property
    def name(self) -> str:
        """The tool name (``planner``)."""
        ...

    def get_state(self) -> dict[str, Any]:
        """The plan state (a deep copy), as in docs/architecture.md."""
        ...

    def set_state(self, state: dict[str, Any] | None) -> None:
        """Replace the plan (None clears it)."""
        ...

    def get_plan_summary(self) -> str:
        """The plan as a Markdown checklist."""
        ...


def list_items(text: str) -> list[str]:
    """The items of a numbered or bulleted list in `text` (empty when fewer than two)."""
    items = [m.group(1) for line in text.splitlines() if (m := _LIST_ITEM.match(line))]
    return _clean(items) if len(items) >= 2 else []


def split_mission(mission: str) -> list[str]:
    """Tasks read off the mission itself: its list items, else its sentences and clauses."""
    items = list_items(mission)
    if items:
        return items
    parts: list[str] = []
    for sentence in _SENTENCE.split(mission.strip()):
        for clause in _JOINERS.split(sentence):
            parts.extend(_AND_VERB.split(clause))
    parts = [p.strip(" ,.;") for p in parts]
    tasks = _clean([p for p in parts if _VERB.search(p) and len(p.split()) >= 2])
    return tasks if len(tasks) >= 2 else []


def needs_plan(mission: str) -> bool:
    """Whether `mission` has several parts (length, action verbs, joiners, a list)."""
    score = 0
    if list_items(mission):
        score += 2
    if len(mission.split()) > 40:
        score += 1
    if len(set(v.lower() for v in _VERB.findall(mission))) >= 2:
        score += 1
    if _JOINERS.search(mission) or _AND_VERB.search(mission):
        score += 1
    if len([s for s in _SENTENCE.split(mission.strip()) if s]) >= 2:
        score += 1
    return score >= 2


def _clean(items: list[str]) -> list[str]:
    tasks = [clean_text(i)[:_TASK_CHARS] for i in items]
    return [t for t in tasks if t][:MAX_AUTO_TASKS]


def open_steps(state: Mapping[str, Any]) -> list[str]:
    """Open steps of a plan state as ``"s2: description"``, in plan order."""
    return [
        f"{t.get('id')}: {t.get('description')}"
        for t in state.get("tasks") or []
        if str(t.get("status", "")).upper() in OPEN_STATUSES
    ]


def current_step(state: Mapping[str, Any]) -> str | None:
    """``"2. description"`` of the step in progress, else of the first pending one."""
    tasks = list(state.get("tasks") or [])
    for wanted in ("IN_PROGRESS", "PENDING"):
        for number, task in enumerate(tasks, start=1):
            if str(task.get("status", "")).upper() == wanted:
                return f"{number}. {task.get('description')}"
    return None


def has_plan(state: Mapping[str, Any]) -> bool:
    """Whether the plan state has any steps."""
    return bool(state.get("tasks"))


def plan_version(state: Mapping[str, Any]) -> int:
    """The plan's version counter (0 when absent)."""
    return int(state.get("version") or 0)
