"""Values a plan computes once: :class:`once`, a cached property without a lock.

A :class:`~taskforce.plan.plan.Plan` never changes, so what it derives from its steps (its
checklist, its counts, its maps) is computed on first use and kept in the instance's
``__dict__``. ``functools.cached_property`` does that too, but on Python 3.11 it takes a
lock shared by every instance on each first use (Python 3.12 dropped it); a change of
plan makes a new plan and so first-uses several of them, and the lock was about a fifth
of an in-memory ``mark_done`` at 20 steps. Two threads racing on a first use may both
compute the value: it is the same value (the plan is immutable), and one of them is kept.
Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class once(Generic[T]):  # lower case: a decorator, like cached_property
    """A property computed on first use, then read from the instance's ``__dict__``."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> once[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | once[T]:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)
        return value
