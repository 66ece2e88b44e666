"""Replaying a mission's reference solution as a scripted model.

``--model reference`` (or :func:`reference_model` as a model factory) runs every mission
with its own reference solution: a quick way to show that a suite's missions are
solvable and its checkers fair, with no model at all. In an arm with the planner, the
replay first creates a plan with one step per tool-calling turn and marks each step done
after its turn, so the planning measurements have something to measure. A call the agent
questions for a value it was never given (a figure the reference worked out itself) is made
again, as the agent's answer asks.
"""

from __future__ import annotations

import json

from taskforce.errors import ConfigurationError
from taskforce.evals.arms import Arm
from taskforce.evals.mission import Mission
from taskforce.models.base import Model, ModelResponse
from taskforce.testing import Confirming, ScriptedModel, call

__all__ = ["REFERENCE", "reference_model", "reference_script"]

REFERENCE = "reference"
"""The model name that replays reference solutions."""


def _task(turn: ModelResponse) -> str:
    parts = []
    for c in turn.tool_calls:
        args = ", ".join(f"{k}={v}" for k, v in json.loads(c.arguments or "{}").items())
        parts.append(f"{c.name}({args})"[:120])
    return "; ".join(parts)


def reference_script(mission: Mission, planning: bool) -> list[ModelResponse]:
    """The reference as model turns; with `planning`, each user turn's work is planned.

    Every user turn of the reference (its tool-calling turns up to an answer) then starts
    by planning one step per tool-calling turn (``create_plan`` first, then ``update_plan``
    adding to the finished steps, as a later request in a session does) and marks each
    step done after its turn.
    """
    if not mission.reference:
        raise ConfigurationError(f"mission {mission.id!r} has no reference solution")
    if not planning:
        return list(mission.reference)
    script: list[ModelResponse] = []
    work: list[ModelResponse] = []
    planned = 0  # steps in the plan so far (all done when a user turn ends)
    for turn in mission.reference:
        if turn.tool_calls:
            work.append(turn)
            continue
        tasks = [_task(t) for t in work]
        if work and not planned:
            script.append(call("planner", action="create_plan", tasks=tasks))
        elif work:
            script.append(call("planner", action="update_plan", add_steps=tasks))
        for number, done in enumerate(work, start=planned + 1):
            script += [done, call("planner", action="mark_done", step_index=[number])]
        script.append(turn)
        planned += len(work)
        work = []
    return script + work  # a reference without a final answer ends with its last calls


def reference_model(mission: Mission, arm: Arm) -> Model:
    """A model factory for :func:`~taskforce.evals.engine`: the mission's reference."""
    return Confirming(ScriptedModel(reference_script(mission, arm.planning), name=REFERENCE))
