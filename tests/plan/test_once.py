"""`once`: a value computed on first use per instance, then read from the instance."""

from __future__ import annotations

from taskforce.plan.once import once


class Counted:
    def __init__(self, base: int) -> None:
        self.base = base
        self.calls = 0

    @once
    def doubled(self) -> int:
        """Twice the base."""
        self.calls += 1
        return 2 * self.base


def test_a_value_is_computed_once_per_instance() -> None:
    a, b = Counted(1), Counted(5)
    assert (a.doubled, a.doubled, b.doubled) == (2, 2, 10)
    assert (a.calls, b.calls) == (1, 1)
    assert a.__dict__["doubled"] == 2


def test_a_value_put_in_the_instance_first_is_the_one_read() -> None:
    a = Counted(1)
    a.__dict__["doubled"] = 7  # how a derived plan is handed its parent's maps
    assert a.doubled == 7 and a.calls == 0


def test_the_class_attribute_is_the_descriptor_with_its_docstring() -> None:
    assert isinstance(Counted.doubled, once)
    assert Counted.doubled.__doc__ == "Twice the base."
