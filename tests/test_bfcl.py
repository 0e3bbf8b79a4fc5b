"""BFCL imported from the installed `bfcl-eval` package: its single-turn categories (Python, Java, JavaScript,
live) as tooluse cases, graded by the
tool_calls grader against BFCL's possible answers; at least 99% of those answers are accepted and the
rest are listed with the reason; refusals, prose and unlisted values fail."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter

import pytest
from loopback import Reply

from pytest_crucible.common.errors import CaseError
from pytest_crucible.grading import grade
from pytest_crucible.suite.importers import available, bfcl, import_files, load_import
from pytest_crucible.verify import ACCEPTED_SHARE, response_from, verify_cases

# found, never imported: the importer reads the package's data files, not its code (whose own
# dependencies a --no-deps install leaves out)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("bfcl_eval") is None, reason="pip install --no-deps bfcl-eval")


@pytest.fixture(scope="module")
def cases():
    return {c.id: c for c in load_import("bfcl")}


def call(name: str, **arguments) -> dict:
    return {"name": name, "arguments": arguments}


def graded(case, *calls, content: str = ""):
    return grade(case, response_from({"content": content, "tool_calls": list(calls)}))


def test_the_single_turn_categories_from_the_packages_data_files(cases):
    assert "bfcl" in available()
    files = import_files("bfcl")
    assert [f.name for f in files] == [f"BFCL_v4_{stem}.json" for stem in (
        "simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "simple_java", "simple_javascript",
        "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance",
        "live_relevance", "multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
        "multi_turn_long_context")]
    assert all(f.parent == bfcl.package_dir() / "data" for f in files)
    assert Counter(c.family for c in cases.values()) == {
        "BFCL-simple": 400, "BFCL-multiple": 200, "BFCL-parallel": 200, "BFCL-parallel-multiple": 200,
        "BFCL-irrelevance": 240, "BFCL-java": 100, "BFCL-javascript": 50, "BFCL-live-simple": 258,
        "BFCL-live-multiple": 1053, "BFCL-live-parallel": 16, "BFCL-live-parallel-multiple": 24,
        "BFCL-live-irrelevance": 884, "BFCL-live-relevance": 16, "BFCL-multi-turn-base": 200,
        "BFCL-multi-turn-miss-func": 200, "BFCL-multi-turn-miss-param": 200, "BFCL-multi-turn-long-context": 200}
    assert all(c.category == "tooluse" and "bfcl" in c.tags for c in cases.values())
    # reported apart: each BFCL category under bfcl/..., selected with the tooluse marker
    assert all(c.report_category == "bfcl/" + c.family.removeprefix("BFCL-") for c in cases.values())
    assert [c.id for c in load_import("bfcl", files[3])][:2] == ["BFCL-parallel-multiple-0", "BFCL-parallel-multiple-1"]


def test_a_simple_question_becomes_a_tool_and_an_expected_call(cases):
    case = cases["BFCL-simple-0"]
    assert (case.title, case.difficulty, case.line) == ("simple_python_0", "easy", 1)
    assert case.file.endswith("BFCL_v4_simple_python.json")
    assert case.messages == ({"role": "user", "content": "Find the area of a triangle with a base of 10 units "
                                                         "and height of 5 units."},)
    [tool] = case.tools
    assert tool["function"]["name"] == "calculate_triangle_area"
    assert tool["function"]["parameters"]["type"] == "object"  # BFCL writes "dict"
    assert case.grader == {"type": "tool_calls", "order": "any", "allow_extra": False, "arguments_match": "exact",
                           "strings": "loose", "schema": "listed_values_pass",
                           "calls": [call("calculate_triangle_area", base=10, height=5, unit={"optional": ["units"]})]}
    assert case.verify["accepted"] == [{"tool_calls": [call("calculate_triangle_area", base=10, height=5, unit="units")]},
                                       {"tool_calls": [call("calculate_triangle_area", base=10, height=5)]}]


def test_python_type_names_and_dotted_names_are_translated(cases):
    assert cases["BFCL-simple-1"].tools[0]["function"]["name"] == "math_factorial"  # math.factorial
    coords = cases["BFCL-simple-83"].tools[0]["function"]["parameters"]["properties"]["coord1"]
    assert coords["type"] == "array" and coords["items"] == {"type": "number"}  # tuple of float
    data = cases["BFCL-simple-109"].tools[0]["function"]["parameters"]["properties"]["data"]
    assert "type" not in data  # any
    optional = cases["BFCL-simple-182"].tools[0]["function"]["parameters"]["properties"]["year"]
    assert "optional" not in optional and optional["type"] == "integer"


@pytest.mark.parametrize("calls, content", [
    ([call("calculate_triangle_area", base=10, height=5)], ""),
    ([call("calculate_triangle_area", height=5, base=10, unit="Units")], "Let me compute that."),
])
def test_model_like_replies_pass(cases, calls, content):
    result = graded(cases["BFCL-simple-0"], *calls, content=content)
    assert result.passed, result.reason


@pytest.mark.parametrize("calls, reason", [
    ([], "0 calls, expected 1 (answered in text instead)"),
    ([call("calculate_triangle_area", base=5, height=10)], "calculate_triangle_area.base = 5, expected 10"),
    ([call("calculate_triangle_area", base=10, height=5, unit="cm")],
     'calculate_triangle_area.unit = "cm", expected "units" (or left out)'),
    ([call("calculate_triangle_area", base=10, height=5, precision=2)],
     "calculate_triangle_area.precision: not an argument of calculate_triangle_area (it takes base, height, unit)"),
    ([call("calculate_triangle_area", base="10", height=5)], "calculate_triangle_area.base: '10' is not of type 'integer'"),
    # integers are integers, as BFCL's checker has them
    ([call("calculate_triangle_area", base=10, height=5.0)], "calculate_triangle_area.height: 5.0 is not of type 'integer'"),
    ([call("calculate_triangle_area", base=10, height=5)] * 2, "2 calls, expected 1"),
])
def test_wrong_calls_fail_with_a_reason(cases, calls, reason):
    result = graded(cases["BFCL-simple-0"], *calls, content="The area is 25." if not calls else "")
    assert (result.passed, result.reason) == (False, reason)


def test_parallel_calls_in_any_order_with_loose_strings(cases):
    case = cases["BFCL-parallel-0"]  # Taylor Swift 20 minutes, Maroon 5 15 minutes
    assert graded(case, call("spotify_play", artist="maroon 5", duration=15),
                  call("spotify_play", artist="Taylor-Swift", duration=20)).passed
    one = graded(case, call("spotify_play", artist="Taylor Swift", duration=20))
    assert one.reason == "1 calls, expected 2"
    swapped = graded(case, call("spotify_play", artist="Taylor Swift", duration=15),
                     call("spotify_play", artist="Maroon 5", duration=20))
    assert not swapped.passed and "duration" in swapped.reason


def test_irrelevance_passes_a_reply_without_a_call(cases):
    case = cases["BFCL-irrelevance-0"]  # a triangle's area, with only a body-mass-index function
    assert case.grader == {"type": "tool_calls", "expect_no_call": True, "allow_empty": True}
    assert graded(case, content="I have no function for triangle areas; it is 25 square metres.").passed
    assert graded(case, content="").passed  # BFCL's rule: no call decoded is all an irrelevance item asks
    result = graded(case, call("determine_body_mass_index", weight=10, height=5))
    assert result.reason == "called determine_body_mass_index (expected no tool call)"


def test_verify_accepts_at_least_99_percent_of_the_possible_answers_and_lists_the_rest(cases):
    report = verify_cases([c for c in cases.values() if not c.simulation])  # multi-turn: test_bfcl_multi_turn.py
    assert report.problems == [], "\n".join(map(str, report.problems[:20]))
    assert report.accepted_graded >= 3500  # every listed value of every argument, and parallel calls reversed
    share = 1 - len(report.rejected) / report.accepted_graded
    assert share >= ACCEPTED_SHARE
    assert report.references_graded == 9779  # the wrong replies, all of which fail
    by_reason = Counter(p.message.rsplit(": ", 1)[-1].split(" ")[-1] for p in report.rejected)
    assert all(p.message.startswith("verify.accepted[") for p in report.rejected)
    # an enum value in another case passes: BFCL's rule for strings ('bronze' for the enum's 'Bronze')
    assert not any("'bronze' is not one of" in p.message for p in report.rejected), by_reason
    # what BFCL lists but the function's own schema refuses passes (BFCL's answer key wins): a value outside
    # the enum; an argument the function lacks is no possible answer (BFCL's checker refuses it too)
    assert not any("'ft' is not one of ['meter', 'feet']" in p.message for p in report.rejected), by_reason
    assert not any("not an argument of" in p.message for p in report.rejected), by_reason
    # where BFCL's checker can pass no reply (a required argument listed only as "", an undeclared one), none
    assert [c.id for c in cases.values() if c.grader.get("calls") and not c.verify["accepted"]] == [
        "BFCL-live-multiple-507-149-4", "BFCL-live-multiple-862-181-3", "BFCL-live-multiple-964-207-0"]
    assert all("type" not in c["arguments"] for r in cases["BFCL-parallel-multiple-26"].verify["accepted"]
               for c in r["tool_calls"] if c["name"] == "bank_calculate_balance")
    # leaving out a required argument BFCL lists as "" is no possible answer: BFCL's checker fails it first
    assert all("formatted" in r["tool_calls"][0]["arguments"] for r in cases["BFCL-simple-17"].verify["accepted"])
    print(f"\nBFCL: {report.summary()}")


def test_a_missing_package_names_what_to_install(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "bfcl_eval" else real(name, *a))
    with pytest.raises(CaseError, match=r"pip install --no-deps bfcl-eval"):
        load_import("bfcl")


def test_the_cli_lists_the_rejected_answers(tmp_path, capsys):
    from pytest_crucible.apps.cli import main

    empty = tmp_path / "none"
    empty.mkdir()
    code = main(["cases", "verify", str(empty), "--import", "bfcl"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    rejected = [line for line in out if line.startswith("rejected possible answer: ")]
    assert all("BFCL-" in line and "verify.accepted[" in line for line in rejected)
    assert out[-1].startswith("4441 cases checked, 0 with problems (") and "possible answers accepted (" in out[-1]


def test_pytest_collects_every_category_and_grades_the_calls(pytester, loopback):
    pytester.makefile(".yaml", models=f"providers:\n  loop: {{base_url: {loopback.base_url}, max_retries: 1}}\n"
                                     "models:\n  - {name: m1, provider: loop}\n")
    args = ["-p", "no:cacheprovider", "--models", "m1", "--crucible-no-builtin-cases", "--crucible-import", "bfcl"]
    result = pytester.runpytest(*args, "--collect-only", "-q")
    assert sum("::BFCL-" in line for line in result.outlines) == 4441
    right = json.dumps({"base": 10, "height": 5})
    loopback.script(handler=lambda body: Reply(tool_calls=[{"name": "calculate_triangle_area", "arguments": right}])
                    if "triangle with a base of 10" in body["messages"][-1]["content"]
                    else Reply("I cannot do that with these functions."))
    result = pytester.runpytest(*args, "-k", "BFCL-simple-0[ or BFCL-simple-1[ or BFCL-irrelevance-0[")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*_ BFCL-simple-1[[]m1] _*", "0 calls, expected 1 (answered in text instead)"])


# ------------------------------------------------------------------- Java, JavaScript and the live categories

def test_java_arguments_are_source_text_read_by_their_declared_type(cases):
    case = cases["BFCL-java-1"]  # SQL proposals for 'Customers', short names, params limit 50 and schema public
    params = case.tools[0]["function"]["parameters"]["properties"]
    assert {p["type"] for p in params.values()} == {"string"}  # BFCL's way: every argument as text
    assert params["useShortName"]["description"].endswith("This is Java boolean type parameter in string representation.")
    assert case.grader["string_types"] == {"language": "java", "tools": {
        "SQLCompletionAnalyzer_makeProposalsFromObject": {"object": "any", "useShortName": "boolean", "params": "HashMap"}}}
    name = "SQLCompletionAnalyzer_makeProposalsFromObject"
    right = graded(case, call(name, object="Customers", useShortName="true",
                              params='new HashMap<String, Object>() {{ put("limit", 50); put("schemaFilter", "public"); }}'))
    assert right.passed, right.reason
    typed = graded(case, call(name, object="Customers", useShortName=True, params="new HashMap<>()"))
    assert (typed.passed, typed.reason) == (False, f"{name}.useShortName: True is not of type 'string'")
    wrong_type = graded(case, call(name, object="Customers", useShortName="yes",
                                   params='new HashMap<String, Object>() {{ put("limit", 50); put("schemaFilter", "public"); }}'))
    assert not wrong_type.passed and "useShortName" in wrong_type.reason


def test_java_long_needs_its_suffix(cases):
    case = next(c for c in cases.values() if c.family == "BFCL-java" and "long" in
                c.grader["string_types"]["tools"][c.tools[0]["function"]["name"]].values())
    [reply] = case.verify["accepted"][:1]
    assert graded(case, *reply["tool_calls"]).passed
    types = case.grader["string_types"]["tools"][reply["tool_calls"][0]["name"]]
    arg = next(a for a, t in types.items() if t == "long" and a in reply["tool_calls"][0]["arguments"])
    text = reply["tool_calls"][0]["arguments"][arg]
    assert text.endswith("L")
    unsuffixed = {**reply["tool_calls"][0], "arguments": {**reply["tool_calls"][0]["arguments"], arg: text[:-1]}}
    assert not graded(case, unsuffixed).passed  # "42" is no Java long: it stays text, which equals no number


def test_java_text_for_a_typed_argument_is_a_variable_compared_as_written(cases):
    case = cases["BFCL-java-26"]  # prepareCall("CALL totalSales(?)", ResultSet.TYPE_SCROLL_INSENSITIVE, ...)
    [reply] = case.verify["accepted"]
    [right] = reply["tool_calls"]
    assert graded(case, right).passed
    # sql is a String: compared under BFCL's standardisation; resultSetType is an integer that BFCL lists as
    # the name of a constant, which its checker compares exactly (case and blanks count)
    assert graded(case, {**right, "arguments": {**right["arguments"], "sql": "call totalsales(?)"}}).passed
    for text in ("RESULTSET.TYPE_SCROLL_INSENSITIVE", " ResultSet.TYPE_SCROLL_INSENSITIVE"):
        wrong = graded(case, {**right, "arguments": {**right["arguments"], "resultSetType": text}})
        assert (wrong.passed, wrong.reason) == (
            False, f"ProxyConnection_prepareCall.resultSetType = {json.dumps(text)}: read as a variable, which must "
                   'be "ResultSet.TYPE_SCROLL_INSENSITIVE" as written')


def test_javascript_arrays_and_strings(cases):
    case = cases["BFCL-javascript-2"]
    args = {"filepath": "'/var/log/db.log'", "status": "['completed', 'failed']", "encoding": "utf-8",
            "processFunction": "processFunction"}
    assert graded(case, call("extractLastTransactionId", **args)).passed
    wrong = graded(case, call("extractLastTransactionId", **{**args, "status": "completed, failed"}))
    assert not wrong.passed and "status" in wrong.reason  # not an array literal: text, which equals no list


def test_live_simple_right_and_wrong_typed(cases):
    case = cases["BFCL-live-simple-0-0-0"]  # user 7890, special request black
    assert case.title == "live_simple_0-0-0"
    assert graded(case, call("get_user_info", user_id=7890, special="Black")).passed
    wrong = graded(case, call("get_user_info", user_id="7890", special="black"))
    assert (wrong.passed, wrong.reason) == (False, "get_user_info.user_id: '7890' is not of type 'integer'")


def test_live_relevance_passes_any_call_and_fails_none(cases):
    case = cases["BFCL-live-relevance-2-2-0"]
    assert case.grader == {"type": "tool_calls", "expect_call": True, "strings": "loose"}
    assert graded(case, call("search_web", query="digital painting of a masked woman")).passed
    assert graded(case, content="I would search the web for that.").reason == "no tool called"
    wrong = graded(case, call("search_web", query="x", results_limit="ten"))
    assert not wrong.passed and "results_limit" in wrong.reason


def test_live_irrelevance_and_null_defaults(cases):
    case = cases["BFCL-live-irrelevance-0-0-0"]
    assert graded(case, content="No function here looks coordinates up.").passed
    assert not graded(case, call("requests_get", url="https://example.com")).passed
    # a parameter whose default is null takes null (live answers list it), and nothing else of another type
    nullable = [c for c in cases.values() if c.family == "BFCL-live-multiple"
                and any(isinstance(p.get("type"), list) for t in c.tools
                        for p in t["function"]["parameters"].get("properties", {}).values())]
    assert nullable


# ------------------------------------------------------------------- BFCL's answer key against its own schemas

def test_a_listed_value_the_schema_refuses_passes_and_no_other(cases):
    case = cases["BFCL-parallel-multiple-194"]  # the answer key lists "ft" where the enum is ["meter", "feet"]
    rest = [c for c in case.verify["accepted"][0]["tool_calls"] if c["name"] != "building_get_dimensions"]
    ft = call("building_get_dimensions", building_name="Empire State Building", unit="ft")
    assert graded(case, *rest, ft).passed
    yards = graded(case, *rest, call("building_get_dimensions", building_name="Empire State Building", unit="yd"))
    assert (yards.passed, yards.reason) == (False, "building_get_dimensions.unit: 'yd' is not one of ['meter', 'feet']")


def test_a_listed_value_of_another_type_is_a_variable_compared_as_written(cases):
    case = cases["BFCL-parallel-multiple-21"]  # x and y are arrays; the answer key lists the text data['sales']
    calls = {c["name"]: c for c in case.verify["accepted"][0]["tool_calls"]}
    fit = calls["linear_regression_fit"]
    assert fit["arguments"]["x"] == "data['sales']"
    assert graded(case, *calls.values()).passed
    shouted = {**fit, "arguments": {**fit["arguments"], "x": "DATA['SALES']"}}
    result = graded(case, *[shouted if c is fit else c for c in calls.values()])
    assert (result.passed, result.reason) == (False,
                                              "linear_regression_fit.x: \"DATA['SALES']\" is not of type 'array'")


def test_a_whole_float_for_a_listed_integer_still_fails(cases):
    case = cases["BFCL-live-multiple-595-158-1"]  # number_of_rooms: a string enum; the answer key lists 2
    args = {"location": "New York, NY", "star_rating": "3", "smoking_allowed": True}
    assert graded(case, call("Hotels_4_SearchHotel", **args, number_of_rooms=2)).passed
    assert not graded(case, call("Hotels_4_SearchHotel", **args, number_of_rooms=2.0)).passed
    assert not graded(case, call("Hotels_4_SearchHotel", **args, number_of_rooms=3)).passed


def test_an_enum_of_another_type_takes_its_values_as_the_type_reads_them(cases):
    case = cases["BFCL-live-relevance-8-8-0"]  # number_of_tickets: an integer whose enum is ["1", ..., "9"]
    args = {"event_name": "Mamma Mia", "date": "2023-04-30", "city": "New York, NY"}
    assert graded(case, call("Events_3_BuyEventTickets", **args, number_of_tickets="2")).passed
    assert graded(case, call("Events_3_BuyEventTickets", **args, number_of_tickets=2)).passed
    assert not graded(case, call("Events_3_BuyEventTickets", **args, number_of_tickets=12)).passed
