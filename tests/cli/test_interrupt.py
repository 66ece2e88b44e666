"""Ctrl-C: a run interrupted mid-way exits 130, keeps what was done, and resumes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli.conftest import TASKFORCE, run_bin, session_of
from tests.fakes.openai_server import FakeOpenAIServer, reply, tool_call

pytestmark = pytest.mark.skipif(not TASKFORCE.exists(), reason="taskforce is not installed")


def test_ctrl_c_during_a_model_call_saves_and_resumes(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'tf.db'}"
    env = {**os.environ, "TASKFORCE_DB_URL": url, "COLUMNS": "200"}
    env.pop("TASKFORCE_MODEL", None)
    with FakeOpenAIServer() as server:
        server.script(
            reply(tool_calls=[tool_call("planner", {"action": "create_plan",
                                                    "tasks": ["One", "Two"]})]),
            reply(tool_calls=[tool_call("planner", {"action": "mark_done",
                                                    "step_index": [1]})]),
            reply("never sent", delay=60),  # the model "thinks" until we press Ctrl-C
        )  # fmt: skip
        proc = subprocess.Popen(
            [str(TASKFORCE), "run", "One, then two", "--model", "openai/test-model",
             "--api-base", server.url],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while len(server.requests) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert len(server.requests) == 3, proc.communicate(timeout=5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    sid = session_of(out)
    assert f"taskforce run --session {sid}" in err

    state = json.loads(run_bin(["plan", "show", sid, "--json"], url).stdout)
    assert [t["status"] for t in state["plan"]["tasks"]] == ["DONE", "PENDING"]

    resumed = run_bin(["run", "--session", sid], url)  # the offline model takes over
    assert resumed.returncode == 0, resumed.stderr
    assert "create_plan" not in resumed.stdout and "1 of 2 steps done, 1 skipped" in resumed.stdout
