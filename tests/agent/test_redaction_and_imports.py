"""Small pieces: the redactor, and that importing the agent stays light."""

from __future__ import annotations

import subprocess
import sys

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
