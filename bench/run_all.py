"""Run every benchmark and write docs/qa/benchmarks.md (and bench/results.json).

    python bench/run_all.py [--pg URL] [--quick] [--workdir DIR]

Normally started by ``bash scripts/bench.sh``, which builds the ``.venv-bench`` venv with
the peers and a throwaway PostgreSQL. Each bench script runs in its own process and
prints one JSON object; a script that fails is reported as failed in the document, never
left out silently.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import ROOT, machine
from bench.report import render


def run_script(name: str, args: list[str], timeout: float) -> dict[str, Any]:
    argv = [sys.executable, str(ROOT / "bench" / name), *args]
    print(f"[bench] {name} {' '.join(args)}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    load = {"loadavg_before": [round(x, 2) for x in os.getloadavg()]}
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s", **load}
    load["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    seconds = round(time.perf_counter() - start, 1)
    print(f"[bench] {name} done in {seconds} s (exit {proc.returncode})", file=sys.stderr)
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    if proc.returncode != 0 or not lines:
        return {"error": f"exit {proc.returncode}: {proc.stderr.strip()[-1500:]}", **load}
    result: dict[str, Any] = json.loads(lines[-1])
    result["script_seconds"] = seconds
    result.update(load)
    return result


def peer_versions() -> dict[str, str | None]:
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for name in ("openai-agents", "langgraph", "langgraph-checkpoint-sqlite", "sqlalchemy"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pg", default=os.environ.get("TASKFORCE_TEST_PG_URL"))
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "qa" / "benchmarks.md")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results.json")
    parser.add_argument(
        "--render-only", action="store_true", help="rewrite the document from --json, no runs"
    )
    args = parser.parse_args()
    if args.render_only:
        args.out.write_text(render(json.loads(args.json.read_text())))
        return
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="taskforce-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    pg = ["--pg", args.pg] if args.pg else []
    quick = args.quick
    started = dt.datetime.now(dt.UTC)
    results: dict[str, Any] = {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(args.pg),
        "versions": peer_versions(),
        "command": "bash scripts/bench.sh" + (" --quick" if quick else ""),
        "quick": quick,
    }
    w = str(workdir)
    results["planner"] = run_script(
        "bench_planner.py", [w, *pg, *(["--quick"] if quick else ["--rounds", "60"])], 1800
    )
    split_rounds = ["--rounds", "10" if quick else "60"]
    results["breakdown"] = {
        "in_memory": run_script("bench_breakdown.py", [w, "--in-memory", *split_rounds], 900),
        "durable": run_script("bench_breakdown.py", [w, *split_rounds], 900),
    }
    results["concurrency"] = run_script(
        "bench_concurrency.py", [w, *pg, "--seconds", "1" if quick else "4"], 1800
    )
    agent_args = ["--runs", "3", "--plan-sizes", "10,100"] if quick else ["--runs", "10"]
    results["agent"] = run_script("bench_agent.py", [w, *pg, *agent_args], 3600)
    results["scale"] = run_script("bench_scale.py", [w, "--samples", "10" if quick else "40"], 1800)
    results["cli"] = run_script("bench_cli.py", [w, "--runs", "3" if quick else "9"], 900)
    store_bench = ROOT / "bench" / "bench_store.py"
    if store_bench.exists():
        print("[bench] bench_store.py", file=sys.stderr, flush=True)
        try:
            proc = subprocess.run(
                [sys.executable, str(store_bench)],
                capture_output=True,
                text=True,
                check=False,
                timeout=900,
            )
            text = proc.stdout if proc.returncode == 0 else f"exit {proc.returncode}\n{proc.stderr}"
        except subprocess.TimeoutExpired:
            text = "timed out after 900 s"
        results["store"] = {"stdout": text[-4000:]}
    results["total_minutes"] = round((dt.datetime.now(dt.UTC) - started).seconds / 60, 1)
    results["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    args.json.write_text(json.dumps(results, indent=1) + "\n")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(results))
    print(f"[bench] wrote {args.out} and {args.json}", file=sys.stderr)
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
