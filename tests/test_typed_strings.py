"""Java and JavaScript argument text read back by declared type (BFCL's rules, grading/typed_strings.py)."""

from __future__ import annotations

import pytest

from pytest_crucible.grading.typed_strings import convert, convert_arguments, spec_problem, variables


@pytest.mark.parametrize("text, declared, element, value", [
    ("42", "integer", None, 42), ("-7", "short", None, -7), ("42L", "long", None, 42), ("1.5f", "float", None, 1.5),
    ("2e3", "double", None, 2000.0), ("true", "boolean", None, True), ("abc", "String", None, "abc"),
    ("new int[]{1, 2, 3}", "Array", "integer", [1, 2, 3]),
    ('new String[]{"a", "b,c"}', "Array", "String", ["a", "b,c"]),
    ('new ArrayList<>(Arrays.asList(101L, 202L))', "ArrayList", "long", [101, 202]),
    ("new ArrayList<>() {{ add(1); add(2); }}", "ArrayList", "integer", [1, 2]),
    ("new ArrayList<>()", "ArrayList", None, []),
    ('new HashMap<String, Object>() {{ put("limit", 50); put("on", true); }}', "HashMap", None,
     {"limit": 50, "on": True}),
    ("new HashMap<>()", "HashMap", None, {}),
])
def test_java(text, declared, element, value):
    assert convert(text, declared, element, "java") == value


@pytest.mark.parametrize("text, declared, element, value", [
    ("'hi'", "String", None, "hi"), ("hi", "String", None, "hi"), ("3", "integer", None, 3),
    ("4.5", "float", None, 4.5), ("9n", "Bigint", None, 9), ("false", "Boolean", None, False),
    ("[1, 2]", "array", "integer", [1, 2]), ("['a', 'b']", "array", "String", ["a", "b"]),
    ("new Array(1, 2)", "array", None, [1, 2]), ("[[1, 2], [3]]", "array", None, [[1, 2], [3]]),
    ("{a: 1, b: 'x', c: [1, 2]}", "dict", None, {"a": 1, "b": "x", "c": [1, 2]}), ("{}", "dict", None, {}),
])
def test_javascript(text, declared, element, value):
    assert convert(text, declared, element, "javascript") == value


@pytest.mark.parametrize("text, declared, language", [
    ("42", "long", "java"), ("1.5", "float", "java"), ("yes", "boolean", "java"), ("4.0", "integer", "java"),
    ("42", "Bigint", "javascript"), ("1, 2", "array", "javascript"), ("new int[]", "Array", "java"),
])
def test_text_that_does_not_read_as_its_type_stays_text(text, declared, language):
    assert convert(text, declared, None, language) == text


def test_arguments_of_a_call_and_the_spec():
    spec = {"language": "java", "tools": {"f": {"n": "long", "xs": "ArrayList<String>"}}}
    assert convert_arguments(spec, "f", {"n": "3L", "xs": 'new ArrayList<>(Arrays.asList("a"))', "other": 1}) == (
        {"n": 3, "xs": ["a"], "other": 1}, None)
    problem = convert_arguments(spec, "f", {"n": 3})[1]
    assert problem == "f.n: a java argument is sent as its source text (a string), got int"
    assert spec_problem(spec) is None
    assert spec_problem({"language": "rust"}) is not None
    assert "not a java type" in spec_problem({"language": "java", "tools": {"f": {"n": "Bigint"}}})


@pytest.mark.parametrize("text, declared, language, value", [
    (" 42L", "long", "java", " 42L"), ("true ", "boolean", "java", "true "),
    (" 'hi' ", "String", "javascript", " 'hi' "),
    ("`hi`", "String", "javascript", "`hi`"), ("[`a`]", "array", "javascript", ["`a`"]),
    (" new int[]{1} ", "Array", "java", [1]), (" [1] ", "array", "javascript", [1]),
    (" {a: 1} ", "dict", "javascript", {"a": 1}), (" name ", "dict", "javascript", "name"),
    (" name ", "HashMap", "java", " name "),
])
def test_a_scalar_is_the_whole_text_a_collection_may_have_blanks_and_backticks_are_no_quotes(
        text, declared, language, value):
    # BFCL's converters: scalars by an anchored pattern on the text as sent; Java collections found in it, a
    # JavaScript collection stripped first; only ' and " are quotes (a template literal may interpolate)
    assert convert(text, declared, None, language) == value


def test_text_is_read_as_a_variable_where_bfcl_reads_it_so():
    spec = {"language": "java", "tools": {"f": {"mode": "integer", "n": "integer", "lo": "any", "name": "String"}}}
    converted = {"mode": "ResultSet.TYPE_FORWARD_ONLY", "n": "x", "lo": "20.5", "name": "abc"}
    # text for an integer where a name is listed; text for `any` where a number is listed first
    assert variables(spec, "f", converted, {"mode": "ResultSet.TYPE_FORWARD_ONLY", "n": 3, "lo": 20.5,
                                            "name": "abc"}) == ["mode", "lo"]
    assert variables(spec, "f", {**converted, "mode": 1}, {"mode": "ResultSet.TYPE_FORWARD_ONLY"}) == []
