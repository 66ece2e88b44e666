"""Wilson intervals, the exact McNemar test and paired comparisons, against known values."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taskforce.evals import mcnemar_p, wilson
from taskforce.evals.stats import paired


def test_wilson_known_values() -> None:
    # Wilson (1927) / Newcombe (1998) table values for 95%
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_mcnemar_exact_binomial() -> None:
    assert mcnemar_p(0, 0) == 1.0
    assert mcnemar_p(0, 6) == pytest.approx(2 / 64)
    assert mcnemar_p(6, 0) == pytest.approx(2 / 64)
    assert mcnemar_p(3, 3) == 1.0
    # 2 vs 10: 2 * P(X <= 2), X ~ Bin(12, 1/2)
    expected = 2 * sum(math.comb(12, i) for i in range(3)) / 2**12
    assert mcnemar_p(2, 10) == pytest.approx(expected)


def test_paired_counts_and_difference() -> None:
    a = {"m1": True, "m2": True, "m3": False, "m4": False, "m5": True}
    b = {"m1": True, "m2": False, "m3": False, "m4": True, "only-b": True}
    result = paired("A", "B", a, b)
    assert (result.both, result.only_a, result.only_b, result.neither) == (1, 1, 1, 1)
    assert result.n == 4 and result.difference == 0.0 and result.p_value == 1.0
    assert result.low < 0 < result.high


def test_a_clear_win_has_an_interval_above_zero() -> None:
    a = {f"k{i}": True for i in range(20)}
    b = {f"k{i}": i < 5 for i in range(20)}
    result = paired("A", "B", a, b)
    assert (result.both, result.only_a, result.only_b, result.neither) == (5, 15, 0, 0)
    assert result.difference == pytest.approx(0.75)
    assert 0 < result.low < 0.75 < result.high <= 1
    assert result.p_value == pytest.approx(2 / 2**15)
    mirrored = paired("B", "A", b, a)
    assert (mirrored.low, mirrored.high) == pytest.approx((-result.high, -result.low))


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60))
def test_the_interval_holds_the_difference(pairs: list[tuple[bool, bool]]) -> None:
    a = {str(i): x for i, (x, _) in enumerate(pairs)}
    b = {str(i): y for i, (_, y) in enumerate(pairs)}
    result = paired("A", "B", a, b)
    assert -1 <= result.low <= result.difference <= result.high <= 1
    assert 0 < result.p_value <= 1
