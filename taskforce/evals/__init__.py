"""Does planning help *your* model on *your* tasks? An A/B evaluation of the agent.

A :class:`Mission` is a user's text, a fresh stateful world (tools and their state) and a
checker that reads the world; a :class:`Suite` is a list of missions. :func:`evaluate`
runs every mission in every arm (``none``: no planner; ``planner``: the defaults; named
variants of LeanAgent options), stores each run as it finishes (an interrupted
evaluation resumes), and summarises solved rates with Wilson intervals, false
completions, steps ticked without work, the planning share of the tokens and paired
comparisons. ``taskforce eval`` is the command line over the same API.

Every name is imported on first use, so ``import taskforce.evals`` stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from taskforce.evals.arms import BASES, Arm, parse_arms
    from taskforce.evals.engine import EvalResult, Progress, evaluate, litellm_factory
    from taskforce.evals.meter import MeteredModel, TokenSplit
    from taskforce.evals.mission import (
        Mission,
        MultiTurnWorld,
        Suite,
        Verdict,
        World,
        has_number,
        numbers_in,
    )
    from taskforce.evals.record import RunKey, RunRecord
    from taskforce.evals.reference import REFERENCE, reference_model
    from taskforce.evals.report import render_report
    from taskforce.evals.runner import RunSettings
    from taskforce.evals.stats import Paired, mcnemar_p, wilson
    from taskforce.evals.store import ResultStore
    from taskforce.evals.suites import BUILTIN_SUITES, load_suite
    from taskforce.evals.summary import ArmSummary, Summary, summarize

_LAZY: dict[str, str] = {
    **dict.fromkeys(["BASES", "Arm", "parse_arms"], "taskforce.evals.arms"),
    **dict.fromkeys(
        ["EvalResult", "Progress", "evaluate", "litellm_factory"], "taskforce.evals.engine"
    ),
    **dict.fromkeys(["MeteredModel", "TokenSplit"], "taskforce.evals.meter"),
    **dict.fromkeys(
        ["Mission", "MultiTurnWorld", "Suite", "Verdict", "World", "has_number", "numbers_in"],
        "taskforce.evals.mission",
    ),
    **dict.fromkeys(["RunKey", "RunRecord"], "taskforce.evals.record"),
    **dict.fromkeys(["REFERENCE", "reference_model"], "taskforce.evals.reference"),
    "render_report": "taskforce.evals.report",
    "RunSettings": "taskforce.evals.runner",
    **dict.fromkeys(["Paired", "mcnemar_p", "wilson"], "taskforce.evals.stats"),
    "ResultStore": "taskforce.evals.store",
    **dict.fromkeys(["BUILTIN_SUITES", "load_suite"], "taskforce.evals.suites"),
    **dict.fromkeys(["ArmSummary", "Summary", "summarize"], "taskforce.evals.summary"),
}

__all__ = [
    "BASES",
    "BUILTIN_SUITES",
    "REFERENCE",
    "Arm",
    "ArmSummary",
    "EvalResult",
    "MeteredModel",
    "Mission",
    "MultiTurnWorld",
    "Paired",
    "Progress",
    "ResultStore",
    "RunKey",
    "RunRecord",
    "RunSettings",
    "Suite",
    "Summary",
    "TokenSplit",
    "Verdict",
    "World",
    "evaluate",
    "has_number",
    "litellm_factory",
    "load_suite",
    "mcnemar_p",
    "numbers_in",
    "parse_arms",
    "reference_model",
    "render_report",
    "summarize",
    "wilson",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'taskforce.evals' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
