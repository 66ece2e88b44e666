"""Small pieces: the redactor, and that importing the agent stays light."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from taskforce.agent import LeanAgent, Redactor
from taskforce.testing import ScriptedModel, call, reply
from tests.agent.helpers import make_tools


def test_redactor_replaces_given_and_environment_secrets() -> None:
    env = {"MY_SERVICE_API_KEY": "env-secret-123456", "HOME": "/root", "GH_TOKEN": "short"}
    r = Redactor(["given-secret-abcdef", None, ""], env=env)
    data = {"a": ["x given-secret-abcdef y", {"k": "env-secret-123456"}], "n": 3, "home": "/root"}
    assert r.data(data) == {"a": ["x [REDACTED] y", {"k": "[REDACTED]"}], "n": 3, "home": "/root"}
    assert r.text("short") == "short"  # too short to be a key: never redacted
    assert Redactor([], env={}).data(data) is data


async def test_tool_output_with_a_secret_is_redacted_everywhere() -> None:
    secret = "sk-tool-echo-0123456789"
    tools, _ = make_tools()
    model = ScriptedModel([call("notes", text=secret), reply(f"saved {secret}")])
    agent = LeanAgent(model=model, tools=tools)
    agent.redactor = Redactor([secret], env={})  # as if passed as api_key
    result = await agent.execute("note it", "red")
    assert secret not in repr(model.requests[1].messages)
    assert secret not in str(await agent.store.load_messages("red"))
    assert result.final_message == "saved [REDACTED]"


async def test_a_secret_in_a_plan_step_is_redacted_in_the_stored_plan() -> None:
    secret = "sk-plan-step-0123456789"
    model = ScriptedModel(
        [
            call("planner", action="create_plan", tasks=["Fetch the data", "Report"]),
            call("planner", action="mark_done", step_index=[1], note="ok"),
            call("planner", action="update_plan", add_steps=[f"Rotate {secret}"]),
            call("planner", action="mark_done", step_index=[2, 3], note="ok"),
            reply("done"),
        ]
    )
    agent = LeanAgent(model=model, plan_first=False, require_work_before_done=False)
    agent.redactor = Redactor([secret], env={})
    stored: list[str] = []
    for_each_save = agent.store.save_state

    async def spy(session_id: str, state: Any, *args: Any, **kwargs: Any) -> int:
        stored.append(repr(state))
        return await for_each_save(session_id, state, *args, **kwargs)

    agent.store.save_state = spy  # type: ignore[method-assign]
    await agent.execute("plan it", "plan-secret")
    state = await agent.store.load_state("plan-secret")
    assert state is not None
    descriptions = [t["description"] for t in state["plan"]["tasks"]]
    assert descriptions[:2] == ["Fetch the data", "Report"]  # clean steps kept as they are
    assert any("[REDACTED]" in d for d in descriptions)  # the planted value was there
    assert secret not in repr(state) and not any(secret in s for s in stored)


def test_import_is_light() -> None:
    code = (
        "import sys, taskforce.agent, taskforce.testing\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('litellm', 'sqlalchemy')]\n"
        "print(heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
