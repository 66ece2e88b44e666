"""Run a suite: every mission, arm and repeat, resumable, results stored as they come."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taskforce.errors import ConfigurationError
from taskforce.evals.arms import Arm, parse_arm, parse_arms
from taskforce.evals.meter import TokenCounter
from taskforce.evals.mission import Suite
from taskforce.evals.record import RunRecord
from taskforce.evals.runner import ModelFactory, RunSettings, run_key, run_mission
from taskforce.evals.sampling import sampled
from taskforce.evals.store import ResultStore
from taskforce.evals.summary import Summary, summarize
from taskforce.models.base import Model

__all__ = ["EvalResult", "Progress", "evaluate", "litellm_factory"]

DEFAULT_TEMPERATURE = 0.0
"""Evaluations ask for greedy decoding unless told otherwise: reruns then agree."""
DEFAULT_MAX_TOKENS = 1024
"""Output tokens allowed per reply: a runaway generation (a small model repeating itself
until the context is full) ends in seconds, not minutes. The built-in suite's longest
reply with the 1.5B model was 142 tokens."""


@dataclass(frozen=True)
class Progress:
    """Where an evaluation is: `done` of `total` runs, the record just made or found."""

    done: int
    total: int
    record: RunRecord | None
    """None on the first call, made before any run."""
    reused: bool
    """True when the record was already stored (resumed), False when it just ran."""


@dataclass
class EvalResult:
    """The runs of this evaluation's grid (stored earlier or just now) and their summary."""

    records: list[RunRecord] = field(default_factory=list)
    ran: int = 0
    reused: int = 0
    arms: list[str] = field(default_factory=list)

    @property
    def summary(self) -> Summary:
        """Per-arm aggregates and paired comparisons."""
        return summarize(self.records, self.arms)


def litellm_factory(
    model: str,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    temperature: float | None = DEFAULT_TEMPERATURE,
    context_window: int | None = None,
    timeout: float = 600.0,
    max_tokens: int | None = DEFAULT_MAX_TOKENS,
    **options: Any,
) -> ModelFactory:
    """Runs use one ``LiteLLMModel``: temperature 0, at most 1,024 output tokens a reply.

    Either may be given; None leaves it to the provider.
    """
    from taskforce.models.litellm_model import LiteLLMModel

    if temperature is not None:
        options["temperature"] = temperature
    if max_tokens is not None:
        options["max_tokens"] = max_tokens
    shared = LiteLLMModel(
        model, api_base=api_base, api_key=api_key, context_window=context_window,
        timeout=timeout, max_retries=2, **options,
    )  # fmt: skip
    return lambda _mission, _arm: shared


def _factory(model: str | Model | ModelFactory) -> ModelFactory:
    if isinstance(model, str):
        return litellm_factory(model)
    if isinstance(model, Model):
        return lambda _mission, _arm: model
    if callable(model):
        return model
    raise ConfigurationError("model must be a litellm model string, a Model or a factory")


async def evaluate(
    suite: Suite,
    model: str | Model | ModelFactory,
    *,
    arms: str | Sequence[Arm | str] = "none,planner",
    repeat: int = 1,
    missions: str | Sequence[str] = (),
    limit: int | None = None,
    settings: RunSettings | None = None,
    results: str | Path | ResultStore | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    meta: Mapping[str, Any] | None = None,
    rerun: bool = False,
    counter: TokenCounter | None = None,
) -> EvalResult:
    """Run every selected mission of `suite` in every arm, `repeat` times.

    Args:
        suite: The missions.
        model: A litellm model string (temperature 0), a ``Model`` (shared by the runs) or
            a factory ``(mission, arm) -> Model`` (e.g. a fresh ``ScriptedModel`` per run).
            When the settings sample (temperature above 0), each request of a run asks
            ``model.with_options(temperature=..., seed=...)`` with a seed of its own
            (see :mod:`taskforce.evals.sampling`; ``LiteLLMModel`` has it).
        arms: ``"none,planner,strict=planner+require_work_before_done=true"`` or Arms.
        repeat: Runs per mission and arm (at temperature 0 a repeat is the same run again;
            sample, see ``RunSettings``, for different paths).
        missions: Mission ids to run (default: all).
        limit: Keep only the first `limit` of those missions.
        settings: Step and time limits, the context window, the sampling.
        results: Where results are stored (a JSONL path or a ResultStore). Runs whose key
            is stored already are not run again: an interrupted evaluation resumes.
        on_progress: Called after every run (or stored run found).
        meta: Extra facts kept in each new record (e.g. the command line).
        rerun: Run every selected run again even when it is stored (after changing a
            checker or a tool: a stored run is keyed by the mission's text, not its code);
            the new records are appended, and a later read takes them.
        counter: Sizes every request exactly, e.g. ``ServerTokenCounter(api_base)`` (the
            model's own template and tokenizer on a llama.cpp server); None: estimates.
            It is tried once before the first run.

    Returns:
        The records of the grid (stored earlier or made now) and their summary.

    Runs go mission by mission, every arm of a mission in turn, so a partial evaluation
    still pairs its arms on the same missions.

    Raises:
        ConfigurationError: an argument it cannot use, a mission whose world cannot be
            made, or whose checker returns no outcome (the evaluation stops there, that
            run unstored); nothing runs when an argument is refused.
        ProviderError: the provider failed a run (not the model's reply or prompt size):
            the evaluation stops there; that run is not stored, so calling again resumes.
    """
    if not isinstance(suite, Suite):
        raise ConfigurationError(f"suite must be a Suite, not {type(suite).__name__}")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ConfigurationError("repeat must be a positive integer")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ConfigurationError("limit must be a positive integer")
    if not isinstance(rerun, bool):
        raise ConfigurationError("rerun must be True or False")
    chosen_arms = _arms(arms, suite)
    missions = [missions] if isinstance(missions, str) else list(missions)  # one id, or ids
    settings = settings or RunSettings()
    if results is not None and not isinstance(results, str | Path | ResultStore):
        raise ConfigurationError(
            f"results must be a file path or a ResultStore, not {type(results).__name__}"
        )
    store = results if isinstance(results, ResultStore) or results is None else ResultStore(results)
    factory = _factory(model)
    grid = [
        (r, m, a) for r in range(repeat) for m in suite.select(missions, limit) for a in chosen_arms
    ]
    outcome = EvalResult(arms=[a.name for a in chosen_arms])
    stored = {r.key.text(): r for r in store.latest()} if store is not None and not rerun else {}
    base_meta = {**machine_facts(), **(meta or {})}
    if counter is not None and grid:
        await counter.count([{"role": "user", "content": "ping"}], [])  # fails before any run
    if on_progress is not None:
        on_progress(Progress(0, len(grid), None, False))
    for done, (repeat_no, mission, arm) in enumerate(grid, start=1):
        run_seed = settings.seed_of(repeat_no) if settings.sampled else None
        run_model = sampled(factory(mission, arm), settings.temperature, run_seed)
        key = run_key(suite.name, mission, arm, repeat_no, run_model.name, settings)
        record = stored.get(key.text())
        reused = record is not None
        if record is None:
            record = await run_mission(mission, arm, run_model, key, settings, counter)
            record.meta = base_meta | {
                "arm_spec": arm.spec,
                "arm_options": dict(arm.options),
                "settings": vars(settings).copy(),
                "tags": list(mission.tags),
            }
            if store is not None:
                store.add(record)
            outcome.ran += 1
        else:
            outcome.reused += 1
        outcome.records.append(record)
        if on_progress is not None:
            on_progress(Progress(done, len(grid), record, reused))
    return outcome


def _arms(arms: str | Sequence[Arm | str], suite: Suite) -> list[Arm]:
    """The arms asked for: "none,planner", or a list of Arms and arm texts."""
    if isinstance(arms, str):
        return parse_arms(arms, suite.arms)
    if not isinstance(arms, Sequence) or not all(isinstance(a, Arm | str) for a in arms):
        raise ConfigurationError("arms must be text like 'none,planner', or a list of Arms")
    chosen = [parse_arm(a, suite.arms) if isinstance(a, str) else a for a in arms]
    names = [a.name for a in chosen]
    if not chosen or len(set(names)) != len(names):
        raise ConfigurationError(f"give at least one arm, each named once: {', '.join(names)}")
    return chosen


def machine_facts() -> dict[str, Any]:
    """Where and with what code a run was made: commit, Python, machine, cores."""
    commit = ""
    try:
        root = Path(__file__).resolve().parents[2]
        commit = subprocess.run(
            ["git", "-C", str(root), "describe", "--always", "--dirty", "--abbrev=12"],
            capture_output=True, text=True, timeout=5, check=False,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return {
        "commit": commit,
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores",
        "argv": " ".join(sys.argv),
    }
