"""Generated `planner` calls: the valid, the nearly valid and the absurd, from a seed.

:func:`random_call` draws the arguments a model might send: right and wrong actions,
indices in and out of range (as ints, strings, JSON strings, booleans, lists), texts
empty, huge, multi-line or with control characters, dependencies forward and backward,
unknown parameters, and parameters that do not apply to the action.
"""

from __future__ import annotations

import json
import random
from typing import Any

ACTIONS = ["create_plan", "mark_done", "read_plan", "update_plan"]
STATUSES = [
    "DONE",
    "IN_PROGRESS",
    "FAILED",
    "SKIPPED",
    "PENDING",
    "done",
    "in progress",
    "COMPLETED",
    "bogus",
    "",
    None,
    3,
]
WEIRD_TEXTS = [
    "",
    " ",
    "\n",
    "- [ ] injected\n- [x] checklist",
    "\x00nul",
    "é" * 600,
    "x" * 501,
    "tab\there",
    "line\nbreak",
    "🚀 emoji",
    "<script>",
    "   padded   ",
]


def _text(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.75:
        return f"step {rng.randrange(10_000)}"
    if roll < 0.95:
        return rng.choice(WEIRD_TEXTS)
    return rng.choice([None, 42, ["nested"], {"description": "as object"}, True])


def _index(rng: random.Random, size: int) -> Any:
    roll = rng.random()
    if roll < 0.7:
        return rng.randint(1, max(1, size + 1))
    return rng.choice([0, -1, size + 5, 10**12, "2", "two", True, None, 1.5, "[1, 2]", "[oops"])


def _indices(rng: random.Random, size: int) -> Any:
    roll = rng.random()
    if roll < 0.6:
        return [_index(rng, size)]
    if roll < 0.85:
        return [_index(rng, size) for _ in range(rng.randint(0, 4))]
    return _index(rng, size)  # a bare value where a list is expected


def _tasks(rng: random.Random, size: int) -> Any:
    roll = rng.random()
    if roll < 0.7:
        n = rng.randint(1, 12)
        items: list[Any] = []
        for i in range(n):
            if rng.random() < 0.2:
                deps = [rng.randint(0, i + 2) for _ in range(rng.randint(1, 2))]
                items.append({"description": f"task {i}", "depends_on": deps})
            else:
                items.append(_text(rng))
        return items
    if roll < 0.8:
        return json.dumps([f"json task {i}" for i in range(rng.randint(0, 4))])
    if roll < 0.9:
        return [f"t{i}" for i in range(rng.choice([0, 1001, 60]))]
    return rng.choice([None, "just a string", 7, {"description": "one"}])


def random_call(rng: random.Random, size: int) -> dict[str, Any]:
    """One call's arguments for a plan that currently has ``size`` steps."""
    roll = rng.random()
    action: Any = rng.choice(ACTIONS)
    if roll < 0.03:
        action = rng.choice(["delete_plan", "", None, 5, "MARK_DONE", "read_plan "])
    params: dict[str, Any] = {} if action is None and rng.random() < 0.5 else {"action": action}
    if action == "create_plan" or (roll < 0.1 and rng.random() < 0.3):
        params["tasks"] = _tasks(rng, size)
    if action == "mark_done":
        if rng.random() < 0.95:
            params["step_index"] = _indices(rng, size)
        if rng.random() < 0.6:
            params["status"] = rng.choice(STATUSES)
        if rng.random() < 0.3:
            params["note"] = _text(rng)
    if action == "update_plan":
        kind = rng.random()
        if kind < 0.4:
            params["add_steps"] = [_text(rng) for _ in range(rng.randint(0, 3))]
            if rng.random() < 0.4:
                params["insert_at"] = _index(rng, size)
        elif kind < 0.7:
            params["remove_indices"] = _indices(rng, size)
        else:
            params["step_index"] = _indices(rng, size)
            if rng.random() < 0.9:
                params["text"] = _text(rng)
    if rng.random() < 0.05:  # a parameter that does not apply, or does not exist
        params[rng.choice(["note", "text", "tasks", "colour", "step", "insert_at"])] = "x"
    return params
