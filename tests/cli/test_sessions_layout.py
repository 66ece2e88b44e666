"""A long mission is shortened in the listing: status and progress are never cut off."""

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
    # piped: whole rows (no cut at 80 columns), each ending with the table's border
    lines = [line for line in listing.splitlines() if line.strip()]
    assert all(line[-1] in "┓┃┩│┘" for line in lines) and len(row) > 100


def test_the_summary_fits_a_pipe(cli: Invoke) -> None:
    mission = "Prepare a small team offsite:\n" + "\n".join(
        f"{i}. Do thing number {i} with a rather long description" for i in range(1, 4)
    )
    session = session_of(cli("run", mission, "--plain").output)
    board = cli("sessions", "--summary").output
    lines = [line for line in board.splitlines()[1:] if line.strip()]
    row = next(line for line in lines if session in line)
    # one line per plan (the mission's newlines folded), shortened, nothing cut off
    assert "completed" in row and "3/3" in row and "…" in row and len(row) > 80
    assert all(line[-1] in "┓┃┩│┘" for line in lines) and len(lines) == 5
