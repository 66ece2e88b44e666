"""Helpers for the agent tests: real tools (FunctionTool), an event recorder."""

from __future__ import annotations

import json
from typing import Any

from taskforce.agent import AgentEvent
from taskforce.models.base import Message
from taskforce.tools.function import FunctionTool

WEATHER = {"oslo": "4°C, rain", "rome": "19°C, sunny", "paris": "12°C, cloudy"}


def make_tools() -> tuple[list[FunctionTool], dict[str, Any]]:
    """calculator and weather (read-only) and notes tools, plus a log of what they did."""
    log: dict[str, Any] = {"calls": [], "notes": []}

    def calculator(expression: str) -> float:
        """Evaluate an arithmetic expression like `2 * (3 + 4)`."""
        log["calls"].append(("calculator", expression))
        allowed = set("0123456789+-*/(). ")
        if not set(expression) <= allowed:
            raise ValueError(f"unsupported characters in {expression!r}")
        return float(eval(expression))  # digits and operators only

    def weather(city: str) -> str:
        """Current weather for a city."""
        log["calls"].append(("weather", city))
        return WEATHER.get(city.lower(), "unknown city")

    def notes(text: str) -> str:
        """Save a note."""
        log["calls"].append(("notes", text))
        log["notes"].append(text)
        return f"saved note {len(log['notes'])}"

    tools = [FunctionTool(calculator, read_only=True), FunctionTool(weather, read_only=True)]
    return [*tools, FunctionTool(notes)], log


class Events:
    """An on_event callback recording every event."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    def __call__(self, event: AgentEvent) -> None:
        self.events.append(event)

    def kinds(self) -> list[str]:
        return [e.kind.value for e in self.events]

    def of(self, kind: str) -> list[AgentEvent]:
        return [e for e in self.events if e.kind.value == kind]


def tool_results(messages: list[Message]) -> dict[str, dict[str, Any]]:
    """tool_call_id -> decoded result, for every tool message."""
    return {
        m["tool_call_id"]: json.loads(m["content"]) for m in messages if m.get("role") == "tool"
    }


def last_tool_result(messages: list[Message]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads([m for m in messages if m["role"] == "tool"][-1]["content"])
    return result
