"""The PostgreSQL server the suite uses (started by scripts/test.sh on 127.0.0.1)."""

from __future__ import annotations

import os

import pytest


def pg_url() -> str:
    """`TASKFORCE_TEST_PG_URL`; without it the test FAILS when `TASKFORCE_REQUIRE_PG=1`
    (as scripts/test.sh and CI set it), and is skipped otherwise.
    """
    url = os.environ.get("TASKFORCE_TEST_PG_URL", "")
    if not url:
        if os.environ.get("TASKFORCE_REQUIRE_PG") == "1":
            pytest.fail("TASKFORCE_REQUIRE_PG=1 but TASKFORCE_TEST_PG_URL is not set")
        pytest.skip("TASKFORCE_TEST_PG_URL not set (scripts/test.sh starts PostgreSQL)")
    return url
