"""The BFCL adapter, for real: bfcl-eval's classes run the calls, its checker judges them.

scripts/setup.sh installs bfcl-eval with --no-deps (and mpmath for MathAPI), as a user
would for `taskforce eval --suite bfcl-multi-turn`.
"""

from __future__ import annotations

import sys

import pytest

from taskforce.evals import load_suite
from taskforce.evals.bfcl import BfclWorld, to_call, to_schema
from taskforce.evals.reference import reference_script
from tests.evals.helpers import NONE, PLANNER, run_script

SUITE = load_suite("bfcl-multi-turn")
ENTRIES = {m.id: m for m in SUITE.missions}
REPLAYED = ["multi_turn_base_0", "multi_turn_base_2", "multi_turn_base_5"]


def test_the_suite_is_bfcls_multi_turn_base() -> None:
    assert len(SUITE.missions) == 200 and SUITE.missions[0].id == "multi_turn_base_0"
    first = SUITE.missions[0]
    assert len(first.turns) == 4 and first.turns[0].startswith("Move 'final_report.pdf'")
    tools = {t.name: t for t in first.world().tools()}
    assert {"cd", "mkdir", "mv", "grep", "post_tweet"} <= set(tools)
    assert tools["cd"].description.startswith("This tool belongs to the Gorilla file system")
    assert tools["cd"].parameters_schema["type"] == "object"


@pytest.mark.parametrize("entry", REPLAYED)
async def test_replaying_the_ground_truth_is_valid(entry: str) -> None:
    mission = ENTRIES[entry]
    for arm in (NONE, PLANNER):
        record = await run_script(mission, reference_script(mission, arm.planning), arm)
        assert record.solved, (arm.name, record.reason, record.errors)
        assert record.reason == "BFCL multi_turn_checker: valid"
    calls = record.transcript["world"]["calls"]
    assert len(calls) == len(mission.turns)  # one list of calls per user turn
    assert all(isinstance(step, list) and isinstance(step[0], str) for t in calls for step in t)


async def test_a_broken_replay_is_invalid() -> None:
    mission = ENTRIES["multi_turn_base_0"]
    script = list(mission.reference)
    mkdir = next(
        i for i, r in enumerate(script) if r.tool_calls and r.tool_calls[0].name == "mkdir"
    )
    del script[mkdir]  # the directory is never created: the move fails
    record = await run_script(mission, script)
    assert not record.solved and record.reason.startswith("BFCL: multi_turn:")
    skipped = [r for r in mission.reference if not r.tool_calls][:1] * len(mission.turns)
    nothing = await run_script(mission, skipped)
    assert not nothing.solved and "empty_turn_model_response" in nothing.reason


def test_calls_are_recorded_in_bfcls_format() -> None:
    assert to_call("cd", {"folder": "document"}) == "cd(folder='document')"
    assert to_call("f", {"n": 3, "xs": [1, "a"], "ok": True}) == "f(n=3,xs=[1, 'a'],ok=True)"
    schema = to_schema({"type": "dict", "properties": {"x": {"type": "float"}, "type": {}}})
    assert schema == {"type": "object", "properties": {"x": {"type": "number"}, "type": {}}}


async def test_bfcl_instances_are_freed_after_the_check() -> None:
    mission = ENTRIES["multi_turn_base_0"]
    record = await run_script(mission, reference_script(mission, False))
    assert record.solved
    utils = sys.modules["bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils"]
    assert not [n for n in vars(utils) if n.startswith("taskforce_")]


async def test_a_tool_error_goes_back_to_the_model() -> None:
    world = ENTRIES["multi_turn_base_0"].world()
    assert isinstance(world, BfclWorld)
    world.begin_turn(0)
    cd = next(t for t in world.tools() if t.name == "cd")
    result = await cd.execute(folder="no-such-folder")
    assert result["success"] is False and "no-such-folder" in result["error"]
    ok = await cd.execute(folder="document")
    assert ok == {"success": True, "output": {"current_working_directory": "document"}}
    assert cd.validate_params() == (False, "missing required parameter 'folder'")
    assert cd.validate_params(folder="x", extra=1)[0] is False


def test_without_bfcl_eval_the_error_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from taskforce.errors import ConfigurationError
    from taskforce.evals import bfcl

    for name in [n for n in sys.modules if n.startswith("bfcl_eval")]:
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed
    monkeypatch.setitem(sys.modules, "bfcl_eval", None)
    with pytest.raises(ConfigurationError, match="pip install --no-deps bfcl-eval mpmath"):
        bfcl._bfcl()
