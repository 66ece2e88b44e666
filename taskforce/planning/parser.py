"""Tolerant parsing of a model's plan reply: JSON first, then a list, then one step.

Models answer a "give me a plan" prompt in many shapes: a JSON object with ``steps``, a
bare JSON array of strings or objects (inside a code fence or after a preamble), a
numbered or bulleted Markdown list, or plain prose. :func:`parse_plan_reply` tries them
in that order and keeps the first that yields at least ``min_steps`` steps (capped at
``max_steps``); otherwise the whole goal becomes a single step. It never raises on the
reply's content, and bounds its work on huge or deeply nested input.

This parser is the *tolerant* reader. When a payload must obey the plan contract
exactly, use :func:`taskforce.planning.contract.validate_plan_payload` instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from taskforce.plan import Plan
from taskforce.plan.text import clean_text
from taskforce.planning.split import list_items

MAX_REPLY_CHARS = 200_000
MAX_STEP_CHARS = 500
_MAX_JSON_STARTS = 40

_FENCE = re.compile(r"```[ \t]*[\w+-]*[ \t]*\n(.*?)```", re.DOTALL)
_SURROGATE = re.compile(r"[\ud800-\udfff]")

_TEXT_KEYS = ("description", "step", "task", "title", "action", "text", "name", "content")
_TOOL_KEYS = ("tool", "tools", "tools_needed", "tool_name")
_DEP_KEYS = ("depends_on", "dependencies", "deps", "after")
_OUTCOME_KEYS = ("expected_outcome", "deliverable", "outcome", "result", "expected_result")
_ID_KEYS = ("step_id", "id", "number", "index")
_LIST_KEYS = ("steps", "plan", "tasks", "todo", "items", "actions")


@dataclass(frozen=True, slots=True)
class ParsedStep:
    """One step read from a reply; `depends_on` holds 1-based numbers of earlier steps."""

    description: str
    tool: str | None = None
    depends_on: tuple[int, ...] = ()
    expected_outcome: str | None = None


@dataclass(frozen=True, slots=True)
class ParsedPlan:
    """The steps read from a reply, how they were found, and what was dropped."""

    goal: str
    steps: tuple[ParsedStep, ...]
    source: Literal["json", "list", "single"]
    warnings: tuple[str, ...] = field(default=())

    def tasks(self) -> list[str]:
        """Step descriptions, ready for ``planner.create_plan(tasks=...)``."""
        return [s.description for s in self.steps]

    def task_specs(self) -> list[dict[str, Any]]:
        """``create_plan`` task objects: description, and 1-based ``depends_on`` when any."""
        return [
            {
                "description": s.description,
                **({"depends_on": list(s.depends_on)} if s.depends_on else {}),
            }
            for s in self.steps
        ]

    def to_plan(self) -> Plan:
        """The plan these steps make (the planner's rules apply); a step keeps its tool."""
        return Plan.of(
            self.task_specs(), [{"tool": s.tool} if s.tool else None for s in self.steps]
        )


def parse_plan_reply(
    reply: str,
    goal: str = "",
    *,
    min_steps: int = 1,
    max_steps: int = 20,
    max_step_chars: int = MAX_STEP_CHARS,
) -> ParsedPlan:
    """Read a plan out of a model reply (see the module docstring).

    Args:
        reply: the model's text.
        goal: the goal planned for; the single-step fallback uses it.
        min_steps: fewer parsed steps than this falls through to the next strategy.
        max_steps: more steps than this are cut (with a warning).
        max_step_chars: step text longer than this is shortened.
    """
    if min_steps < 1 or max_steps < min_steps:
        raise ValueError("need 1 <= min_steps <= max_steps")
    text = _SURROGATE.sub("\ufffd", reply[:MAX_REPLY_CHARS]) if isinstance(reply, str) else ""
    goal = _SURROGATE.sub("\ufffd", goal) if isinstance(goal, str) else ""
    warnings: list[str] = []
    if isinstance(reply, str) and len(reply) > MAX_REPLY_CHARS:
        warnings.append(f"reply cut to {MAX_REPLY_CHARS} characters")
    for source, finder in (("json", _json_steps), ("list", _list_steps)):
        found = finder(text, max_step_chars, warnings)
        if len(found) >= min_steps:
            if len(found) > max_steps:
                warnings.append(f"{len(found)} steps cut to {max_steps}")
                found = [_cut_deps(s, max_steps) for s in found[:max_steps]]
            kind: Literal["json", "list"] = "json" if source == "json" else "list"
            return ParsedPlan(_goal(goal), tuple(found), kind, tuple(warnings))
    single = _shorten(clean_text(goal if isinstance(goal, str) else ""), max_step_chars)
    if not single:
        first = next((line for line in text.splitlines() if clean_text(line)), "")
        single = _shorten(clean_text(first), max_step_chars) or "Complete the task"
    warnings.append("no usable list in the reply; planned as a single step")
    return ParsedPlan(_goal(goal), (ParsedStep(single),), "single", tuple(warnings))


def single_step_plan(goal: str) -> ParsedPlan:
    """A one-step plan whose step is the goal itself (for goals too simple to plan)."""
    return ParsedPlan(_goal(goal), (ParsedStep(_goal(goal) or "Complete the task"),), "single")


# ---- JSON -----------------------------------------------------------------------------


def _json_values(text: str) -> list[Any]:
    """JSON values found in the reply: fenced blocks, the whole text, then embedded ones."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    values: list[Any] = []
    decoder = json.JSONDecoder()
    for candidate in candidates:
        stripped = candidate.strip()
        value = _loads(stripped)
        if value is not _NOTHING:
            values.append(value)
            continue
        starts = [m.start() for m in re.finditer(r"[\[{]", stripped)][:_MAX_JSON_STARTS]
        for start in starts:
            try:
                found, _ = decoder.raw_decode(stripped, start)
            except (ValueError, RecursionError):
                continue
            if isinstance(found, list | dict):
                values.append(found)
                break
    return values


_NOTHING = object()


def _loads(text: str) -> Any:
    if not text or text[0] not in "[{":
        return _NOTHING
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _NOTHING


def _json_steps(text: str, limit: int, warnings: list[str]) -> list[ParsedStep]:
    for value in _json_values(text):
        items = _items_of(value)
        if items:
            return _steps_from_items(items, limit, warnings)
    return []


def _items_of(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    if not isinstance(value, Mapping):
        return []
    lowered = {str(k).lower(): v for k, v in value.items()}
    for key in _LIST_KEYS:
        if isinstance(lowered.get(key), list):
            return list(lowered[key])
        if isinstance(lowered.get(key), Mapping):
            return list(lowered[key].values())
    keyed = [k for k in value if re.fullmatch(r"(?:step[ _]?)?\d{1,3}", str(k), re.I)]
    return [value[k] for k in keyed] if len(keyed) == len(value) else []


def _steps_from_items(items: Sequence[Any], limit: int, warnings: list[str]) -> list[ParsedStep]:
    rows: list[tuple[str, Mapping[str, Any]]] = []
    for position, item in enumerate(items, start=1):
        fields: Mapping[str, Any] = (
            {str(k).lower(): v for k, v in item.items()} if isinstance(item, Mapping) else {}
        )
        raw = item if isinstance(item, str) else _first_str(fields, _TEXT_KEYS)
        description = _shorten(clean_text(raw or ""), limit)
        if not description:
            warnings.append(f"item {position} has no step text; skipped")
            continue
        rows.append((description, fields))
    aliases: dict[str, int] = {}
    for number, (_, fields) in enumerate(rows, start=1):
        for alias in (f"step_{number}", f"step {number}", f"s{number}", str(number)):
            aliases.setdefault(alias, number)
        declared = next((fields[k] for k in _ID_KEYS if k in fields), None)
        if isinstance(declared, str | int) and not isinstance(declared, bool):
            aliases[str(declared).strip().lower()] = number
    steps = []
    for number, (description, fields) in enumerate(rows, start=1):
        deps: list[int] = []
        raw_deps: Any = next((fields[k] for k in _DEP_KEYS if k in fields), [])
        for dep in raw_deps if isinstance(raw_deps, list) else [raw_deps]:
            target = aliases.get(str(dep).strip().lower()) if isinstance(dep, str | int) else None
            if target is None or target >= number:
                warnings.append(f"step {number}: dependency {str(dep)[:40]!r} dropped")
            elif target not in deps:
                deps.append(target)
        tool = _first_str(fields, _TOOL_KEYS)
        outcome = _first_str(fields, _OUTCOME_KEYS)
        steps.append(
            ParsedStep(
                description,
                clean_text(tool)[:100] or None if tool else None,
                tuple(deps),
                _shorten(clean_text(outcome), limit) or None if outcome else None,
            )
        )
    return steps


def _first_str(fields: Mapping[str, Any], keys: Sequence[str]) -> str | None:
    for key in keys:
        value = fields.get(key)
        if isinstance(value, list) and value and isinstance(value[0], str):
            value = value[0]
        if isinstance(value, str) and value.strip():
            return value
    return None


# ---- text lists -----------------------------------------------------------------------


def _list_steps(text: str, limit: int, warnings: list[str]) -> list[ParsedStep]:
    return [ParsedStep(s) for t in list_items(text) if (s := _shorten(clean_text(t), limit))]


# ---- helpers --------------------------------------------------------------------------


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] or text[: limit - 1]
    return cut.rstrip(" ,;:") + "…"


def _cut_deps(step: ParsedStep, max_steps: int) -> ParsedStep:
    deps = tuple(d for d in step.depends_on if d <= max_steps)
    return ParsedStep(step.description, step.tool, deps, step.expected_outcome)


def _goal(goal: str) -> str:
    return _shorten(clean_text(goal), MAX_STEP_CHARS) if isinstance(goal, str) else ""
