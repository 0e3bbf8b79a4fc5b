"""Odd numbers and shapes in models.yaml, case files and settings: a sentence with file, line, field and
the allowed range, never a traceback, never a cap silently off; hypothesis feeds every field any value."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from pytest_crucible.common.errors import CaseError, ConfigError, InputError
from pytest_crucible.engine.config import ModelSpec, Provider, load_config
from pytest_crucible.engine.options import SETTINGS
from pytest_crucible.suite.case import Case, load_case_file

PROVIDER = "providers:\n  p: {base_url: 'http://127.0.0.1:9/v1'%s}\n"
MODEL = "models:\n  - {name: a, provider: p%s}\n"


def load(tmp_path, text: str, name: str = "models.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return load_config(path)


@pytest.mark.parametrize("field, value, words", [
    ("max_cost_usd", ".nan", "greater than 0 up to 1,000,000 (finite), got nan"),
    ("max_cost_usd", ".inf", "(finite), got inf"),
    ("max_cost_usd", "-1", "greater than 0"),
    ("timeout", ".nan", "positive number of seconds greater than 0"),
    ("timeout", "-.inf", "(finite)"),
    ("concurrency", "99999999999999999999", "whole number from 1 to 1024, got 99999999999999999999"),
    ("max_retries", "1e3", "from 0 to 100"),
])
def test_provider_numbers_are_finite_and_in_range(tmp_path, field, value, words):
    with pytest.raises(ConfigError) as info:
        load(tmp_path, PROVIDER % f", {field}: {value}")
    err = info.value
    assert (err.line, err.field) == (2, f"providers.p.{field}") and words in err.message, str(err)


@pytest.mark.parametrize("field, value, words", [
    ("price", "{input: .inf}", "price.input must be a number of US dollars per million tokens from 0 to"),
    ("price", "{output: .nan}", "(finite), got nan"),
    ("price", "{output: -0.5}", "from 0"),
    ("max_tokens", "1.0e+38", "from 1 to 10,000,000, got 1e+38"),
    ("max_tokens", "1" + "0" * 600, "got an integer of 601 digits"),
    ("reasoning_budget", ".inf", "from 1 to 10,000,000"),
    ("context_length", "2.5", "whole"),
])
def test_model_numbers_are_finite_and_in_range(tmp_path, field, value, words):
    with pytest.raises(ConfigError) as info:
        load(tmp_path, PROVIDER % "" + MODEL % f", {field}: {value}")
    assert info.value.field == f"models[a].{field}" and info.value.line == 4 and words in str(info.value), \
        str(info.value)


@pytest.mark.parametrize("text, words", [
    (PROVIDER % f", timeout: {'9' * 5000}", "a number with 5,000 digits is too long"),
    ("? [a, b]\n: 1\n", "a key must be a plain value"),
    ("providers:\n  ? {x: 1}\n  : {base_url: 'http://h/v1'}\n", "a key must be a plain value"),
    ("1: x\nproviders: {}\n", "unknown top-level key"),
    (PROVIDER % ", 1: x, zz: y", "unknown field"),
    (PROVIDER % "" + "models:\n  - {name: a, provider: [p]}\n", "unknown provider ['p']"),
    (PROVIDER % "" + "models:\n  - {name: \"a\\n\", provider: p}\n", "name must be letters"),
    (PROVIDER % "" + "models:\n  - {name: a, provider: p, model_id: \"m\\n\"}\n", "no spaces or line breaks"),
    ("providers:\n  7: {base_url: 'http://h/v1'}\n", "a provider's name is text"),
    # libyaml parses (yamlio): nesting this deep would crash the process in libyaml's own composer
    ("providers: " + "[" * 100_000, "nested too deeply"),
    ("providers:\n" + "- " * 30_000 + "x\n", "nested too deeply"),
    ("providers: {p: [1, 2\nmodels: 3\n", "did not find expected ',' or ']'"),
])
def test_odd_yaml_is_a_sentence(tmp_path, text, words):
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    assert words in str(info.value) and str(tmp_path) in str(info.value), str(info.value)


def test_the_cost_cap_setting_refuses_nan_and_infinity():
    setting = SETTINGS["max_cost"]
    for raw in ("nan", "inf", "-1", "0"):
        with pytest.raises(InputError, match=r"\$CRUCIBLE_MAX_COST must be a number of US dollars greater than 0"):
            setting.resolve(environ={"CRUCIBLE_MAX_COST": raw})
        with pytest.raises(InputError, match="--crucible-max-cost must be"):
            setting.resolve(float(raw), environ={})
        with pytest.raises(InputError, match="ini key crucible_max_cost"):
            setting.resolve(ini=raw, environ={})
    assert setting.resolve(2.5, environ={}) == 2.5
    with pytest.raises(InputError, match="from 1 to 10,000"):
        SETTINGS["repeats"].resolve(0, environ={})


def test_nan_cost_cap_on_the_command_line_stops_the_run(pytester):
    pytester.makefile(".yaml", models=PROVIDER % "" + MODEL % "")
    result = pytester.runpytest("-p", "no:cacheprovider", "--models=a", "--crucible-no-builtin-cases",
                                "--crucible-max-cost=nan")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--crucible-max-cost must be a number of US dollars greater than 0" in result.stderr.str()


# -- case files ---------------------------------------------------------------------------------------

CASE = "cases:\n  - {id: C1, category: math, difficulty: easy, prompt: q, grader: {type: numeric, answer: 1}%s}\n"


@pytest.mark.parametrize("extra, field, words", [
    (", timeout_s: .nan", "timeout_s", "(finite)"),
    (", timeout_s: .inf", "timeout_s", "(finite)"),
    (", max_tokens: 1.0e+38", "max_tokens", "from 1 to 10,000,000"),
    (", max_tokens: 100000000000", "max_tokens", "from 1 to 10,000,000"),
    (", min_context: -3", "min_context", "from 1"),
])
def test_case_numbers_are_finite_and_in_range(tmp_path, extra, field, words):
    path = tmp_path / "x.cases.yaml"
    path.write_text(CASE % extra)
    with pytest.raises(CaseError) as info:
        load_case_file(path)
    assert (info.value.field, info.value.line) == (field, 2) and words in str(info.value), str(info.value)


def test_a_case_id_with_a_trailing_newline_is_refused(tmp_path):
    path = tmp_path / "x.cases.yaml"
    path.write_text(CASE.replace("id: C1", 'id: "C1\\n"') % "")
    with pytest.raises(CaseError, match="write an id of letters"):
        load_case_file(path)


@pytest.mark.parametrize("source, words", [
    ("CASES = 5\n", "CASES must be a list of case mappings, got int"),
    ("import sys\nsys.exit(3)\n", "importing the file called sys.exit(3)"),
    ("raise KeyError('boom')\n", "importing the file raised KeyError"),
    ("import sys\ndef cases():\n    sys.exit(4)\n", "cases(20261203) raised SystemExit"),
    ("def cases():\n    return 7\n", "cases() must be a list"),
])
def test_a_python_case_file_that_exits_or_raises_is_named(tmp_path, source, words):
    path = tmp_path / "bad_cases.py"
    path.write_text(source)
    with pytest.raises(CaseError) as info:
        load_case_file(path)
    assert words in str(info.value) and str(path) in str(info.value), str(info.value)


@pytest.mark.parametrize("source", ["import sys\nsys.exit(3)\n", "CASES = 5\n"])
def test_cases_list_says_why_and_exits_2(tmp_path, source):
    (tmp_path / "bad_cases.py").write_text(source)
    result = subprocess.run([sys.executable, "-m", "pytest_crucible.apps.cli", "cases", "list", "bad_cases.py"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "bad_cases.py" in result.stderr and "Traceback" not in result.stderr, \
        result.stderr


def test_crucible_status_says_a_config_error_in_a_sentence(tmp_path):
    (tmp_path / "models.yaml").write_text(PROVIDER % f", timeout: {'9' * 5000}")
    result = subprocess.run([sys.executable, "-m", "pytest_crucible.apps.cli", "models"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "too long" in result.stderr and "Traceback" not in result.stderr


# -- hypothesis: any YAML value in any field ---------------------------------------------------------

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
    st.sampled_from(["auto", "p", "http://127.0.0.1:9/v1", "a\n", "$x", "1e38", "math", "easy", "numeric"]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.one_of(st.text(max_size=6), st.integers(0, 9)), inner, max_size=3), max_leaves=8)

PROVIDER_FIELDS = ["base_url", "api_key_env", "concurrency", "timeout", "headers", "extra_body", "max_retries",
                   "max_cost_usd", "other"]
MODEL_FIELDS = ["name", "provider", "model_id", "context_length", "price", "thinking", "params", "tags",
                "model_guard", "max_tokens", "thinking_api", "reasoning_budget", "tools", "other"]
CASE_FIELDS = ["id", "category", "difficulty", "prompt", "system", "messages", "grader", "tools", "tool_choice",
               "max_tokens", "params", "tags", "timeout_s", "min_context", "title", "notes", "family",
               "reasoning_budget", "other"]


def dump(data) -> str:
    return yaml.safe_dump(data, allow_unicode=True)


def fuzz_settings(examples: int):
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@seed(22)
@fuzz_settings(120)
@given(provider_field=st.sampled_from(PROVIDER_FIELDS), provider_value=VALUES,
       model_field=st.sampled_from(MODEL_FIELDS), model_value=VALUES, top=VALUES)
def test_models_yaml_with_any_values_loads_or_says_why(tmp_path, provider_field, provider_value, model_field,
                                                       model_value, top):
    provider = {"base_url": "http://127.0.0.1:9/v1", provider_field: provider_value}
    model = {"name": "a", "provider": "p", model_field: model_value}
    for data in ({"providers": {"p": provider}, "models": [model]}, {"providers": top}, {"models": top}, top):
        path = tmp_path / "models.yaml"
        path.write_text(dump(data))
        try:
            config = load_config(path)
        except ConfigError as exc:
            assert str(path) in str(exc)
            continue
        for p in config.providers.values():
            assert isinstance(p, Provider) and math.isfinite(p.timeout) and 1 <= p.concurrency <= 1024
            assert p.max_cost_usd is None or 0 < p.max_cost_usd < math.inf
        for m in config.models.values():
            assert isinstance(m, ModelSpec) and math.isfinite(m.price_input) and math.isfinite(m.price_output)
            assert m.max_tokens is None or isinstance(m.max_tokens, int)


@seed(22)
@fuzz_settings(150)
@given(field=st.sampled_from(CASE_FIELDS), value=VALUES, level=st.sampled_from(["case", "file"]))
def test_a_case_file_with_any_value_loads_or_says_why(tmp_path, field, value, level):
    case = {"id": "C1", "category": "math", "difficulty": "easy", "prompt": "q",
            "grader": {"type": "numeric", "answer": 1}}
    data = {"cases": [{**case, field: value}]} if level == "case" else {field: value, "cases": [case]}
    path = tmp_path / "x.cases.yaml"
    path.write_text(dump(data))
    try:
        cases = load_case_file(path)
    except CaseError as exc:
        assert str(path) in str(exc)
        return
    assert all(isinstance(c, Case) and 1 <= c.max_tokens <= 10_000_000 for c in cases)
    assert all(c.timeout_s is None or math.isfinite(c.timeout_s) for c in cases)


@seed(22)
@fuzz_settings(60)
@given(entries=VALUES)
def test_a_python_case_file_with_any_cases_loads_or_says_why(tmp_path, entries):
    path = tmp_path / "gen_cases.py"
    path.write_text(f"nan, inf = float('nan'), float('inf')\nCASES = {entries!r}\n")
    try:
        load_case_file(path)
    except CaseError as exc:
        assert str(path) in str(exc)


def test_case_fuzz_reaches_valid_files_too(tmp_path):
    path = tmp_path / "x.cases.yaml"
    path.write_text(textwrap.dedent(CASE % ", timeout_s: 30, max_tokens: 64"))
    (case,) = load_case_file(path)
    assert (case.timeout_s, case.max_tokens) == (30.0, 64)
    assert Path(case.file) == path
