"""How to call the planner, in words for the model: the planner's own part of the prompts.

The agent's prompts (``taskforce.agent.prompts``) compose these, so the names of the
planner's actions are spelled here, next to the tool, and nowhere in the agent.
"""

from __future__ import annotations

CREATE = 'action="create_plan"'
"""How the model asks for a new plan."""

MARK_DONE = 'action="mark_done"'
"""How the model marks a step."""

USAGE = (
    "- For a mission with several parts, first call the `planner` tool with "
    f"{CREATE} and a list of short tasks. Then work through the plan one step at a "
    f"time and call planner with {MARK_DONE} after each step is finished.\n"
)
"""The system prompt's paragraph on planning."""

CREATE_NOW = f"call the `planner` tool with {CREATE} and tasks=[...] (one short task per step)."
"""The instruction on a turn that must plan."""

MARK_IF_DONE = f"call the planner with {MARK_DONE} for it (or skip it)"
"""What to do with a step that is already done."""

CREATE_FIRST = f"create the plan first with planner({CREATE}, tasks=[...])"
"""Why another tool did not run before the plan exists."""

SKIP = 'mark it with planner(action="mark_done", step_index=[N], status="SKIPPED")'
"""How to close a step that turned out to be unnecessary."""


def mark_step(number: str) -> str:
    """How to mark step `number` done."""
    return f'mark it done: planner(action="mark_done", step_index=[{number}])'


REVISE = "change the plan (update_plan)"
"""How to revise the plan after a refusal."""


_EXAMPLES = {
    "create_plan": '{"action": "create_plan", "tasks": ["Get the weather in Oslo", '
    '"Email the result to Bob"]}',
    "mark_done": '{{"action": "mark_done", "step_index": [{step}]}}',
    "update_plan": '{"action": "update_plan", "add_steps": ["Email the result to Bob"]}',
    "read_plan": '{"action": "read_plan"}',
}


def corrected(message: str, action: object, step: int) -> str:
    """`message` (a refused planner call) with a valid call of the same action as example.

    `step` is the step number the example marks (the plan's next open step). An unknown
    action gets the mark_done example.
    """
    key = action if isinstance(action, str) and action in _EXAMPLES else "mark_done"
    example = _EXAMPLES[key].format(step=step) if key == "mark_done" else _EXAMPLES[key]
    return f"{message}. A valid call looks like: planner({example})"
