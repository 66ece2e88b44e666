"""Run a command and print its peak RSS, measured from a small parent process.

    python bench/_rss.py OUTFILE CMD [ARGS...]

``ru_maxrss`` of a child includes what it inherited at fork time, so a child forked from
a big benchmark process would report at least the benchmark's own size. This launcher is
started fresh (small), spawns CMD, waits with ``wait4`` and writes
``exit_code max_rss_kb seconds`` to OUTFILE (seconds: CMD's own wall time, without this
launcher's start-up). CMD's stdout and stderr pass through.
"""

import os
import sys
import time

out, argv = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
pid = os.posix_spawnp(argv[0], argv, os.environ)
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
with open(out, "w") as f:
    f.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss} {seconds}\n")
