"""Multi-turn items end to end against the loopback server: the runner drives the loop over HTTP, the row
carries every turn's timings and tokens and the trace, and a pytest run through the plugin writes them."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from loopback import Reply, turns_handler

from pytest_crucible.client.chat import ChatClient
from pytest_crucible.engine.config import ModelSpec, Provider
from pytest_crucible.engine.item_runner import run_case
from pytest_crucible.suite.case import build_case, function_tool

TOOLS = [function_tool("read_log", "Read a log file.", {"path": {"type": "string"}}, ["path"])]
LOG = "09:01 ERROR disk full\n09:02 INFO retry\n09:07 ERROR disk full\n"
SIM = {"tools": {"read_log": [{"arguments": {"path": "/var/log/app.log"}, "result": LOG}]}, "max_turns": 4}
GRADER = {"type": "trace", "calls": [{"name": "read_log", "arguments": {"path": "/var/log/app.log"}}],
          "answer": {"values": {"Errors:": 2}}}
PROMPT = "Count the ERROR lines in /var/log/app.log. Finish with one line: Errors: <count>"
CALL = {"name": "read_log", "arguments": {"path": "/var/log/app.log"}}


def agent_case(simulation=SIM):
    return build_case({"id": "AGR-1", "category": "agent", "difficulty": "easy", "prompt": PROMPT, "tools": TOOLS,
                       "simulation": simulation, "grader": GRADER, "max_tokens": 64},
                      Path("/suite/agent/t.cases.yaml"))


@pytest.fixture
def endpoint(loopback):
    model = ModelSpec("m", "loopback-model", Provider("loop", loopback.base_url, max_retries=0),
                      price_input=1.0, price_output=2.0)
    client = ChatClient(loopback.base_url, None, model_id="loopback-model", max_retries=0, timeout=10)
    yield loopback, model, client
    client.close()


def test_a_multi_turn_row_carries_every_turn_and_the_trace(endpoint):
    server, model, client = endpoint
    server.script(handler=turns_handler([Reply(tool_calls=[CALL], first_token_delay=0.2),
                                         Reply("I read the log.\nErrors: 2")]))
    row = run_case(agent_case(), model, client).to_dict()
    assert row["outcome"] == "passed", row["reason"]
    first, second = [r.body for r in server.chat_requests]
    assert first["messages"] == [{"role": "user", "content": PROMPT}] and first["tools"] == TOOLS
    assistant, tool = second["messages"][1:]
    assert assistant["role"] == "assistant" and assistant["tool_calls"][0]["function"] == {
        "name": "read_log", "arguments": '{"path": "/var/log/app.log"}'}
    assert tool == {"role": "tool", "tool_call_id": assistant["tool_calls"][0]["id"], "content": LOG}
    turns = row["turns"]
    assert len(turns) == 2 and all({"ttft_s", "e2e_s", "decode_tps"} <= set(t["timings"]) for t in turns)
    assert turns[0]["timings"]["ttft_s"] >= 0.2 > turns[1]["timings"]["ttft_s"]
    assert row["timings"] == turns[1]["timings"], "the row's timings are the graded (final) turn's"
    for key in ("prompt", "completion"):
        assert row["tokens"][key] == turns[0]["tokens"][key] + turns[1]["tokens"][key] > 0
    assert row["cost_usd"] == pytest.approx((row["tokens"]["prompt"] * 1.0 + row["tokens"]["completion"] * 2.0) / 1e6)
    trace = row["trace"]
    assert trace["stop"] == "answered" and trace["turns"][0]["tool_calls"][0]["result"] == LOG
    assert trace["turns"][1]["content"] == "I read the log.\nErrors: 2" and row["answer_text"].endswith("Errors: 2")
    assert json.loads(json.dumps(row)) == row, "the row is plain JSON"


def test_a_wrong_run_fails_with_one_reason(endpoint):
    server, model, client = endpoint
    server.script(handler=turns_handler([Reply(tool_calls=[CALL]), Reply("Errors: 3")]))
    row = run_case(agent_case(), model, client).to_dict()
    assert (row["outcome"], row["reason"]) == ("failed", "answer gives Errors: 3, expected only 2")
    server.script(default=Reply(tool_calls=[CALL]))  # never answers
    row = run_case(agent_case(), model, client).to_dict()
    assert row["outcome"] == "failed" and row["reason"].startswith("no answer after 4 turns (the turn limit)")
    assert len(row["turns"]) == 4


def test_an_endpoint_failure_mid_conversation_is_an_error_with_the_turns_so_far(endpoint):
    server, model, client = endpoint
    server.script(handler=turns_handler([Reply(tool_calls=[CALL]), Reply("Errors: 2")]))
    server.fault(status=500, times=1, skip=1, message="backend crashed")  # the second turn's request fails
    row = run_case(agent_case(), model, client).to_dict()
    assert row["outcome"] == "error" and "backend crashed" in row["reason"], row["reason"]
    assert server.chat_count == 2 and len(row["turns"]) == 1
    assert row["trace"]["turns"][0]["tool_calls"][0]["result"] == LOG and row["trace"]["stop"] == ""


def test_a_broken_simulation_handler_is_a_broken_case(endpoint):
    server, model, client = endpoint

    def world(name, arguments, state):
        raise KeyError("volumes")

    server.script(handler=turns_handler([Reply(tool_calls=[CALL]), Reply("Errors: 2")]))
    row = run_case(agent_case({"handler": world}), model, client).to_dict()
    assert row["outcome"] == "error" and row["reason"].startswith(
        "broken case: /suite/agent/t.cases.yaml: case AGR-1: field 'simulation.handler': simulation handler raised "
        "KeyError: 'volumes' (on read_log(")


CASE_FILE = """\
cases:
  - id: AGP-1
    difficulty: hard
    prompt: "Count the ERROR lines in /var/log/app.log. Finish with one line: Errors: <count>"
    tools:
      - type: function
        function: {name: read_log, description: Read a log file., parameters: {type: object, properties: {path: {type: string}}}}
    simulation:
      max_turns: 5
      tools:
        read_log:
          - arguments: {path: /var/log/app.log}
            result: "09:01 ERROR disk full\\n09:02 INFO retry\\n09:07 ERROR disk full\\n"
          - error: no such file
    grader:
      type: trace
      calls: [{name: read_log, arguments: {path: /var/log/app.log}}]
      answer: {values: {"Errors:": 2}}
"""


def test_a_multi_turn_item_through_the_plugin_writes_turns_to_its_row(pytester, loopback):
    pytester.makefile(".yaml", models=textwrap.dedent(f"""\
        providers:
          loop: {{base_url: {loopback.base_url}, max_retries: 0, timeout: 20}}
        models:
          - {{name: m1, provider: loop, model_id: m1}}
        """))
    (pytester.path / "agent").mkdir()
    (pytester.path / "agent" / "logs.cases.yaml").write_text(CASE_FILE)
    loopback.script(handler=turns_handler([
        Reply(tool_calls=[{"name": "read_log", "arguments": {"path": "/var/log/missing.log"}}]),
        Reply(tool_calls=[CALL]), Reply("Errors: 2")]))
    result = pytester.runpytest("-p", "no:cacheprovider", "--models", "m1", "--crucible-no-builtin-cases",
                                "agent/logs.cases.yaml", "-m", "agent and hard")
    result.assert_outcomes(passed=1)
    [row] = [json.loads(line) for line in
             (pytester.path / "crucible-results" / "latest" / "rows.jsonl").read_text().splitlines()]
    assert (row["case_id"], row["outcome"], row["category"]) == ("AGP-1", "passed", "agent")
    assert len(row["turns"]) == 3 and [len(t["tool_calls"]) for t in row["trace"]["turns"]] == [1, 1, 0]
    assert row["trace"]["turns"][0]["tool_calls"][0]["result"] == '{"error": "no such file"}'
    assert all(t["tokens"]["completion"] for t in row["turns"])
    report = json.loads((pytester.path / "crucible-results" / "latest" / "report.json").read_text())
    assert report["models"]["m1"]["categories"]["agent"]["passed"] == 1
    assert report["models"]["m1"]["tokens"]["completion"] == sum(t["tokens"]["completion"] for t in row["turns"])
