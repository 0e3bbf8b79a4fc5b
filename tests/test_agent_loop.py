"""The multi-turn loop and its simulated tools (pytest_crucible/suite/agent_loop.py), and the `simulation`
case field's validation."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from pytest_crucible.client.response import Response, ToolCall
from pytest_crucible.common.errors import CaseError
from pytest_crucible.suite.agent_loop import (
    ScriptExhausted,
    Simulation,
    check_simulation,
    normalise,
    run_case_loop,
    run_loop,
    scripted,
)
from pytest_crucible.suite.case import build_case, function_tool, load_case_file, tool_turn
from pytest_crucible.verify import response_from

TOOLS = [function_tool("read_log", "Read a log.", {"path": {"type": "string"}}, ["path"]),
         function_tool("delete_log", "Delete a log.", {"path": {"type": "string"}}, ["path"])]
TABLE = {"tools": {
    "read_log": [{"arguments": {"path": "/var/log/app.log"}, "result": "ERROR a\nINFO b\nERROR c"},
                 {"arguments": {"path": "/var/log/app.log.1"}, "error": "permission denied"},
                 {"arguments": {"path": "/tmp/notes"}, "result": {"lines": 2}, "set": {"notes_read": True},
                  "injected": True}],
    "delete_log": [{"result": "deleted", "set": {"deleted": True}}]}}


def call(name: str, arguments, ident: str | None = None) -> ToolCall:
    return ToolCall(name, arguments if isinstance(arguments, str) else json.dumps(arguments), ident)


def answer(text: str) -> Response:
    return Response(content=text, finish_reason="stop")


def calls(*made: ToolCall) -> Response:
    return Response(tool_calls=list(made), finish_reason="tool_calls")


def agent_case(**over) -> object:
    entry = {"id": "AGT-1", "category": "agent", "difficulty": "easy", "prompt": "How many ERROR lines?",
             "tools": TOOLS, "simulation": TABLE,
             "grader": {"type": "trace", "answer": {"values": {"ERROR lines:": 2}}},
             "verify": {"reference": [tool_turn(("read_log", {"path": "/var/log/app.log"})), "ERROR lines: 2"]}}
    entry.update(over)
    return build_case(entry, Path("/suite/agent/t_cases.py"))


# ---------------------------------------------------------------------------------------- simulation

def test_arguments_match_after_normalising():
    sim = Simulation(TABLE, ["read_log", "delete_log"])
    for args in ({"path": "/var/log/app.log"}, {"path": "  /VAR/log/App.log "}, {"path": "/var/log/app.log", "n": None},
                 '{"path":"/var/log/app.log","tail":10}'):
        result = sim.call("read_log", args if isinstance(args, str) else json.dumps(args), {}, "c1")
        assert (result.content, result.error, result.rule) == ("ERROR a\nINFO b\nERROR c", False, 0), args
    assert normalise("  12 ") == normalise(12) == normalise(12.0) and normalise("1.50") == normalise(1.5)
    assert normalise({"a": None, "b": "X  y"}) == {"b": "x y"}


def test_errors_json_results_state_and_injection():
    sim, state = Simulation(TABLE, ["read_log", "delete_log"]), {}
    denied = sim.call("read_log", '{"path": "/var/log/app.log.1"}', state, "c1")
    assert (json.loads(denied.content), denied.error, denied.rule) == ({"error": "permission denied"}, True, 1)
    notes = sim.call("read_log", '{"path": "/tmp/notes"}', state, "c2")
    assert (notes.content, notes.injected, state) == ('{"lines": 2}', True, {"notes_read": True})
    unmatched = sim.call("read_log", '{"path": "/etc/passwd"}', state, "c3")
    assert unmatched.error and unmatched.rule is None and "nothing found" in unmatched.content
    unknown = sim.call("rm_rf", "{}", state, "c4")
    assert unknown.error and "unknown tool 'rm_rf'" in unknown.content
    for bad in ("{not json", "[1, 2]"):
        broken = sim.call("read_log", bad, state, "c5")
        assert broken.error and "arguments" in json.loads(broken.content)["error"]


def test_handler_keeps_state_for_one_run_only():
    def handler(name, arguments, state):
        state["n"] += 1
        return {"result": state["n"]} if arguments.get("ok", True) else {"error": "no"}

    sim = Simulation({"handler": handler, "state": {"n": 0}}, ["count"])
    ask = scripted([calls(call("count", {})), calls(call("count", {}), call("count", {"ok": False})), answer("3")])
    trace = run_loop([{"role": "user", "content": "count"}], sim, ask)
    assert [r.content for r in trace.results] == ["1", "2", '{"error": "no"}'] and trace.state == {"n": 3}
    assert sim.new_state() == {"n": 0}, "a run never changes the case's initial state"


@pytest.mark.parametrize("handler, message", [
    (lambda n, a, s: 1 / 0, "simulation handler raised ZeroDivisionError"),
    (lambda n, a, s: "just text", "return a mapping"),
    (lambda n, a, s: {"result": 1, "error": "x"}, "exactly one of result"),
])
def test_a_broken_handler_is_the_case_s_fault(handler, message):
    sim = Simulation({"handler": handler}, ["t"])
    with pytest.raises(CaseError, match=message):
        sim.call("t", "{}", {}, "c1")


# ---------------------------------------------------------------------------------------- the loop

def test_loop_feeds_results_back_and_stops_at_the_answer():
    seen: list[list[dict]] = []
    turns = [calls(call("read_log", {"path": "/var/log/app.log"}), call("read_log", {"path": "/var/log/app.log.1"}, "x7")),
             answer("2 ERROR lines; app.log.1 was unreadable.")]
    replies = iter(turns)

    def ask(messages):
        seen.append(messages)
        return next(replies)

    trace = run_case_loop(agent_case(), ask)
    assert trace.stop == "answered" and len(trace.turns) == 2 and trace.final.content.startswith("2 ERROR")
    second = seen[1]
    assert [m["role"] for m in second] == ["user", "assistant", "tool", "tool"]
    assert second[1]["tool_calls"] == [
        {"id": "call_0_0", "type": "function", "function": {"name": "read_log", "arguments": '{"path": "/var/log/app.log"}'}},
        {"id": "x7", "type": "function", "function": {"name": "read_log", "arguments": '{"path": "/var/log/app.log.1"}'}}]
    assert [(m["tool_call_id"], m["content"]) for m in second[2:]] == [
        ("call_0_0", "ERROR a\nINFO b\nERROR c"), ("x7", '{"error": "permission denied"}')]
    assert len(seen[0]) == 1, "the first request is the case's own messages"
    row = trace.to_dict()
    assert row["stop"] == "answered" and row["turns"][0]["tool_calls"][1] == {
        "name": "read_log", "arguments": '{"path": "/var/log/app.log.1"}', "result": '{"error": "permission denied"}',
        "error": True, "injected": False}


def test_turn_limit_and_truncation_end_the_loop():
    case = agent_case(simulation={**TABLE, "max_turns": 3})
    trace = run_case_loop(case, lambda m: calls(call("read_log", {"path": "/var/log/app.log"})))
    assert (trace.stop, len(trace.turns), len(trace.results)) == ("turn_limit", 3, 3)
    cut = Response(tool_calls=[call("read_log", '{"pa')], finish_reason="length")
    trace = run_case_loop(case, scripted([cut]))
    assert (trace.stop, len(trace.turns), trace.results) == ("truncated", 1, [])


def test_scripted_model_runs_out():
    with pytest.raises(ScriptExhausted, match="asked for turn 2, the script has 1"):
        run_case_loop(agent_case(), scripted([calls(call("read_log", {"path": "/var/log/app.log"}))]))


def test_the_trace_survives_an_endpoint_failure():
    from pytest_crucible.common.errors import EndpointError
    from pytest_crucible.suite.agent_loop import Trace
    replies = iter([calls(call("read_log", {"path": "/var/log/app.log"}))])

    def ask(_messages):
        try:
            return next(replies)
        except StopIteration:
            raise EndpointError("endpoint unreachable") from None

    trace = Trace()
    with pytest.raises(EndpointError):
        run_case_loop(agent_case(), ask, trace)
    assert len(trace.turns) == 1 and trace.results[0].content.startswith("ERROR a")


# ---------------------------------------------------------------------------------------- validation

@pytest.mark.parametrize("spec, field, message", [
    ({"tools": {}, "handler": print}, None, "exactly one of tools"),
    ({"tools": {"read_log": []}}, "tools.read_log", "non-empty list"),
    ({"tools": {"grep": [{"result": "x"}]}}, "tools.grep", "not defined in the case's tools"),
    ({"tools": {"read_log": [{"result": "x", "error": "y"}]}}, "tools.read_log.0", "exactly one of result"),
    ({"tools": {"read_log": [{"result": "x", "when": {}}]}}, "tools.read_log.0", "unknown key 'when'"),
    ({"tools": {"read_log": [{"arguments": "path", "result": "x"}]}}, "tools.read_log.0", "arguments is a mapping"),
    ({"tools": {"read_log": [{"result": "x"}]}, "max_turns": 0}, "max_turns", "from 1 to 50"),
    ({"tools": {"read_log": [{"result": "x"}]}, "turns": 3}, "turns", "unknown key"),
    ({"handler": "my_function"}, "handler", "Python function"),
])
def test_check_simulation_names_the_field(spec, field, message):
    problems = check_simulation(spec, ["read_log", "delete_log"])
    assert any(f == field and message in m for f, m in problems), problems


def test_case_file_errors_name_file_line_and_field(tmp_path):
    head = textwrap.dedent("""\
        cases:
          - id: AGY-1
            difficulty: easy
            prompt: How many errors?
            tools:
              - {type: function, function: {name: read_log, parameters: {type: object, properties: {}}}}
        """)

    def load(body: str):
        path = tmp_path / "agent" / "x.cases.yaml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(head + textwrap.indent(textwrap.dedent(body), "    "))
        return load_case_file(path)

    with pytest.raises(CaseError) as info:
        load("""\
            simulation:
              tools:
                grep_log:
                  - {result: "x"}
            grader: {type: trace, answer: {all: [2]}}
        """)
    assert info.value.line == 9 and info.value.field == "simulation.tools.grep_log"
    assert "not defined in the case's tools" in str(info.value) and str(info.value).startswith(str(tmp_path))
    with pytest.raises(CaseError, match="use grader type trace, not contains"):
        load("simulation: {tools: {read_log: [{result: x}]}}\ngrader: {type: contains, all: [x]}\n")
    with pytest.raises(CaseError, match="add simulation"):
        load("grader: {type: trace, answer: {all: [x]}}\n")
    with pytest.raises(CaseError, match="cannot force a tool call"):
        load("tool_choice: required\nsimulation: {tools: {read_log: [{result: x}]}}\n"
             "grader: {type: trace, answer: {all: [x]}}\n")
    case = load("simulation: {tools: {read_log: [{result: '3 errors'}]}, max_turns: 4}\n"
                "grader: {type: trace, answer: {all: [3]}}\n")[0]
    assert case.simulation == {"tools": {"read_log": [{"result": "3 errors"}]}, "max_turns": 4}


def test_content_hash_covers_the_simulation_and_is_stable_for_handlers(tmp_path):
    base = agent_case()
    changed = agent_case(simulation={"tools": {"read_log": [{"result": "ERROR a"}]}})
    assert base.content_hash != changed.content_hash
    source = textwrap.dedent("""\
        from pytest_crucible.suite.case import function_tool
        def world(name, arguments, state):
            return {"result": "ok"}
        CASES = [{"id": "AGH-1", "category": "agent", "difficulty": "easy", "prompt": "go",
                  "tools": [function_tool("t", "a tool")], "simulation": {"handler": world},
                  "grader": {"type": "trace", "answer": {"all": ["ok"]}}}]
        """)
    path = tmp_path / "h_cases.py"
    path.write_text(source)
    first = load_case_file(path)[0].content_hash
    assert load_case_file(path)[0].content_hash == first, "a handler hashes by its source, not its address"
    path.write_text(source.replace('"ok"}', '"changed"}'))
    assert load_case_file(path)[0].content_hash != first


def test_verify_replies_become_responses():
    response = response_from(tool_turn(("read_log", {"path": "/x"}), content="Reading."))
    assert response.content == "Reading." and response.tool_calls[0].parsed_arguments() == {"path": "/x"}


def test_later_user_turns_follow_the_answer_and_may_add_tools():
    spec = {**TABLE, "max_turns": 2, "user_turns": ["Now the rotated log.",
                                                   {"messages": [{"role": "user", "content": "Delete it."}],
                                                    "add_tools": ["delete_log"]}]}
    asked: list[tuple[list, list | None]] = []
    script = scripted([Response(tool_calls=[call("read_log", {"path": "/var/log/app.log"})]), answer("2 errors."),
                       answer("I cannot read it."), Response(tool_calls=[call("delete_log", {"path": "x"})]),
                       answer("Deleted.")])

    def ask(messages, tools=None):
        asked.append((messages, tools))
        return script(messages)

    trace = run_loop([{"role": "user", "content": "Count the errors."}], Simulation(spec, ["read_log", "delete_log"],
                                                                                   tools=TOOLS), ask)
    assert trace.stop == "answered" and trace.user_turns == 3
    assert [t.user_turn for t in trace.turns] == [0, 0, 1, 2, 2] and trace.state == {"deleted": True}
    # delete_log is withheld until the turn that adds it; from then on every tool is offered (tools not given)
    assert [tools and [t["function"]["name"] for t in tools] for _, tools in asked] == [["read_log"]] * 3 + [None] * 2
    third = asked[2][0]
    assert [m["role"] for m in third] == ["user", "assistant", "tool", "assistant", "user"]
    assert third[3] == {"role": "assistant", "content": "2 errors."} and third[4]["content"] == "Now the rotated log."
    assert trace.to_dict()["turns"][2]["user_turn"] == 1


def test_a_user_turn_that_reaches_the_limit_ends_the_run():
    spec = {**TABLE, "max_turns": 2, "user_turns": ["And again."]}
    again = Response(tool_calls=[call("read_log", {"path": "/var/log/app.log"})])
    trace = run_loop([{"role": "user", "content": "Count."}], Simulation(spec, ["read_log", "delete_log"]),
                     scripted([answer("Done."), again, again]))
    assert (trace.stop, len(trace.turns), trace.turns[-1].user_turn) == ("turn_limit", 3, 1)


@pytest.mark.parametrize("turns, where", [
    ("more", "user_turns"),
    ([{"message": "x"}], "user_turns.0"),
    ([{"messages": [{"role": "user", "content": "x"}], "add_tools": ["rm"]}], "user_turns.0"),
])
def test_user_turns_are_checked(turns, where):
    problems = check_simulation({**TABLE, "user_turns": turns}, ["read_log", "delete_log"])
    assert [p[0] for p in problems] == [where]
