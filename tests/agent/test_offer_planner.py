"""Adaptive exposure: a short mission of several steps is offered the planner; one action is not."""

from __future__ import annotations

from typing import Any

import pytest

from taskforce.agent import LeanAgent
from taskforce.testing import ScriptedModel, reply


def _tool_names(model: ScriptedModel) -> set[str]:
    return {t["function"]["name"] for t in model.requests[0].tools}


@pytest.mark.parametrize(
    "mission",
    [
        "Multiply 6 by 7, then note the product.",
        "Check the weather in Quito and jot a note about it; after that tell me.",
        "Look up the weather for Lima, Cusco and Arequipa.",
    ],
)
async def test_a_short_mission_of_several_steps_is_offered_the_planner(
    tools: Any, mission: str
) -> None:
    model = ScriptedModel([reply("ok")] * 4)
    await LeanAgent(model=model, tools=tools[0], max_finish_reminders=0).execute(mission)
    assert "planner" in _tool_names(model)


async def test_one_action_with_a_noun_that_looks_like_a_verb_is_not(tools: Any) -> None:
    model = ScriptedModel([reply("ok")])
    await LeanAgent(model=model, tools=tools[0]).execute("Save a note with the text 'email Ann'.")
    assert "planner" not in _tool_names(model)
