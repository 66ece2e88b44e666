"""The built-in suite: 45 missions over deterministic toy tools (see ``world.py``).

Eight single-step missions (where planning should stay out of the way), chains whose
later steps need earlier results, conditional missions, fan-out over several items, and
longer errands. Every mission ships a reference solution; the project's tests replay each
one (solved) and a broken copy of it (not solved), so no checker is vacuous.
"""

from __future__ import annotations

from taskforce.evals.builtin.missions_conditional import CONDITIONAL
from taskforce.evals.builtin.missions_fanout import FAN_OUT
from taskforce.evals.builtin.missions_long import LONG
from taskforce.evals.builtin.missions_simple import CHAINS, SINGLE
from taskforce.evals.builtin.world import ToyWorld
from taskforce.evals.mission import Suite

__all__ = ["SUITE", "ToyWorld"]

SUITE = Suite(
    "builtin",
    (*SINGLE, *CHAINS, *CONDITIONAL, *FAN_OUT, *LONG),
    description="45 errands over toy tools: arithmetic, money and units, weather, notes, "
    "contacts and email, files, calendar (8 single-step).",
)
