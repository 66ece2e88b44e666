"""OfflineModel: a deterministic, rule-based model for the first run (no key, no network).

It speaks the same tool-calling protocol as a real model through the same loop: each call
reads the conversation, decides the next move and answers with a :class:`ModelResponse`
holding tool calls or a final answer. It keeps no state of its own, so a resumed session
continues where the stored conversation and plan say it stopped.

The policy, one reply at a time: a question about the plan ("What is left?") is answered
from the plan as last shown (:func:`~taskforce.planning.questions.asks_about_plan`), never
planned. Otherwise: find the plan as the conversation last showed it (a
planner result or the loop's plan update; `read_plan` when the planner was used but its
output is gone); when no step is open, split the user's request into steps (the one
splitter, :func:`~taskforce.planning.split.split_mission`) and `create_plan`; then take
the first open step and run the tool that fits it (a demo tool by the rules of
:mod:`~taskforce.models.offline_tools`, else a registered tool the step names, arguments
from :func:`infer_arguments`), mark it done with the tool's result as its note (failed
when the tool failed; skipped, saying so, when no tool fits), and finish with a report
of what the tools did.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from taskforce.models.base import Message, ModelResponse, NoCalls, ToolCall, ToolSpec, Usage
from taskforce.models.offline_text import infer_arguments, mentions
from taskforce.models.offline_tools import (
    NO_TOOL_NOTE,
    PlanStep,
    earlier_results,
    fit,
    left,
    report,
    result_note,
)
from taskforce.plan import StepStatus, parse_checklist
from taskforce.plan.text import plural
from taskforce.planning.questions import asks_about_plan
from taskforce.planning.split import split_mission

__all__ = ["NO_TOOL_NOTE", "OFFLINE_LABEL", "OfflineModel", "infer_arguments"]

OFFLINE_LABEL = "offline model — set --model for an LLM"
"""How the offline model is labelled wherever its output is shown."""

PLANNER = "planner"
_PLAN_NOTE = "[Plan update]"  # how the agent loop recites the plan to the model
_NOTES = (_PLAN_NOTE, "[Reminder]")  # loop notes: never the user's request
_OPEN = (StepStatus.IN_PROGRESS, StepStatus.PENDING)
_SMALL_TALK = re.compile(
    r"(?:hi|hello|hey|thanks|thank you|thx|ok|okay|bye|goodbye)[\s!.?]*", re.IGNORECASE
)


def _parse_checklist(output: str) -> list[PlanStep]:
    """The steps of a rendered checklist (the planner's `output`), by the one parser."""
    return [
        PlanStep(item.number or n, item.text, item.status, item.note or "", item.requires_approval)
        for n, item in enumerate(parse_checklist(output), start=1)
    ]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _as_dict(content: Any) -> dict[str, Any]:
    try:
        value = json.loads(_text(content))
    except (ValueError, TypeError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True, slots=True)
class _Call:
    """One tool call made in the current turn, with its parsed result."""

    call: ToolCall
    args: dict[str, Any]
    result: dict[str, Any]

    @property
    def ok(self) -> bool:
        return self.result.get("success") is not False


def _current_turn(messages: Sequence[Message]) -> tuple[str, list[_Call]]:
    """The request being worked on and the calls made for it since.

    The turn starts at the first user message after the last final answer, so a
    resumed conversation (or a trailing plan reminder) does not restart the work.
    """
    start = 0
    for i, msg in enumerate(messages):
        if isinstance(msg, dict) and msg.get("role") == "assistant" and not msg.get("tool_calls"):
            start = i + 1
    turn = [m for m in messages[start:] if isinstance(m, dict)]
    request = next(
        (
            text
            for m in turn
            if m.get("role") == "user" and not (text := _text(m.get("content"))).startswith(_NOTES)
        ),
        "",
    )
    results = {m.get("tool_call_id"): m.get("content") for m in turn if m.get("role") == "tool"}
    calls: list[_Call] = []
    for msg in turn:
        raw_calls = msg.get("tool_calls") if msg.get("role") == "assistant" else None
        for raw in raw_calls if isinstance(raw_calls, list) else ():
            fn = raw.get("function") if isinstance(raw, dict) else None
            if not isinstance(fn, dict):
                continue
            call = ToolCall(str(raw.get("id")), str(fn.get("name")), str(fn.get("arguments")))
            calls.append(_Call(call, _as_dict(call.arguments), _as_dict(results.get(call.id))))
    return request, calls


def _last_request(messages: Sequence[Message]) -> str:
    """The user's latest message (a loop note is not one): a question may follow open work."""
    for msg in reversed(messages):
        if isinstance(msg, dict) and msg.get("role") == "user":
            text = _text(msg.get("content"))
            if not text.startswith(_NOTES):
                return text
    return ""


def _planner_ids(messages: Sequence[Message]) -> set[str]:
    """Ids of every planner call in the conversation."""
    return {
        str(raw.get("id"))
        for m in messages
        if isinstance(m, dict) and m.get("role") == "assistant"
        for raw in m.get("tool_calls") or ()
        if isinstance(raw, dict) and (raw.get("function") or {}).get("name") == PLANNER
    }


def _latest_plan(messages: Sequence[Message]) -> list[PlanStep] | None:
    """The plan as last shown in the conversation (planner output or plan update), if ever."""
    planner_ids = _planner_ids(messages)
    for msg in reversed(messages):
        if not isinstance(msg, dict):
            continue
        if msg.get("role") == "tool" and str(msg.get("tool_call_id")) in planner_ids:
            result = _as_dict(msg.get("content"))
            if result.get("success") is not False and isinstance(result.get("output"), str):
                return _parse_checklist(result["output"])
        elif msg.get("role") == "user" and _text(msg.get("content")).startswith(_PLAN_NOTE):
            return _parse_checklist(_text(msg.get("content")))
    return None


# --- the model ---------------------------------------------------------------------------------


class OfflineModel:
    """A deterministic rule-based :class:`~taskforce.models.base.Model` (no network).

    Args:
        max_steps: the most plan steps it creates from one request.
    """

    def __init__(self, *, max_steps: int = 30) -> None:
        self._max_steps = max_steps

    @property
    def name(self) -> str:
        """Always `offline`."""
        return "offline"

    @property
    def context_window(self) -> int | None:
        """Unbounded in practice; reported as None."""
        return None

    def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """About four characters per token of the JSON sent."""
        text = json.dumps([list(messages), list(tools)], default=str, ensure_ascii=False)
        return len(text) // 4

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelResponse:
        """Decide the next move from the conversation (see the module docstring)."""
        reply = self.decide(messages, tools)
        used = Usage(self.count_tokens(messages, tools), len(json.dumps(reply.to_message())) // 4)
        return ModelResponse(reply.content, reply.tool_calls, used)

    def decide(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The pure policy: the next tool call or the final answer."""
        if isinstance(tools, NoCalls):  # told to answer in words
            tools = ()
        request, calls = _current_turn(messages)
        specs = {
            str(t["function"].get("name")): t["function"]
            for t in tools
            if isinstance(t, dict) and isinstance(t.get("function"), dict)
        }
        call_no = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
        if asks_about_plan(_last_request(messages)):  # "What is left?": from the plan
            return _about_plan(call_no, messages, calls, PLANNER in specs)
        if PLANNER not in specs:  # not offered (planning off), or hidden: the plan is finished
            shown = _latest_plan(messages)
            return self._finished(request, shown) if shown else _final(_no_planner(request))
        planned = [c for c in calls if c.call.name == PLANNER]
        last = calls[-1] if calls else None
        if last and last.call.name == PLANNER and not last.ok:
            return _final(f"Stopped: the planner refused a change ({last.result.get('error')}).")
        steps = _latest_plan(messages)
        if steps is None and not planned and _planner_ids(messages):
            return _call(call_no, PLANNER, {"action": "read_plan"})  # used before: look first
        open_steps = [s for s in steps or () if s.status in _OPEN]
        if not open_steps:
            if any(c.args.get("action") == "create_plan" for c in planned) or (
                steps and self._is_plan_of(steps, request)
            ):  # this request's plan is finished (its making may have left the view)
                return self._finished(request, steps or [])
            if _SMALL_TALK.fullmatch(request.strip()):
                return _final("Hello! Tell me a mission and I will plan it and work through it.")
            tasks = split_mission(request, max_steps=self._max_steps)
            if not tasks:
                return _final("Nothing to do: the request has no steps I can plan.")
            return _call(call_no, PLANNER, {"action": "create_plan", "tasks": tasks})
        step = min(open_steps, key=lambda s: _OPEN.index(s.status))
        return _work_on(call_no, step, calls, specs, request, steps or [])

    def _is_plan_of(self, steps: list[PlanStep], request: str) -> bool:
        """Whether `steps` end with the plan this model makes of `request`.

        A new request's steps follow the session's finished ones (``create_plan`` keeps them).
        """
        tasks = split_mission(request, max_steps=self._max_steps)
        return bool(tasks) and [s.text for s in steps[-len(tasks) :]] == tasks

    def _finished(self, request: str, steps: list[PlanStep]) -> ModelResponse:
        """The final answer on a finished plan (and what the step cap left out)."""
        left = len(split_mission(request, max_steps=10_000)) - self._max_steps
        more = (
            f"\n\nThe request had {plural(left, 'more step')} than the {self._max_steps} "
            "I plan at once; send them as a new request."
            if left > 0
            else ""
        )
        return _final(report(steps) + more)


def _about_plan(
    call_no: int, messages: Sequence[Message], calls: list[_Call], offered: bool
) -> ModelResponse:
    """The plan as last shown, answered (read first when it is out of view)."""
    steps = _latest_plan(messages)
    if steps is None and offered and not any(c.call.name == PLANNER for c in calls):
        return _call(call_no, PLANNER, {"action": "read_plan"})
    return _final(left(steps or []))


def _work_on(
    call_no: int,
    step: PlanStep,
    calls: list[_Call],
    specs: dict[str, Any],
    request: str,
    steps: list[PlanStep],
) -> ModelResponse:
    """The next move on one open step: start it, run its tool, or close it."""
    tag = f"offline-step{step.number}-"
    runs = [c for c in calls if c.call.id.startswith(tag) and c.call.name != PLANNER]
    if runs and runs[-1].result.get("error_type") == "interrupted":
        runs = []  # the run stopped while the tool ran: run it again
    if runs:
        run = runs[-1]
        status = StepStatus.DONE if run.ok else StepStatus.FAILED
        return _mark(call_no, step.number, status, _note(run))
    earlier = earlier_results([s for s in steps if s is not step])
    fitted = fit(step.text, step.number, specs.keys() - {PLANNER}, request, earlier)
    tool = fitted[0] if fitted else None
    tool = tool or next((n for n in specs if n != PLANNER and mentions(step.text, n)), None)
    if tool is None:
        return _mark(call_no, step.number, StepStatus.SKIPPED, NO_TOOL_NOTE)
    args = fitted[1] if fitted else infer_arguments(step.text, _params(specs[tool]), tool)
    if args is None:
        note = f"could not infer arguments for {tool} from the step text"
        return _mark(call_no, step.number, StepStatus.FAILED, note)
    reply = _call(call_no, tool, args, tag)
    if step.status is not StepStatus.PENDING:
        return reply
    start = _mark(call_no, step.number, StepStatus.IN_PROGRESS, None)
    if step.needs_approval:  # starting it waits for a human; the tool runs after
        return start
    return ModelResponse(None, start.tool_calls + reply.tool_calls)  # start it and run it


def _params(spec: dict[str, Any]) -> dict[str, Any]:
    params = spec.get("parameters")
    return params if isinstance(params, dict) else {}


def _mark(call_no: int, number: int, status: StepStatus, note: str | None) -> ModelResponse:
    args: dict[str, Any] = {"action": "mark_done", "step_index": [number], "status": status.value}
    if note:
        args["note"] = note
    return _call(call_no, PLANNER, args)


def _call(call_no: int, name: str, args: dict[str, Any], tag: str = "offline-") -> ModelResponse:
    text = json.dumps(args, ensure_ascii=False)
    return ModelResponse(None, (ToolCall(f"{tag}{call_no + 1}", name, text),))


def _final(text: str) -> ModelResponse:
    return ModelResponse(f"{text}\n\n({OFFLINE_LABEL})")


def _note(run: _Call) -> str:
    result = run.result
    if not run.ok:
        error = str(result.get("error"))
        return (error if error.startswith(run.call.name) else f"{run.call.name}: {error}")[:160]
    shown = next((result[k] for k in ("output", "result", "message") if k in result), result)
    return result_note(run.call.name, shown)


def _no_planner(request: str) -> str:
    steps = split_mission(request)
    listed = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
    return "No planner tool is registered, so here are the steps I would take:\n" + listed
