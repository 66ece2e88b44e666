"""Finding a suite: a built-in name (``builtin``, ``holdout``, ``bfcl-multi-turn``) or a file.

A suite file exposes one of: ``SUITE`` (a :class:`~taskforce.evals.Suite`), a function
``suite()`` returning one, or ``MISSIONS`` (a list of missions; the suite is named after
the file). It is run as ordinary Python, so only load files you trust.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

from taskforce.errors import ConfigurationError
from taskforce.evals.mission import Mission, Suite

__all__ = ["BUILTIN_SUITES", "load_suite"]


def _builtin() -> Suite:
    from taskforce.evals.builtin import SUITE

    return SUITE


def _holdout() -> Suite:
    from taskforce.evals.holdout import SUITE

    return SUITE


def _bfcl() -> Suite:
    from taskforce.evals.bfcl import bfcl_suite

    return bfcl_suite()


BUILTIN_SUITES: dict[str, tuple[str, Callable[[], Suite]]] = {
    "builtin": ("45 errands over deterministic toy tools (the default)", _builtin),
    "holdout": (
        "24 held-out errands over other tools, for checking that a change generalizes",
        _holdout,
    ),
    "bfcl-multi-turn": (
        "BFCL v4 multi-turn base entries, checked by BFCL's own checker (needs bfcl-eval)",
        _bfcl,
    ),
}
"""Suite name -> (what it is, how to build it)."""


def load_suite(name_or_path: str | Path) -> Suite:
    """The suite called `name_or_path`, or the one defined in that Python file.

    The file's folder goes first on ``sys.path`` (as when Python runs the file), so the
    suite can import its own modules (its tools, its checkers) beside it.

    Raises:
        ConfigurationError: Unknown name, missing file, or a file without a suite.
    """
    if not isinstance(name_or_path, str | Path):
        raise ConfigurationError(
            f"a suite is a name or a .py path, not {type(name_or_path).__name__}"
        )
    if name_or_path in BUILTIN_SUITES:
        return BUILTIN_SUITES[name_or_path][1]()
    path = Path(name_or_path)
    if path.suffix != ".py":
        known = ", ".join(BUILTIN_SUITES)
        raise ConfigurationError(f"unknown suite {name_or_path!r}: use {known} or a .py file")
    if not path.is_file():
        raise ConfigurationError(f"no suite file {path}")
    module_name = f"taskforce_user_suite_{abs(hash(path.resolve()))}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ConfigurationError(f"cannot load {path} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look the module up
    folder = str(path.resolve().parent)
    if folder not in sys.path:  # its own modules import as when Python runs the file
        sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except ConfigurationError as exc:  # a Mission or Suite it builds says what is wrong
        raise ConfigurationError(f"{path}: {exc}") from exc
    except Exception as exc:
        raise ConfigurationError(f"{path} failed to load: {type(exc).__name__}: {exc}") from exc
    found = getattr(module, "SUITE", None)
    if found is None and callable(getattr(module, "suite", None)):
        found = module.suite()
    if found is None and isinstance(getattr(module, "MISSIONS", None), list | tuple):
        found = Suite(path.stem, tuple(module.MISSIONS))
    if not isinstance(found, Suite):
        raise ConfigurationError(
            f"{path} defines no suite: give it SUITE = Suite(...), a suite() function, or "
            "MISSIONS = [Mission(...), ...]"
        )
    if not all(isinstance(m, Mission) for m in found.missions):
        raise ConfigurationError(f"{path}: every mission must be a taskforce.evals.Mission")
    return found
