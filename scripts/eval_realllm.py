"""Opt-in: LeanAgent with a real small model on simple multi-step missions (not in CI).

Needs the local llama.cpp server (``scripts/realllm.sh start``: Qwen2.5-Coder-1.5B-Instruct
on http://127.0.0.1:8014/v1, 8k context). Runs ~5 missions with calculator, weather (fake
data) and notes tools and prints, per mission: solved?, planned?, plan steps completed,
turns, context overflows, tool calls (and how many the guards answered without running).

    .venv/bin/python scripts/eval_realllm.py [--mission N] [--max-steps 15] [--verbose]
        [--require-work]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from taskforce.agent import AgentEvent, AgentResult, LeanAgent
from taskforce.models.litellm_model import LiteLLMModel
from taskforce.tools.function import FunctionTool

BASE = "http://127.0.0.1:8014/v1"
MODEL = "openai/qwen2.5-coder-1.5b"
WEATHER = {"paris": 14, "rome": 22, "oslo": 4, "berlin": 9, "madrid": 25}


@dataclass
class World:
    """What the tools did during one mission."""

    notes: list[str] = field(default_factory=list)
    calls: list[tuple[str, str]] = field(default_factory=list)

    def tools(self) -> list[FunctionTool]:
        """calculator, weather, save_note and list_notes, recording into this world."""

        def calculator(expression: str) -> float:
            """Evaluate an arithmetic expression, e.g. `(3 + 4) * 2`. Returns the number."""
            self.calls.append(("calculator", expression))
            if not set(expression) <= set("0123456789+-*/(). "):
                raise ValueError("only numbers and + - * / ( ) are allowed")
            return round(float(eval(expression)), 4)

        def weather(city: str) -> dict[str, Any]:
            """Current weather of a city: temperature in Celsius and conditions."""
            self.calls.append(("weather", city))
            temp = WEATHER.get(city.strip().lower())
            if temp is None:
                raise ValueError(f"unknown city {city!r}; known: {', '.join(WEATHER)}")
            return {"city": city, "temperature_c": temp, "conditions": "clear"}

        def save_note(text: str) -> str:
            """Save a short note."""
            self.calls.append(("save_note", text))
            self.notes.append(text)
            return f"Note {len(self.notes)} saved."

        def list_notes() -> list[str]:
            """All saved notes."""
            self.calls.append(("list_notes", ""))
            return list(self.notes)

        return [FunctionTool(f) for f in (calculator, weather, save_note, list_notes)]


def _has(text: str, *needles: str) -> bool:
    low = text.lower()
    return all(n.lower() in low for n in needles)


def _rome_warmer(note: str) -> bool:
    low = note.lower()
    wrong = re.search(r"paris (is |was )?(the )?warmer|warmer than rome|rome is colder", low)
    return "rome" in low and not wrong


def _number_in(text: str, value: float) -> bool:
    numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", text.replace(",", ""))]
    return any(abs(n - value) < 0.05 for n in numbers)


@dataclass(frozen=True)
class Mission:
    """A mission and how to tell it was solved."""

    text: str
    check: Callable[[World, AgentResult], bool]


MISSIONS = [
    Mission(
        "Get the weather in Paris and in Rome, then save a note saying which of the two "
        "cities is warmer.",
        lambda w, r: any(_rome_warmer(n) for n in w.notes),
    ),
    Mission(
        "Compute 17 * 23, then add 100 to the result, and save a note with the final number.",
        lambda w, r: any(_number_in(n, 491) for n in w.notes),
    ),
    Mission(
        "Get the weather in Oslo, convert its temperature to Fahrenheit with the calculator "
        "(F = C * 9 / 5 + 32), and tell me the result.",
        lambda w, r: _number_in(r.final_message, 39.2),
    ),
    Mission(
        "Save two notes: one saying 'buy milk' and one saying 'call Anna'. Then list all "
        "notes and tell me how many there are.",
        lambda w, r: (
            _has(" ".join(w.notes), "milk", "anna")
            and ("2" in r.final_message or "two" in r.final_message.lower())
        ),
    ),
    Mission(
        "Compute the sum of 125 and 375, then divide it by 4, and save a note with the answer.",
        lambda w, r: any(_number_in(n, 125) for n in w.notes),
    ),
]


async def run_one(
    index: int, mission: Mission, max_steps: int, verbose: bool, require_work: bool
) -> dict[str, Any]:
    """Run one mission with a fresh agent; return its row of measurements."""
    world = World()
    overflows = 0
    guarded = 0
    tool_calls = 0

    def on_event(event: AgentEvent) -> None:
        nonlocal overflows, guarded, tool_calls
        kind = event.kind.value
        if kind == "error" and "context" in str(event.data.get("message", "")).lower():
            overflows += 1
        if kind == "tool_call":
            tool_calls += 1
            guarded += not event.data.get("runs", True)
        if verbose:
            print(f"    [{kind}] {json.dumps(event.data, default=str)[:220]}")

    model = LiteLLMModel(
        MODEL, api_base=BASE, api_key="x", temperature=0, context_window=8192, timeout=300,
        max_retries=1,
    )  # fmt: skip
    agent = LeanAgent(
        model=model,
        tools=world.tools(),
        max_steps=max_steps,
        on_event=on_event,
        require_work_before_done=require_work,
    )
    started = time.monotonic()
    result = await agent.execute(mission.text)
    seconds = time.monotonic() - started
    plan = result.plan_markdown
    total = plan.count("- [")
    done = plan.count("- [x]")
    row = {
        "mission": index,
        "solved": mission.check(world, result),
        "status": result.status.value,
        "planned": total > 0,
        "steps_done": f"{done}/{total}",
        "turns": result.steps,
        "tool_calls": tool_calls,
        "guarded": guarded,
        "overflows": overflows,
        "seconds": round(seconds, 1),
        "final": result.final_message[:160],
    }
    if verbose:
        print(plan)
    return row


async def main() -> None:
    """Run the missions and print a row each, then a summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mission", type=int, help="run only this mission (1-based)")
    parser.add_argument("--max-steps", type=int, default=15)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument(
        "--require-work", action="store_true", help="LeanAgent(require_work_before_done=True)"
    )
    args = parser.parse_args()
    chosen = [args.mission] if args.mission else range(1, len(MISSIONS) + 1)
    rows = []
    for n in chosen:
        print(f"mission {n}: {MISSIONS[n - 1].text}", flush=True)
        row = await run_one(n, MISSIONS[n - 1], args.max_steps, args.verbose, args.require_work)
        rows.append(row)
        print("  " + json.dumps(row, ensure_ascii=False), flush=True)
    solved = sum(r["solved"] for r in rows)
    planned = sum(r["planned"] for r in rows)
    print(
        f"\nsolved {solved}/{len(rows)} | planned {planned}/{len(rows)} | "
        f"overflows {sum(r['overflows'] for r in rows)} | "
        f"failed runs {sum(r['status'] == 'failed' for r in rows)}"
    )


if __name__ == "__main__":
    asyncio.run(main())
