"""`taskforce eval` in-process and as the real executable (litellm's HTTP path included)."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from taskforce.evals.sampling import request_seed
from tests.cli.conftest import Invoke, run_bin
from tests.fakes.openai_server import FakeOpenAIServer, reply, template_of, tokens_of, tool_call


def test_list_and_help(cli: Invoke) -> None:
    listed = cli("eval", "--list")
    assert listed.exit_code == 0
    assert "builtin" in listed.stdout and "bfcl-multi-turn" in listed.stdout
    assert "require_work_before_done" in listed.stdout
    help_text = cli("eval", "--help").stdout
    for option in ("--suite", "--model", "--api-base", "--arms", "--repeat", "--limit",
                   "--json", "--list", "--results", "--report", "--baseline",
                   "--temperature", "--seed"):  # fmt: skip
        assert option in help_text, option


def test_list_with_a_suite_lists_its_missions(cli: Invoke, tmp_path: Path) -> None:
    listed = cli("eval", "--list", "--suite", "holdout")
    assert listed.exit_code == 0, listed.output
    assert "holdout: 24 missions" in listed.stdout and "h-three-todos" in listed.stdout
    assert "bfcl-multi-turn" not in listed.stdout  # its missions, not the suites
    marked = tmp_path / "marked.py"  # a suite's name is data, never rich markup
    marked.write_text(
        "from taskforce.evals import Mission, Suite\n"
        "SUITE = Suite('[red]x[/red]', (Mission('m', 'Do it.', dict, lambda w, a: True),))\n"
    )
    shown = cli("eval", "--list", "--suite", str(marked))
    assert shown.exit_code == 0, shown.output
    assert "[red]x[/red]: 1 mission" in shown.stdout
    missing = cli("eval", "--list", "--suite", str(tmp_path / "nope.py"))
    assert missing.exit_code != 0 and "no suite file" in missing.output
    assert "Traceback" not in missing.output


def test_reference_run_json_report_then_resume(cli: Invoke, tmp_path: Path) -> None:
    results, out, report = tmp_path / "r.jsonl", tmp_path / "r.json", tmp_path / "eval.md"
    args = ["eval", "--model", "reference", "--limit", "3", "--results", str(results)]
    first = cli(*args, "--json", str(out), "--report", str(report), "--baseline", str(results))
    assert first.exit_code == 0, first.output
    assert "6 runs made, 0 found" in first.stdout
    assert "builtin:planner vs builtin:none: both 3" in first.stdout
    assert "by mission tag" in first.stdout and "3/3 F0" in first.stdout  # 3 single-step
    assert "in tok/run" in first.stdout and "false compl." in first.stdout  # not cut to 80
    data = json.loads(out.read_text())
    assert [a["solved"] for a in data["summary"]["arms"]] == [3, 3]
    assert len(data["runs"]) == 6 and "transcript" not in data["runs"][0]
    text = report.read_text()
    assert "## Baseline" in text and "| builtin | planner | 3/3" in text
    assert text[text.index("## Current") :].startswith("## Current\n\nNot recorded yet.")
    again = cli(*args)
    assert again.exit_code == 0 and "0 runs made, 6 found" in again.stdout
    assert "--rerun runs them again" in again.stdout
    rerun = cli(*args, "--rerun")  # e.g. after a checker changed: every run made again
    assert rerun.exit_code == 0 and "6 runs made, 0 found" in rerun.stdout
    assert len(results.read_text().splitlines()) == 12  # appended; the latest ones count
    report.unlink()
    only = cli("eval", "--report-only", "--report", str(report), "--results", str(results),
               "--suite", "nope")  # fmt: skip
    assert only.exit_code == 0 and "nothing run" in only.stdout
    assert "--report-only" in report.read_text() and "| builtin | none | 3/3" in report.read_text()
    notes = tmp_path / "notes.md"
    notes.write_text("## What we changed\n\nThe levers.\n")
    noted = cli("eval", "--report-only", "--report", str(report), "--results", str(results),
                "--notes", str(notes))  # fmt: skip
    text = report.read_text()
    assert noted.exit_code == 0 and f"--notes {notes}" in text
    assert text.index("## What we changed") < text.index("## Results")  # no baseline named
    assert cli("eval", "--report-only").exit_code == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--arms", "none,bogus"], "unknown arm 'bogus'"),
        (["--suite", "nope"], "unknown suite 'nope'"),
        (["--mission", "nope"], "no mission 'nope'"),
        (["--model", "anthropic/claude-x"], "needs an API key"),
        (["--temperature", "0.5", "--limit", "1"], "needs a model that samples"),
        (["--temperature", "3"], "--temperature"),
    ],
)
def test_mistakes_are_one_clear_line(
    cli: Invoke, tmp_path: Path, args: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = cli("eval", "--results", str(tmp_path / "r.jsonl"), *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_file_mistakes_are_found_before_anything_runs(cli: Invoke, tmp_path: Path) -> None:
    results, folder = tmp_path / "r.jsonl", tmp_path / "out"
    folder.mkdir()
    (tmp_path / "latin1.md").write_bytes(b"caf\xe9\n")
    base = ["eval", "--model", "reference", "--limit", "1", "--results", str(results)]
    for args, message in [
        (["--json", str(folder)], f"--json '{folder}' is a folder"),
        (["--report", str(folder)], f"--report '{folder}' is a folder"),
        (["--notes", str(tmp_path / "missing.md"), "--report", str(tmp_path / "e.md")],
         "missing.md': No such file or directory"),
        (["--notes", str(tmp_path / "latin1.md"), "--report", str(tmp_path / "e.md")],
         "latin1.md' is not UTF-8 text"),
    ]:  # fmt: skip
        result = cli(*base, *args)
        assert result.exit_code == 8, result.output
        assert message in " ".join(result.output.split()) and "Traceback" not in result.output
        assert not results.exists()  # refused before the first run
    nothing = cli("eval", "--report-only", "--report", str(tmp_path / "e.md"),
                  "--results", str(tmp_path / "none.jsonl"))  # fmt: skip
    assert nothing.exit_code == 8 and "no such file, so nothing to report" in nothing.output
    assert not (tmp_path / "e.md").exists()
    ran = cli(*base)
    assert ran.exit_code == 0 and "2 runs made" in ran.output
    stored, notes = results.read_bytes(), tmp_path / "notes.md"
    notes.write_text("# why\n")
    for args, message in [  # an output over an input would lose what it holds
        (["--json", str(results)], "--json '{}' is the --results file too"),
        (["--report", str(tmp_path / "." / "r.jsonl")], "is the --results file too"),
        (["--baseline", str(tmp_path / "b.jsonl"), "--report", str(tmp_path / "b.jsonl")],
         "is the --baseline file too"),
        (["--notes", str(notes), "--report", str(notes)], "is the --notes file too"),
        (["--report", str(tmp_path / "x"), "--json", str(tmp_path / "x")], "is the --json file"),
    ]:  # fmt: skip
        refused = cli(*base, *args)
        assert refused.exit_code == 8, refused.output
        assert message.format(results) in " ".join(refused.output.split())
    assert results.read_bytes() == stored and notes.read_text() == "# why\n"
    assert not (tmp_path / "x").exists()
    report, none = str(tmp_path / "e.md"), str(tmp_path / "none.jsonl")
    only_baseline = cli("eval", "--report-only", "--report", report, "--baseline", str(results),
                        "--results", none)  # fmt: skip
    assert only_baseline.exit_code == 0, only_baseline.output
    assert "Not recorded yet" in (tmp_path / "e.md").read_text()  # current: none yet


def test_damaged_result_lines_are_named_not_fatal(cli: Invoke, tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    base = ["eval", "--model", "reference", "--limit", "1", "--results", str(results)]
    assert cli(*base).exit_code == 0
    results.write_bytes(b"\xff\xfe\n" + results.read_bytes() + b"not json\n")
    again = cli(*base, "--report", str(tmp_path / "e.md"))
    text = " ".join(again.output.split())
    assert again.exit_code == 0, again.output
    assert "0 runs made, 2 found" in text
    assert "warning: 2 damaged lines in" in text and "(line 1, 4)" in text
    assert "a run one held ran again" in text and "the report leaves them out" in text
    assert results.read_bytes().startswith(b"\xff\xfe\n")  # kept as it was


def test_a_report_of_unencodable_text_is_written(cli: Invoke, tmp_path: Path) -> None:
    from taskforce.evals import ResultStore
    from taskforce.evals.record import RunRecord

    results, report = tmp_path / "r.jsonl", tmp_path / "e.md"
    assert (
        cli("eval", "--model", "reference", "--limit", "1", "--results", str(results)).exit_code
        == 0
    )
    data = ResultStore(results).latest()[0].as_dict()
    data["key"]["mission"] = "half-a-pair-\ud83d"  # e.g. from a user's suite file
    ResultStore(results).add(RunRecord.from_dict(data))
    done = cli("eval", "--report-only", "--report", str(report), "--results", str(results))
    assert done.exit_code == 0, done.output
    assert "half-a-pair-\ufffd" in report.read_text(encoding="utf-8")


def test_a_litellm_model_over_http(db_url: str, tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        server.script(
            reply(tool_calls=[tool_call("get_weather", {"city": "Lisbon"}, id="c1")],
                  prompt_tokens=300, completion_tokens=20),
            reply("It is 19°C in Lisbon.", prompt_tokens=340, completion_tokens=9),
        )  # fmt: skip
        run = run_bin(
            ["eval", "--model", "openai/tiny", "--api-base", server.url, "--arms", "none",
             "--mission", "weather-lisbon", "--results", str(tmp_path / "r.jsonl"),
             "--json", str(tmp_path / "r.json")],
            db_url, timeout=300,  # litellm's import is slow on a busy machine
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert server.requests[0].body["temperature"] == 0
        assert server.requests[0].body["max_tokens"] == 1024  # a runaway reply is bounded
    (record,) = json.loads((tmp_path / "r.json").read_text())["runs"]
    assert record["solved"] and record["input_tokens"] == 640 and record["output_tokens"] == 29
    assert record["meta"]["max_tokens"] == 1024  # the report states the cap
    assert record["key"]["model"] == "openai/tiny"
    assert "1/1 weather-lisbon [none#0]: solved" in run.stderr  # plain progress off a terminal


def test_a_server_that_is_down_stops_the_evaluation_unrecorded(db_url: str, tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    results = tmp_path / "r.jsonl"
    run = run_bin(
        ["eval", "--model", "openai/tiny", "--api-base", f"http://127.0.0.1:{port}/v1",
         "--arms", "none", "--mission", "weather-lisbon", "--results", str(results)],
        db_url, timeout=300,
    )  # fmt: skip
    assert run.returncode == 3, run.stderr
    said = " ".join(run.stderr.split())
    assert "model provider:" in said and "the same command resumes" in said
    assert "Traceback" not in run.stderr + run.stdout
    assert not results.exists()  # the run the outage stopped is made by the rerun


def test_sampled_repeats_over_http(db_url: str, tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        answer = [reply(tool_calls=[tool_call("get_weather", {"city": "Lisbon"}, id="c1")]),
                  reply("It is 19°C in Lisbon.")]  # fmt: skip
        server.script(*answer, *answer)
        run = run_bin(
            ["eval", "--model", "openai/tiny", "--api-base", server.url, "--arms", "none",
             "--mission", "weather-lisbon", "--results", str(tmp_path / "r.jsonl"),
             "--json", str(tmp_path / "r.json"), "--repeat", "2", "--temperature", "0.6",
             "--seed", "7"],
            db_url, timeout=300,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        bodies = [r.body for r in server.requests]
    seeds = [request_seed(7, 0), request_seed(7, 1), request_seed(8, 0), request_seed(8, 1)]
    assert [(b["temperature"], b["seed"]) for b in bodies] == [(0.6, s) for s in seeds]
    records = json.loads((tmp_path / "r.json").read_text())["runs"]
    assert [r["key"]["repeat"] for r in records] == [0, 1]
    assert records[0]["meta"]["temperature"] == 0.6 and records[0]["meta"]["settings"]["seed"] == 7
    assert "--temperature 0.6 --seed 7" in records[0]["meta"]["argv"]
    assert "none: solved per repeat 1/1, 1/1" in run.stdout


CHECKERS = """
from taskforce.evals import Mission
from taskforce.testing import call, reply

class Notes:
    def __init__(self):
        self.saved = []
    def tools(self):
        def note(text: str) -> str:
            'Save a note.'
            self.saved.append(text)
            return "saved"
        return [note]

def raises(world, answer):
    return world.saved[5] == "x"

def forgets_to_return(world, answer):
    world.saved == ["hi"]

REF = (call("note", text="hi"), reply("Saved."))
MISSIONS = [
    Mission("a-raising-checker", "Save hi", Notes, raises, reference=REF),
    Mission("a-checker-without-return", "Save hi", Notes, forgets_to_return, reference=REF),
]
"""


def test_a_suites_checker_bugs_are_shown(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", [*sys.path])  # the suite's folder goes on it
    suite, results = tmp_path / "notes.py", tmp_path / "r.jsonl"
    suite.write_text(CHECKERS)
    args = ["eval", "--suite", str(suite), "--model", "reference", "--plain"]
    result = cli(*args, "--arms", "none", "--results", str(results))
    assert result.exit_code == 2, result.output
    raised = "1/2 a-raising-checker [none#0]: not solved (completed): checker raised IndexError: "
    assert raised in result.output  # stored as not solved, and the line says why
    assert "error: mission 'a-checker-without-return': its checker returned None" in result.output
    assert "(a missing return?)" in result.output and "Traceback" not in result.output
    stored = [json.loads(line)["key"]["mission"] for line in results.read_text().splitlines()]
    assert stored == ["a-raising-checker"]  # no checker judged the other: resumed there


@pytest.mark.parametrize(
    ("fields", "line"),
    [
        ({"solved": True, "status": "completed"}, "solved"),
        ({"solved": True, "status": "max_steps"}, "solved (max_steps)"),
        ({"status": "completed", "reason": "no note titled 'trip'"},
         "not solved (completed): no note titled 'trip'"),
        ({"status": "crashed", "reason": "checker returned false",
          "errors": ["crash: ScriptExhaustedError: request 5 of 4\nmore"]},
         "not solved (crashed): crash: ScriptExhaustedError: request 5 of 4 more"),
        ({"status": "incomplete"}, "not solved (incomplete)"),
    ],
)  # fmt: skip
def test_each_run_says_how_it_ended_and_why(fields: dict[str, Any], line: str) -> None:
    from taskforce.cli._eval import _verdict
    from taskforce.evals import RunKey, RunRecord

    key = RunKey("s", "m", "none", 0, "model", "opts", "hash")
    assert _verdict(RunRecord(key=key, **fields)) == line


def test_remeasure_sizes_stored_runs_exactly_on_the_server(cli: Invoke, tmp_path: Path) -> None:
    results, report = tmp_path / "r.jsonl", tmp_path / "eval.md"
    made = cli("eval", "--model", "reference", "--limit", "2", "--results", str(results))
    assert made.exit_code == 0, made.output
    lines = len(results.read_text().splitlines())
    missing = cli("eval", "--remeasure", "--results", str(results))
    assert missing.exit_code != 0 and "--remeasure counts tokens" in missing.output
    assert "--api-base" in missing.output and "Traceback" not in missing.output
    with FakeOpenAIServer(tokenizer=True) as server:
        done = cli("eval", "--remeasure", "--arms", "planner", "--results", str(results),
                   "--api-base", server.url, "--report", str(report))  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "2 runs of builtin measured again exactly" in done.stdout
    assert server.requests == []  # no model asked
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(rows) == lines + 2 and {r["key"]["arm"] for r in rows[lines:]} == {"planner"}
    assert all(r["tokens"]["sizes"] == "exact" for r in rows[lines:])
    assert "sized exactly in 2 of 4 runs" in report.read_text()
    with FakeOpenAIServer() as plain:  # no /apply-template: not llama.cpp's server
        refused = cli("eval", "--remeasure", "--results", str(results), "--api-base", plain.url)
    assert refused.exit_code != 0 and "needs llama.cpp's server" in refused.output
    assert len(results.read_text().splitlines()) == lines + 2  # nothing stored


def test_exact_tokens_size_a_live_run_on_the_server(cli: Invoke, tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    with FakeOpenAIServer(tokenizer=True) as server:
        server.script(reply("4"))
        done = cli("eval", "--model", "openai/test-model", "--api-base", server.url,
                   "--arms", "none", "--mission", "multiply", "--exact-tokens",
                   "--results", str(results))  # fmt: skip
    assert done.exit_code == 0, done.output
    row = json.loads(results.read_text().splitlines()[-1])
    assert row["tokens"]["sizes"] == "exact" and "--exact-tokens" in row["meta"]["argv"]
    sent = server.requests[0].body
    assert row["tokens"]["estimated_input"] == tokens_of(template_of(sent))
    assert row["tokens"]["fresh_input"] == row["tokens"]["estimated_input"]  # one request
    fresh = f"builtin:none: fresh input {row['tokens']['fresh_input']:,} a run (100% of"
    assert fresh in " ".join(done.stdout.split())


def test_tokens_are_exact_by_default_where_the_server_counts(cli: Invoke, tmp_path: Path) -> None:
    def one_run(server: FakeOpenAIServer, results: Path, *flags: str) -> dict[str, Any]:
        server.script(reply("4"))
        done = cli("eval", "--model", "openai/test-model", "--api-base", server.url,
                   "--arms", "none", "--mission", "multiply", "--results", str(results),
                   *flags)  # fmt: skip
        assert done.exit_code == 0, done.output
        row: dict[str, Any] = json.loads(results.read_text().splitlines()[-1])
        row["stdout"] = done.stdout
        return row

    with FakeOpenAIServer(tokenizer=True) as counting:
        exact = one_run(counting, tmp_path / "a.jsonl")
        estimated = one_run(counting, tmp_path / "b.jsonl", "--estimated-tokens")
    with FakeOpenAIServer() as plain:  # an OpenAI-style server: it does not tokenize
        fallback = one_run(plain, tmp_path / "c.jsonl")
        refused = cli("eval", "--model", "openai/test-model", "--api-base", plain.url,
                      "--arms", "none", "--mission", "multiply", "--exact-tokens",
                      "--results", str(tmp_path / "d.jsonl"))  # fmt: skip
    assert exact["tokens"]["sizes"] == "exact" and "estimated" not in exact["stdout"]
    assert estimated["tokens"]["sizes"] == "estimated"
    assert "--estimated-tokens" in estimated["meta"]["argv"]
    assert fallback["tokens"]["sizes"] == "estimated"
    assert "Token counts are estimated (tiktoken): the server did not count them" in " ".join(
        fallback["stdout"].split()
    )
    assert refused.exit_code != 0 and "needs llama.cpp's server" in refused.output
    assert not (tmp_path / "d.jsonl").exists()  # nothing ran


def test_the_servers_own_window_is_the_default_context_window(cli: Invoke, tmp_path: Path) -> None:
    def run(server: FakeOpenAIServer, results: Path, *flags: str) -> tuple[Any, str, str]:
        server.script(reply("4"))
        done = cli("eval", "--model", "openai/test-model", "--api-base", server.url,
                   "--arms", "none", "--mission", "multiply", "--results", str(results),
                   *flags)  # fmt: skip
        assert done.exit_code == 0, done.output
        row = json.loads(results.read_text().splitlines()[-1])
        return row["meta"]["settings"]["context_window"], done.stdout, row["meta"]["argv"]

    with FakeOpenAIServer(tokenizer=True, n_ctx=4096) as llama_cpp:
        told, said, argv = run(llama_cpp, tmp_path / "a.jsonl")
        given, _, _ = run(llama_cpp, tmp_path / "b.jsonl", "--context-window", "2048")
    with FakeOpenAIServer() as plain:  # no GET /props: the window stays unknown
        unknown, quiet, _ = run(plain, tmp_path / "c.jsonl")
    assert told == 4096 and "Context window: 4096 tokens, the server's" in said
    assert "--context-window" not in argv  # the command as typed
    assert given == 2048 and unknown is None and "Context window" not in quiet
