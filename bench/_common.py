"""Shared helpers for the benchmark scripts: timing, child processes, machine facts.

Every bench script prints one JSON object on stdout (its figures); ``bench/run_all.py``
collects them and writes ``docs/qa/benchmarks.md``. Times are medians of many samples,
in milliseconds unless a key says otherwise.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def ms(seconds: float) -> float:
    """Seconds to milliseconds, rounded for the report."""
    return round(seconds * 1000, 3)


def median_ms(samples: Sequence[float]) -> float:
    """The median of samples in seconds, in milliseconds."""
    return ms(statistics.median(samples))


def summary(samples: Sequence[float]) -> dict[str, float]:
    """Median, p10 and p90 (ms) and the sample count."""
    ordered = sorted(samples)
    n = len(ordered)
    return {
        "median_ms": ms(statistics.median(ordered)),
        "p10_ms": ms(ordered[int(n * 0.1)]),
        "p90_ms": ms(ordered[min(n - 1, int(n * 0.9))]),
        "n": n,
    }


def ratio(a: float, b: float) -> float | None:
    """a / b rounded, None when b is zero."""
    return round(a / b, 2) if b else None


async def time_async(fn: Callable[[], Awaitable[Any]], repeat: int, warmup: int = 3) -> list[float]:
    """Run ``fn`` warmup + repeat times; the wall-clock seconds of the timed runs."""
    for _ in range(warmup):
        await fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        await fn()
        samples.append(time.perf_counter() - start)
    return samples


@dataclass
class ChildRun:
    """A finished child process: wall time, peak RSS and its output."""

    seconds: float
    max_rss_mb: float
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """The last stdout line, parsed as JSON."""
        lines = [line for line in self.stdout.splitlines() if line.strip()]
        if self.returncode != 0 or not lines:
            raise RuntimeError(f"child failed ({self.returncode}): {self.stderr[-2000:]}")
        return json.loads(lines[-1])


def run_child(
    argv: Sequence[str], env: dict[str, str] | None = None, timeout: float | None = None
) -> ChildRun:
    """Run a process to completion: wall time, output, and its own peak RSS (MiB).

    The command is started through ``bench/_rss.py`` (``python -S``, a few MiB), because
    a child forked straight from this process would inherit this process's RSS as its
    ``ru_maxrss`` floor.
    """
    with tempfile.TemporaryDirectory() as tmp:
        rss_file = Path(tmp) / "rss"
        launcher = [sys.executable, "-S", str(ROOT / "bench" / "_rss.py"), str(rss_file)]
        with subprocess.Popen(
            [*launcher, *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
            start_new_session=True,  # so a timeout can end the command too, not just the launcher
        ) as proc:
            try:
                stdout, stderr = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
                raise
        if not rss_file.exists():
            raise RuntimeError(f"launcher failed: {stderr[-1500:]}")
        code, kb, secs = rss_file.read_text().split()
    return ChildRun(float(secs), round(int(kb) / 1024, 1), int(code), stdout, stderr)


def bench_python() -> str:
    """The interpreter running the benchmarks (the bench venv's)."""
    return sys.executable


def emit(result: dict[str, Any]) -> None:
    """Print a bench script's result as one JSON line."""
    print(json.dumps(result), flush=True)


def run(main: Callable[[], Coroutine[Any, Any, dict[str, Any]]]) -> None:
    """Run an async bench main and emit its result."""
    emit(asyncio.run(main()))


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def ram_gib() -> float:
    """Total RAM in GiB."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return 0.0


async def pg_version(url: str | None) -> str | None:
    """``SHOW server_version`` of the PostgreSQL at ``url`` (None when not given)."""
    if not url:
        return None
    import asyncpg

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        return str(await conn.fetchval("SHOW server_version"))
    finally:
        await conn.close()


def machine(pg_url: str | None) -> dict[str, Any]:
    """The facts about this machine the report starts with."""
    load = os.getloadavg()
    return {
        "cores": os.cpu_count(),
        "cpu": cpu_model(),
        "ram_gib": ram_gib(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "postgresql": asyncio.run(pg_version(pg_url)) if pg_url else None,
        "loadavg_at_start": [round(x, 2) for x in load],
    }


class PgDatabase:
    """A throwaway database on the PostgreSQL server at ``url`` (created, then dropped)."""

    def __init__(self, url: str) -> None:
        self.admin = url.replace("postgresql+asyncpg://", "postgresql://")
        self.name = f"bench_{uuid.uuid4().hex[:10]}"
        base = url.rsplit("/", 1)[0]
        self.url = f"{base}/{self.name}"

    async def _exec(self, sql: str) -> None:
        import asyncpg

        conn = await asyncpg.connect(self.admin)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    async def create(self) -> str:
        """Create the database; returns its SQLAlchemy URL."""
        await self._exec(f'CREATE DATABASE "{self.name}"')
        return self.url

    async def drop(self) -> None:
        """Drop the database (terminating leftover connections)."""
        await self._exec(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


@asynccontextmanager
async def databases(
    workdir: Path, filename: str, pg_url: str | None
) -> AsyncIterator[dict[str, str]]:
    """``{"sqlite": url}`` of `filename` in `workdir`, plus ``"postgresql"``: a throwaway
    database on the server at `pg_url` when given; each upgraded, the PostgreSQL one dropped
    on the way out."""
    from taskforce.store import StateManager

    await asyncio.to_thread(workdir.mkdir, parents=True, exist_ok=True)
    urls = {"sqlite": f"sqlite+aiosqlite:///{workdir / filename}"}
    pg = PgDatabase(pg_url) if pg_url else None
    try:
        if pg is not None:
            urls["postgresql"] = await pg.create()
        for url in urls.values():
            async with StateManager(url) as sm:
                await sm.upgrade()
        yield urls
    finally:
        if pg is not None:
            await pg.drop()
