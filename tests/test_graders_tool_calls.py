"""tool_calls grader: names, argument values, counts, order, forbidden tools, traps."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pytest_crucible.case import Case
from pytest_crucible.graders import check_spec, grade
from pytest_crucible.response import Response, ToolCall


def run(grader: dict, calls: list[tuple[str, object]] = (), content: str = ""):
    grader = {"type": "tool_calls", **grader}
    assert check_spec(grader) == []
    case = Case(id="t", category="tooluse", difficulty="easy",
                messages=({"role": "user", "content": "Do it."},), grader=grader)
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
