"""Render the eight-writer comparison (``bench_writers.py``: this tree against an older one)."""

from __future__ import annotations

from typing import Any

TARGET_P99_MS = 200.0
"""Issue 15: eight writers on one session, p99 per planner call <= 200 ms."""


def _iqr(s: dict[str, Any]) -> str:
    return f"**{s['median']:.2f}x** ({s['q1']:.2f}-{s['q3']:.2f})"


_UNDER_LOAD = (
    "Everything ran under `nice -n 19` beside a real-LLM evaluation using both cores, so the "
    "absolute latencies are worse than on a quiet machine; the ratios are the comparison."
)


def writers(w: dict[str, Any]) -> str:
    """The section: how it was run, then per database old / new and the per-round ratios."""
    if "error" in w:
        return f"\n**The eight-writer comparison failed in this run:** `{w['error'][:800]}`\n"
    out = [
        "\n### Eight writers on one session: before / after, interleaved\n\n",
        f"`{w.get('command', 'python bench/bench_writers.py')}`: the `planner` workload with "
        "the workers importing the older tree (`old`) or this one (`new`), "
        f"{w.get('rounds_note', '')}each run in a fresh session of the same database, the "
        "order alternating round by round (old new, new old, ...). Ratios are per round "
        "(new / old; both sides under the same load), median and interquartile range. "
        f"{w.get('load_note', _UNDER_LOAD)} Load average (1 min) per run is listed.\n\n",
    ]
    rows = []
    for backend in ("sqlite", "postgresql"):
        b = w.get(backend)
        if not b:
            continue
        for side in ("old", "new"):
            s = b[side]
            rows.append(
                [
                    backend,
                    side,
                    ", ".join(f"{x:g}" for x in s["p99_ms"]),
                    f"{s['p99_ms_median']:g}",
                    f"{s['p50_ms_median']:g}",
                    ", ".join(f"{x:g}" for x in s["commits_per_s"]),
                    s["conflicts_shown_to_model"],
                    s["errors"],
                    s["lost_updates"],
                    ", ".join(f"{x:g}" for x in s["loadavg"]),
                ]
            )
    header = [
        "database",
        "code",
        "p99 ms per run",
        "p99 median",
        "p50 median",
        "calls/s per run",
        "conflicts shown",
        "errors",
        "lost",
        "load per run",
    ]
    out.append("| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n")
    out += ["| " + " | ".join(str(c) for c in row) + " |\n" for row in rows]
    out.append("\n| database | p99 new / old | p50 new / old | calls/s new / old | target |\n")
    out.append("|---|---|---|---|---|\n")
    for backend in ("sqlite", "postgresql"):
        b = w.get(backend)
        if not b:
            continue
        met = max(b["new"]["p99_ms"]) <= TARGET_P99_MS
        verdict = (
            f"p99 <= 200 ms in every run: met ({w.get('verdict_note', 'under this load')})"
            if met
            else f"p99 <= 200 ms: not met (runs up to {max(b['new']['p99_ms']):g} ms)"
        )
        out.append(
            f"| {backend} | {_iqr(b['p99_new_vs_old'])} | {_iqr(b['p50_new_vs_old'])} | "
            f"{_iqr(b['throughput_new_vs_old'])} | {verdict} |\n"
        )
    if w.get("note"):
        out.append(f"\n{w['note']}\n")
    return "".join(out)
