"""The built-in suite's world: deterministic toy tools over state kept in memory.

Kits of tools (a mission gets the kits it needs): ``math`` (calculator), ``money``
(currency conversion at fixed rates), ``units`` (unit conversion), ``weather`` (a fixed
table), ``notes``, ``contacts``, ``email`` (an outbox), ``files`` (an in-memory sandbox)
and ``calendar``. Tool errors say what went wrong and what is accepted, so a small model
can correct itself.
"""

from __future__ import annotations

import ast
import copy
import operator
import re
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from taskforce.errors import ToolInputError
from taskforce.tools.base import ToolProtocol
from taskforce.tools.function import FunctionTool

__all__ = ["CONTACTS", "KITS", "RATES", "WEATHER", "KitTable", "ToyWorld"]

KitTable = tuple[Mapping[str, Callable[[Any], list[Callable[..., Any]]]], Set[str]]
"""A kind of world's kits (name -> the function making its tools) and its read-only tools."""

RATES = {"USD": 1.0, "EUR": 0.9, "GBP": 0.8, "JPY": 150.0, "CHF": 0.88, "NOK": 10.5}
"""Units of each currency per US dollar (fixed, so results are reproducible)."""

WEATHER = {
    "oslo": (4, "rain"), "paris": (14, "cloudy"), "rome": (22, "sunny"),
    "berlin": (9, "windy"), "madrid": (25, "sunny"), "london": (11, "rain"),
    "tokyo": (18, "clear"), "cairo": (31, "sunny"), "reykjavik": (-2, "snow"),
    "lisbon": (19, "sunny"), "vienna": (7, "fog"),
}  # fmt: skip
"""City -> (temperature in °C, conditions)."""

CONTACTS = {
    "alice": ("Alice Jones", "alice@example.com", "+44 20 7946 0101", "London"),
    "bob": ("Bob Smith", "bob@example.com", "+1 212 555 0199", "New York"),
    "carol": ("Carol White", "carol@example.com", "+47 22 55 01 42", "Oslo"),
    "dave": ("Dave Brown", "dave@example.com", "+33 1 55 00 77 31", "Paris"),
    "erin": ("Erin Novak", "erin@example.com", "+43 1 555 0123", "Vienna"),
    "frank": ("Frank Meyer", "frank@example.com", "+49 30 555 0175", "Berlin"),
}

_UNITS: dict[str, tuple[str, float]] = {
    "km": ("length", 1000.0), "m": ("length", 1.0), "cm": ("length", 0.01),
    "mi": ("length", 1609.344), "ft": ("length", 0.3048), "in": ("length", 0.0254),
    "kg": ("mass", 1.0), "g": ("mass", 0.001), "lb": ("mass", 0.45359237),
    "l": ("volume", 1.0), "gal": ("volume", 3.785411784),
}  # fmt: skip
_ALIASES = {
    "kilometre": "km", "kilometer": "km", "metre": "m", "meter": "m", "mile": "mi",
    "foot": "ft", "feet": "ft", "inch": "in", "inches": "in", "centimetre": "cm",
    "centimeter": "cm", "kilogram": "kg", "gram": "g", "pound": "lb", "lbs": "lb",
    "litre": "l", "liter": "l", "gallon": "gal", "celsius": "c", "fahrenheit": "f",
    "°c": "c", "°f": "f",
}  # fmt: skip
_OPS: dict[type, Callable[..., float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow, ast.Mod: operator.mod,
    ast.USub: operator.neg, ast.UAdd: operator.pos,
}  # fmt: skip


def _unit(name: str) -> str:
    key = name.strip().lower().rstrip(".")
    key = _ALIASES.get(key, _ALIASES.get(key.rstrip("s"), key))
    if key not in _UNITS and key not in {"c", "f"}:
        known = ", ".join([*_UNITS, "c", "f"])
        raise ToolInputError(f"unknown unit {name!r}; use one of: {known}")
    return key


def _number(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_number(node.left), _number(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_number(node.operand))
    raise ToolInputError("only numbers, + - * / % ** and parentheses are allowed")


@dataclass
class ToyWorld:
    """The state the tools act on; checkers read it after the run."""

    kits: Sequence[str] = ("math",)
    notes: dict[str, str] = field(default_factory=dict)
    outbox: list[dict[str, str]] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    events: list[dict[str, str]] = field(default_factory=list)

    def tools(self) -> list[ToolProtocol]:
        """The tools of this world's kits."""
        kits, read_only = self.kit_table()
        return [
            FunctionTool(fn, read_only=fn.__name__ in read_only)
            for kit in self.kits
            for fn in kits[kit](self)
        ]

    def kit_table(self) -> KitTable:
        """The kits this kind of world knows (name -> its tools), and the read-only tools."""
        return KITS, READ_ONLY

    def snapshot(self) -> dict[str, Any]:
        """The state, for transcripts."""
        return copy.deepcopy({"notes": self.notes, "outbox": self.outbox,
                              "files": self.files, "events": self.events})  # fmt: skip

    # ---- math, money, units, weather -----------------------------------------------------

    def calculator(self, expression: str) -> float:
        """Evaluate an arithmetic expression such as `(17 * 23) + 100` and return the number."""
        try:
            tree = ast.parse(expression.replace("^", "**").replace("\u00d7", "*"), mode="eval")
        except SyntaxError as exc:
            raise ToolInputError(f"not an arithmetic expression: {expression!r}") from exc
        try:
            return round(_number(tree.body), 6)
        except ZeroDivisionError as exc:
            raise ToolInputError("division by zero") from exc

    def convert_currency(self, amount: float, from_currency: str, to_currency: str) -> float:
        """Convert money between currencies (USD, EUR, GBP, JPY, CHF, NOK) at today's rate."""
        codes = [from_currency.strip().upper(), to_currency.strip().upper()]
        for code in codes:
            if code not in RATES:
                raise ToolInputError(f"unknown currency {code!r}; use one of {', '.join(RATES)}")
        return round(amount / RATES[codes[0]] * RATES[codes[1]], 2)

    def convert_units(self, value: float, from_unit: str, to_unit: str) -> float:
        """Convert a value between units: km m cm mi ft in, kg g lb, l gal, c f (temperature)."""
        a, b = _unit(from_unit), _unit(to_unit)
        if {a, b} <= {"c", "f"}:
            celsius = value if a == "c" else (value - 32) * 5 / 9
            return round(celsius if b == "c" else celsius * 9 / 5 + 32, 2)
        if a in {"c", "f"} or b in {"c", "f"} or _UNITS[a][0] != _UNITS[b][0]:
            raise ToolInputError(f"cannot convert {from_unit} to {to_unit}: not the same kind")
        return round(value * _UNITS[a][1] / _UNITS[b][1], 2)

    def get_weather(self, city: str) -> dict[str, Any]:
        """The current weather of a city: temperature in °C and conditions."""
        key = city.strip().lower().split(",")[0]
        if key not in WEATHER:
            known = ", ".join(c.title() for c in WEATHER)
            raise ToolInputError(f"no weather for {city!r}; known cities: {known}")
        temp, conditions = WEATHER[key]
        return {"city": key.title(), "temperature_c": temp, "conditions": conditions}

    # ---- notes, contacts, email ------------------------------------------------------------

    def save_note(self, title: str, text: str) -> str:
        """Save a note under a title (a note with the same title is replaced)."""
        if not title.strip() or not text.strip():
            raise ToolInputError("title and text must not be empty")
        self.notes[title.strip()] = text
        return f"Note {title.strip()!r} saved."

    def read_note(self, title: str) -> str:
        """The text of the note with this title."""
        for name, text in self.notes.items():
            if name.lower() == title.strip().lower():
                return text
        raise ToolInputError(f"no note titled {title!r}; notes: {', '.join(self.notes) or 'none'}")

    def list_notes(self) -> list[str]:
        """The titles of all saved notes."""
        return list(self.notes)

    def find_contact(self, name: str) -> dict[str, str]:
        """A contact's full name, email address, phone number and city."""
        for key, (full, email, phone, city) in CONTACTS.items():
            if name.strip().lower() in {key, full.lower()}:
                return {"name": full, "email": email, "phone": phone, "city": city}
        known = ", ".join(v[0] for v in CONTACTS.values())
        raise ToolInputError(f"no contact named {name!r}; contacts: {known}")

    def send_email(self, to: str, subject: str, body: str) -> str:
        """Send an email. `to` is an email address (find it with find_contact)."""
        if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[a-z]+", to.strip()):
            raise ToolInputError(
                f"{to!r} is not an email address; look the address up with find_contact"
            )
        self.outbox.append({"to": to.strip().lower(), "subject": subject, "body": body})
        return f"Email to {to.strip()} sent."

    # ---- files, calendar -------------------------------------------------------------------

    def write_file(self, path: str, text: str) -> str:
        """Write text to a file in the sandbox (an existing file is replaced)."""
        name = path.strip().lstrip("./")
        if not name or "/" in name or ".." in name:
            raise ToolInputError("give a plain file name such as report.txt (no folders)")
        self.files[name] = text
        return f"Wrote {len(text)} characters to {name}."

    def read_file(self, path: str) -> str:
        """The text of a file in the sandbox."""
        name = path.strip().lstrip("./")
        if name not in self.files:
            raise ToolInputError(f"no file {path!r}; files: {', '.join(self.files) or 'none'}")
        return self.files[name]

    def list_files(self) -> list[str]:
        """The names of the files in the sandbox."""
        return sorted(self.files)

    def add_event(self, title: str, date: str, time: str) -> str:
        """Add an event to the calendar. date: YYYY-MM-DD, time: HH:MM (24-hour clock)."""
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date.strip()):
            raise ToolInputError(f"date {date!r} must look like 2026-12-03 (YYYY-MM-DD)")
        if not re.fullmatch(r"\d{1,2}:\d{2}", time.strip()):
            raise ToolInputError(f"time {time!r} must look like 09:30 (HH:MM, 24-hour)")
        hour, minute = time.strip().split(":")
        event = {"title": title.strip(), "date": date.strip(), "time": f"{int(hour):02d}:{minute}"}
        self.events.append(event)
        return f"Added {event['title']!r} on {event['date']} at {event['time']}."

    def list_events(self, date: str) -> list[dict[str, str]]:
        """The calendar's events on a date (YYYY-MM-DD)."""
        return [e for e in self.events if e["date"] == date.strip()]


KITS: dict[str, Callable[[ToyWorld], list[Callable[..., Any]]]] = {
    "math": lambda w: [w.calculator],
    "money": lambda w: [w.convert_currency],
    "units": lambda w: [w.convert_units],
    "weather": lambda w: [w.get_weather],
    "notes": lambda w: [w.save_note, w.read_note, w.list_notes],
    "contacts": lambda w: [w.find_contact],
    "email": lambda w: [w.send_email],
    "files": lambda w: [w.write_file, w.read_file, w.list_files],
    "calendar": lambda w: [w.add_event, w.list_events],
}
"""Kit name -> the world's methods that become its tools."""

READ_ONLY = frozenset(
    {"calculator", "convert_currency", "convert_units", "get_weather", "read_note"}
    | {"list_notes", "find_contact", "read_file", "list_files", "list_events"}
)
"""The tools that change nothing (the others save, send, write or add)."""
