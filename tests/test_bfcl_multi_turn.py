"""BFCL's multi-turn categories: each entry a multi-turn case whose calls run against BFCL's simulated APIs
(imported from the installed package at run time), graded by BFCL's state and response checks. Run end to
end against the loopback server: the ground truth passes, a wrong call or a skipped turn fails."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from loopback import Reply, turns_handler

from pytest_crucible.client.chat import ChatClient
from pytest_crucible.engine.config import ModelSpec, Provider
from pytest_crucible.engine.item_runner import run_case
from pytest_crucible.grading import grade
from pytest_crucible.suite.agent_loop import run_case_loop, scripted
from pytest_crucible.suite.importers import bfcl_multi_turn, import_files, load_import
from pytest_crucible.verify import response_from, verify_cases

pytestmark = pytest.mark.skipif(importlib.util.find_spec("bfcl_eval") is None, reason="pip install --no-deps bfcl-eval")

KINDS = ("base", "miss_func", "miss_param", "long_context")


def _file(kind: str) -> Path:
    return next(f for f in import_files("bfcl") if f.name.endswith(f"_multi_turn_{kind}.json"))


@pytest.fixture(scope="module")
def cases():
    return {c.id: c for kind in KINDS for c in load_import("bfcl", _file(kind))}


@pytest.fixture
def endpoint(loopback):
    model = ModelSpec("m", "loopback-model", Provider("loop", loopback.base_url, max_retries=0))
    client = ChatClient(loopback.base_url, None, model_id="loopback-model", max_retries=0, timeout=10)
    yield loopback, model, client
    client.close()


def replies(script: list) -> list[Reply]:
    return [Reply(step) if isinstance(step, str) else Reply(tool_calls=step["tool_calls"]) for step in script]


def run(endpoint, case, script: list) -> dict:
    server, model, client = endpoint
    server.script(handler=turns_handler(replies(script)))
    return run_case(case, model, client).to_dict()


def test_the_four_multi_turn_categories_are_imported(cases):
    ids = list(cases)
    for kind in ("base", "miss-func", "miss-param", "long-context"):
        assert sum(i.startswith(f"BFCL-multi-turn-{kind}-") for i in ids) == 200
    case = cases["BFCL-multi-turn-base-1"]
    assert (case.title, case.family, case.grader["type"]) == ("multi_turn_base_1", "BFCL-multi-turn-base",
                                                              "bfcl_multi_turn")
    assert case.messages[0]["content"].startswith("I am alex.")
    assert len(case.simulation["user_turns"]) == 3 and case.simulation["max_turns"] == bfcl_multi_turn.STEP_LIMIT
    names = {t["function"]["name"] for t in case.tools}
    assert {"ls", "cd", "mv", "grep", "tail"} <= names  # GorillaFileSystem's documents, from the package
    assert case.grader["ground_truth"][0] == ["ls(a=True)"]


def test_the_ground_truth_through_the_loopback_endpoint_passes(endpoint, cases):
    case = cases["BFCL-multi-turn-base-1"]
    row = run(endpoint, case, case.verify["reference"])
    assert row["outcome"] == "passed", row["reason"]
    assert row["category"] == "bfcl/multi-turn-base"  # reported apart from the built-in tooluse cases
    server = endpoint[0]
    last = server.chat_requests[-1].body["messages"]
    assert [m["content"] for m in last if m["role"] == "user"] == [
        case.messages[0]["content"], *[t["messages"][0]["content"] for t in case.simulation["user_turns"]]]
    first_result = row["trace"]["turns"][0]["tool_calls"][0]
    assert first_result["name"] == "ls" and json.loads(first_result["result"]) == {
        "current_directory_content": ["workspace"]}  # executed on BFCL's GorillaFileSystem
    assert [t["user_turn"] for t in row["trace"]["turns"]][-2:] == [3, 3]


def test_a_wrong_argument_fails_the_state_check(endpoint, cases):
    case = cases["BFCL-multi-turn-base-1"]
    script = json.loads(json.dumps(case.verify["reference"]))
    moves = [s for s in script if isinstance(s, dict) and s["tool_calls"][0]["name"] == "mv"]
    moves[0]["tool_calls"][0]["arguments"]["destination"] = "archived"
    row = run(endpoint, case, script)
    assert row["outcome"] == "failed"
    assert row["reason"].startswith("user turn 2: Model instance for GorillaFileSystem does not match the state")


def test_a_wrong_read_fails_the_response_check(endpoint, cases):
    case = cases["BFCL-multi-turn-base-1"]
    script = json.loads(json.dumps(case.verify["reference"]))
    grep = next(s for s in script if isinstance(s, dict) and s["tool_calls"][0]["name"] == "grep")
    grep["tool_calls"][0]["arguments"]["pattern"] = "Warning"  # reads state, changes none: only the results differ
    row = run(endpoint, case, script)
    assert row["outcome"] == "failed"
    assert row["reason"].startswith("user turn 3: Model response execution results so far does not contain")


def test_a_skipped_turn_fails(endpoint, cases):
    case = cases["BFCL-multi-turn-base-1"]
    row = run(endpoint, case, case.verify["wrong"][1])  # the last turn of calls answered in words
    assert (row["outcome"], row["reason"]) == ("failed", "user turn 4: no function call (the ground truth calls "
                                                         "tail(file_name='log.txt',lines=20))")
    row = run(endpoint, case, ["I'm sorry, but I can't help with that request."] * 4)
    assert row["outcome"] == "failed" and row["reason"].startswith("user turn 1: no function call")


def test_a_missed_function_is_offered_from_its_turn_on(endpoint, cases):
    case = cases["BFCL-multi-turn-miss-func-0"]
    assert case.simulation["user_turns"][2] == {
        "messages": [{"role": "user", "content": bfcl_multi_turn.holdout_prompt()}], "add_tools": ["sort"]}
    row = run(endpoint, case, case.verify["reference"])
    assert row["outcome"] == "passed", row["reason"]
    offered = [({t["function"]["name"] for t in r.body["tools"]}, sum(m["role"] == "user" for m in r.body["messages"]))
               for r in endpoint[0].chat_requests]
    assert all(("sort" in names) == (users >= 4) for names, users in offered)
    assert {users for _, users in offered} == {1, 2, 3, 4, 5}


def test_a_run_that_never_stops_calling_is_force_terminated(endpoint, cases):
    case = cases["BFCL-multi-turn-base-1"]
    server, model, client = endpoint
    server.script(default=Reply(tool_calls=[{"name": "pwd", "arguments": {}}]))
    row = run_case(case, model, client).to_dict()
    assert row["outcome"] == "failed" and row["reason"] == "the run stopped in user turn 1 of 4 (turn_limit)"
    assert len(row["turns"]) == bfcl_multi_turn.STEP_LIMIT


def test_calls_run_by_name_never_as_python(cases):
    world = bfcl_multi_turn.World(["GorillaFileSystem"], cases["BFCL-multi-turn-base-1"].grader["initial_config"],
                                  False)
    assert world.call("__import__", ("os",)) == "Error during execution: name '__import__' is not defined"
    assert world.call("exit") == "Error during execution: Function call exit is not allowed."
    assert world.call("cd", (), {"nowhere": 1}).startswith("Error during execution: ")
    assert bfcl_multi_turn.parse_call("sort('final_report.pdf')") == ("sort", ("final_report.pdf",), {})
    with pytest.raises(ValueError):
        bfcl_multi_turn.parse_call("os.system('ls')")
    assert bfcl_multi_turn.named_arguments(world, "sort('a.txt')") == ("sort", {"file_name": "a.txt"})


def test_a_call_without_json_arguments_is_skipped_as_bfcl_skips_it(cases):
    case = cases["BFCL-multi-turn-base-1"]
    script = [response_from(s) for s in case.verify["reference"]]
    script[0].tool_calls[0].arguments = "{not json"
    result = grade(case, None, run_case_loop(case, scripted(script)))
    assert not result.passed and result.reason.startswith("user turn 1: no function call")


def test_verify_replays_the_ground_truth_of_a_few_entries_of_each_category(cases):
    chosen = [cases[f"BFCL-multi-turn-{kind}-{n}"] for kind in ("base", "miss-func", "miss-param", "long-context")
              for n in (0, 7, 38)]
    report = verify_cases(chosen)
    assert report.problems == [], "\n".join(map(str, report.problems[:10]))
    assert report.traces_replayed == 3 * len(chosen)  # the reference passes, both wrong scripts fail



def test_the_grader_agrees_with_bfcls_own_multi_turn_checker_on_a_sample():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bfcl_multi_turn_agreement  # the benchmark script (not a package)

    agreed, counts, shown = bfcl_multi_turn_agreement.run(per_category=2, seed=3)
    assert agreed == sum(counts.values()) > 40, shown
    assert counts[("ground truth", True)] == 8 and counts[("value changed", True)] > 0
