"""How a run ends that stopped before its answer: stuck on repeats, or at ``max_steps``.

A model told to answer without tools that only repeated calls (or, its plan finished,
made any call at all: none of them runs then) is stopped rather than left to spend the
rest of ``max_steps`` on repeats (the guard's ``stuck``). Its plan finished, the run is
``completed``; with work left, or at the step limit, it ends ``max_steps``. Either way the
user is told something: the model's last answer in words, or else one short request of
its own (the mission, the plan and the tool results; no tools, no calls to imitate) for
the answer, or, with work left and results to report, for what the results show and what
was not done. A report
of unfinished work is prefixed with why the run stopped, so it never reads as done.
"""

from __future__ import annotations

from taskforce.agent import echo, prompts, textcalls
from taskforce.agent.events import EventKind
from taskforce.agent.limits import bound_reply
from taskforce.agent.result import AgentStatus
from taskforce.agent.run import Run, user
from taskforce.errors import ProviderError


async def end(run: Run) -> tuple[AgentStatus, str]:
    """The status and final message of `run`, stopped because it only repeated calls.

    ``completed`` when its plan is finished (the work is done and checked off), else
    ``max_steps`` (more steps would only repeat).
    """
    if run.plan.steps and not run.plan.open_steps():
        return AgentStatus.COMPLETED, await _words(run, finished=True) or prompts.STUCK_DONE
    return AgentStatus.MAX_STEPS, prompts.stopped(prompts.STUCK, await _words(run))


async def at_limit(run: Run, max_steps: int) -> tuple[AgentStatus, str]:
    """The status and final message of `run`, stopped at `max_steps` model calls."""
    return AgentStatus.MAX_STEPS, prompts.stopped(prompts.at_limit(max_steps), await _words(run))


async def _words(run: Run, *, finished: bool = False) -> str:
    """The model's last answer in words in this run, else :func:`ask_answer`'s ('' if none).

    With work left, a report is asked for only when a tool gave a result in this run (a
    run that only planned, like a team lead's planning turn, has nothing to report). An
    answer asked for is added to the conversation: it is what the user reads, and what the
    session's next request follows.
    """
    words = next(
        (
            str(m["content"])
            for m in reversed(run.session.history[run.pinned + 1 :])
            if m.get("role") == "assistant" and m.get("content") and not m.get("tool_calls")
        ),
        "",
    )
    if not words and (finished or run.watch.results):
        words = await ask_answer(run, finished=finished)
        if words:
            run.session.add({"role": "assistant", "content": words})
    return words


async def ask_answer(run: Run, *, finished: bool) -> str:
    """The answer to `run`'s mission, asked in a short view of its own ('' if none).

    A small model whose history is all tool calls tends to write one more call even when
    offered no tools; asked afresh, with only the mission, the plan and the results and no
    calls to imitate, it answers in words. `finished`: the plan is done (the answer is
    asked for); else the run stopped with work left (what the results show and what was
    not done is asked for). The plan is shown when this run made or changed it (an older
    plan is about an earlier request). A reply that is a call, a copy of the plan or a
    provider error gives ''.
    """
    plan = run.plan.render() if run.plan.steps and run.watch.made_here(run.plan) else ""
    view = [
        {"role": "system", "content": prompts.ANSWER_SYSTEM if finished else prompts.REPORT_SYSTEM},
        user(prompts.answer_request(run.mission, plan, run.watch.results, finished=finished)),
    ]
    try:
        response = bound_reply(await run.wiring.model.complete(view, []))
    except ProviderError as exc:
        await run.wiring.events.emit(
            EventKind.ERROR, run.session_id, message=str(exc), recovered=True
        )
        return ""
    await run.record_call(response, len(view), 0)
    text = response.content or ""
    written = textcalls.calls_in_text(text, run.wiring.tools, run.use.calls)
    if response.tool_calls or written or echo.is_echo(text, [str(view[-1]["content"])]):
        return ""
    return textcalls.plain_answer(text, run.wiring.tools)
