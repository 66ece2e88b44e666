"""The held-out suite's world: other tools than the built-in suite's, over state of their own.

The built-in suite's kits (calculator, currency, weather, notes, contacts, email, files,
calendar) are joined by kits the agent was not tuned on: ``shop`` (stock and orders),
``bank`` (two accounts and transfers), ``clock`` (local times and time conversion at
fixed offsets), ``todo`` (the user's own to-do list, which an agent must not confuse with
its plan) and ``recipes`` (ingredients for a number of servings). Deterministic; errors
say what went wrong and what is accepted.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from taskforce.errors import ToolInputError
from taskforce.evals.builtin.world import KITS as BUILTIN_KITS
from taskforce.evals.builtin.world import READ_ONLY as BUILTIN_READ_ONLY
from taskforce.evals.builtin.world import KitTable, ToyWorld

__all__ = ["BALANCES", "KITS", "NOW_UTC", "OFFSETS", "READ_ONLY", "RECIPES", "STOCK", "ShopWorld"]

STOCK = {
    "pencils": (40, 0.5), "notebooks": (12, 3.25), "stapler": (0, 11.0),
    "paper": (5, 6.8), "markers": (25, 1.2), "tape": (8, 2.4),
}  # fmt: skip
"""Item -> (units in stock, unit price in USD)."""

BALANCES = {"checking": 1250.0, "savings": 4300.0}
"""The accounts' starting balances, in USD."""

NOW_UTC = (2026, 12, 2, 9, 0)
"""The clock's "now": 2026-12-02 09:00 UTC."""

OFFSETS = {
    "london": 0, "lisbon": 0, "reykjavik": 0, "paris": 1, "berlin": 1, "rome": 1,
    "madrid": 1, "oslo": 1, "vienna": 1, "cairo": 2, "tokyo": 9, "sydney": 11,
    "new york": -5, "chicago": -6,
}  # fmt: skip
"""City -> hours ahead of UTC (fixed, no daylight saving)."""

RECIPES = {
    "pancakes": {"flour (g)": 250, "milk (ml)": 500, "eggs": 2},
    "lemonade": {"lemons": 6, "sugar (g)": 150, "water (ml)": 1500},
    "tomato soup": {"tomatoes": 8, "onions": 2, "stock (ml)": 750},
}
"""Dish -> ingredients for 4 servings."""


def _city(name: str) -> str:
    key = " ".join(name.strip().lower().split(",")[0].split())
    if key not in OFFSETS:
        known = ", ".join(c.title() for c in OFFSETS)
        raise ToolInputError(f"no time zone for {name!r}; known cities: {known}")
    return key


def _clock(minutes: int) -> str:
    minutes %= 24 * 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


@dataclass
class ShopWorld(ToyWorld):
    """A :class:`ToyWorld` with a shop, two bank accounts, a clock, a to-do list, recipes."""

    stock: dict[str, int] = field(default_factory=lambda: {k: v[0] for k, v in STOCK.items()})
    orders: list[dict[str, Any]] = field(default_factory=list)
    balances: dict[str, float] = field(default_factory=lambda: dict(BALANCES))
    todos: list[dict[str, Any]] = field(default_factory=list)

    def kit_table(self) -> KitTable:
        """The built-in kits and this world's own."""
        return KITS, READ_ONLY

    def snapshot(self) -> dict[str, Any]:
        """The state, for transcripts."""
        own = {"stock": self.stock, "orders": self.orders, "balances": self.balances,
               "todos": self.todos}  # fmt: skip
        return {**super().snapshot(), **copy.deepcopy(own)}

    def calculator(self, expression: str) -> float:
        """Evaluate an arithmetic expression (numbers, + - * / % ** and parentheses)."""
        # The built-in world's description gives an example expression, which the 1.5B
        # model copied into unrelated missions ("(17 * 23) + 100" as the cost of markers)
        # in both arms; this suite measures the missions, not that copy.
        return super().calculator(expression)

    # ---- shop ------------------------------------------------------------------------------

    def check_stock(self, item: str) -> dict[str, Any]:
        """How many units of an item are in stock, and its unit price in USD."""
        key = self._item(item)
        return {"item": key, "in_stock": self.stock[key], "unit_price_usd": STOCK[key][1]}

    def place_order(self, item: str, quantity: int) -> str:
        """Order a quantity of an item (no more than is in stock); returns the order."""
        key = self._item(item)
        if quantity < 1:
            raise ToolInputError("quantity must be at least 1")
        if quantity > self.stock[key]:
            raise ToolInputError(f"only {self.stock[key]} {key} in stock; order at most that many")
        self.stock[key] -= quantity
        total = round(quantity * STOCK[key][1], 2)
        self.orders.append({"item": key, "quantity": quantity, "total_usd": total})
        return f"Order {len(self.orders)} placed: {quantity} {key}, {total:.2f} USD."

    def list_orders(self) -> list[dict[str, Any]]:
        """The orders placed so far."""
        return [dict(o) for o in self.orders]

    def _item(self, item: str) -> str:
        key = item.strip().lower()
        for name in STOCK:
            if key in {name, name.rstrip("s")} or key.rstrip("s") == name.rstrip("s"):
                return name
        raise ToolInputError(f"unknown item {item!r}; the shop has: {', '.join(STOCK)}")

    # ---- bank ------------------------------------------------------------------------------

    def get_balance(self, account: str) -> float:
        """The balance of an account (checking or savings), in USD."""
        return self.balances[self._account(account)]

    def transfer(self, from_account: str, to_account: str, amount: float) -> str:
        """Move money between the accounts (checking, savings); not more than the balance."""
        a, b = self._account(from_account), self._account(to_account)
        if a == b:
            raise ToolInputError("from_account and to_account must differ")
        if amount <= 0:
            raise ToolInputError("amount must be positive")
        if amount > self.balances[a]:
            raise ToolInputError(f"{a} has only {self.balances[a]:.2f} USD")
        self.balances[a] = round(self.balances[a] - amount, 2)
        self.balances[b] = round(self.balances[b] + amount, 2)
        return f"Moved {amount:.2f} USD from {a} to {b}."

    def _account(self, account: str) -> str:
        key = account.strip().lower().removesuffix(" account")
        if key not in self.balances:
            raise ToolInputError(f"unknown account {account!r}; use checking or savings")
        return key

    # ---- clock -----------------------------------------------------------------------------

    def local_time(self, city: str) -> dict[str, str]:
        """The current date and time (HH:MM, 24-hour) in a city."""
        key = _city(city)
        minutes = NOW_UTC[3] * 60 + NOW_UTC[4] + OFFSETS[key] * 60
        day = NOW_UTC[2] + minutes // (24 * 60)
        return {"city": key.title(), "date": f"{NOW_UTC[0]}-{NOW_UTC[1]:02d}-{day:02d}",
                "time": _clock(minutes)}  # fmt: skip

    def convert_time(self, time: str, from_city: str, to_city: str) -> str:
        """What a time (HH:MM, 24-hour) in one city is in another city."""
        found = re.fullmatch(r"(\d{1,2}):(\d{2})", time.strip())
        if found is None or int(found[1]) > 23 or int(found[2]) > 59:
            raise ToolInputError(f"time {time!r} must look like 15:30 (HH:MM, 24-hour)")
        shift = OFFSETS[_city(to_city)] - OFFSETS[_city(from_city)]
        minutes = int(found[1]) * 60 + int(found[2]) + shift * 60
        day = (
            " (the next day)" if minutes >= 24 * 60 else " (the day before)" if minutes < 0 else ""
        )
        return _clock(minutes) + day

    # ---- to-do list, recipes ---------------------------------------------------------------

    def add_todo(self, text: str, due: str) -> str:
        """Add an item to the user's to-do list. due: YYYY-MM-DD."""
        if not text.strip():
            raise ToolInputError("text must not be empty")
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", due.strip()):
            raise ToolInputError(f"due {due!r} must look like 2026-12-03 (YYYY-MM-DD)")
        self.todos.append({"text": text.strip(), "due": due.strip(), "done": False})
        return f"Added {text.strip()!r} (due {due.strip()}) to the to-do list."

    def list_todos(self) -> list[dict[str, Any]]:
        """The user's to-do list."""
        return [dict(t) for t in self.todos]

    def get_recipe(self, dish: str) -> dict[str, Any]:
        """A recipe's ingredients for 4 servings."""
        key = dish.strip().lower()
        if key not in RECIPES:
            raise ToolInputError(f"no recipe for {dish!r}; recipes: {', '.join(RECIPES)}")
        return {"dish": key, "serves": 4, "ingredients": dict(RECIPES[key])}


KITS: dict[str, Callable[[ShopWorld], list[Callable[..., Any]]]] = {
    **BUILTIN_KITS,
    "shop": lambda w: [w.check_stock, w.place_order, w.list_orders],
    "bank": lambda w: [w.get_balance, w.transfer],
    "clock": lambda w: [w.local_time, w.convert_time],
    "todo": lambda w: [w.add_todo, w.list_todos],
    "recipes": lambda w: [w.get_recipe],
}
"""Kit name -> the world's methods that become its tools (the built-in kits included)."""

READ_ONLY = BUILTIN_READ_ONLY | frozenset(
    {"check_stock", "list_orders", "get_balance", "local_time", "convert_time"}
    | {"list_todos", "get_recipe"}
)
"""The tools that change nothing."""
