"""ResultStore: damaged lines skipped and named, unencodable text stored escaped, OS errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from taskforce.errors import FileAccessError
from taskforce.evals import ResultStore, evaluate, reference_model
from taskforce.evals.record import RunRecord
from tests.evals.test_evaluate import SMALL


async def _stored(path: Path) -> list[RunRecord]:
    await evaluate(SMALL, reference_model, arms="none", results=path, limit=2)
    return ResultStore(path).latest()


async def test_damaged_lines_are_skipped_and_named(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    good = await _stored(path)
    first, second = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(
        b'{"key": 1}\n' + first + b"not json\n" + b"\xff\xfe bad bytes\n" + b"[1, 2]\n" + second
    )
    store = ResultStore(path)
    assert [r.key.text() for r in store.latest()] == [r.key.text() for r in good]
    assert store.damaged == [1, 3, 4, 5]
    again = await evaluate(SMALL, reference_model, arms="none", results=store, limit=2)
    assert (again.reused, again.ran) == (2, 0)  # the damage cost no stored run
    assert path.read_bytes().startswith(b'{"key": 1}\n')  # and nothing was rewritten


async def test_a_clean_file_and_a_missing_one_have_no_damage(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    assert ResultStore(path).latest() == [] and ResultStore(path).damaged == []
    await _stored(path)
    store = ResultStore(path)
    assert len(store.latest()) == 2 and store.damaged == []


async def test_a_lone_surrogate_is_stored_escaped_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    (record,) = (await _stored(path))[:1]
    data = record.as_dict()
    data["final_answer"] = "half a pair: \ud83d, and a snowman \u2603"
    odd = RunRecord.from_dict(data)
    other = ResultStore(tmp_path / "odd.jsonl")
    other.add(odd)
    raw = (tmp_path / "odd.jsonl").read_bytes()
    raw.decode("utf-8")  # valid UTF-8 on disk
    assert b"\\ud83d" in raw
    (back,) = ResultStore(tmp_path / "odd.jsonl").latest()
    assert back.final_answer == data["final_answer"]


async def test_a_file_that_cannot_be_written_or_read_is_named(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("a file, not a folder\n")
    path = tmp_path / "plain" / "r.jsonl"
    (record,) = (await _stored(tmp_path / "r.jsonl"))[:1]
    with pytest.raises(FileAccessError, match=r"cannot write results file '.*r\.jsonl': "):
        ResultStore(path).add(record)
    assert (tmp_path / "plain").read_text() == "a file, not a folder\n"
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    with pytest.raises(FileAccessError, match="cannot write results file"):
        ResultStore(loop).add(record)


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc")
def test_a_read_error_is_named() -> None:
    with pytest.raises(FileAccessError, match="cannot read results file '/proc/self/mem': "):
        ResultStore("/proc/self/mem").latest()  # exists, but reading offset 0 fails (EIO)
