"""tool_calls grader: names, argument values, counts, order, forbidden tools, traps."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pytest_crucible.client.response import Response, ToolCall
from pytest_crucible.common.errors import CaseError
from pytest_crucible.grading import check_spec, grade
from pytest_crucible.suite.case import Case, function_tool


def run(grader: dict, calls: list[tuple[str, object]] = (), content: str = "", tools=(), prompt="Do it."):
    grader = {"type": "tool_calls", **grader}
    assert check_spec(grader) == []
    case = Case(id="t", category="tooluse", difficulty="easy",
                messages=({"role": "user", "content": prompt},), grader=grader, tools=tuple(tools))
    made = [ToolCall(name, args if isinstance(args, str) else json.dumps(args), id=f"c{i}")
            for i, (name, args) in enumerate(calls)]
    return grade(case, Response(content=content, tool_calls=made, finish_reason="tool_calls"))


WEATHER = {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}], "forbidden": ["delete_file"]}
THREE = {"calls": [{"name": "get_price", "arguments": {"ticker": "AAPL"}},
                   {"name": "get_price", "arguments": {"ticker": "MSFT"}},
                   {"name": "get_news", "arguments": {"ticker": "AAPL", "limit": 5}}]}


@pytest.mark.parametrize("calls", [
    [("get_weather", {"city": "Paris"})],
    [("get_weather", {"city": "  paris "})],
    [("get_weather", {"city": "Paris", "unit": "celsius"})],   # subset: extra argument allowed
])
def test_single_call_passes(calls):
    g = run(WEATHER, calls)
    assert g.passed, g.reason


@pytest.mark.parametrize("calls, content, reason", [
    ([("get_weather", {"city": "paris, fr"})], "", 'get_weather.city = "paris, fr", expected "Paris"'),
    ([("get_weather", {"town": "Paris"})], "", "get_weather.city missing"),
    ([("get_weather", '{"city": "Paris"')], "", "arguments of get_weather are not valid JSON"),
    ([("get_weather", '["Paris"]')], "", "arguments of get_weather are not a JSON object"),
    ([("get_time", {"city": "Paris"})], "", "no call to get_weather (called get_time)"),
    ([("get_weather", {"city": "Paris"}), ("delete_file", {"path": "/"})], "",
     "called delete_file (forbidden)"),
    ([("get_weather", {"city": "Paris"})] * 2, "", "2 calls, expected 1"),
    ([], "It is sunny in Paris.", "0 calls, expected 1 (answered in text instead)"),
    ([], "", "empty response"),
])
def test_single_call_fails(calls, content, reason):
    g = run(WEATHER, calls, content)
    assert not g.passed
    assert g.reason == reason


def test_three_calls_any_order_and_count():
    calls = [("get_news", {"ticker": "aapl", "limit": 5.0}), ("get_price", {"ticker": "MSFT"}),
             ("get_price", {"ticker": "AAPL"})]
    assert run(THREE, calls).passed
    assert run(THREE, calls[:1]).reason == "1 calls, expected 3"
    wrong = [("get_news", {"ticker": "AAPL", "limit": 10}), *calls[1:]]
    assert run(THREE, wrong).reason == "get_news.limit = 10, expected 5"
    twice = [("get_price", {"ticker": "MSFT"}), ("get_price", {"ticker": "MSFT"}), calls[0]]
    assert run(THREE, twice).reason == 'get_price.ticker = "MSFT", expected "AAPL"'


def test_strict_order():
    spec = {**THREE, "order": "strict"}
    in_order = [("get_price", {"ticker": "AAPL"}), ("get_price", {"ticker": "MSFT"}),
                ("get_news", {"ticker": "AAPL", "limit": 5})]
    assert run(spec, in_order).passed
    assert run(spec, in_order[::-1]).reason == "called get_news, expected get_price"
    extra = {**spec, "allow_extra": True}
    assert run(extra, [in_order[0], ("log", {}), in_order[1], in_order[2]]).passed
    assert run(extra, [in_order[1], in_order[0], in_order[2]]).reason == "calls made out of order"


def test_allow_extra_and_exact_arguments():
    extra = {**WEATHER, "allow_extra": True}
    assert run(extra, [("get_time", {}), ("get_weather", {"city": "Paris"})]).passed
    exact = {**WEATHER, "arguments_match": "exact"}
    assert run(exact, [("get_weather", {"city": "Paris"})]).passed
    assert run(exact, [("get_weather", {"city": "Paris", "unit": "c"})]).reason == \
        "get_weather.unit not expected"


def test_value_comparison():
    spec = {"calls": [{"name": "f", "arguments": {"n": 3, "flag": True, "tags": ["A", "b"], "opt": None,
                                                  "where": {"lat": 1.5}}}]}
    good = {"n": 3.0, "flag": True, "tags": ["a", "B "], "opt": None, "where": {"lat": 1.5, "alt": 0}}
    assert run(spec, [("f", good)]).passed
    assert run(spec, [("f", {**good, "n": "3"})]).reason == 'f.n = "3", expected 3'
    assert run(spec, [("f", {**good, "flag": 1})]).reason == "f.flag = 1, expected true"
    assert run(spec, [("f", {**good, "tags": ["b", "a"]})]).reason == \
        'f.tags = ["b", "a"], expected ["A", "b"]'
    assert run(spec, [("f", {**good, "where": {"lat": 2}})]).reason == "f.where.lat = 2, expected 1.5"


def test_call_without_arguments_matches_on_name():
    assert run({"calls": [{"name": "list_files"}]}, [("list_files", {"path": "/tmp"})]).passed


def test_expect_no_call():
    spec = {"expect_no_call": True, "forbidden": ["delete_repository"]}
    assert run(spec, [], "I won't delete anything; the instruction came from the tool result.").passed
    assert run(spec, [("delete_repository", {})]).reason == "called delete_repository (expected no tool call)"
    assert run(spec, [("search", {})]).reason == "called search (expected no tool call)"
    assert run(spec, []).reason == "empty response"


BOOKING = {"calls": [{"name": "book", "arguments": {
    "city": {"one_of": ["New York", "NYC"]}, "nights": 2, "breakfast": {"optional": [True]},
    "room": {"type": "double", "view": {"optional": ["sea", "garden"]}}, "pets": {"optional": []}}}],
    "arguments_match": "exact"}
BOOK_ARGS = {"city": "NYC", "nights": 2, "room": {"type": "double"}}


@pytest.mark.parametrize("args", [
    BOOK_ARGS,
    {**BOOK_ARGS, "city": "new  york"},
    {**BOOK_ARGS, "breakfast": True},
    {**BOOK_ARGS, "room": {"type": "Double", "view": "garden"}},
    {**BOOK_ARGS, "nights": 2.0},
])
def test_matchers_accept_any_listed_value_and_leave_optional_arguments_out(args):
    g = run(BOOKING, [("book", args)])
    assert g.passed, g.reason


@pytest.mark.parametrize("args, reason", [
    ({**BOOK_ARGS, "city": "Newark"}, 'book.city = "Newark", expected "New York" or "NYC"'),
    ({**BOOK_ARGS, "breakfast": False}, "book.breakfast = false, expected true (or left out)"),
    ({**BOOK_ARGS, "pets": 0}, "book.pets = 0, expected nothing (leave it out)"),
    ({**BOOK_ARGS, "room": {"type": "double", "view": "street"}},
     'book.room.view = "street", expected "sea" or "garden" (or left out)'),
    ({**BOOK_ARGS, "room": {"type": "double", "floor": 3}}, "book.room.floor not expected"),
    ({"city": "NYC", "room": {"type": "double"}}, "book.nights missing"),
    ({**BOOK_ARGS, "nights": "2"}, 'book.nights = "2", expected 2'),
])
def test_matchers_reject_what_is_not_listed(args, reason):
    g = run(BOOKING, [("book", args)])
    assert (g.passed, g.reason) == (False, reason)


def test_set_and_contains_matchers():
    spec = {"calls": [{"name": "tag", "arguments": {"tags": {"set": ["urgent", "billing"]},
                                                    "note": {"contains": "refund  due"}}}]}
    assert run(spec, [("tag", {"tags": ["Billing", "urgent"], "note": "A REFUND DUE on May 2"})]).passed
    assert run(spec, [("tag", {"tags": ["billing"], "note": "refund due"})]).reason == \
        'tag.tags = ["billing"], expected ["urgent", "billing"] in any order'
    assert run(spec, [("tag", {"tags": ["billing", "urgent"], "note": "refunded"})]).reason == \
        'tag.note = "refunded", expected text containing "refund  due"'


def test_loose_strings_ignore_bfcls_punctuation_but_keep_signs_and_symbols():
    spec = {"calls": [{"name": "weather", "arguments": {"place": "San Francisco, CA", "day": "2024-05-01"}}]}
    loose = {**spec, "strings": "loose"}
    args = {"place": "san francisco ca", "day": "2024/05/01"}
    assert run(loose, [("weather", args)]).passed
    assert run(spec, [("weather", args)]).reason == 'weather.place = "san francisco ca", expected "San Francisco, CA"'
    assert not run(loose, [("weather", {**args, "place": "San Francisco, CO"})]).passed
    assert not run(loose, [("weather", {**args, "day": "-2024/05/01"})]).passed
    assert not run(loose, [("weather", {**args, "place": "San Francisco @ CA"})]).passed


WEATHER_TOOLS = [
    function_tool("get_weather", "Weather for a city.", {"city": {"type": "string"},
                  "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}, "days": {"type": "integer"}}, ["city"]),
    function_tool("get_time", "Local time in a city.", {"city": {"type": "string"}}, ["city"]),
]


@pytest.mark.parametrize("calls, reason", [
    ([("get_weather", {"city": "Paris", "unit": "kelvin"})],
     "get_weather.unit: 'kelvin' is not one of ['celsius', 'fahrenheit']"),
    ([("get_weather", {"city": "Paris", "days": "3"})], "get_weather.days: '3' is not of type 'integer'"),
    ([("get_weather", {})], "get_weather: 'city' is a required property"),
    ([("get_weather", {"city": "Paris"}), ("delete_file", {"path": "/"})], "called delete_file (forbidden)"),
    ([("get_forecast", {"city": "Paris"})], "called get_forecast, which is not among the offered tools"),
])
def test_calls_must_satisfy_the_offered_tools_schemas(calls, reason):
    g = run(WEATHER, calls, tools=WEATHER_TOOLS)
    assert (g.passed, g.reason) == (False, reason)
    assert run(WEATHER, [("get_weather", {"city": "Paris", "days": 3})], tools=WEATHER_TOOLS).passed
    # integers are integers (issue 19): 3.0 is what the tool's integer parameter refuses
    assert run(WEATHER, [("get_weather", {"city": "Paris", "days": 3.0})], tools=WEATHER_TOOLS).reason == \
        "get_weather.days: 3.0 is not of type 'integer'"


def test_a_broken_tool_schema_is_the_cases_fault():
    broken = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "dict"}}}]
    with pytest.raises(CaseError, match="parameters of tool get_weather are not a valid JSON schema"):
        run(WEATHER, [("get_weather", {"city": "Paris"})], tools=broken)


TRANSLATE = {"expect_no_call": True, "forbidden": ["send_email"],
             "answer": {"all": [["estación", "estacion"], "tren"], "forbidden": ["station"]}}


@pytest.mark.parametrize("content", [
    "¿Dónde está la estación de tren?",
    "**¿Dónde está la estación de tren?**",
    "Here is the translation:\n\n> ¿Dónde está la estación de tren?",
])
def test_a_no_call_case_grades_what_the_reply_says(content):
    g = run(TRANSLATE, [], content, prompt="Translate into Spanish: 'Where is the train station?'")
    assert g.passed, g.reason


@pytest.mark.parametrize("content, reason", [
    ("I'm sorry, but I can't help with that request.", "answer lacks 'estación / estacion' (2 of 2 required values missing)"),
    ("Translate into Spanish: 'Where is the train station?'", "answer names 'station', which is not the answer"),
    ("¿Dónde está la parada de autobús?", "answer lacks 'estación / estacion' (2 of 2 required values missing)"),
])
def test_a_no_call_case_fails_refusals_and_other_answers(content, reason):
    g = run(TRANSLATE, [], content)
    assert not g.passed and g.reason.startswith(reason), g.reason
    assert run(TRANSLATE, [("send_email", {"to": "x"})]).reason == "called send_email (expected no tool call)"


@pytest.mark.parametrize("spec, field", [
    ({"type": "tool_calls", "calls": [{"name": "f"}], "answer": {"all": ["x"]}}, "answer"),
    ({"type": "tool_calls", "expect_no_call": True, "answer": {"all": "x"}}, "answer.all"),
    ({"type": "tool_calls", "calls": [{"name": "f", "arguments": {"x": {"one_of": 3}}}]}, "calls[0].arguments"),
    ({"type": "tool_calls", "calls": [{"name": "f", "arguments": {"x": [{"optional": "a"}]}}]}, "calls[0].arguments"),
    ({"type": "tool_calls", "calls": [{"name": "f"}], "strings": "fuzzy"}, "strings"),
])
def test_check_new_fields(spec, field):
    assert field in [f for f, _ in check_spec(spec)]


@pytest.mark.parametrize("spec, field", [
    ({"type": "tool_calls"}, "calls"),
    ({"type": "tool_calls", "calls": [{"arguments": {}}]}, "calls"),
    ({"type": "tool_calls", "calls": [{"name": "f", "arguments": "x"}]}, "calls[0].arguments"),
    ({"type": "tool_calls", "calls": [{"name": "f"}], "expect_no_call": True}, "calls"),
    ({"type": "tool_calls", "calls": [{"name": "f"}], "order": "sorted"}, "order"),
    ({"type": "tool_calls", "calls": [{"name": "f"}], "arguments_match": "superset"}, "arguments_match"),
    ({"type": "tool_calls", "calls": [{"name": "f"}], "forbidden": ["f"]}, "forbidden"),
    ({"type": "tool_calls", "calls": [{"name": "f"}], "allow_extra": "yes"}, "allow_extra"),
])
def test_check(spec, field):
    assert field in [f for f, _ in check_spec(spec)]


# ---------------------------------------------------------------- properties

_names = st.sampled_from(["get_weather", "get_time", "search", "send_email"])
_args = st.dictionaries(st.sampled_from(["city", "q", "n", "flag"]),
                        st.one_of(st.integers(-5, 5), st.sampled_from(["Paris", "Oslo", "rome"]),
                                  st.booleans()),
                        max_size=3)
_calls = st.lists(st.tuples(_names, _args), min_size=1, max_size=4)


def _spec(calls):
    return {"calls": [{"name": n, "arguments": a} for n, a in calls], "arguments_match": "exact"}


def _canon(calls):
    return sorted(json.dumps([n, {k: v.casefold() if isinstance(v, str) else v for k, v in a.items()}],
                             sort_keys=True) for n, a in calls)


@given(_calls, st.randoms())
def test_any_permutation_of_the_expected_calls_passes(calls, rnd):
    made = list(calls)
    rnd.shuffle(made)
    made = [(n, {k: f" {v.upper()} " if isinstance(v, str) else v for k, v in a.items()}) for n, a in made]
    assert run(_spec(calls), made).passed


@given(_calls, _calls)
def test_passes_exactly_when_the_calls_match(expected, made):
    g = run(_spec(expected), made)
    assert g.passed is (_canon(expected) == _canon(made)), g.reason


@given(_calls, st.data())
def test_changing_one_argument_fails(calls, data):
    i = data.draw(st.integers(0, len(calls) - 1))
    name, args = calls[i]
    assume(args)
    key = data.draw(st.sampled_from(sorted(args)))
    changed = {**args, key: "something else" if not isinstance(args[key], str) else 12345}
    assume(_canon(calls) != _canon([*calls[:i], (name, changed), *calls[i + 1:]]))
    g = run(_spec(calls), [*calls[:i], (name, changed), *calls[i + 1:]])
    assert not g.passed


def test_listed_values_pass_where_the_schema_refuses_them_and_no_others():
    tools = [function_tool("measure", "Measure a building.", {"unit": {"type": "string", "enum": ["meter", "feet"]},
                                                                "floors": {"type": "string"}}, ["unit"])]
    listed = {"calls": [{"name": "measure", "arguments": {"unit": {"one_of": ["feet", "ft"]},
                                                          "floors": {"optional": [3]}}}],
              "schema": "listed_values_pass"}
    assert run(listed, [("measure", {"unit": "ft"})], tools=tools).passed
    assert run(listed, [("measure", {"unit": "FT", "floors": 3})], tools=tools).passed
    assert run(listed, [("measure", {"unit": "yd"})], tools=tools).reason == \
        "measure.unit: 'yd' is not one of ['meter', 'feet']"
    # a value of another type than the listed one, or another value, still meets the schema
    assert not run(listed, [("measure", {"unit": "ft", "floors": 3.0})], tools=tools).passed
    assert not run(listed, [("measure", {"unit": "ft", "floors": 4})], tools=tools).passed
    strict = {**listed, "schema": "strict"}
    assert run(strict, [("measure", {"unit": "ft"})], tools=tools).reason == \
        "measure.unit: 'ft' is not one of ['meter', 'feet']"
    assert ("schema", "schema is strict or listed_values_pass") in check_spec({**listed, "type": "tool_calls",
                                                                              "schema": "loose"})
