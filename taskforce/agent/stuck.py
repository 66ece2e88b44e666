"""How a run ends whose model, told to answer in words, only repeated calls.

Or, its plan finished, made any call at all (none of them runs then). The loop stops such
a run rather than spend the rest of ``max_steps`` on repeats (the guard's ``stuck``). Its
plan finished, the run is ``completed``, and the answer the model would not give in the
conversation is asked once more in a short request of its own; with steps open it ends
``max_steps``.
"""

from __future__ import annotations

from collections.abc import Sequence

from taskforce.agent import echo, prompts, textcalls
from taskforce.agent.events import EventKind
from taskforce.agent.limits import bound_reply
from taskforce.agent.result import AgentStatus
from taskforce.agent.run import Run, user
from taskforce.errors import ProviderError

STUCK = (
    "Stopped early: asked for a final answer, the model only repeated calls whose results "
    "it already had."
)
"""The final message of a run stopped that way with work left (status ``max_steps``)."""

STUCK_DONE = "Every plan step is done; the model gave no final answer in words."
"""The final message of a run stopped that way with its plan finished (``completed``)."""

ANSWER_SYSTEM = (
    "You write the final answer to the user for a task that is finished. Answer in plain "
    "text, in one or two sentences, using only the results below. Do not write JSON or code."
)
"""The system prompt of the request for a finished plan's answer (:func:`ask_answer`)."""


def answer_request(mission: str, plan: str, results: Sequence[str]) -> str:
    """The request for the answer to a finished plan: the mission, the plan, the results.

    `plan` is the plan's Markdown ('' to leave it out); `results` the tool results' short
    forms.
    """
    done = f"The plan, done:\n{plan}\n" if plan else ""
    known = "; ".join(results) or "(none recorded)"
    return (
        f"{prompts.PLAN_HEADER}\nTask: {mission}\n\n{done}Results: {known}\n\n"
        "Write the final answer to the user."
    )


async def end(run: Run) -> tuple[AgentStatus, str]:
    """The status and final message of `run`, stopped because it only repeated calls.

    ``completed`` when its plan is finished (the work is done and checked off), else
    ``max_steps`` (no answer: more steps would only repeat). The message is the model's
    last answer in words in this run, if it gave one; else, for a finished plan, the
    answer to :func:`ask_answer`, added to the conversation (it is what the user reads,
    and what the session's next request follows).
    """
    plan = run.plan
    done = bool(plan.steps) and not plan.open_steps()
    words = next(
        (
            str(m["content"])
            for m in reversed(run.session.history[run.pinned + 1 :])
            if m.get("role") == "assistant" and m.get("content") and not m.get("tool_calls")
        ),
        "",
    )
    if done and not words:
        words = await ask_answer(run)
        if words:
            run.session.add({"role": "assistant", "content": words})
    status = AgentStatus.COMPLETED if done else AgentStatus.MAX_STEPS
    return status, words or (STUCK_DONE if done else STUCK)


async def ask_answer(run: Run) -> str:
    """The answer to `run`'s finished plan, asked in a short view of its own ('' if none).

    A small model whose history is all tool calls tends to write one more call even when
    told to call none; asked afresh, with only the mission, the plan and the results and no
    calls to imitate, it answers in words. The plan is shown when this run made or changed
    it (a plan finished by an earlier request of the session is about that request). A
    reply that is a call, a copy of the plan or a provider error gives ''.
    """
    plan = run.plan.render() if run.watch.finished(run.plan) else ""  # not an older plan
    view = [
        {"role": "system", "content": ANSWER_SYSTEM},
        user(answer_request(run.mission, plan, run.watch.results)),
    ]
    try:
        response = bound_reply(await run.wiring.model.complete(view, []))
    except ProviderError as exc:
        await run.wiring.events.emit(
            EventKind.ERROR, run.session_id, message=str(exc), recovered=True
        )
        return ""
    await run.record_call(response, len(view), 0)
    tools = run.wiring.tools
    calls, text = textcalls.read_reply(response.content, response.tool_calls, tools, run.use.calls)
    if calls or not text or echo.is_echo(text, [str(view[-1]["content"])]):
        return ""
    return textcalls.plain_answer(text, tools)
