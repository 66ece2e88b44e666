"""The real thing: `python -m taskforce.mcp` and `taskforce mcp` as subprocesses, over stdio
and streamable HTTP.

Each server start imports SQLAlchemy and the SDK, so the whole story is told with three
starts: stdio (the handshake-era protocol), stdio again after a restart (the current
protocol), then streamable HTTP on 127.0.0.1 over the same database file.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from anyio.abc import Process
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from taskforce.mcp.__main__ import main

ROOT = Path(__file__).resolve().parents[2]


def server_command(db: Path, *extra: str) -> list[str]:
    url = f"sqlite+aiosqlite:///{db}"
    return ["-m", "taskforce.mcp", "--db", url, "--session", "demo", *extra]


def text_of(result: types.CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, types.TextContent)
    return content.text


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_stdio_server_plans_across_a_restart_then_serves_http(tmp_path: Path) -> None:
    db = tmp_path / "plans.db"
    params = StdioServerParameters(command=sys.executable, args=server_command(db), cwd=ROOT)

    async with Client(stdio_client(params), mode="legacy") as client:
        assert client.server_info is not None and client.server_info.name == "taskforce-planner"
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"create_plan", "mark_done", "read_plan", "update_plan"}
        read_hints, create_hints = tools["read_plan"].annotations, tools["create_plan"].annotations
        assert read_hints is not None and read_hints.read_only_hint is True
        assert create_hints is not None and create_hints.destructive_hint is True
        created = await client.call_tool("create_plan", {"tasks": ["Fetch", "Parse", "Report"]})
        assert not created.is_error
        await client.call_tool("mark_done", {"step_index": [1], "note": "200 OK"})
        await client.call_tool("mark_done", {"step_index": [2], "status": "IN_PROGRESS"})
        bad = await client.call_tool("mark_done", {"step_index": [7]})
        assert bad.is_error
        assert text_of(bad).startswith("step_index 7 is out of bounds: the plan has steps 1 to 3. ")
        first_run = text_of(await client.call_tool("read_plan", {}))
    assert first_run == "- [x] 1. Fetch — 200 OK\n- [ ] 2. Parse (in progress)\n- [ ] 3. Report"

    # restarted: a new process started as users start it (`taskforce mcp`), current protocol
    cli = StdioServerParameters(
        command=str(Path(sys.executable).parent / "taskforce"),
        args=["mcp", *server_command(db)[2:]],
        cwd=ROOT,
    )
    async with Client(stdio_client(cli)) as client:
        assert text_of(await client.call_tool("read_plan", {})) == first_run
        resource = await client.read_resource("plan://demo")
        (contents,) = resource.contents
        assert isinstance(contents, types.TextResourceContents) and contents.text == first_run
        refused = await client.call_tool("update_plan", {"remove_indices": [1]})
        assert refused.is_error and "DONE" in text_of(refused)
        updated = await client.call_tool("update_plan", {"add_steps": ["Archive"]})
        assert text_of(updated).endswith("- [ ] 4. Archive")

    port = free_port()
    command = [sys.executable, *server_command(db, "--transport", "streamable-http")]
    async with await anyio.open_process(
        [*command, "--port", str(port)], cwd=ROOT, stderr=subprocess.PIPE
    ) as process:
        try:
            await _wait_for_port(port, process)
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                result = await client.call_tool("mark_done", {"step_index": [2]})
                assert text_of(result).endswith("- [x] 2. Parse\n- [ ] 3. Report\n- [ ] 4. Archive")
                other = await client.call_tool("read_plan", {"session_id": "other"})
                assert text_of(other) == "No active plan."
        finally:
            process.terminate()
        assert process.stderr is not None
        stderr = b"".join([chunk async for chunk in process.stderr]).decode()
    assert "Traceback" not in stderr, stderr
    assert f"serving the planner at http://127.0.0.1:{port}/mcp (database sqlite" in stderr


async def _wait_for_port(port: int, process: Process) -> None:
    """Wait until the HTTP server accepts connections (or fail if it exited)."""
    with anyio.fail_after(60):
        while True:
            if process.returncode is not None:
                pytest.fail(f"the HTTP server exited with {process.returncode}")
            try:
                stream = await anyio.connect_tcp("127.0.0.1", port)
            except OSError:
                await anyio.sleep(0.1)
            else:
                await stream.aclose()
                return


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--session", "a b"], "invalid session id 'a b'"),
        (["--db", "nosuchdb://x"], "cannot use database URL 'nosuchdb://x'"),
    ],
)
def test_bad_options_fail_fast_with_a_clear_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err and "Traceback" not in err
