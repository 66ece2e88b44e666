"""Small exact statistics for pass/fail results (standard library only).

* :func:`wilson`: the 95% Wilson score interval of a proportion;
* :func:`mcnemar_p`: the exact two-sided McNemar test (a sign test on the discordant
  pairs, binomial with p = 1/2);
* :func:`paired`: two arms on the same missions: both / only A / only B / neither, the
  difference in solve rate with a 95% interval (Newcombe's method 10 for paired data,
  built from Wilson intervals), and the McNemar p-value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Paired", "mcnemar_p", "paired", "wilson"]

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``successes / n`` (``(0, 1)`` when n is 0)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mcnemar_p(only_a: int, only_b: int) -> float:
    """Exact two-sided McNemar p-value from the discordant counts (1.0 with none)."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    tail = float(sum(math.comb(n, i) for i in range(k + 1))) / float(2**n)
    return min(1.0, 2 * tail)


@dataclass(frozen=True)
class Paired:
    """Arm A against arm B on the missions (and repeats) both ran."""

    a: str
    b: str
    both: int
    only_a: int
    only_b: int
    neither: int
    difference: float
    """Solve rate of A minus that of B."""
    low: float
    high: float
    p_value: float

    @property
    def n(self) -> int:
        """Pairs compared."""
        return self.both + self.only_a + self.only_b + self.neither


def paired(a: str, b: str, solved_a: Mapping[str, bool], solved_b: Mapping[str, bool]) -> Paired:
    """Compare two arms on the keys both have (e.g. ``mission#repeat``)."""
    keys = sorted(solved_a.keys() & solved_b.keys())
    both = sum(solved_a[k] and solved_b[k] for k in keys)
    only_a = sum(solved_a[k] and not solved_b[k] for k in keys)
    only_b = sum(solved_b[k] and not solved_a[k] for k in keys)
    neither = len(keys) - both - only_a - only_b
    diff, low, high = _newcombe(both, only_a, only_b, neither)
    return Paired(a, b, both, only_a, only_b, neither, diff, low, high, mcnemar_p(only_a, only_b))


def _newcombe(both: int, only_a: int, only_b: int, neither: int) -> tuple[float, float, float]:
    """Difference of paired proportions with Newcombe's (1998) method 10 interval."""
    n = both + only_a + only_b + neither
    if n == 0:
        return 0.0, -1.0, 1.0
    pa, pb = (both + only_a) / n, (both + only_b) / n
    la, ua = wilson(both + only_a, n)
    lb, ub = wilson(both + only_b, n)
    d = pa - pb
    denom = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    phi = 0.0
    if denom > 0:  # with Newcombe's continuity correction of a positive association
        cross = both * neither - only_a * only_b
        phi = (max(cross - n / 2, 0.0) if cross > 0 else cross) / math.sqrt(denom)
    dl = math.sqrt(max(0.0, (pa - la) ** 2 - 2 * phi * (pa - la) * (ub - pb) + (ub - pb) ** 2))
    du = math.sqrt(max(0.0, (ua - pa) ** 2 - 2 * phi * (ua - pa) * (pb - lb) + (pb - lb) ** 2))
    return d, max(-1.0, d - dl), min(1.0, d + du)
