"""json grader: the object found in fences or prose, keys, types, values, extra keys."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_crucible.client.response import Response
from pytest_crucible.grading import check_spec, grade
from pytest_crucible.suite.case import Case


def run(grader: dict, content: str):
    assert check_spec(grader) == []
    case = Case(id="t", category="agent", difficulty="easy",
                messages=({"role": "user", "content": "Report as JSON."},), grader=grader)
    return grade(case, Response(content=content))


REPORT = {"type": "json", "required": {"services": "array", "total_errors": "integer",
                                       "scan_period": "string", "meta.host": "string"}}
GOOD = {"services": [{"name": "nginx", "errors": 2}], "total_errors": 2, "scan_period": "24h",
        "meta": {"host": "web1"}}


@pytest.mark.parametrize("content", [
    json.dumps(GOOD),
    f"Sure! Here is the report:\n```json\n{json.dumps(GOOD, indent=2)}\n```\nLet me know if you need more.",
    f"I scanned the log.\n\n{json.dumps(GOOD)}\n\nI could not read rotated files.",
    f"<think>{{\"draft\": true}}</think>```\n{json.dumps(GOOD)}\n```",
])
def test_json_passes(content):
    g = run(REPORT, content)
    assert g.passed, g.reason
    assert g.details["json"] == GOOD


@pytest.mark.parametrize("data, reason", [
    ({**GOOD, "total_errors": "2"}, 'key "total_errors" is string, expected integer'),
    ({**GOOD, "total_errors": True}, 'key "total_errors" is boolean, expected integer'),
    ({**GOOD, "total_errors": 2.5}, 'key "total_errors" is number, expected integer'),
    ({k: v for k, v in GOOD.items() if k != "scan_period"}, 'missing key "scan_period"'),
    ({**GOOD, "meta": {}}, 'missing key "meta.host"'),
    ({"services": {}, "total_errors": None}, 'key "services" is object, expected array (4 problems)'),
])
def test_json_fails(data, reason):
    g = run(REPORT, f"Report:\n```json\n{json.dumps(data)}\n```")
    assert not g.passed
    assert g.reason == reason


@pytest.mark.parametrize("content, reason", [
    ("I could not produce a report.", "no JSON object in response"),
    ("{'services': [], 'total_errors': 0}",
     "JSON is not valid: Expecting property name enclosed in double quotes (line 1, column 2)"),
    ('```json\n{"services": [1,], "total_errors": 0}\n```',
     "JSON is not valid: Expecting value (line 1, column 17)"),
    ("[1, 2, 3]", "root is array, expected object"),
    ("", "empty response"),
])
def test_json_not_found(content, reason):
    assert run(REPORT, content).reason == reason


def test_json_integral_float_is_an_integer_and_number_accepts_integers():
    spec = {"type": "json", "required": {"n": "integer", "x": "number", "maybe": "string|null",
                                         "either": ["boolean", "array"]}}
    assert run(spec, '{"n": 3.0, "x": 4, "maybe": null, "either": []}').passed
    assert run(spec, '{"n": 3, "x": 4.5, "maybe": "s", "either": false}').passed
    assert run(spec, '{"n": 3, "x": 4, "maybe": 1, "either": 1}').reason == \
        'key "maybe" is integer, expected string or null (2 problems)'


def test_json_exact_values_and_extra_keys():
    spec = {"type": "json", "exact": {"status": "ok", "count": 3, "tags": ["a", "b"]}, "extra_keys": False}
    assert run(spec, '{"status": "ok", "count": 3.0, "tags": ["a", "b"]}').passed
    assert run(spec, '{"status": "OK", "count": 3, "tags": ["a", "b"]}').reason == \
        'key "status" is "OK", expected "ok"'
    assert run(spec, '{"status": "ok", "count": true, "tags": ["a", "b"]}').reason == \
        'key "count" is true, expected 3'
    assert run(spec, '{"status": "ok", "count": 3, "tags": ["a", "b"], "debug": 1}').reason == \
        'unexpected key "debug"'
    nested = {"type": "json", "required": {"a.b": "integer"}, "extra_keys": False}
    assert run(nested, '{"a": {"b": 1, "c": 2}}').reason == 'unexpected key "a.c"'


def test_json_array_root_and_index_paths():
    spec = {"type": "json", "root": "array", "required": {"0.name": "string"}}
    assert run(spec, 'Here: [{"name": "x"}, {"name": "y"}]').passed
    assert run(spec, '{"name": "x"}').reason == "root is object, expected array"


@pytest.mark.parametrize("spec, field", [
    ({"type": "json", "required": {"a": "int"}}, "required.a"),
    ({"type": "json", "required": ["a"]}, "required"),
    ({"type": "json", "root": "list"}, "root"),
    ({"type": "json", "extra_keys": "no"}, "extra_keys"),
    ({"type": "json", "exact": [1]}, "exact"),
])
def test_json_check(spec, field):
    assert field in [f for f, _ in check_spec(spec)]


_keys = st.text(alphabet="abcdefgh_", min_size=1, max_size=6)
_scalars = st.one_of(st.integers(), st.text(max_size=10), st.booleans(), st.none(),
                     st.floats(allow_nan=False, allow_infinity=False))
_TYPE = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}


@given(st.dictionaries(_keys, _scalars, min_size=1, max_size=5),
       st.text(max_size=30).filter(lambda t: "{" not in t))
def test_json_required_types_of_any_object_pass_and_a_wrong_type_fails(data, prose):
    required = {k: _TYPE[type(v)] for k, v in data.items()}
    reply = f"{prose}\n```json\n{json.dumps(data)}\n```"
    assert run({"type": "json", "required": required}, reply).passed
    key = next(iter(data))
    wrong = "array" if required[key] != "array" else "object"
    g = run({"type": "json", "required": {**required, key: wrong}}, reply)
    assert not g.passed and g.reason.startswith(f'key "{key}" is ')
