"""Does one huge MCP call hold up another session's read? (issue 13, item 4)

    python bench/bench_mcp_http.py WORKDIR [--rounds N] [--report docs/qa/mcp-http.md]

A real ``taskforce mcp -t streamable-http`` server on an SQLite file in WORKDIR and two
clients of the official MCP SDK, in separate processes: one sends a huge ``create_plan``
(one task of ``"- " * n``, the issue's quadratic case; 1.6 MB and 10 MB), the other reads
another session back to back while that call is in flight, and alone, in alternating
order. Reported: the huge call's time and answer, and the reads' median and worst latency
in both conditions (a server stalled by the huge call would show in the worst read).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import mcp_types as types
from mcp import Client
from mcp.shared.exceptions import MCPError

from bench._common import machine, median_ms, ms

SIZES_MB = (1.6, 10.0)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(workdir: Path, port: int) -> subprocess.Popen[str]:
    taskforce = str(Path(sys.executable).parent / "taskforce")
    db = f"sqlite+aiosqlite:///{workdir / 'mcp-http.db'}"
    command = [taskforce, "mcp", "-t", "streamable-http", "--port", str(port), "--db", db]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    for line in server.stderr:  # it says where it listens once the port is bound
        if "http://" in line:
            return server
    raise SystemExit(f"the server did not start (exit {server.wait()})")


async def _timed(call: Any) -> tuple[float, types.CallToolResult | MCPError]:
    """Seconds to the answer, and the answer (a JSON-RPC error from the server included)."""
    start = time.perf_counter()
    try:
        result = await call
    except MCPError as exc:
        return time.perf_counter() - start, exc
    return time.perf_counter() - start, result


def _answer(result: types.CallToolResult | MCPError) -> str:
    if isinstance(result, MCPError):
        return f"JSON-RPC error {result.code}: {result.message}"[:120]
    return ("tool error: " if result.is_error else "accepted: ") + _text(result)[:120]


def _text(result: types.CallToolResult) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def _heavy(url: str, size_mb: float) -> None:
    """The huge call's client, in a process of its own (its JSON encoding must not pause
    the reader): on each line of stdin it sends the call and prints its seconds and answer.
    """
    huge = "- " * int(size_mb * 1_000_000 / 2)
    loop = asyncio.get_running_loop()
    async with Client(url) as heavy:
        print("ready", flush=True)
        while await loop.run_in_executor(None, sys.stdin.readline):
            arguments = {"tasks": [huge], "session_id": "big"}
            seconds, result = await _timed(heavy.call_tool("create_plan", arguments))
            print(f"{seconds:.6f} {_answer(result)}", flush=True)


async def _reads_until(reader: Client, done: asyncio.Future[str], out: list[float]) -> None:
    while not done.done():
        seconds, result = await _timed(reader.call_tool("read_plan", {"session_id": "other"}))
        assert not isinstance(result, MCPError) and not result.is_error, result
        out.append(seconds)


def _start_heavy(url: str, size_mb: float) -> subprocess.Popen[str]:
    command = [sys.executable, __file__, "--heavy", url, str(size_mb), "."]
    pipe = subprocess.PIPE
    heavy = subprocess.Popen(command, stdin=pipe, stdout=pipe, text=True)
    assert heavy.stdout is not None
    assert heavy.stdout.readline().strip() == "ready"
    return heavy


async def _read(reader: Client) -> float:
    return (await _timed(reader.call_tool("read_plan", {"session_id": "other"})))[0]


async def _measure(
    url: str, rounds: int, heavies: dict[float, subprocess.Popen[str]]
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    async with Client(url) as reader:
        made = await reader.call_tool("create_plan", {"tasks": ["a", "b"], "session_id": "other"})
        assert not made.is_error, _text(made)
        for size in SIZES_MB:
            heavy = heavies[size]
            assert heavy.stdin is not None and heavy.stdout is not None
            alone: list[float] = []
            during: list[float] = []
            heavy_s: list[float] = []
            answer = ""
            for r in range(rounds):
                for together in (False, True) if r % 2 == 0 else (True, False):
                    if not together:  # as many reads as a huge call lasted, about
                        for _ in range(max(3, len(during) // max(1, r))):
                            alone.append(
                                (
                                    await _timed(
                                        reader.call_tool("read_plan", {"session_id": "other"})
                                    )
                                )[0]
                            )
                        continue
                    heavy.stdin.write("go\n")
                    heavy.stdin.flush()
                    line = loop.run_in_executor(None, heavy.stdout.readline)
                    await _reads_until(reader, line, during)
                    seconds, _, answer = (await line).strip().partition(" ")
                    heavy_s.append(float(seconds))
            rows.append(
                {
                    "size_mb": size,
                    "huge_call_ms": median_ms(heavy_s),
                    "huge_call_answer": answer,
                    "reads": (len(alone), len(during)),
                    "read_alone_ms": median_ms(alone),
                    "read_alone_max_ms": ms(max(alone)),
                    "read_during_ms": median_ms(during),
                    "read_during_max_ms": ms(max(during)),
                }
            )
    return rows


def _report(rows: list[dict[str, Any]], rounds: int, load: tuple[float, float]) -> str:
    info = machine(None)  # no PostgreSQL here
    lines = [
        "# One huge MCP call and another session's read (issue 13, item 4)",
        "",
        "_Generated by `python bench/bench_mcp_http.py WORKDIR --report docs/qa/mcp-http.md`;"
        " do not edit by hand._",
        "",
        "A real `taskforce mcp -t streamable-http` server (SQLite file) and two clients of "
        "the official MCP SDK in separate processes. One sends `create_plan` on session `big` "
        'with one task of `"- " * n` (the issue\'s quadratic case); the other reads session '
        "`other` (`read_plan`) back to back for as long as that huge call is in flight, and, "
        f"in alternating order over {rounds} rounds, alone. If the server stalled on the huge "
        "call, the worst read while it was in flight would wait that long. Before the fix a "
        "1.6 MB call took 43 s and another session's read waited 42.9 s behind it. Calls over "
        "4 MiB are refused by the MCP SDK's HTTP transport (413) before they are parsed; the "
        "client reports that as JSON-RPC error -32603.",
        "",
        f"Machine: {info.get('cpu')}, Python {info.get('python')}, load average "
        f"{load[0]:.1f} before and {load[1]:.1f} after (shared machine).",
        "",
        "| size | huge call (median) | its answer | reads alone: median / worst "
        "| reads while huge calls were in flight: median / worst |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        alone_n, during_n = row["reads"]
        lines.append(
            f"| {row['size_mb']:g} MB | {row['huge_call_ms']:.1f} ms | {row['huge_call_answer']} "
            f"| {row['read_alone_ms']:.1f} / {row['read_alone_max_ms']:.1f} ms ({alone_n} reads) "
            f"| {row['read_during_ms']:.1f} / {row['read_during_max_ms']:.1f} ms "
            f"({during_n} reads) |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--heavy", nargs=2, metavar=("URL", "MB"), help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--report", type=Path, default=None)
    args = parser.parse_args()
    if args.heavy:
        asyncio.run(_heavy(args.heavy[0], float(args.heavy[1])))
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    before = os.getloadavg()[0]
    server = _serve(args.workdir, port)
    url = f"http://127.0.0.1:{port}/mcp"
    heavies: dict[float, subprocess.Popen[str]] = {}
    try:
        heavies = {size: _start_heavy(url, size) for size in SIZES_MB}
        rows = asyncio.run(_measure(url, args.rounds, heavies))
    finally:
        for process in [*heavies.values(), server]:
            if process.stdin is not None:
                process.stdin.close()
            process.terminate()
            process.wait(timeout=30)
    text = _report(rows, args.rounds, (before, os.getloadavg()[0]))
    print(text)
    if args.report is not None:
        args.report.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
