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


def test_python_dash_m_taskforce_is_the_cli() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "taskforce", "--help"], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert "Usage: python -m taskforce" in run.stdout and "sessions" in run.stdout


def test_distribution_metadata_names_pythons_license_and_urls() -> None:
    from importlib.metadata import metadata
    from pathlib import Path

    meta = metadata("taskforce")
    classifiers = meta.get_all("Classifier") or []
    for version in ("3.11", "3.12", "3.13"):
        assert f"Programming Language :: Python :: {version}" in classifiers
    assert meta["License-Expression"] == "MIT"
    assert {url.split(",")[0] for url in meta.get_all("Project-URL") or []} >= {
        "Homepage",
        "Source",
        "Issues",
    }
    license_text = (Path(__file__).resolve().parents[1] / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License")
    assert set(meta.get_all("Provides-Extra") or []) >= {
        "openai-agents",
        "pydantic-ai",
        "langchain",
    }
