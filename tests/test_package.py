"""The package surface: curated public API, and an import that stays light."""

from __future__ import annotations

import json
import subprocess
import sys

import taskforce


def test_public_api_names_resolve_and_are_documented() -> None:
    for name in taskforce.__all__:
        value = getattr(taskforce, name)
        if name != "__version__":
            assert value.__doc__, f"{name} has no docstring"


def test_import_taskforce_does_not_import_litellm_or_sqlalchemy() -> None:
    code = (
        "import sys, json, taskforce; "
        "print(json.dumps(sorted(m for m in sys.modules "
        "if m.split('.')[0] in {'litellm', 'sqlalchemy', 'openai', 'httpx', 'aiosqlite'})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_unknown_attribute_raises_attribute_error() -> None:
    try:
        taskforce.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")
