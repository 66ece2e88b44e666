"""Checks of the held-out missions' own state (orders, balances, to-dos).

The built-in checks (notes, emails, files, events, the answer) read a :class:`ShopWorld`
as they read any :class:`~taskforce.evals.builtin.world.ToyWorld`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from taskforce.evals.holdout.world import ShopWorld
from taskforce.evals.mission import Verdict

__all__ = ["balance", "no_order", "no_todo", "order", "shop_world", "todo"]

Check = Callable[[Any, str], Verdict]


def shop_world(
    *kits: str,
    notes: dict[str, str] | None = None,
    files: dict[str, str] | None = None,
) -> Callable[[], ShopWorld]:
    """A factory of fresh worlds with these kits and this starting state."""

    def make() -> ShopWorld:
        return ShopWorld(kits, dict(notes or {}), [], dict(files or {}), [])

    return make


def order(item: str, quantity: int) -> Check:
    """Exactly `quantity` units of `item` were ordered (over any number of orders)."""

    def check(w: ShopWorld, _answer: str) -> Verdict:
        got = sum(o["quantity"] for o in w.orders if o["item"] == item)
        if got == quantity:
            return Verdict(True, f"{quantity} {item} ordered")
        return Verdict(False, f"{got} {item} ordered, not {quantity}")

    return check


def no_order(item: str) -> Check:
    """No `item` was ordered."""

    def check(w: ShopWorld, _answer: str) -> Verdict:
        bad = any(o["item"] == item for o in w.orders)
        return Verdict(not bad, f"{item} was ordered" if bad else "")

    return check


def balance(account: str, amount: float) -> Check:
    """The account holds `amount` USD at the end."""

    def check(w: ShopWorld, _answer: str) -> Verdict:
        held = w.balances[account]
        if abs(held - amount) < 0.011:
            return Verdict(True, f"{account} holds {amount:g}")
        return Verdict(False, f"{account} holds {held:g}, not {amount:g}")

    return check


def todo(due: str, *words: str) -> Check:
    """A to-do item due on `due` whose text has every one of `words` (case-insensitive)."""

    def check(w: ShopWorld, _answer: str) -> Verdict:
        for item in w.todos:
            text = item["text"].lower()
            if item["due"] == due and all(word.lower() in text for word in words):
                return Verdict(True, f"to-do {item['text']!r} due {due}")
        return Verdict(False, f"no to-do with {list(words)} due {due}")

    return check


def no_todo(*words: str) -> Check:
    """No to-do item has any of `words`."""

    def check(w: ShopWorld, _answer: str) -> Verdict:
        for item in w.todos:
            if any(word.lower() in item["text"].lower() for word in words):
                return Verdict(False, f"unexpected to-do {item['text']!r}")
        return Verdict(True, "")

    return check
