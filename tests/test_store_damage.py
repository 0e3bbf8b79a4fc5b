"""A damaged rows.jsonl (a torn write, invalid bytes, JSON that is not a row) never stops a reader: the
bad lines are skipped and named once, every good row is kept, a resume re-asks only the lost items."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from pytest_crucible.results.row import row_problem
from pytest_crucible.results.store import META_FILE, read_meta, read_rows, run_meta


def row(n: int, **extra) -> dict:
    return {"run_id": "r", "model": "m", "model_id": "m", "provider": "p", "case_id": f"C{n}",
            "category": "math", "difficulty": "easy", "tags": [], "family": "", "case_hash": f"h{n}",
            "seed": None, "repeat": 1, "outcome": "passed", "answer_text": f"Antwort {n}: ÄÖÜ ✓", **extra}


def line(data) -> bytes:
    return (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8")


DAMAGE = {
    "torn inside a multi-byte character": line(row(5))[: line(row(5)).index("✓".encode()) + 2] + b"\n",
    "invalid UTF-8": b'{"model": "m", "case_id": "\xff\xfe"}\n',
    "not JSON": b'{"model": "m", "case_id": \n',
    "a JSON list": b"[1, 2, 3]\n",
    "a JSON number": b"7\n",
    "an object without a case": b'{"model": "m", "outcome": "passed"}\n',
    "a row whose repeat is text": line(row(99, repeat="one")),
    "a row whose tags are numbers": line(row(98, tags=[1, 2])),
    "NaN cost": b'{"model": "m", "case_id": "C97", "outcome": "passed", "cost_usd": NaN}\n',
}


@pytest.mark.parametrize("what", list(DAMAGE))
def test_a_damaged_line_is_skipped_with_its_number_and_the_rest_kept(tmp_path, what):
    rows_path = tmp_path / "rows.jsonl"
    rows_path.write_bytes(line(row(1)) + DAMAGE[what] + line(row(2)))
    said: list[str] = []
    got = read_rows(tmp_path, warn=said.append)
    if what == "NaN cost":  # not JSON strictly, but the row is whole: read with the cost as null
        assert [r["case_id"] for r in got] == ["C1", "C97", "C2"] and got[1]["cost_usd"] is None and not said
        return
    assert [r["case_id"] for r in got] == ["C1", "C2"]
    assert len(said) == 1 and f"{rows_path}" in said[0] and "line 2:" in said[0], said


def test_a_torn_last_line_is_said_too(tmp_path, capsys):
    (tmp_path / "rows.jsonl").write_bytes(line(row(1)) + line(row(2))[:-9])
    assert [r["case_id"] for r in read_rows(tmp_path)] == ["C1"]
    err = capsys.readouterr().err
    assert "line 2" in err and "torn" in err and err.count("\n") == 1


def test_a_corrupt_meta_json_is_no_meta(tmp_path, capsys):
    (tmp_path / META_FILE).write_bytes(b'{"run_id": "x", "models": [\xff')
    assert read_meta(tmp_path) is None
    assert run_meta(tmp_path) == {"run_id": tmp_path.name}
    assert "meta.json: damaged" in capsys.readouterr().err


def test_what_a_row_must_be():
    assert row_problem(row(1)) is None
    assert row_problem({"model": "m", "case_id": "c", "outcome": "done"}) is not None
    assert row_problem({"model": "m", "case_id": "c", "outcome": "passed", "cost_usd": True}) is not None
    assert row_problem({"model": "m", "case_id": "c", "outcome": "skipped", "params": []}) is not None


# -- every reader of a run folder ------------------------------------------------------------------

def damaged_run(out: Path) -> Path:
    """A synthetic run whose rows.jsonl has a line torn inside a multi-byte character in the middle and a
    line of invalid bytes."""
    from synthetic_run import write_run

    run_dir = write_run(out, "20250101-100000-dmgd", models=2, cases=8, seed=3)
    lines = (run_dir / "rows.jsonl").read_bytes().splitlines(keepends=True)
    lines.insert(3, "Ä".encode()[:1] + b"\n")
    lines.insert(6, b'{"model": "\xc3\x28"}\n')
    (run_dir / "rows.jsonl").write_bytes(b"".join(lines))
    return run_dir


def crucible(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest_crucible.apps.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_report_and_compare_read_a_damaged_run(tmp_path):
    run_dir = damaged_run(tmp_path / "results")
    result = crucible("report", str(run_dir), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "line 4: not UTF-8" in result.stderr, result.stderr
    assert json.loads((run_dir / "report.json").read_text())["meta"]
    models = sorted({r["model"] for r in read_rows(run_dir, warn=lambda _: None)})
    result = crucible("compare", str(run_dir), "--base-model", models[0], "--new-model", models[1], "--json",
                      cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "line 7" in result.stderr


def test_the_gui_lists_damaged_runs_instead_of_failing(tmp_path):
    from pytest_crucible.results import runs

    out = tmp_path / "results"
    damaged_run(out)
    bad_meta = out / "20250102-100000-meta"
    bad_meta.mkdir()
    (bad_meta / "rows.jsonl").write_bytes(line(row(1)))
    (bad_meta / META_FILE).write_text("{not json")
    odd_name = out / "20251399-999999-odd"  # looks like a run id's time, is not one
    odd_name.mkdir()
    (odd_name / "rows.jsonl").write_bytes(line(row(1)))
    not_utf8 = Path(os.fsdecode(bytes(out) + b"/run-\xff\xfe"))
    not_utf8.mkdir()
    (not_utf8 / "rows.jsonl").write_bytes(line(row(1)))
    for rows_path in out.glob("*/rows.jsonl"):  # runs that ended long ago: the live view ends at once
        os.utime(rows_path, (1e9, 1e9))
    listed = {r.run_id: r for r in runs.list_runs(out)}
    assert len(listed) == 4, listed
    assert "line 4: not UTF-8" in listed["20250101-100000-dmgd"].damage
    assert "meta.json" in listed["20250102-100000-meta"].damage
    assert listed["20251399-999999-odd"].damage == "" and listed["20251399-999999-odd"].started
    unnamed = [r for r in listed.values() if not r.linked]
    assert len(unnamed) == 1 and "not UTF-8" in unnamed[0].damage and unnamed[0].counts["passed"] == 1

    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    from test_gui import Gui

    server = Gui(out)
    try:
        status, _, body = server.get("/")
        assert status == 200 and "damaged" in body and "20250102-100000-meta" in body
        assert server.get("/runs/20250101-100000-dmgd")[0] == 200
        assert server.get("/runs/20250102-100000-meta")[0] == 200
        assert server.get("/runs/20250101-100000-dmgd/events", headers={"Last-Event-ID": "-5"})[0] == 200
        assert server.get("/runs/20250101-100000-dmgd/events", headers={"Last-Event-ID": "garbage"})[0] == 200
    finally:
        server.stop()


def test_resume_re_asks_only_the_items_whose_rows_were_lost(pytester, loopback):
    """A run of four cases, one row torn inside a multi-byte character and one replaced by bytes that are
    not UTF-8: the resume names both lines, asks those two cases again and keeps the other two rows."""
    from loopback import Reply

    pytester.makefile(".cases.yaml", mine=textwrap.dedent("""\
        cases:
          - {id: D1, category: math, difficulty: easy, prompt: "one", grader: {type: numeric, answer: 1}}
          - {id: D2, category: math, difficulty: easy, prompt: "two", grader: {type: numeric, answer: 2}}
          - {id: D3, category: math, difficulty: easy, prompt: "three", grader: {type: numeric, answer: 3}}
          - {id: D4, category: math, difficulty: easy, prompt: "four", grader: {type: numeric, answer: 4}}
        """))
    pytester.makefile(".yaml", models=f"providers:\n  p: {{base_url: '{loopback.base_url}', max_retries: 0}}\n"
                                      "models:\n  - {name: m1, provider: p}\n")
    loopback.script(default=Reply("Answer: 1 \u2713"))
    args = ("-p", "no:cacheprovider", "--models=m1", "--crucible-no-builtin-cases", "mine.cases.yaml")
    assert pytester.runpytest(*args).ret in (0, 1)
    rows_path = pytester.path / "crucible-results" / "latest" / "rows.jsonl"
    lines = rows_path.read_bytes().splitlines(keepends=True)
    by_case = {json.loads(raw)["case_id"]: i for i, raw in enumerate(lines)}
    assert sorted(by_case) == ["D1", "D2", "D3", "D4"]
    torn = lines[by_case["D2"]]
    lines[by_case["D2"]] = torn[: torn.index("\u2713".encode()) + 1] + b"\n"  # a write cut inside the tick
    lines[by_case["D3"]] = b"\xff\xfe garbage\n"
    rows_path.write_bytes(b"".join(lines))
    asked = loopback.chat_count
    result = pytester.runpytest(*args, "--crucible-resume")
    assert result.ret in (0, 1), result.stdout.str() + result.stderr.str()
    assert loopback.chat_count - asked == 2  # only D2 and D3
    said = result.stdout.str() + result.stderr.str()
    assert f"line {by_case['D2'] + 1}: not UTF-8" in said and f"line {by_case['D3'] + 1}: not UTF-8" in said
    kept = read_rows(rows_path, warn=lambda _: None)
    assert sorted(r["case_id"] for r in kept) == ["D1", "D2", "D3", "D4"]


# -- property: arbitrary truncation and byte damage -------------------------------------------------

ROW_TEXT = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FFF, blacklist_categories=("Cs",)),
                   max_size=12)


@st.composite
def damaged_file(draw):
    rows = [row(i, answer_text=draw(ROW_TEXT)) for i in range(draw(st.integers(1, 6)))]
    data = bytearray(b"".join(line(r) for r in rows))
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(data) - 1))
        data[at] = draw(st.integers(0, 255))
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return rows, bytes(data)


@seed(22)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(damaged_file())
def test_reading_never_raises_and_keeps_every_intact_row(tmp_path, case):
    rows, data = case
    path = tmp_path / "rows.jsonl"
    path.write_bytes(data)
    said: list[str] = []
    got = read_rows(path, warn=said.append)
    originals = {line(r): r for r in rows}
    intact = [originals[raw] for raw in data.splitlines(keepends=True) if raw in originals]
    assert all(r in got for r in intact) and len(got) >= len(intact)  # every whole line kept
    assert all(row_problem(r) is None for r in got)
    assert len(said) <= 1
