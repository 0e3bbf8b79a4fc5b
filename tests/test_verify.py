"""`crucible cases verify` catches every kind of broken case (pytest_crucible/verify.py)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_crucible.sandbox import bwrap_available
from pytest_crucible.suite import haystack
from pytest_crucible.suite.case import build_case
from pytest_crucible.verify import VerifyReport, adversarial_inputs, response_from, verify_cases, verify_paths

needs_bwrap = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap (bwrap) is not installed: "
                                 "solvers and reference solutions only run in the sandbox")


def make(entry: dict, category: str = "math"):
    entry = {"difficulty": "easy", **entry}
    return build_case(entry, Path(f"/suite/{category}/t.cases.yaml"))


def messages_of(report: VerifyReport) -> list[str]:
    return [p.message for p in report.problems]


def only_problem(report: VerifyReport, case_id: str) -> str:
    assert [p.case_id for p in report.problems] == [case_id], report.problems
    return report.problems[0].message


NUMERIC = dict(
    id="MX01-sum", prompt="What is 17 + 25? End with `Answer: <number>`.",
    grader={"type": "numeric", "answer": 42},
    verify={"solver": "print(17 + 25)", "reference": "17 + 25 = 42\nAnswer: 42", "wrong": ["Answer: 41"]},
)

PUZZLE_SOLVER = textwrap.dedent("""
    import json
    from itertools import permutations
    for pets in permutations(["cat", "dog"]):
        own = dict(zip(["Ann", "Bo"], pets))
        {extra}
        print(json.dumps(own))
""")


UNIQUE = "if own['Ann'] == 'cat': continue"


def puzzle(extra: str = UNIQUE) -> dict:
    return dict(
        id="RX01-pets", prompt="Ann and Bo own a cat and a dog. Ann has no cat. Who owns what?",
        grader={"type": "mapping", "answer": {"Ann": "dog", "Bo": "cat"}},
        verify={"solver": PUZZLE_SOLVER.format(extra=extra), "reference": "Ann: dog\nBo: cat",
                "wrong": ["Ann: cat\nBo: dog"]},
    )


CODE = dict(
    id="CX01-double", prompt="Write double(x).",
    grader={"type": "code", "language": "python", "entry_point": "double",
            "tests": "def test_double():\n    assert double(2) == 4\n    assert double(-3) == -6\n"},
    verify={"solution": "def double(x):\n    return 2 * x\n",
            "wrong": ["def double(x):\n    return x + 2\n"]},
)


def haystack_entry(**changes) -> dict:
    entry = haystack.haystack_case(
        id="LX01-code", difficulty="easy", seed=5, target_tokens=400,
        needles=[{"text": "The vault code is 3141.", "depth": 0.5}],
        question="What is the vault code? End with `Answer: <number>`.", expect={"values": 3141},
        grader={"type": "numeric", "answer": 3141}, reference="Answer: 3141", wrong=["Answer: 3142"])
    entry.update(changes)
    return entry


TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Weather.",
                                            "parameters": {"type": "object", "properties": {}}}}]


# ------------------------------------------------------------------ clean cases pass

@needs_bwrap
def test_a_correct_case_of_each_kind_has_no_problems():
    cases = [make(NUMERIC), make(puzzle(), "reasoning"), make(haystack_entry(), "longctx"),
             make(CODE, "coding")]
    report = verify_cases(cases)
    assert report.problems == []
    assert (report.checked, report.solutions_run, report.answers_derived, report.haystacks_rebuilt) == (4, 1, 2, 1)
    # references and wrong replies: numeric 2, mapping 2, haystack 2, code wrong 1
    assert report.references_graded == 7
    assert report.summary() == ("4 cases checked, 0 with problems (1 reference solutions executed, "
                                "2 answers re-derived, 1 haystacks rebuilt)")


# ------------------------------------------------------------------ each kind of breakage

@needs_bwrap
def test_wrong_numeric_answer_is_caught_by_its_solver():
    broken = {**NUMERIC, "grader": {"type": "numeric", "answer": 41},
              "verify": {**NUMERIC["verify"], "reference": "Answer: 41", "wrong": ["Answer: 40"]}}
    report = verify_cases([make(broken)])
    message = only_problem(report, "MX01-sum")
    assert "verify.solver derives 42" in message and "expects 41" in message
    assert report.answers_derived == 1


@needs_bwrap
def test_a_checks_case_with_exact_lines_is_re_derived_by_its_solver():
    lines = ["1. Budget", "1.1 Venue"]
    case = dict(id="IX01-outline", prompt="Number: > Budget / >> Venue. Output only the lines.",
                grader={"type": "checks", "constraints": [{"kind": "lines_equal", "lines": lines}]},
                verify={"solver": "print('1. Budget')\nprint('1.1 Venue')", "reference": "\n".join(lines),
                        "wrong": ["1. Budget\n2. Venue"]})
    report = verify_cases([make(case, "instruct")])
    assert report.problems == [] and report.answers_derived == 1
    slipped = {**case, "verify": {**case["verify"], "solver": "print('1. Budget')\nprint('2. Venue')"}}
    message = only_problem(verify_cases([make(slipped, "instruct")]), "IX01-outline")
    assert "verify.solver derives 1. Budget" in message and "expects line 2 '1.1 Venue', not '2. Venue'" in message


@needs_bwrap
def test_logic_grid_with_two_solutions_is_not_unique():
    report = verify_cases([make(puzzle("pass"), "reasoning")])  # the "Ann has no cat" clue is missing
    message = only_problem(report, "RX01-pets")
    assert "found 2 solutions" in message and "exactly one" in message


@needs_bwrap
def test_unique_puzzle_passes_and_wrong_assignment_is_caught():
    assert verify_cases([make(puzzle(), "reasoning")]).problems == []
    flipped = puzzle("if own['Ann'] == 'dog': continue")
    message = only_problem(verify_cases([make(flipped, "reasoning")]), "RX01-pets")
    assert "verify.solver derives" in message and '"Ann": "dog"' in message


@needs_bwrap
def test_reference_solution_that_fails_its_tests():
    broken = {**CODE, "verify": {"solution": "def double(x):\n    return x * x\n"}}
    report = verify_cases([make(broken, "coding")])
    message = only_problem(report, "CX01-double")
    assert message.startswith("verify.solution fails its own tests")
    assert report.solutions_run == 1


@needs_bwrap
def test_wrong_code_that_passes_the_tests_is_reported():
    lenient = {**CODE, "grader": {**CODE["grader"], "tests": "def test_two():\n    assert double(2) == 4\n"}}
    message = only_problem(verify_cases([make(lenient, "coding")]), "CX01-double")
    assert message.startswith("verify.wrong[0] passes the tests but must fail")


def test_haystack_whose_needle_was_edited_in_the_prompt():
    entry = haystack_entry()
    entry["prompt"] = entry["prompt"].replace("The vault code is 3141.", "The vault code is 2718.")
    report = verify_cases([make(entry, "longctx")])
    messages = messages_of(report)
    assert any("prompt differs from the rebuilt haystack" in m for m in messages), messages
    assert any("occurs 0 times in the prompt" in m for m in messages), messages


def test_haystack_whose_stored_needle_was_edited():
    entry = haystack_entry()
    entry["verify"]["haystack"]["needles"] = [{"text": "The vault code is 2718.", "depth": 0.5}]
    messages = messages_of(verify_cases([make(entry, "longctx")]))
    assert any("prompt differs from the rebuilt haystack" in m for m in messages), messages


def test_haystack_answer_that_the_grader_does_not_expect():
    entry = haystack_entry(grader={"type": "numeric", "answer": 3142})
    entry["verify"].update(reference="Answer: 3142", wrong=["Answer: 3141"])
    message = only_problem(verify_cases([make(entry, "longctx")]), "LX01-code")
    assert "the haystack supports 3141" in message and "expects 3142" in message


def test_haystack_count_is_derived_from_the_text():
    entry = haystack.haystack_case(
        id="LX02-count", difficulty="easy", seed=9, target_tokens=600,
        needles=[{"text": "A heron landed.", "count": 3}], question="How many herons landed?",
        expect={"count_of": 0}, grader={"type": "numeric", "answer": 4},
        reference="Answer: 4", wrong=["Answer: 3"])
    message = only_problem(verify_cases([make(entry, "longctx")]), "LX02-count")
    assert "the haystack supports 3" in message


def test_catastrophic_regex_is_caught_within_the_deadline():
    entry = dict(id="IX01-regex", prompt="Say aaa.", grader={"type": "regex", "pattern": "(a+)+$"},
                 verify={"reference": "aaa"})
    report = verify_cases([make(entry, "instruct")])
    message = only_problem(report, "IX01-regex")
    assert "catastrophic backtracking" in message and "(a+)+$" in message


def test_catastrophic_line_format_pattern_is_caught():
    entry = dict(id="IX02-lines", prompt="Write a line.",
                 grader={"type": "checks", "constraints": [
                     {"kind": "line_format", "pattern": r"(\w+\s?)*\d", "all": True}]},
                 verify={"reference": "word 1"})
    message = only_problem(verify_cases([make(entry, "instruct")]), "IX02-lines")
    assert "grader.constraints[0].pattern: catastrophic backtracking" in message


def test_safe_regexes_pass():
    entry = dict(id="IX03-ok", prompt="Say hello.",
                 grader={"type": "regex", "pattern": r"^hello\b.*$", "flags": ["IGNORECASE", "MULTILINE"]},
                 verify={"reference": "Hello there", "wrong": ["bye"]})
    assert verify_cases([make(entry, "instruct")]).problems == []


def test_adversarial_inputs_use_the_patterns_own_characters():
    inputs = adversarial_inputs("(?:ab|q)+Z", length=100)
    assert any(s.startswith("qqqq") for s in inputs) and any(s.startswith("ZZZZ") for s in inputs)
    assert all(len(s) >= 100 for s in inputs)


def test_tool_calls_naming_an_undefined_tool():
    entry = dict(id="TX01-tools", prompt="Weather in Oslo?", tools=TOOLS,
                 grader={"type": "tool_calls", "calls": [{"name": "get_forecast", "arguments": {"city": "Oslo"}}],
                         "forbidden": ["delete_everything"]},
                 verify={"reference": {"tool_calls": [{"name": "get_forecast", "arguments": {"city": "Oslo"}}]}})
    messages = messages_of(verify_cases([make(entry, "tooluse")]))
    assert any("'get_forecast', which is not defined" in m for m in messages), messages
    assert any("'delete_everything', which is not defined" in m for m in messages), messages


def test_scripted_assistant_turn_calling_an_undefined_tool():
    entry = dict(id="TX02-turns", tools=TOOLS, messages=[
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_sensor", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "20C"}],
        grader={"type": "tool_calls", "expect_no_call": True}, verify={"reference": "It is 20C."})
    message = only_problem(verify_cases([make(entry, "tooluse")]), "TX02-turns")
    assert "calls tool 'read_sensor', which is not defined" in message


def test_case_without_verification_data():
    entry = dict(id="IX04-bare", prompt="Say hi.", grader={"type": "contains", "all": ["hi"]})
    message = only_problem(verify_cases([make(entry, "instruct")]), "IX04-bare")
    assert message.startswith("no verification data")


def test_reference_reply_that_fails_its_grader():
    entry = dict(id="IX05-ref", prompt="Name the capital of France.",
                 grader={"type": "contains", "all": ["Paris"]},
                 verify={"reference": "It is Lyon.", "wrong": ["Marseille"]})
    report = verify_cases([make(entry, "instruct")])
    message = only_problem(report, "IX05-ref")
    assert message.startswith("verify.reference fails its own grader") and "Paris" in message
    assert report.references_graded == 2


def test_wrong_reply_that_passes_is_reported():
    entry = dict(id="IX06-wrong", prompt="Name the capital of France.",
                 grader={"type": "contains", "all": ["Paris"]},
                 verify={"reference": "Paris.", "wrong": ["Paris, of course."]})
    message = only_problem(verify_cases([make(entry, "instruct")]), "IX06-wrong")
    assert message.startswith("verify.wrong[0] passes the grader but must fail")


def test_tool_call_references_are_graded_structurally():
    entry = dict(id="TX03-ok", prompt="Weather in Oslo?", tools=TOOLS,
                 grader={"type": "tool_calls", "calls": [{"name": "get_weather"}]},
                 verify={"reference": {"tool_calls": [{"name": "get_weather", "arguments": {}}]},
                         "wrong": ["It is sunny.", {"tool_calls": []}]})
    report = verify_cases([make(entry, "tooluse")])
    assert report.problems == [] and report.references_graded == 3


def test_malformed_reference_is_a_problem():
    entry = dict(id="IX07-shape", prompt="Hi", grader={"type": "contains", "all": ["hi"]},
                 verify={"reference": {"text": "hi"}})
    message = only_problem(verify_cases([make(entry, "instruct")]), "IX07-shape")
    assert "verify.reference" in message and "mapping" in message


def test_duplicate_ids_and_unknown_verify_keys():
    a = make(NUMERIC)
    b = make({**NUMERIC, "verify": {**NUMERIC["verify"], "answer": 42}})
    messages = messages_of(verify_cases([a, b], sandbox=_NoRun()))
    assert any(m.startswith("duplicate id") for m in messages)
    assert any(m.startswith("verify.answer: unknown key") for m in messages)


def test_math_and_logic_answers_need_a_solver():
    entry = {**NUMERIC, "verify": {"reference": "Answer: 42"}}
    message = only_problem(verify_cases([make(entry)]), "MX01-sum")
    assert "without verify.solver" in message


class _NoRun:
    """A stand-in sandbox that runs solvers "successfully", printing the right answer."""

    def run_python(self, code, **kwargs):
        from pytest_crucible.sandbox import RunResult
        return RunResult(0, "42\n", "", False, False, False, 0.0, None)


# ------------------------------------------------------------------ no sandbox, no silent skip

def test_without_a_sandbox_the_report_says_so(monkeypatch):
    import pytest_crucible.sandbox as sandbox_module
    monkeypatch.setattr(sandbox_module, "bwrap_available", lambda: False)
    report = verify_cases([make(NUMERIC), make(CODE, "coding")])
    assert report.sandbox_note and "bwrap" in report.sandbox_note
    assert report.answers_derived == 0 and report.solutions_run == 0
    problems = {p.case_id: p.message for p in report.problems}
    assert set(problems) == {"MX01-sum", "CX01-double"}
    assert all("not verified" in m and "sandbox" in m for m in problems.values())


# ------------------------------------------------------------------ files, progress, summary

def test_verify_paths_reports_a_file_that_does_not_load_and_goes_on(tmp_path):
    folder = tmp_path / "instruct"
    folder.mkdir()
    (folder / "bad.cases.yaml").write_text(
        "cases:\n  - id: IB01-bad\n    difficulty: easy\n    prompt: hi\n    grader: {type: contains, alll: [hi]}\n")
    (folder / "good.cases.yaml").write_text(
        "cases:\n  - id: IG01-good\n    difficulty: easy\n    prompt: hi\n"
        "    grader: {type: contains, all: [hi]}\n    verify: {reference: hi, wrong: [bye]}\n")
    report = verify_paths([tmp_path])
    assert [(p.case_id, p.line) for p in report.problems] == [("IB01-bad", 5)]
    assert "does not load" in report.problems[0].message
    assert report.checked == 2 and report.cases_with_problems == 1
    assert report.summary().startswith("2 cases checked, 1 with problems (")


def test_verify_paths_filters_categories(tmp_path):
    for cat, cid in (("instruct", "IG01-a"), ("agent", "AG91-b")):
        (tmp_path / cat).mkdir()
        (tmp_path / cat / "x.cases.yaml").write_text(
            f"cases:\n  - id: {cid}\n    difficulty: easy\n    prompt: hi\n"
            "    grader: {type: contains, all: [hi]}\n    verify: {reference: hi}\n")
    assert verify_paths([tmp_path], categories=["agent"]).checked == 1


def test_missing_path_is_a_problem(tmp_path):
    report = verify_paths([tmp_path / "nope"])
    assert report.problems and "no such file" in report.problems[0].message


def test_progress_is_called_once_per_case():
    seen = []
    cases = [make(dict(id=f"IP0{i}-p", prompt="hi", grader={"type": "contains", "all": ["hi"]},
                       verify={"reference": "hi"}), "instruct") for i in range(3)]
    verify_cases(cases, progress=lambda done, total, cid: seen.append((done, total, cid)))
    assert [s[:2] for s in seen] == [(1, 3), (2, 3), (3, 3)]
    assert sorted(s[2] for s in seen) == ["IP00-p", "IP01-p", "IP02-p"]


def test_summary_format():
    report = VerifyReport(checked=251, solutions_run=36, answers_derived=35, haystacks_rebuilt=12)
    assert report.summary() == ("251 cases checked, 0 with problems (36 reference solutions executed, "
                                "35 answers re-derived, 12 haystacks rebuilt)")


def test_response_from_builds_tool_calls():
    response = response_from({"content": "ok", "tool_calls": [{"name": "f", "arguments": {"a": 1}}]})
    assert response.content == "ok" and response.tool_calls[0].parsed_arguments() == {"a": 1}
    with pytest.raises(ValueError):
        response_from(42)


# ------------------------------------------------------------------ multi-turn cases (simulation + trace)

AGENT_TOOLS = [{"type": "function", "function": {"name": "read_log", "description": "Read a log.",
                                                 "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}},
               {"type": "function", "function": {"name": "delete_log", "description": "Delete a log.",
                                                 "parameters": {"type": "object", "properties": {}}}}]
READ = {"tool_calls": [{"name": "read_log", "arguments": {"path": "/var/log/app.log"}}]}


def agent(**changes) -> dict:
    entry = dict(
        id="AX01-count", prompt="Count the ERROR lines in /var/log/app.log. Finish with: Errors: <n>",
        tools=AGENT_TOOLS,
        simulation={"tools": {"read_log": [{"arguments": {"path": "/var/log/app.log"}, "result": "ERROR a\nERROR b\nINFO c"}],
                              "delete_log": [{"result": "deleted"}]}},
        grader={"type": "trace", "calls": [{"name": "read_log", "arguments": {"path": "/var/log/app.log"}}],
                "forbidden": ["delete_log"], "answer": {"values": {"Errors:": 2}}},
        verify={"solver": "import json\nprint(json.dumps({'values': {'Errors:': 'ERROR a\\nERROR b\\nINFO c'.count('ERROR')}}))",
                "reference": [READ, "Errors: 2"],
                "wrong": [["I'm sorry, I can't."], [READ, "Errors: 3"], [READ, {"tool_calls": [{"name": "delete_log"}]}, "Errors: 2"]]})
    entry.update(changes)
    return entry


@needs_bwrap
def test_a_multi_turn_case_replays_its_scripts_and_derives_its_answer():
    report = verify_cases([make(agent(), "agent")])
    assert report.problems == []
    assert (report.traces_replayed, report.references_graded, report.answers_derived) == (4, 4, 1)
    assert report.summary().endswith("0 haystacks rebuilt, 4 traces replayed)")


@pytest.mark.parametrize("verify, message", [
    ({"reference": [READ]}, "verify.reference: the loop asked for turn 2, the script has 1; end the script"),
    ({"reference": ["Errors: 2", "Errors: 2"]}, "verify.reference: the loop stopped after turn 1 (answered), "
                                               "the script has 2 turns"),
    ({"reference": [{"tool_calls": [{"name": "read_log", "arguments": {"path": "/var/log/app.log.1"}}]}, READ,
                    "Errors: 2"]},
     'verify.reference: read_log({"path": "/var/log/app.log.1"}) fits no rule of the simulation'),
    ({"reference": [READ, "Errors: 3"]}, "verify.reference fails its own grader: answer gives Errors: 3, expected only 2"),
    ({"reference": [READ, "Errors: 2"], "wrong": [["no"], [READ, "Errors: 2 (2 lines)"]]},
     "verify.wrong[1] passes the grader but must fail"),
    ({"reference": [READ, "Errors: 2"], "wrong": [["no"]]}, "needs at least two wrong scripts"),
])
def test_broken_scripts_are_reported(verify, message):
    report = verify_cases([make(agent(verify={"wrong": [["no"], [READ, "Errors: 5"]], **verify}), "agent")])
    assert any(message in p.message for p in report.problems), [p.message for p in report.problems]


@needs_bwrap
@pytest.mark.parametrize("printed, message", [
    ("{'values': {'Errors:': 3}}", "the grader's answer.values are"),
    ("{'calls': [{'name': 'read_log', 'arguments': {'path': '/var/log/other.log'}}]}",
     "which the grader's calls do not require"),
    ("{'calls': []}", "which the solver does not derive"),
    ("{'count': 2}", "a trace solver prints answer, values, calls, json or state"),
])
def test_a_trace_solver_that_disagrees_is_reported(printed, message):
    case = make(agent(verify={**agent()["verify"], "solver": f"import json\nprint(json.dumps({printed}))"}), "agent")
    report = verify_cases([case])
    assert any(message in p.message for p in report.problems), [p.message for p in report.problems]


# ------------------------------------------------------------------ tool calls: solvers, schemas, accepted replies

WEATHER_TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city.",
                                                 "parameters": {"type": "object", "properties": {
                                                     "city": {"type": "string"},
                                                     "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                                                     "required": ["city"]}}}
CALL = {"name": "get_weather", "arguments": {"city": "Lisbon", "unit": "celsius"}}


def weather(**changes) -> dict:
    entry = dict(id="TX01-weather", prompt="Weather in Lisbon, in celsius?", tools=[WEATHER_TOOL],
                 grader={"type": "tool_calls", "calls": [CALL]},
                 verify={"solver": "import json\nprint(json.dumps({'calls': [%r]}))" % CALL,
                         "reference": {"tool_calls": [CALL]}, "wrong": ["It is sunny."]})
    entry.update(changes)
    return entry


@needs_bwrap
@pytest.mark.parametrize("printed, message", [
    ("[%r]" % CALL, None),
    ("{'calls': [{'name': 'get_weather', 'arguments': {'city': 'Lisbon', 'unit': 'fahrenheit'}}]}",
     "the grader expects {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Lisbon\", \"unit\": \"celsius\"}}, "
     "which the solver does not derive"),
    ("{'calls': [%r, %r]}" % (CALL, CALL), "the solver derives the call"),
    ("{'values': {'x': 1}}", "a tool_calls solver prints calls, not 'values'"),
])
def test_a_tool_calls_solver_is_compared_with_the_expected_calls(printed, message):
    case = make(weather(verify={**weather()["verify"], "solver": f"import json\nprint(json.dumps({printed}))"}),
                "tooluse")
    report = verify_cases([case])
    if message is None:
        assert report.problems == [] and report.answers_derived == 1
    else:
        assert any(message in p.message for p in report.problems), [p.message for p in report.problems]


@needs_bwrap
def test_a_no_call_solver_is_compared_with_the_answer_spec():
    grader = {"type": "tool_calls", "expect_no_call": True, "answer": {"values": {"Total:": 42}}}
    good = make(weather(grader=grader, verify={"solver": "import json\nprint(json.dumps({'values': {'Total:': 6 * 7}}))",
                                               "reference": "Total: 42", "wrong": ["Total: 41"]}), "tooluse")
    assert verify_cases([good]).problems == []
    bad = make(weather(grader=grader, verify={"solver": "print('[{\"name\": \"get_weather\"}]')",
                                              "reference": "Total: 42"}), "tooluse")
    assert "the solver derives calls, but the grader expects none" in only_problem(verify_cases([bad]), "TX01-weather")


def test_a_tool_schema_that_is_not_json_schema_is_a_problem():
    broken = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "dict"}}}
    case = make(weather(tools=[broken], verify={"reference": {"tool_calls": [CALL]}}), "tooluse")
    assert "the parameters of tool get_weather are not a valid JSON schema" in \
        only_problem(verify_cases([case]), "TX01-weather")


def _accepted_cases(rejected: int, total: int) -> list:
    """`total` one-reply cases whose accepted replies pass, except `rejected` of them."""
    good = {"tool_calls": [CALL]}
    bad = {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Lisbon", "unit": "kelvin"}}]}
    return [make(weather(id=f"TX{i:03d}-weather", verify={"accepted": [bad if i < rejected else good],
                                                         "wrong": ["It is sunny."]}), "tooluse")
            for i in range(total)]


def test_accepted_replies_are_judged_together_and_the_rejected_ones_listed():
    report = verify_cases(_accepted_cases(1, 100))
    assert report.problems == [] and report.accepted_graded == 100
    [rejected] = report.rejected
    assert rejected.case_id == "TX000-weather"
    assert rejected.message.endswith(": get_weather.unit: 'kelvin' is not one of ['celsius', 'fahrenheit']")
    assert report.summary().endswith("99 of 100 possible answers accepted (99.00%))")
    report = verify_cases(_accepted_cases(2, 100))
    [problem] = report.problems
    assert problem.message.startswith("2 of 100 possible answers rejected (2.00%; at most 1% may be), e.g. ")
