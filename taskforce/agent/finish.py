"""Holding back a final answer: open or undone steps, an empty or cut-off reply, a name left out.

:class:`FinishGuard` reminds the model, a bounded number of times, when it tries to finish
while plan steps are still open, or sends an empty reply, or its answer stopped at the
model's output limit, or (once) answers with bare JSON data the request did not ask for,
or (once) the request lists names of which its calls used only some ("Madrid or Cairo"
after a lookup of Madrid alone).

A reminder about open steps after which the run made progress (a tool ran with success, or
a step was finished) is not counted against the bound: the model is working through what
the last one listed, so the next early answer is sent back again. An answer given with no
progress since the last reminder uses one up, so a run that only answers still ends.
"""

from __future__ import annotations

from collections.abc import Sequence

from taskforce.agent import prompts

DATA_ANSWER = (
    f"{prompts.REMINDER_HEADER} Your reply was JSON data, not an answer in words. If you meant "
    "to call a tool, call it now through the tool call; if the work is done, answer the user in "
    "plain text with the result."
)
"""Sent back once for an answer that is bare JSON data (the request did not ask for JSON)."""


class FinishGuard:
    """Holds back a final answer while plan steps are open, a bounded number of times."""

    def __init__(self, max_reminders: int = 2) -> None:
        self.max_reminders = max_reminders
        self.used = 0
        self._named = False  # the reminder for a name left out was sent (it is sent once)
        self._undone = False  # the reminder for undone steps was sent (it is sent once)
        self._data = False  # the reminder for an answer of bare JSON data was sent (once)
        self._progress: tuple[int, int] | None = None  # progress at the last open-steps reminder

    def check(
        self,
        content: str | None,
        open_steps: Sequence[str],
        worked: str | None = None,
        covered: bool = False,
        cut_off: bool = False,
        left_out: str | None = None,
        undone: Sequence[str] = (),
        progress: tuple[int, int] | None = None,
        data: bool = False,
    ) -> str | None:
        """A reminder to send instead of finishing, or None to accept the answer.

        `worked`: the current step's number when a tool already ran for it. `covered`: every
        open step could be backed by a tool run already made (only the ticks are missing);
        the answer is then taken (the run ends ``incomplete``): asking again risks a worse
        answer, not more work. `cut_off`: the answer stopped at the model's output limit.
        `left_out`: the reminder to send (once) because the request lists names no call
        used yet while another name of the list was used. `undone`: steps the loop skipped
        for lack of work whose tools never succeeded (the answer is held back once).
        `progress`: how far the run got, ``(tools run with success, steps finished)``; an
        open-steps reminder sent when it moved forward since the last one is free (a step
        set back to pending and finished again is no progress). `data`: the answer is bare
        JSON data the request did not ask for (a call with its tool left out, a tool result
        echoed back); it is sent back once.
        """
        reminds = bool(open_steps) and not covered
        last = self._progress
        moved = reminds and progress is not None and last is not None and progress > last
        if self.used >= self.max_reminders and not moved:
            return None
        if reminds:
            self.used += not moved
            if progress is not None and (last is None or progress > last):
                self._progress = progress  # the furthest the run got
            return prompts.finish_reminder(open_steps, worked)
        if undone and not open_steps and not self._undone:
            self._undone = True
            self.used += 1
            return prompts.undone_reminder(undone)
        if cut_off:
            self.used += 1
            return prompts.CUT_OFF_ANSWER
        if not (content or "").strip():
            self.used += 1
            return prompts.EMPTY_REPLY
        if data and not self._data:
            self._data = True
            self.used += 1
            return DATA_ANSWER
        if left_out is not None and not self._named:
            self._named = True
            self.used += 1
            return left_out
        return None
