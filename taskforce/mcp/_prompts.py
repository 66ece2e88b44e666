"""Prompts the planner server offers (``prompts/list``).

Ready-made requests a user picks in a client (Claude Code shows them as
``/mcp__taskforce__plan_task``).
"""

from __future__ import annotations

import mcp_types as types
from mcp.shared.exceptions import MCPError

_SESSION = types.PromptArgument(
    name="session_id", description="The plan's session (default: the server's).", required=False
)
PROMPTS = [
    types.Prompt(
        name="plan_task",
        title="Plan this task",
        description="Break a task into a checklist with the planner, then work through it.",
        arguments=[
            types.PromptArgument(name="task", description="What to do.", required=True),
            _SESSION,
        ],
    ),
    types.Prompt(
        name="continue_plan",
        title="Continue the plan",
        description="Read the session's plan and carry on with its first open step.",
        arguments=[_SESSION],
    ),
]


def get_prompt(name: str, arguments: dict[str, str], default_session: str) -> types.GetPromptResult:
    """The messages of prompt `name`; `MCPError` (invalid params) for an unknown one."""
    session = (arguments.get("session_id") or "").strip() or default_session
    where = f'session_id "{session}"'
    if name == "plan_task":
        task = (arguments.get("task") or "").strip()
        if not task:
            raise MCPError(types.INVALID_PARAMS, "plan_task needs a task")
        text = (
            f"Plan this task with the taskforce planner ({where}), then do it.\n"
            "1. create_plan with 3-8 concrete steps (depends_on for steps that need others).\n"
            "2. For each step: mark_done status IN_PROGRESS, do the work, then mark_done "
            "(DONE, or FAILED with a note saying why), with a short note of the result.\n"
            "3. If the plan turns out wrong, update_plan; finish with a summary.\n\n"
            f"Task: {task}"
        )
    elif name == "continue_plan":
        text = (
            f"Read the plan with read_plan ({where}; also the resource plan://{session}) and "
            "continue with its first open step, marking steps IN_PROGRESS and DONE as you go."
        )
    else:
        known = ", ".join(p.name for p in PROMPTS)
        raise MCPError(types.INVALID_PARAMS, f"unknown prompt {name!r}: use one of {known}")
    message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
    return types.GetPromptResult(description=name.replace("_", " "), messages=[message])
