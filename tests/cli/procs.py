"""A `taskforce` process whose output a test can wait on (for signals at chosen moments)."""

from __future__ import annotations

import os
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from tests.cli.conftest import PROCESS_WAIT, TASKFORCE


class Watched:
    """A running `taskforce` command; its stdout lines are collected as they come."""

    def __init__(self, args: Sequence[str], db_url: str, extra_env: dict[str, str] | None = None):
        env = {**os.environ, "TASKFORCE_DB_URL": db_url, "COLUMNS": "200", **(extra_env or {})}
        env.pop("TASKFORCE_MODEL", None)
        self.proc = subprocess.Popen(
            [str(TASKFORCE), *args], env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        self.lines: list[str] = []
        self._new: queue.Queue[str | None] = queue.Queue()
        self._err: list[str] = []
        self._ended = False
        assert self.proc.stdout is not None and self.proc.stderr is not None
        threading.Thread(target=self._pump, args=(self.proc.stdout,), daemon=True).start()
        self._err_thread = threading.Thread(
            target=lambda s: self._err.extend(s), args=(self.proc.stderr,), daemon=True
        )
        self._err_thread.start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._new.put(line)
        self._new.put(None)

    def wait_for(self, predicate: Callable[[str], bool], timeout: float = PROCESS_WAIT) -> str:
        """The first stdout line (from now on, or already seen) for which `predicate` holds."""
        for line in self.lines:
            if predicate(line):
                return line
        deadline = time.monotonic() + timeout
        while not self._ended and (left := deadline - time.monotonic()) > 0:
            try:
                line = self._new.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                self._ended = True
                break
            self.lines.append(line)
            if predicate(line):
                return line
        raise AssertionError(f"no such line; output so far: {''.join(self.lines)!r}")

    def wait_until(self, condition: Callable[[], bool], timeout: float = PROCESS_WAIT) -> None:
        """Poll `condition` (e.g. a database lock wait) until it holds."""
        deadline = time.monotonic() + timeout
        while not condition():
            assert self.proc.poll() is None, self.finish()
            assert time.monotonic() < deadline, "condition never held"
            time.sleep(0.02)

    def opened(self, path: Path) -> bool:
        """Whether the process has `path` open (it is connecting to that database)."""
        fds = Path(f"/proc/{self.proc.pid}/fd")
        try:
            return any(os.path.realpath(fd) == str(path.resolve()) for fd in fds.iterdir())
        except OSError:
            return False

    def finish(self, timeout: float = PROCESS_WAIT) -> tuple[int, str, str]:
        """Wait for the exit: (code, all stdout, stderr)."""
        self.proc.wait(timeout=timeout)
        while not self._ended and (line := self._new.get(timeout=timeout)) is not None:
            self.lines.append(line)
        self._ended = True
        self._err_thread.join(timeout=timeout)
        self.close()
        return self.proc.returncode, "".join(self.lines), "".join(self._err)

    def close(self) -> None:
        """Kill the process if it still runs; close its pipes."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> Watched:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
