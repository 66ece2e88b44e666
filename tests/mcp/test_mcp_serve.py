"""Serving: raw JSON-RPC over stdio gets JSON-RPC errors, a port in use is a clear usage
error, and the HTTP server says where it listens.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from taskforce.mcp import PortInUseError, run_server

ROOT = Path(__file__).resolve().parents[2]


def test_stdio_answers_malformed_json_and_invalid_requests(tmp_path: Path) -> None:
    lines = [
        "this is not json",
        '{"jsonrpc": "2.0", "id": 7, "method": 5}',
        '{"hello": "world"}',
        "[1, 2, 3]",
        '{"jsonrpc": "2.0", "id": "abc", "method": "initialize", "params": {"protocolVersion": '
        '"2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}',
    ]
    command = [
        sys.executable,
        "-m",
        "taskforce.mcp",
        "--db",
        f"sqlite+aiosqlite:///{tmp_path}/x.db",
    ]
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, cwd=ROOT,
    ) as server:  # fmt: skip
        assert server.stdin is not None and server.stdout is not None
        guard = threading.Timer(60, server.kill)  # no answer: killed, readline gives ""
        guard.start()
        replies = []
        for line in lines:  # one at a time: the server must answer each before stdin closes
            server.stdin.write(line + "\n")
            server.stdin.flush()
            replies.append(json.loads(server.stdout.readline()))
        server.stdin.close()
        stderr = server.stderr.read() if server.stderr else ""
        guard.cancel()
    assert [(r.get("id"), r.get("error", {}).get("code")) for r in replies] == [
        (None, -32700),
        (7, -32600),
        (None, -32600),
        (None, -32600),
        ("abc", None),  # the server still works after them
    ]
    assert replies[-1]["result"]["serverInfo"]["name"] == "taskforce-planner"
    assert "Traceback" not in stderr


@pytest.fixture
def taken_port() -> tuple[socket.socket, int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    return sock, sock.getsockname()[1]


def test_a_port_in_use_is_a_clear_usage_error(
    taken_port: tuple[socket.socket, int], tmp_path: Path
) -> None:
    sock, port = taken_port
    with sock, pytest.raises(PortInUseError, match=f"port {port} on 127.0.0.1 is already in use"):
        run_server(
            f"sqlite+aiosqlite:///{tmp_path / 'x.db'}", transport="streamable-http", port=port
        )


def test_taskforce_mcp_on_a_taken_port_exits_2_with_one_line(
    taken_port: tuple[socket.socket, int], tmp_path: Path
) -> None:
    sock, port = taken_port
    command = [str(Path(sys.executable).parent / "taskforce"), "mcp", "-t", "streamable-http"]
    db = f"sqlite+aiosqlite:///{tmp_path / 'x.db'}"
    with sock:
        run = subprocess.run(
            [*command, "--port", str(port), "--db", db],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip().splitlines() == [
        f"error: port {port} on 127.0.0.1 is already in use (another taskforce mcp?): "
        "choose another with --port"
    ]
