"""What one run measured (:class:`RunRecord`) and the tally of ticks without work."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["RunKey", "RunRecord", "TickTally", "comparable_settings", "is_false_completion"]


def comparable_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The settings that make two runs comparable: limits, and the sampling when they sample.

    `settings` as ``RunSettings`` fields (a record's ``meta["settings"]``; missing ones are
    the defaults). Greedy runs (temperature 0, or none recorded) name no sampling, as runs
    did before sampling existed.
    """
    chosen = {k: settings.get(k) for k in ("max_steps", "context_window")}
    if settings.get("temperature"):
        chosen |= {k: settings.get(k) for k in ("temperature", "seed")}
    return chosen


def is_false_completion(solved: bool, status: str, answer: str, all_ticked: bool) -> bool:
    """Not solved, yet the run ended as finished (completed, with an answer) or all ticked."""
    finished = status == "completed" and bool(answer.strip())
    return not solved and (finished or all_ticked)


@dataclass(frozen=True, slots=True)
class RunKey:
    """What identifies a stored result: a repeat of a mission in an arm with a model."""

    suite: str
    mission: str
    arm: str
    repeat: int
    model: str
    options: str
    """A hash of the arm's options and the harness settings (max steps, context, ...)."""
    mission_hash: str

    def text(self) -> str:
        """A one-line form used as the store's key."""
        return "|".join(str(v) for v in asdict(self).values())

    @property
    def label(self) -> str:
        """``mission/arm#repeat``: how a run is named to people."""
        return f"{self.mission}/{self.arm}#{self.repeat}"


@dataclass
class RunRecord:
    """The measurements of one run (JSON-ready through :meth:`as_dict`)."""

    key: RunKey
    solved: bool = False
    reason: str = ""
    status: str = ""
    """The agent's final status (completed, max_steps, failed), or timeout / crashed."""
    false_completion: bool = False
    all_ticked: bool = False
    plan_steps: int = 0
    no_work_ticks: int = 0
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    tokens: dict[str, Any] = field(default_factory=dict)
    """The estimated split (see ``meter.py``)."""
    planning_tokens: int = 0
    """Planning input tokens: the estimated share applied to the provider's input total."""
    tool_calls: int = 0
    errors: list[str] = field(default_factory=list)
    overflows: int = 0
    seconds: float = 0.0
    final_answer: str = ""
    final_plan: str = ""
    started_at: str = ""
    transcript: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    """How it ran: arm spec, settings, commit, machine, command line."""

    @property
    def crashed(self) -> bool:
        """The run ended in an error (provider failure, crash, timeout), not an answer."""
        return self.status in {"failed", "crashed", "timeout"}

    def as_dict(self, transcript: bool = True) -> dict[str, Any]:
        """The record as JSON-ready data (optionally without the transcript)."""
        data = asdict(self)
        if not transcript:
            data.pop("transcript")
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunRecord:
        """Read a record written by :meth:`as_dict` (unknown keys are ignored)."""
        fields = dict(data)
        key = RunKey(**fields.pop("key"))
        known = set(cls.__dataclass_fields__) - {"key"}
        return cls(key=key, **{k: v for k, v in fields.items() if k in known})


@dataclass
class TickTally:
    """Counts steps marked done with no successful non-planner tool run since they started.

    Feed it the run's events in order; `done_count` gives the plan's DONE steps at a plan
    update. A step counts as started when the plan was created or the previous tick
    happened; ``k`` steps ticked at once after ``c`` successful tool runs count
    ``max(0, k - c)``. A call that failed did no step's work.
    """

    no_work: int = 0
    tool_runs: int = 0
    done: int = 0
    _ran: dict[str, bool] = field(default_factory=dict)

    def on_call(self, call_id: str, name: str, runs: bool, reuses: bool = False) -> None:
        """A tool_call event.

        `reuses`: a repeat answered with an earlier run that backs no step yet (the agent's
        evidence rule keeps the DONE steps at most the distinct runs).
        """
        self._ran[call_id] = (runs or reuses) and name != "planner"

    def on_result(self, call_id: str, success: bool = True) -> None:
        """A tool_result event (`success`: the result's own flag)."""
        if self._ran.pop(call_id, False) and success:
            self.tool_runs += 1

    def on_plan(self, done_count: int, created: bool) -> None:
        """A plan_updated event with the plan's DONE steps now."""
        newly = done_count - self.done
        self.done = done_count
        if newly > 0:
            self.no_work += max(0, newly - self.tool_runs)
            self.tool_runs = 0
        elif created:
            self.tool_runs = 0
