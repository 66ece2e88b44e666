"""Plan-first decisions and how the loop words the plan for the model.

Pure functions: whether a mission needs a plan (a complexity heuristic), turning a list in
free text into plan tasks, and the open and current steps of a :class:`Plan` as text.
"""

from __future__ import annotations

import re

from taskforce.plan import Plan
from taskforce.plan.text import clean_text
from taskforce.planning import parse_plan_reply, should_plan

MAX_AUTO_TASKS = 12
_TASK_CHARS = 200

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


def list_items(text: str) -> list[str]:
    """The steps of a plan written in `text` (a JSON plan or a numbered/bulleted list).

    Uses the tolerant parser of :mod:`taskforce.planning`; empty when `text` holds fewer
    than two steps, so a plain answer is never mistaken for a plan.
    """
    parsed = parse_plan_reply(text, min_steps=2, max_steps=MAX_AUTO_TASKS)
    return _clean(parsed.tasks()) if parsed.source != "single" else []


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
    """Whether `mission` needs a plan.

    The heuristic is :func:`taskforce.planning.should_plan`: length, action verbs,
    multi-action keywords and structure.
    """
    return should_plan(mission)


def _clean(items: list[str]) -> list[str]:
    tasks = [clean_text(i)[:_TASK_CHARS] for i in items]
    return [t for t in tasks if t][:MAX_AUTO_TASKS]


def open_steps(plan: Plan) -> list[str]:
    """Open steps of `plan` as ``"s2: description"``, in plan order."""
    return [f"{s.id}: {s.description}" for s in plan.open_steps()]


def current_step(plan: Plan) -> str | None:
    """``"2. description"`` of the step to work on.

    The step in progress, else the first runnable one: a step waiting for unfinished
    dependencies is skipped.
    """
    step = plan.next_step()
    return f"{plan.number_of(step)}. {step.description}" if step is not None else None
