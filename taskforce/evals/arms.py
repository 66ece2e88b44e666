"""Arms: the agent configurations an evaluation compares.

``none`` is the same LeanAgent loop with no planner (``planning=False``); ``planner`` is the
defaults. Any other arm is a named variant written as LeanAgent options on top of one of
those two bases::

    none,planner,strict=planner+require_work_before_done=true,eager=planner+plan_first=true

Values are read as JSON where possible (``true``, ``3``, ``null``), else as text.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from taskforce.errors import ConfigurationError

__all__ = ["BASES", "Arm", "parse_arms"]

BASES: dict[str, dict[str, Any]] = {"none": {"planning": False}, "planner": {}}
"""The two base arms and the LeanAgent options they stand for."""

_NOT_ARM_OPTIONS = frozenset(
    {"model", "tools", "state_manager", "on_event", "api_base", "api_key", "context_window"}
    | {"max_steps", "model_options"}
)


@dataclass(frozen=True)
class Arm:
    """One agent configuration: a name and the LeanAgent options it sets."""

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)
    spec: str = ""
    """How it was written (``planner+require_work_before_done=true``)."""

    @property
    def digest(self) -> str:
        """A short hash of the options: stored results are keyed by it."""
        text = json.dumps(dict(self.options), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:10]

    @property
    def planning(self) -> bool:
        """Whether this arm offers the planner."""
        return bool(self.options.get("planning", True))


def _agent_options() -> set[str]:
    from taskforce.agent import LeanAgent

    params = inspect.signature(LeanAgent.__init__).parameters
    return {n for n, p in params.items() if p.kind is p.KEYWORD_ONLY or n == "system_prompt"}


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def parse_arm(text: str, defined: Mapping[str, str] | None = None) -> Arm:
    """One arm: ``none``, ``planner``, a name `defined` by the suite, or ``name=base+k=v+…``."""
    text = text.strip()
    defined = defined or {}
    name, _, spec = text.partition("=")
    name = name.strip()
    if not spec:
        if name in BASES:
            return Arm(name, dict(BASES[name]), name)
        if name in defined:
            return parse_arm(f"{name}={defined[name]}")
        known = ", ".join([*BASES, *defined])
        raise ConfigurationError(
            f"unknown arm {name!r}; use one of {known}, or name=planner+option=value"
        )
    if not name.replace("-", "").replace("_", "").isalnum():
        raise ConfigurationError(f"arm name {name!r} must be letters, digits, - or _")
    base, *pairs = [p.strip() for p in spec.split("+")]
    if base not in BASES:
        raise ConfigurationError(f"arm {name!r} must start from none or planner, not {base!r}")
    options = dict(BASES[base])
    allowed = _agent_options() - _NOT_ARM_OPTIONS
    for pair in pairs:
        key, eq, raw = pair.partition("=")
        key = key.strip()
        if not eq or key not in allowed:
            raise ConfigurationError(
                f"arm {name!r}: {pair!r} is not option=value of a LeanAgent option "
                f"({', '.join(sorted(allowed))})"
            )
        options[key] = _value(raw.strip())
    return Arm(name, options, spec)


def parse_arms(text: str, defined: Mapping[str, str] | None = None) -> list[Arm]:
    """Arms from a comma-separated list (see the module docstring); names must be unique."""
    arms = [parse_arm(part, defined) for part in text.split(",") if part.strip()]
    if not arms:
        raise ConfigurationError("give at least one arm, e.g. --arms none,planner")
    names = [a.name for a in arms]
    if len(set(names)) != len(names):
        raise ConfigurationError(f"arm names must be unique: {', '.join(names)}")
    return arms
