"""The README's Python examples run, and print what the README says they print."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def blocks(text: str) -> list[tuple[str, str]]:
    return re.findall(r"```(\w+)\n(.*?)```", text, flags=re.S)


def test_quickstart_output_matches_readme() -> None:
    found = blocks(README.read_text(encoding="utf-8"))
    pairs = [
        (code, found[i + 1][1])
        for i, (lang, code) in enumerate(found[:-1])
        if lang == "python" and found[i + 1][0] == "text"
    ]
    assert pairs, "README has no python example followed by its output"
    for code, expected in pairs:
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
        )
        assert run.returncode == 0, run.stderr
        assert run.stdout == expected


def test_readme_names_the_two_setup_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert "bash scripts/run.sh" in text and "bash scripts/test.sh" in text
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/test.sh" in ci


def test_every_python_block_compiles_and_runs_what_it_defines() -> None:
    """Blocks that need a key (`py`) cannot run here, but they compile and call `main()`."""
    found = blocks(README.read_text(encoding="utf-8"))
    code_blocks = [code for lang, code in found if lang in ("python", "py")]
    assert code_blocks
    for code in code_blocks:
        compile(code, "README.md", "exec")
        if "def main(" in code:
            assert "asyncio.run(main())" in code, code


def test_readme_says_how_to_reach_the_venvs_taskforce() -> None:
    text = README.read_text(encoding="utf-8")
    assert "source .venv/bin/activate" in text and ".venv/bin/taskforce" in text
