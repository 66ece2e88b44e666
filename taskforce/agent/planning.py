"""Plan-first decisions and how the loop words the plan for the model.

Pure functions: whether a mission needs a plan (a complexity heuristic), turning a list in
free text into plan tasks, and the open and current steps of a :class:`Plan` as text.
"""

from __future__ import annotations

from taskforce.plan import Plan
from taskforce.plan.text import clean_text
from taskforce.planning import parse_plan_reply, should_plan
from taskforce.planning.split import split_mission as split

MAX_AUTO_TASKS = 12
_TASK_CHARS = 200


def list_items(text: str) -> list[str]:
    """The steps of a plan written in `text` (a JSON plan or a numbered/bulleted list).

    Uses the tolerant parser of :mod:`taskforce.planning`; empty when `text` holds fewer
    than two steps, so a plain answer is never mistaken for a plan.
    """
    parsed = parse_plan_reply(text, min_steps=2, max_steps=MAX_AUTO_TASKS)
    return _clean(parsed.tasks()) if parsed.source != "single" else []


def split_mission(mission: str) -> list[str]:
    """Tasks read off the mission itself, when it names two or more actions.

    The one splitter (:func:`taskforce.planning.split.split_mission`): its list items,
    else its sentences and clauses.
    """
    return split(mission, max_steps=MAX_AUTO_TASKS, max_len=_TASK_CHARS, actions_only=True)


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
