"""What MCP clients see of the planner: the four tools, their schemas and their results.

The argument types come from the planner's own schema
(:func:`~taskforce.tools.planner_args.wire_schema`), so they cannot drift from what
:class:`~taskforce.tools.planner.PlannerTool` accepts.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from taskforce.plan import Plan, StepStatus
from taskforce.plan.state import iso_time
from taskforce.tools.planner_args import wire_schema

_A = types.ToolAnnotations

TOOLS: dict[str, tuple[str, str, types.ToolAnnotations, dict[str, str], list[str]]] = {
    "create_plan": (
        "Create plan",
        "Create this session's plan, replacing any plan it has. Steps are numbered from 1; "
        "a task is its text, or {description, depends_on: [earlier step numbers], "
        "requires_approval, parent: the earlier step it is a sub-step of}. Returns the plan "
        "as a Markdown checklist.",
        _A(read_only_hint=False, destructive_hint=True, idempotent_hint=False),
        {"tasks": "The steps, in order."},
        ["tasks"],
    ),
    "mark_done": (
        "Mark step status",
        "Set the status of step(s) by number (from 1): DONE by default, or IN_PROGRESS "
        "(one step at a time), FAILED, SKIPPED, PENDING; with an optional short note "
        "(a result, or why it failed).",
        _A(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
        {
            "step_index": "Step number(s), from 1.",
            "status": "New status (default DONE).",
            "note": "Optional note shown after the step.",
        },
        ["step_index"],
    ),
    "read_plan": (
        "Read plan",
        "Read this session's plan as a Markdown checklist ('No active plan.' if none).",
        _A(read_only_hint=True, destructive_hint=False, idempotent_hint=True),
        {},
        [],
    ),
    "update_plan": (
        "Update plan",
        "Revise the plan in one all-or-nothing change: add_steps (before step insert_at, "
        "else at the end), remove_indices, and/or reword one step (step_index + text). "
        "Every number refers to the plan before the change; done steps are kept.",
        _A(read_only_hint=False, destructive_hint=True, idempotent_hint=False),
        {
            "add_steps": "Steps to add.",
            "insert_at": "Add the new steps before this step number.",
            "remove_indices": "Numbers of the steps to remove.",
            "step_index": "The step to reword (one number).",
            "text": "The reworded step's new text.",
        },
        [],
    ),
}
"""name -> (title, description, annotations, {parameter: description}, required)."""

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "session_id": {"type": "string"},
        "message": {"type": "string"},
        "markdown": {"type": "string", "description": "The plan as a Markdown checklist."},
        "done": {"type": "integer", "description": "Steps done or skipped."},
        "total": {"type": "integer"},
        "steps": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "number": {"type": "integer"},
                    "id": {"type": "string"},
                    "description": {"type": "string"},
                    "status": {"enum": [s.value for s in StepStatus]},
                    "note": {"type": ["string", "null"]},
                    "depends_on": {"type": "array", "items": {"type": "integer"}},
                    "parent": {"type": ["integer", "null"]},
                    "owner": {"type": ["string", "null"]},
                    "lease_until": {"type": ["string", "null"]},
                },
                "required": ["number", "id", "description", "status"],
            },
        },
    },
    "required": ["session_id", "message", "markdown", "done", "total", "steps"],
}
"""The structured content of every successful call."""


def tool_definitions(default_session: str) -> list[types.Tool]:
    """The four planner tools, with `session_id` defaulting to `default_session`."""
    wire: dict[str, Any] = wire_schema()["properties"]
    return [
        tool_definition(
            name,
            title,
            description,
            hints,
            {p: {**wire[p], "description": doc} for p, doc in fields.items()},
            required,
            default_session,
        )
        for name, (title, description, hints, fields, required) in TOOLS.items()
    ]


def tool_definition(
    name: str,
    title: str,
    description: str,
    hints: types.ToolAnnotations,
    properties: dict[str, Any],
    required: list[str],
    default_session: str,
) -> types.Tool:
    """One tool of this server: its closed input schema (plus `session_id`) and our output."""
    session = {
        "type": "string",
        "description": f"The plan's session (default {default_session!r}).",
    }
    return types.Tool(
        name=name,
        title=title,
        description=description,
        input_schema={
            "type": "object",
            "properties": {**properties, "session_id": session},
            "required": required,
            "additionalProperties": False,
        },
        output_schema=OUTPUT_SCHEMA,
        annotations=hints.model_copy(update={"title": title, "open_world_hint": False}),
    )


def success(
    plan: Plan, session_id: str, message: str, markdown: str, *, quiet: bool = False
) -> types.CallToolResult:
    """A successful call: the checklist as text and as structured content.

    The text starts with the planner's message (``Step 2 marked DONE.``) unless `quiet`.
    """
    numbers = {s.id: n for n, s in enumerate(plan.steps, start=1)}
    done, total = plan.progress()
    steps = [
        {
            "number": n,
            "id": s.id,
            "description": s.description,
            "status": s.status.value,
            "note": s.note,
            "depends_on": [numbers[d] for d in s.depends_on if d in numbers],
            "parent": numbers.get(s.parent) if s.parent is not None else None,
            "owner": s.owner,
            "lease_until": iso_time(s.lease_until) if s.lease_until else None,
        }
        for n, s in enumerate(plan.steps, start=1)
    ]
    structured = {
        "session_id": session_id,
        "message": message,
        "markdown": markdown,
        "done": done,
        "total": total,
        "steps": steps,
    }
    text = markdown if quiet or not message else f"{message}\n\n{markdown}"
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=structured,
        is_error=False,
    )


def failure(message: str, error_type: str) -> types.CallToolResult:
    """A refused call: the planner's message as a tool error, its type in `_meta`."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)],
        is_error=True,
        _meta={"taskforce/error_type": error_type},
    )
