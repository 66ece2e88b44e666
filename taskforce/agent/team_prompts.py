"""Every text the team layer writes: a worker's mission for one step, why it waits or leaves.

Pure functions over plan values (no I/O).
"""

from __future__ import annotations

from taskforce.plan import Plan
from taskforce.plan.claims import Backlog, Claim

_CONTEXT_NOTE = 300  # characters of each dependency's note quoted in a mission


def step_briefing(claim: Claim, owner: str, *, interrupted: bool = False) -> str:
    """What a worker's agent is told about its step, beside the step itself.

    Added to its system prompt, so the mission (the user message) is the step's text
    alone and a model that splits its request works on the step, not on the framing:
    who it is, the shared plan's mission, the results of the steps this one depends on,
    a warning when someone was interrupted on this step before, and what to answer.
    """
    plan, step = claim.plan, claim.step
    mission = plan.extra.get("mission")
    lines = [
        f"You are {owner}, one of several workers on a shared plan; you work on its step "
        f"{claim.number} only."
        + (f" The plan is for: {mission}" if isinstance(mission, str) else "")
    ]
    context = [
        f"- step {plan.number_of(s)} ({s.description}): {(s.note or 'no note')[:_CONTEXT_NOTE]}"
        for s in claim.context()
    ]
    if context:
        lines += ["Results of the steps it depends on:", *context]
    if interrupted or claim.resumed:
        before = f" Its note so far: {step.note}" if step.note else ""
        lines.append(
            "This step was started before and interrupted." + before + " Check what was "
            "already done before you repeat anything that has effects."
        )
    lines.append(
        "When the step is done, answer with its result in a sentence or two: your answer "
        "becomes the step's note, which the steps after it will see."
    )
    return "\n".join(lines)


def waiting(plan: Plan, left: Backlog) -> str:
    """Why a worker waits: the steps others are working on."""
    held = ", ".join(f"{plan.number_of(s)} ({s.owner or 'the agent'})" for s in left.held)
    return f"nothing ready; waiting for steps in progress: {held}"


def leaving(plan: Plan, left: Backlog) -> str:
    """Why a worker leaves: all done, or what is left needs someone else."""
    if left.done:
        return "every step is finished"
    if left.gated:
        numbers = ", ".join(str(plan.number_of(s)) for s in left.gated)
        return f"what is left waits for a human's approval (step {numbers})"
    failed = [plan.number_of(s) for s in plan.steps if s.status.value == "FAILED"]
    if failed:
        return f"what is left is blocked by failed step {', '.join(map(str, failed))}"
    return "nothing is left that a worker can take"
