"""What the loop last showed the model of the plan, and whether the planner is offered.

:class:`PlanWatch` is one run's memory of the plan as the model and the UI last saw it:
the versions announced and recited, whether the model still owes a plan (plan-first),
adaptive exposure of the planner, and the short tool results recited with the plan.
"""

from __future__ import annotations

import dataclasses

from taskforce.agent.planning import unworked
from taskforce.plan import Plan


@dataclasses.dataclass
class PlanWatch:
    """What the loop last showed of the plan, and whether the model still owes a plan.

    It also decides whether the planner is offered (adaptive exposure) and keeps the
    short texts of tool results recited with the plan.
    """

    required: bool
    announced: int
    recited: int
    offered: bool = True
    """Whether the planner is offered while no plan is open."""
    opened: int = 0
    """The plan's version when the run opened."""
    results: list[str] = dataclasses.field(default_factory=list)
    """Short texts of the run's latest tool results (the last six are recited with the plan)."""

    def announce(self, plan: Plan) -> bool:
        """Whether `plan` is news for the UI (a ``plan_updated`` event); remembers it."""
        if plan.version == self.announced:
            return False
        self.announced = plan.version
        return True

    def recite(self, plan: Plan, force: bool = False) -> bool:
        """Whether to recite `plan` to the model now (it changed, or `force`); remembers it."""
        if not plan.steps or not (force or plan.version != self.recited):
            return False
        self.recited = plan.version
        return True

    def hides_planner(self, plan: Plan) -> bool:
        """Adaptive exposure: whether the planner is left out of this turn's tools.

        It is for a mission that needs no plan, and once the plan made in this run is
        finished (an older finished plan does not hide it: a new mission may plan).
        """
        if plan.open_steps():
            return False
        return not self.offered or (bool(plan.steps) and self.made_here(plan))

    def working(self, plan: Plan) -> bool:
        """Whether the model is working through a plan made or changed in this run.

        The planner is then offered in its working form (it shows no way to make a new
        plan); an open plan left by an earlier mission does not count: a new mission may
        plan anew.
        """
        return self.own(plan) and bool(plan.open_steps())

    def own(self, plan: Plan) -> bool:
        """Whether the run has a plan of its own (made or changed in this run)."""
        return bool(plan.steps) and self.made_here(plan)

    def finished(self, plan: Plan) -> bool:
        """Whether the plan made or changed in this run has no open step left."""
        return self.own(plan) and not plan.open_steps()

    def settled(self, plan: Plan) -> bool:
        """Whether the run's plan is finished with no step skipped for want of work.

        The loop skips a step marked done twice with no tool run for it
        (:func:`~taskforce.agent.planning.unworked`); the plan's recitation then asks for
        that work. So until then a lookup is work, not looking around, and a call made when
        told to answer is run, not refused.
        """
        return self.finished(plan) and not unworked(plan)

    def made_here(self, plan: Plan) -> bool:
        """Whether `plan` was made or changed in this run (its version moved since it opened)."""
        return plan.version != self.opened

    def remember(self, text: str) -> None:
        """Keep `text` (a tool result's short form); the last twenty."""
        self.results = [*self.results, text][-20:]
