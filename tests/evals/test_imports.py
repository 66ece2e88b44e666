"""taskforce.evals stays light: nothing heavy is imported until a run needs it."""

from __future__ import annotations

import subprocess
import sys


def test_the_public_api_does_not_import_litellm() -> None:
    code = (
        "import sys, taskforce.evals as e\n"
        "e.Mission, e.Suite, e.parse_arms, e.wilson, e.render_report, e.load_suite\n"
        "from taskforce.evals.builtin import SUITE\n"
        "assert 'litellm' not in sys.modules, 'litellm imported'\n"
        "assert 'bfcl_eval' not in sys.modules, 'bfcl imported'\n"
        "print(len(e.__all__))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) >= 20
