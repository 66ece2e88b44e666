"""A tool whose calls keep failing is left out of the next request (guessing in a row).

Small models guess a value again and again instead of looking it up. In the evaluation the
1.5B model called ``water_bed(bed_id="bed1")``, then ``"bed2"`` ... ``"bed19"``, each
answered "no bed 'bed1'; list_beds gives the bed ids" with the unused lookups named, until
the step limit; it cancelled bookings ``B-01`` to ``B-19`` the same way. Every call was new,
so no repeat guard saw it, and the ids were too short to be questioned as guesses.

:class:`FailureStreak` counts the calls of one tool that ran and failed in a row (a
success of any other tool ends the streak; the planner is not counted). At :data:`LIMIT`
the next request offers every tool but that one, with a note naming the lookups; a call
of it written anyway is answered without running. The request after that offers it again,
and a new streak is counted from zero.
"""

from __future__ import annotations

LIMIT = 3
"""Failed calls of one tool in a row before it is left out of one request."""


class FailureStreak:
    """The tool whose calls failed last, in a row, and the one left out of this request."""

    def __init__(self) -> None:
        self.tool: str | None = None
        self.count = 0
        self.error = ""
        """The last failure's error text."""
        self.holding: str | None = None
        """The tool left out of the current request (its calls are not run)."""

    def record(self, tool: str, failed: bool, error: str = "") -> None:
        """Count a call of `tool` that ran: a failure extends or starts a streak."""
        if not failed:
            self.tool, self.count = None, 0
        elif tool == self.tool:
            self.count += 1
        else:
            self.tool, self.count = tool, 1
        self.error = error if failed else ""

    def hold(self, others: bool) -> str | None:
        """The tool to leave out of the next request, or None; call once per request.

        `others`: whether any other tool is offered (a lone tool is never left out).
        """
        self.holding = None
        if self.count >= LIMIT and others:
            self.holding, self.tool, self.count = self.tool, None, 0
        return self.holding
