"""Prompts that ask a model for a plan (or a revised plan), and merging a revision.

Only text is built here; nothing calls a model. The requested format is the plan
contract's JSON object, so a reply can be checked strictly
(:func:`~taskforce.planning.contract.validate_plan_payload`) or read tolerantly
(:func:`~taskforce.planning.parser.parse_plan_reply`). Prompts are deterministic:
the same arguments give the same text (tool names keep their given order, duplicates
dropped), which keeps provider prompt caches warm.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from taskforce.plan.text import clean_text
from taskforce.planning.parser import ParsedPlan

MAX_GOAL_CHARS = 8_000
MAX_CONTEXT_CHARS = 8_000

_FORMAT = """Answer with one JSON object and nothing else (no prose, no code fence):
{"goal": "<the goal>", "steps": [
  {"step_id": "step_1", "description": "<what to do>", "tool": "<tool name>",
   "depends_on": [], "deliverable": "<what this step produces>"}]}
Rules: number steps step_1, step_2, ... with no gaps; depends_on lists only earlier
step ids; use only the tools listed; if a needed tool is missing use {fallback} and say so
in the description and deliverable."""


def _tools_line(tools: Sequence[str]) -> str:
    unique = list(dict.fromkeys(clean_text(t) for t in tools if isinstance(t, str)))
    unique = [t for t in unique if t]
    return ", ".join(unique) if unique else "(none: describe actions in words)"


def _block(label: str, text: str, limit: int) -> str:
    body = text[:limit].replace("<<<", "< < <").replace(">>>", "> > >")
    return f"{label}:\n<<<\n{body.strip()}\n>>>"


def build_plan_prompt(
    goal: str,
    available_tools: Sequence[str] = (),
    context: str = "",
    *,
    min_steps: int = 1,
    max_steps: int = 20,
    step_count: int | None = None,
    fallback_tool: str = "echo_tool",
) -> str:
    """The prompt asking a model to decompose `goal` into a plan.

    Args:
        goal: what the plan must achieve (user text; fenced so it cannot pose as rules).
        available_tools: the tool names the plan may use.
        context: extra facts (files, constraints), fenced like the goal.
        min_steps: the fewest steps wanted.
        max_steps: the most steps allowed.
        step_count: an exact number of steps, when the user asked for one.
        fallback_tool: the tool to use when a needed one is missing.
    """
    if step_count is not None:
        size = f"Use exactly {step_count} steps."
    else:
        size = f"Use between {min_steps} and {max_steps} steps; fewer is better."
    parts = [
        "Break the goal below into a short, ordered plan of concrete steps.",
        _block("Goal", goal, MAX_GOAL_CHARS),
    ]
    if context.strip():
        parts.append(_block("Context", context, MAX_CONTEXT_CHARS))
    parts += [
        f"Available tools: {_tools_line(available_tools)}",
        size,
        _FORMAT.replace("{fallback}", fallback_tool),
    ]
    return "\n\n".join(parts) + "\n"


def build_replan_prompt(
    plan_state: Mapping[str, Any],
    failure_reason: str,
    context: str = "",
    *,
    goal: str = "",
    available_tools: Sequence[str] = (),
    max_steps: int = 20,
    fallback_tool: str = "echo_tool",
) -> str:
    """The prompt asking for new remaining steps after a failure.

    Finished steps (DONE, SKIPPED) are shown as kept; the model plans only what remains.
    """
    tasks = [t for t in plan_state.get("tasks") or [] if isinstance(t, Mapping)]
    lines = []
    for number, task in enumerate(tasks, start=1):
        status = str(task.get("status", "PENDING")).upper()
        note = task.get("note")
        suffix = f" ({clean_text(str(note))[:200]})" if note else ""
        lines.append(f"{number}. [{status}] {clean_text(str(task.get('description', '')))}{suffix}")
    parts = [
        "The plan below hit a problem. Finished steps (DONE, SKIPPED) stay as they are;"
        " write new steps for everything that remains.",
    ]
    if goal.strip():
        parts.append(_block("Goal", goal, MAX_GOAL_CHARS))
    parts += [
        _block("Current plan", "\n".join(lines) or "(empty)", MAX_CONTEXT_CHARS),
        _block("What went wrong", failure_reason, 2_000),
    ]
    if context.strip():
        parts.append(_block("Context", context, MAX_CONTEXT_CHARS))
    parts += [
        f"Available tools: {_tools_line(available_tools)}",
        f"Use at most {max_steps} new steps.",
        _FORMAT.replace("{fallback}", fallback_tool),
    ]
    return "\n\n".join(parts) + "\n"


def apply_replan(plan_state: Mapping[str, Any], revision: ParsedPlan) -> dict[str, Any]:
    """A new plan state: finished steps kept (same ids), the rest replaced by `revision`.

    New steps get fresh ids (never reusing one) and a bumped version; dependencies of new
    steps on each other are kept, mapped to the new ids.
    """
    tasks = [dict(t) for t in plan_state.get("tasks") or [] if isinstance(t, Mapping)]
    kept = [t for t in tasks if str(t.get("status", "")).upper() in {"DONE", "SKIPPED"}]
    numbers = [
        int(str(t.get("id"))[1:])
        for t in tasks
        if str(t.get("id", "")).startswith("s") and str(t.get("id"))[1:].isdigit()
    ]
    next_id = plan_state.get("next_id")
    first = max([next_id if isinstance(next_id, int) else 1, *(n + 1 for n in numbers)])
    fresh = revision.to_plan_state(first_id=first)
    version = plan_state.get("version")
    return {
        **{k: v for k, v in plan_state.items() if k not in {"tasks", "version", "next_id"}},
        "tasks": json.loads(json.dumps(kept)) + fresh["tasks"],
        "version": (version if isinstance(version, int) else 0) + 1,
        "next_id": fresh["next_id"],
    }
