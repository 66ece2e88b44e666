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

MARK_AGAIN = "call mark_done again"
"""How to insist that a step needed no tool."""

REVISE = "change the plan (update_plan)"
"""How to revise the plan after a refusal."""
