"""The held-out suite: 24 errands for checking that a change generalizes.

The agent's levers were tuned on the built-in suite for many sessions, so its numbers
there flatter them. These missions were written afterwards, mostly over tools the
built-in suite does not have (a shop, bank accounts, a clock, the user's to-do list,
recipes), and are kept out of tuning: run a change on both suites before keeping it.
Four single-step missions, six chains, five conditional, five fan-out, four longer.
"""

from __future__ import annotations

from taskforce.evals.holdout.missions import CHAINS, CONDITIONAL, FAN_OUT, LONG, SINGLE
from taskforce.evals.holdout.world import ShopWorld
from taskforce.evals.mission import Suite

__all__ = ["SUITE", "ShopWorld"]

SUITE = Suite(
    "holdout",
    (*SINGLE, *CHAINS, *CONDITIONAL, *FAN_OUT, *LONG),
    description="24 held-out errands, mostly over other tools (shop, bank, clock, to-do "
    "list, recipes; 4 single-step): written after the built-in suite's tuning.",
)
