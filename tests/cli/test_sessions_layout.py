"""A long mission must not push the status and progress columns off a 120-column listing."""

from __future__ import annotations

from tests.cli.conftest import Invoke, session_of


def test_long_mission_is_shortened_not_cropped(cli: Invoke) -> None:
    mission = "Prepare a small team offsite: " + " ".join(
        f"{i}. Do thing number {i}" for i in range(1, 4)
    )
    session = session_of(cli("run", mission, "--plain").output)
    listing = cli("sessions").output
    row = next(line for line in listing.splitlines() if session in line)
    assert "completed" in row and "3/3" in row and "…" in row
    assert all(len(line) <= 120 for line in listing.splitlines())
