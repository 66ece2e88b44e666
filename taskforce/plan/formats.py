"""Plans in other agents' formats, both ways: Markdown, Codex, Claude Code and ACP.

Pure functions, no I/O. Every ``to_*`` takes a :class:`~taskforce.plan.Plan` (or its
JSON state) and every ``from_*`` returns a new ``Plan`` whose steps get fresh ids
(``s1``, ``s2``, ...). Text is folded into one safe line with
:func:`~taskforce.plan.text.clean_text` both ways, so hostile text (newlines, control or
bidi characters, fake checkboxes) cannot break any format. ``from_*`` accept the JSON
text of their input too, and raise :class:`~taskforce.errors.PlanError` naming the first
bad item; the plan limits apply (steps, text and note length, nesting, one step in
progress per owner).

What each format keeps on a round trip (``from_x(to_x(plan))``):

* **Markdown task list** (:func:`to_markdown`): descriptions, all five statuses and
  notes, exactly; sub-steps (indented under their parent); the owner of a step in
  progress (``(in progress by alice)``); ``requires_approval`` while the step is open; a
  dependency only while it shows as ``(blocked by N)``, i.e. on a pending step whose
  dependency is unfinished. Leases are not kept.
* **Codex** ``update_plan`` (:func:`to_codex`) and **Claude Code** ``TodoWrite``
  (:func:`to_todowrite`): descriptions and the statuses pending / in_progress /
  completed. FAILED and SKIPPED have no place there: SKIPPED becomes ``completed`` (read
  back as DONE) and FAILED becomes ``pending`` (work remains). Notes are dropped.
  ``activeForm`` is kept on the step while its text is unchanged; otherwise the
  description stands in for it.
* **Agent Client Protocol** plan entries (:func:`to_acp`): as Codex, plus ``priority``.

Codex, TodoWrite and ACP lists are flat: sub-steps become items in plan order, at the
same level as their parent, and read back as top-level steps (:func:`lost_in` names
what a given plan loses). Their owners are dropped too. No format keeps step ids,
retries, leases or timestamps (Plan.md does: see :mod:`taskforce.documents`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from taskforce.errors import PlanError
from taskforce.plan.checklist import parse_checklist, render
from taskforce.plan.limits import DEFAULT_LIMITS, PlanLimits
from taskforce.plan.plan import Plan
from taskforce.plan.specs import clean_note
from taskforce.plan.step import StepStatus
from taskforce.plan.text import clean_text

PlanLike = Plan | Mapping[str, Any]
"""A plan, its JSON state (``{"tasks": [...]}``), or a session state holding it (``"plan"``)."""

PRIORITIES = ("high", "medium", "low")
"""ACP plan entry priorities."""

_TO_WIRE = {
    StepStatus.PENDING: "pending",
    StepStatus.IN_PROGRESS: "in_progress",
    StepStatus.DONE: "completed",
    StepStatus.SKIPPED: "completed",
    StepStatus.FAILED: "pending",
}
_FROM_WIRE = {
    "pending": StepStatus.PENDING,
    "in_progress": StepStatus.IN_PROGRESS,
    "completed": StepStatus.DONE,
}


@dataclass(frozen=True, slots=True)
class _Item:
    """One step as read from a foreign format, before validation."""

    text: str
    status: StepStatus = StepStatus.PENDING
    note: str | None = None
    depends_on: tuple[int, ...] = ()
    extra: tuple[tuple[str, Any], ...] = ()
    approval: bool = False
    parent: int | None = None
    owner: str | None = None


# ---- Markdown ------------------------------------------------------------------------

_SUFFIX_LOOKALIKE = re.compile(
    r"\((?=in progress|failed|skipped|blocked by|needs approval)", re.IGNORECASE
)


def _escape(text: str) -> str:
    """Clean `text`, then escape `&`, `<`, `>`, `—` and status-like `(` as HTML entities.

    GitHub shows them unchanged, and the parser can no longer mistake them for structure.
    """
    text = clean_text(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SUFFIX_LOOKALIKE.sub("&#40;", text.replace("—", "&mdash;"))


def to_markdown(plan: PlanLike) -> str:
    """The plan as a GitHub Markdown task list, in the planner's own layout.

    Same lines as ``read_plan`` (``- [x] 1. Text — note``, ``(in progress)``,
    ``(failed: why)``, ``~~text~~ (skipped)``, ``(needs approval)``, ``(blocked by 2)``),
    except that ``&``, ``—`` and status-like ``(`` in text are written as HTML entities so
    that :func:`from_markdown` reads every step back exactly. An empty plan gives
    ``No active plan.``.
    """
    return render(_as_plan(plan), escape=_escape)


def from_markdown(text: str, limits: PlanLimits = DEFAULT_LIMITS) -> Plan:
    """Read the task items (``- [ ]``, ``* [x]``, ``1. [ ]``) of a Markdown text as a plan.

    Other lines and fenced code blocks are ignored. A checked box is DONE, an empty one
    PENDING, unless the item ends with ``(in progress)``, ``(failed)`` or ``(skipped)``
    (each optionally ``: note``); ``Text — note`` carries a note; ``(needs approval)``
    flags the step; ``(blocked by 1, 2)`` names the earlier items a step depends on. HTML
    entities are decoded.
    """
    if not isinstance(text, str):
        raise PlanError(f"Markdown must be text, not {type(text).__name__}")
    longest = 8 * (limits.max_text + limits.max_note) + 100  # room for entities, a suffix
    try:
        parsed = parse_checklist(text, max_line=longest)
    except ValueError as exc:
        raise PlanError(str(exc)) from exc
    items = [
        _Item(i.text, i.status, i.note, i.blocked_by, (), i.requires_approval, i.parent, i.owner)
        for i in parsed
    ]
    return _build(items, "task item", limits)


# ---- Codex update_plan ---------------------------------------------------------------


def to_codex(plan: PlanLike, explanation: str | None = None) -> dict[str, Any]:
    """Arguments for Codex's ``update_plan`` tool: ``{explanation?, plan: [{step, status}]}``."""
    entries = [
        {"step": clean_text(s.description), "status": _TO_WIRE[s.status]}
        for s in _as_plan(plan).steps
    ]
    args: dict[str, Any] = {"plan": entries}
    if explanation is not None:
        args["explanation"] = clean_text(explanation)
    return args


def from_codex(args: Any, limits: PlanLimits = DEFAULT_LIMITS) -> Plan:
    """A plan from Codex ``update_plan`` arguments (a dict, or its JSON text).

    ``explanation`` is not part of a plan and is ignored.
    """
    entries = _entries(args, "plan", "update_plan arguments", "plan item", bare=False)
    items = [
        _Item(_text(fields, "step", where), _status(fields, where)) for where, fields in entries
    ]
    return _build(items, "plan item", limits)


# ---- Claude Code TodoWrite -----------------------------------------------------------


def to_todowrite(plan: PlanLike) -> dict[str, Any]:
    """Input for Claude Code's ``TodoWrite``: ``{todos: [{content, status, activeForm}]}``."""
    todos = []
    for step in _as_plan(plan).steps:
        content = clean_text(step.description)
        kept = step.extra.get("active_form")
        active = (
            clean_text(str(kept.get("text", "")))
            if isinstance(kept, dict) and kept.get("content") == content
            else ""
        )
        todos.append(
            {"content": content, "status": _TO_WIRE[step.status], "activeForm": active or content}
        )
    return {"todos": todos}


def from_todowrite(todos: Any, limits: PlanLimits = DEFAULT_LIMITS) -> Plan:
    """A plan from ``TodoWrite`` input: ``{"todos": [...]}``, the bare list, or its JSON."""
    items = []
    for where, fields in _entries(todos, "todos", "TodoWrite input", "todo"):
        content = _text(fields, "content", where)
        active = fields.get("activeForm")
        if active is not None and not isinstance(active, str):
            raise PlanError(f"{where}: activeForm must be text")
        extra: tuple[tuple[str, Any], ...] = ()
        if active and clean_text(active) and clean_text(active) != clean_text(content):
            memo = {"content": clean_text(content), "text": clean_text(active)}
            extra = (("active_form", memo),)
        items.append(_Item(content, _status(fields, where), extra=extra))
    return _build(items, "todo", limits)


# ---- Agent Client Protocol -----------------------------------------------------------


def to_acp(plan: PlanLike) -> dict[str, Any]:
    """An ACP ``session/update`` plan: ``{sessionUpdate: "plan", entries: [...]}``.

    Each entry is ``{content, priority, status}``; a step without a known priority is
    ``medium``.
    """
    entries = []
    for step in _as_plan(plan).steps:
        priority = step.extra.get("priority")
        entries.append(
            {
                "content": clean_text(step.description),
                "priority": priority if priority in PRIORITIES else "medium",
                "status": _TO_WIRE[step.status],
            }
        )
    return {"sessionUpdate": "plan", "entries": entries}


def from_acp(plan: Any, limits: PlanLimits = DEFAULT_LIMITS) -> Plan:
    """A plan from ACP plan entries: the update object, ``{"entries": [...]}``, or the list."""
    items = []
    for where, fields in _entries(plan, "entries", "ACP plan", "entry"):
        priority = fields.get("priority", "medium")
        if not isinstance(priority, str) or priority.strip().lower() not in PRIORITIES:
            raise PlanError(
                f"{where}: priority must be one of high, medium, low (got {priority!r:.40})"
            )
        extra = (("priority", priority.strip().lower()),)
        items.append(_Item(_text(fields, "content", where), _status(fields, where), extra=extra))
    return _build(items, "entry", limits)


# ---- shared ----------------------------------------------------------------------------


def lost_in(fmt: str, plan: PlanLike) -> list[str]:
    """What writing `plan` in format `fmt` (``codex``, ``todowrite``, ``acp``) drops.

    One line per kind of loss that applies to this plan (empty: nothing is lost beyond
    ids and times), e.g. ``"nesting: 3 sub-steps become top-level items"``.
    """
    if fmt not in ("codex", "todowrite", "acp"):
        raise ValueError(f"unknown format {fmt!r}: use codex, todowrite or acp")
    steps = _as_plan(plan).steps
    nested = sum(s.parent is not None for s in steps)
    owned = sum(s.owner is not None for s in steps)
    lost = []
    if nested:
        lost.append(f"nesting: {nested} sub-step{'s' * (nested != 1)} become top-level items")
    if owned:
        lost.append(f"owners of {owned} step{'s' * (owned != 1)}")
    if any(s.note for s in steps):
        lost.append("notes")
    if any(s.status in (StepStatus.FAILED, StepStatus.SKIPPED) for s in steps):
        lost.append("FAILED and SKIPPED (written as pending and completed)")
    if any(s.depends_on for s in steps):
        lost.append("dependencies")
    return lost


def _as_plan(plan: PlanLike) -> Plan:
    if isinstance(plan, Plan):
        return plan
    state = plan if "tasks" in plan or not isinstance(plan.get("plan"), Mapping) else plan["plan"]
    return Plan.from_state(dict(state))


def _build(items: Sequence[_Item], what: str, limits: PlanLimits) -> Plan:
    """A new plan from parsed items, validated by the plan's own transitions."""
    if not items:
        return Plan()
    working: dict[str | None, int] = {}
    for number, item in enumerate(items, start=1):
        if item.status is StepStatus.IN_PROGRESS:
            if item.owner in working:
                raise PlanError(
                    f"{what}s {working[item.owner]} and {number} are both in progress; "
                    "a plan has at most one step in progress (per owner)"
                )
            working[item.owner] = number
    specs = [
        {
            "description": i.text,
            "depends_on": list(i.depends_on),
            "requires_approval": i.approval,
            "parent": i.parent,
        }
        for i in items
    ]
    plan = Plan().replaced(specs, limits)
    steps = tuple(
        replace(
            step,
            status=item.status,
            note=clean_note(item.note, limits.max_note),
            owner=item.owner if item.status is StepStatus.IN_PROGRESS else None,
            extra=MappingProxyType(dict(item.extra)) if item.extra else step.extra,
        )
        for step, item in zip(plan.steps, items, strict=True)
    )
    return replace(plan, steps=steps)


def _entries(
    data: Any, key: str, what: str, item: str, *, bare: bool = True
) -> list[tuple[str, Mapping[str, Any]]]:
    """Each object listed under `key`, named for messages (``todo 3``).

    `data` is a dict, its JSON text, or (when `bare`) the list itself.
    """
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise PlanError(f"{what} is not valid JSON: {exc.msg}") from exc
        except RecursionError as exc:
            raise PlanError(f"{what} nests lists or objects too deeply") from exc
    if isinstance(data, Mapping):
        if key not in data:
            raise PlanError(f"{what} has no {key!r} list")
        data = data[key]
    elif not bare:
        raise PlanError(f"{what} must be an object with {key!r}, not {type(data).__name__}")
    if not isinstance(data, Sequence) or isinstance(data, str | bytes):
        raise PlanError(f"{what}: {key!r} must be a list, not {type(data).__name__}")
    entries = []
    for number, entry in enumerate(data, start=1):
        if not isinstance(entry, Mapping):
            raise PlanError(f"{item} {number} must be an object, not {type(entry).__name__}")
        entries.append((f"{item} {number}", entry))
    return entries


def _text(fields: Mapping[str, Any], key: str, where: str) -> str:
    value = fields.get(key)
    if not isinstance(value, str):
        raise PlanError(f"{where}: {key!r} must be text")
    return value


def _status(fields: Mapping[str, Any], where: str) -> StepStatus:
    raw = fields.get("status", "pending")
    name = raw.strip().lower().replace(" ", "_").replace("-", "_") if isinstance(raw, str) else ""
    if name not in _FROM_WIRE:
        raise PlanError(
            f"{where}: status must be pending, in_progress or completed (got {raw!r:.40})"
        )
    return _FROM_WIRE[name]
