"""The plugin's own hooks (pytest_plugin/hookspecs.py), implemented by a conftest.py as README's Extending
section shows: every recorded row, every client made, with and without xdist."""

from __future__ import annotations

import json
import textwrap

import pytest

CASES = textwrap.dedent("""\
    cases:
      - {id: ADD, category: math, difficulty: easy, prompt: "add: 1 + 1?", grader: {type: numeric, answer: 2}}
      - {id: MUL, category: math, difficulty: easy, prompt: "mul: 3 * 3?", grader: {type: numeric, answer: 9}}
    """)
CHECK = textwrap.dedent("""\
    def test_asks(crucible_ask):
        assert "2" in crucible_ask("check: 1 + 1?").content
    """)
# Each process writes what it saw as its session ends: rows on the controlling process, clients where they are made.
CONFTEST = textwrap.dedent("""\
    import json
    import os

    ROWS, CLIENTS = [], []

    def pytest_crucible_row_recorded(config, item, report, row):
        ROWS.append({"item": item.nodeid if item is not None else None, "report": report.nodeid,
                     "case_id": row.case_id, "model": row.model, "outcome": row.outcome})

    def pytest_crucible_client_made(config, model, client):
        CLIENTS.append({"model": model.name, "client_model": client.model.name, "chat": callable(client.chat)})

    def pytest_sessionfinish(session):  # before an xdist worker says it is done, and may be ended
        process = getattr(session.config, "workerinput", {}).get("workerid", "main")
        (session.config.rootpath / f"seen-{process}.json").write_text(json.dumps({"rows": ROWS, "clients": CLIENTS}))
    """)


@pytest.fixture
def project(pytester, loopback):
    pytester.makefile(".yaml", models=textwrap.dedent(f"""\
        providers:
          loop: {{base_url: "{loopback.base_url}", max_retries: 1, timeout: 20}}
        models:
          - {{name: m1, provider: loop, model_id: m1}}
          - {{name: m2, provider: loop, model_id: m2}}
        """))
    pytester.makefile(".cases.yaml", mine=CASES)
    pytester.makepyfile(test_check=CHECK)
    pytester.makeconftest(CONFTEST)
    loopback.script(rules=[("add:", "Answer: 2"), ("mul:", "Answer: 8"), ("check:", "2")])
    return pytester


def seen(pytester) -> dict[str, dict]:
    return {path.stem.removeprefix("seen-"): json.loads(path.read_text()) for path in pytester.path.glob("seen-*.json")}


def run(pytester, *args):
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "--models=m1,m2", "--crucible-no-builtin-cases",
                                        "mine.cases.yaml", "test_check.py", *args)


EXPECTED_ROWS = sorted([("ADD", "m1", "passed"), ("ADD", "m2", "passed"), ("MUL", "m1", "failed"),
                        ("MUL", "m2", "failed"), ("test_asks", "m1", "passed"), ("test_asks", "m2", "passed")])


def test_a_conftest_sees_every_row_recorded_and_every_client_made(project):
    run(project).assert_outcomes(passed=4, failed=2)
    by_process = seen(project)
    assert list(by_process) == ["main"]
    rows, clients = by_process["main"]["rows"], by_process["main"]["clients"]
    assert sorted((r["case_id"], r["model"], r["outcome"]) for r in rows) == EXPECTED_ROWS
    assert all(r["item"] == r["report"] for r in rows)
    assert {r["report"] for r in rows} >= {"mine.cases.yaml::ADD[m1]", "test_check.py::test_asks[m2]"}
    recorded = [json.loads(line) for line in (project.path / "crucible-results" / "latest" / "rows.jsonl")
                .read_text().splitlines()]
    assert sorted((r["case_id"], r["model"], r["outcome"]) for r in recorded) == EXPECTED_ROWS
    # one client per model and endpoint in the process, made once however many items ask it
    assert sorted(c["model"] for c in clients) == ["m1", "m2"]
    assert all(c["client_model"] == c["model"] and c["chat"] for c in clients)


def test_under_xdist_rows_are_seen_by_the_controller_and_clients_by_the_workers(project):
    run(project, "-n", "2").assert_outcomes(passed=4, failed=2)
    by_process = seen(project)
    assert sorted(by_process) == ["gw0", "gw1", "main"]
    rows = by_process["main"]["rows"]
    assert sorted((r["case_id"], r["model"], r["outcome"]) for r in rows) == EXPECTED_ROWS
    assert all(r["item"] is None for r in rows)  # the items live on the workers
    assert not by_process["main"]["clients"]  # the controller asks nothing
    for worker in ("gw0", "gw1"):
        assert not by_process[worker]["rows"]
        clients = [c["model"] for c in by_process[worker]["clients"]]
        assert len(clients) == len(set(clients))
    assert {c["model"] for w in ("gw0", "gw1") for c in by_process[w]["clients"]} == {"m1", "m2"}
