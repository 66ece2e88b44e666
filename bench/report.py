"""Render bench results (the dict ``run_all.py`` collects) as docs/qa/benchmarks.md."""

from __future__ import annotations

from typing import Any

from bench.report_planner import planner as _planner
from bench.report_writers import writers as _writers


def _table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join("—" if c is None else str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _failed(section: dict[str, Any]) -> str | None:
    if "error" not in section:
        return None
    if section["error"].startswith("not re-run"):
        return f"**Not re-run:** {section['error'][len('not re-run ') :]}\n"
    return f"**This benchmark failed in this run:** `{section['error'][:800]}`\n"


def _ratio(values: list[float]) -> float | None:
    return round(values[-1] / values[0], 2) if values[0] > 0 else None


def _x(value: float | None) -> str:
    return "—" if value is None else f"{value}x"


def _machine(r: dict[str, Any]) -> str:
    m = r["machine"]
    v = r["versions"]
    rows = [
        ["date", r["date"]],
        ["command", f"`{r['command']}`" + (" (quick: fewer samples)" if r["quick"] else "")],
        ["CPU", f"{m['cpu']}, {m['cores']} cores"],
        ["RAM", f"{m['ram_gib']} GiB"],
        ["OS", m["os"]],
        ["Python", m["python"]],
        ["SQLite", m["sqlite"]],
        ["PostgreSQL", m["postgresql"] or "not available in this run"],
        ["SQLAlchemy", v.get("sqlalchemy")],
        [
            "load average (1, 5, 15 min) at start / end",
            f"{m['loadavg_at_start']} / {m.get('loadavg_at_end')}",
        ],
        ["total time", f"{r.get('total_minutes')} min"],
    ]
    for name in ("planner", "concurrency", "agent", "scale", "cli"):
        section = r.get(name, {})
        if "loadavg_before" in section:
            rows.append(
                [
                    f"load average during `bench_{name}.py` (before / after)",
                    f"{section['loadavg_before']} / {section.get('loadavg_after')}",
                ]
            )
    return _table(["", ""], rows)


def _concurrency(c: dict[str, Any]) -> str:
    out = ["## Concurrent writers\n\n"]
    if (msg := _failed(c)) is not None:
        return out[0] + msg
    if c.get("how"):  # a section re-run on its own (not through run_all.py) says how
        out.append(f"{c['how']}\n\n")
    out.append(
        f"Each run: N processes commit for {c['seconds_per_run']} s. `own`: each process "
        "edits its own session's plan through a bound `PlannerTool` (`update_plan`, one "
        "action + commit). `shared`: all processes increment one session's counter "
        "(load, +1, save with the version read; a stale write is retried, counted as "
        '"conflicts retried"). Lost updates are counted from the database afterwards; '
        'errors are any other exception (a surfaced "database is locked" included).\n\n'
    )
    rows = []
    for backend in ("sqlite", "postgresql"):
        for mode in ("own", "shared"):  # planner: its own table below
            for row in c.get(backend, {}).get(mode, []):
                rows.append(
                    [
                        backend,
                        mode,
                        row["processes"],
                        row["commits_per_s"],
                        row["commits"],
                        row["conflicts_retried"],
                        row["errors"],
                        row["lost_updates"],
                    ]
                )
    out.append(
        _table(
            [
                "database",
                "workload",
                "processes",
                "commits/s",
                "commits",
                "conflicts retried",
                "errors",
                "lost updates",
            ],
            rows,
        )
    )
    planner_rows = [
        [
            backend,
            row["processes"],
            row.get("calls"),
            row["commits"],
            row.get("conflicts_shown_to_model"),
            row.get("p50_ms"),
            row.get("p99_ms"),
            row["errors"],
            row["lost_updates"],
        ]
        for backend in ("sqlite", "postgresql")
        for row in c.get(backend, {}).get("planner", [])
    ]
    if planner_rows:
        out.append(
            "\n`planner`: N processes edit ONE session's plan, each through its own bound "
            "`PlannerTool` (`update_plan` rewording a step of its own, so every call is valid "
            "on the fresh plan). Latency per call; a `conflict` is a call that came back to "
            "the model as a conflict instead of succeeding.\n\n"
        )
        out.append(
            _table(
                [
                    "database",
                    "processes",
                    "calls",
                    "successful",
                    "conflicts shown to the model",
                    "p50 ms",
                    "p99 ms",
                    "errors",
                    "lost updates",
                ],
                planner_rows,
            )
        )
    if "postgresql" not in c:
        out.append("\nPostgreSQL: not available in this run.\n")
    if "writers" in c:
        out.append(_writers(c["writers"]))
    samples = [
        e
        for b in ("sqlite", "postgresql")
        for m in ("own", "shared")
        for row in c.get(b, {}).get(m, [])
        for e in row["error_samples"]
    ]
    if samples:
        out.append("\nError samples: " + "; ".join(f"`{s}`" for s in samples[:5]) + "\n")
    return "".join(out)


def _met(ok: bool) -> str:
    return "met" if ok else "not met"


def _agent(a: dict[str, Any]) -> str:
    out = ["## Agent loop\n\n"]
    if (msg := _failed(a)) is not None:
        return out[0] + msg
    out.append(
        "`LeanAgent.execute` with an instant model (`InstantModel` in `bench/bench_agent.py`: "
        "create a 20-step plan, mark each step done, answer: 22 model calls), context "
        "window 128k tokens. Per turn = wall time / model calls; persistence = the "
        "difference with no store.\n\n"
    )
    flat = a.get("flatness_200_steps")
    if flat:
        out.append(
            f"Flatness: a {flat['plan_steps']}-step plan with no store (`MemoryStore`), "
            f"{flat['runs']} runs: median turn **{flat['median_ms_per_turn']} ms**; first 10% "
            f"of turns {flat['first_10pct_ms']} ms, last 10% {flat['last_10pct_ms']} ms: "
            f"last / first **{flat['last_vs_first']}x** (per-run ratio, median; 1.0 = flat). "
            f"Target (issue 15): last / first ≤ 1.3x and ≤ 2 ms per turn: "
            f"**{_met(flat['last_vs_first'] <= 1.3 and flat['last_10pct_ms'] <= 2.0)}**.\n\n"
        )
    rows = [
        [name, r["median_ms_per_turn"], r.get("persistence_ms_per_turn")]
        for name, r in a["per_turn"].items()
    ]
    out.append(_table(["store", "ms per turn (median)", "of which persistence"], rows))
    mem = a["memory_by_plan_steps"]
    out.append(
        "\nPeak RSS of a fresh process running a whole plan (SQLite store; issue 15's "
        "target for the 1,000-step mission: well under a minute):\n\n"
    )
    out.append(
        _table(
            ["plan steps", "turns", "wall time (s)", "peak RSS (MiB)"],
            [
                [n, m["turns"], m["seconds"], m["peak_rss_mb"]]
                if "error" not in m
                else [n, None, m["error"], None]
                for n, m in mem.items()
            ],
        )
    )
    return "".join(out)


def _scale(s: dict[str, Any]) -> str:
    out = ["## Scale\n\n"]
    if (msg := _failed(s)) is not None:
        return out[0] + msg
    out.append(
        "One SQLite database grown to 1k, 10k and 100k sessions (rows cloned from a session "
        "written by the real `StateManager`; build time in the last row). Median ms; "
        "`readonly` is the CLI's stdlib-sqlite3 fast path (`taskforce.store.readonly`).\n\n"
    )
    counts = list(s["sessions"])
    keys = [
        ("list_newest_50", "StateManager.list_sessions(50)"),
        ("open_one", "StateManager.load_state(one)"),
        ("readonly_list_newest_50", "readonly.read_sessions(50)"),
        ("readonly_open_one", "readonly.read_state(one)"),
    ]
    flat = s["flatness_100k_vs_1k"]
    rows = [
        [label, *(s["sessions"][c][k]["median_ms"] for c in counts), _x(flat[k])]
        for k, label in keys
    ]
    rows.append(["build time (s, cumulative step)", *(s["build_seconds"][c] for c in counts), None])
    out.append(_table(["", *(f"{int(c):,} sessions" for c in counts), "ratio 100k/1k"], rows))
    big = s["big_session"]
    n = f"{big['entries']:,}"
    out.append(
        f"\nOne session with {n} messages and {n} history entries "
        f"(built in {s['build_seconds']['big_session']} s):\n\n"
    )
    rb, rs, la = big["resume_big"], big["resume_small"], big["load_all_messages"]
    out.append(
        _table(
            ["", "median ms", "peak RSS (MiB)", "detail"],
            [
                ["load last 200 messages", big["load_last_200_messages"]["median_ms"], None, None],
                [
                    "load last 200 history entries",
                    big["load_last_200_history"]["median_ms"],
                    None,
                    None,
                ],
                [
                    f"resume it with LeanAgent (fresh process, {n} entries)",
                    rb["median_ms"],
                    rb["peak_rss_mb"],
                    f"{rb['messages_sent_to_model']} messages sent to the model",
                ],
                [
                    "same resume of a 4-message session",
                    rs["median_ms"],
                    rs["peak_rss_mb"],
                    f"{rs['messages_sent_to_model']} messages sent to the model",
                ],
                [
                    "for contrast: load all messages (fresh process)",
                    la["median_ms"],
                    la["peak_rss_mb"],
                    f"{la['messages']:,} messages",
                ],
            ],
        )
    )
    out.append(
        f"\nResuming the {n}-entry session costs {big['resume_rss_extra_mb']} MiB more peak "
        "RSS than resuming a small one: it loads the state and the last `history_limit` "
        "(200) messages, not the whole history.\n"
    )
    return "".join(out)


def _cli(c: dict[str, Any]) -> str:
    out = ["## CLI cold start and memory\n\n"]
    if (msg := _failed(c)) is not None:
        return out[0] + msg
    out.append(
        "Each command is a fresh process of the venv's `taskforce` console script; the first "
        "run of each is discarded (page cache). Median wall time and peak RSS.\n\n"
    )
    rows = [[f"`{k}`", v["median_ms"], v["peak_rss_mb"]] for k, v in c["commands"].items()]
    out.append(_table(["command", "median ms", "peak RSS (MiB)"], rows))
    return "".join(out)


def _headline(r: dict[str, Any]) -> str:
    items = []
    p = r.get("planner", {})
    if "error" not in p and p:
        d = p.get("durable", {}).get("sqlite", {})
        for n, row in d.get("sizes", {}).items():
            shown = ", ".join(f"{name} {v['median']:.2f}x" for name, v in row["ratios"].items())
            items.append(f"- durable `mark_done` on SQLite, {int(n):,} steps, taskforce ÷ {shown}")
        grow = d.get("growth_1000_vs_10", {}).get("taskforce")
        if grow:
            items.append(f"- taskforce growth 1,000 / 10 steps (SQLite): {grow['median']:.2f}x")
    c = r.get("concurrency", {})
    if "error" not in c and c:
        lost = sum(
            row["lost_updates"]
            for b in ("sqlite", "postgresql")
            for m in ("own", "shared", "planner")
            for row in c.get(b, {}).get(m, [])
        )
        errors = sum(
            row["errors"]
            for b in ("sqlite", "postgresql")
            for m in ("own", "shared", "planner")
            for row in c.get(b, {}).get(m, [])
        )
        items.append(f"- concurrent writers: {errors} errors, {lost} lost updates in all runs")
        for backend in ("sqlite", "postgresql"):
            eight = [r for r in c.get(backend, {}).get("planner", []) if r["processes"] == 8]
            new = c.get("writers", {}).get(backend, {}).get("new")
            if new:  # the later, interleaved comparison (bench_writers.py) of this code
                items.append(
                    f"- eight writers on one session's plan ({backend}, bench_writers.py): p99 "
                    f"{min(new['p99_ms']):g}-{max(new['p99_ms']):g} ms per call over "
                    f"{len(new['p99_ms'])} runs, {new['conflicts_shown_to_model']} conflicts "
                    "shown to the model"
                )
            elif eight:
                items.append(
                    f"- eight writers on one session's plan ({backend}): p99 "
                    f"{eight[0]['p99_ms']} ms per call, {eight[0]['conflicts_shown_to_model']} "
                    "conflicts shown to the model"
                )
    a = r.get("agent", {})
    if "error" not in a and a and a.get("flatness_200_steps"):
        flat = a["flatness_200_steps"]
        items.append(
            f"- agent turn on a 200-step plan (MemoryStore): median {flat['median_ms_per_turn']} "
            f"ms; last 10% of turns / first 10%: {flat['last_vs_first']}x"
        )
    if "error" not in a and a:
        items.append(
            f"- agent loop: {a['per_turn']['sqlite']['median_ms_per_turn']} ms per turn with "
            f"SQLite persistence ({a['per_turn']['no_store']['median_ms_per_turn']} ms without)"
        )
        run = a["memory_by_plan_steps"].get("1000", {})
        if "error" not in run and run:
            items.append(
                f"- a 1,000-step plan run (1,002 turns): {run['seconds']} s, peak RSS "
                f"{run['peak_rss_mb']} MiB"
            )
    s = r.get("scale", {})
    if "error" not in s and s:
        flat = s["flatness_100k_vs_1k"]
        big = s["big_session"]
        items.append(
            f"- 100k vs 1k sessions: list newest 50 {_x(flat['list_newest_50'])}, open one "
            f"{_x(flat['open_one'])}; resuming a 100k-entry session: "
            f"{big['resume_big']['peak_rss_mb']} MiB peak RSS "
            f"(small session: {big['resume_small']['peak_rss_mb']} MiB)"
        )
    cli = r.get("cli", {})
    if "error" not in cli and cli:
        shown = [
            f"`{k}` {v['median_ms']} ms / {v['peak_rss_mb']} MiB"
            for k, v in cli["commands"].items()
            if k.startswith("taskforce")
        ]
        items.append("- CLI cold start: " + ", ".join(shown))
    return "\n".join(items) + "\n" if items else ""


def render(r: dict[str, Any]) -> str:
    """The whole benchmarks document."""
    parts = [
        "# Benchmarks\n\n",
        "_Generated by `bash scripts/bench.sh` (`bench/run_all.py`); do not edit by hand. "
        "Raw figures: `bench/results.json`._\n\n",
        "The scripts assert nothing about speed (the test suite has no timed assertions). "
        "Comparisons with peers are interleaved in one process and given as per-round "
        "ratios (median and interquartile range); absolute times are context only and move "
        "with the machine's load, stated below.\n\n",
        _machine(r),
        "\n## Headlines\n\n",
        _headline(r),
        "\n",
        _planner(r["planner"], r.get("breakdown")),
        "\n",
        _concurrency(r["concurrency"]),
        "\n",
        _agent(r["agent"]),
        "\n",
        _scale(r["scale"]),
        "\n",
        _cli(r["cli"]),
    ]
    if "store" in r:
        parts += [
            "\n## Store write cost (`bench/bench_store.py`, the store's own benchmark)\n\n",
            f"```\n{r['store']['stdout'].strip()}\n```\n",
        ]
    return "".join(parts)
