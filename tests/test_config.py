"""models.yaml parsing: every error names the file, the line and the field."""

import textwrap

import pytest

from pytest_crucible.common.errors import ConfigError
from pytest_crucible.engine.config import find_config_path, load_config


def write(tmp_path, text, name="models.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


GOOD = """\
    providers:
      local:
        base_url: http://127.0.0.1:1234/v1/
        concurrency: 2
      hosted:
        base_url: https://api.example.com/v1
        api_key_env: EXAMPLE_KEY
        headers: {X-Title: crucible}
    models:
      - name: small
        provider: local
        context_length: 8192
        params: {temperature: 0}
      - name: big
        provider: hosted
        model_id: vendor/big-1
        price: {input: 0.5, output: 1.5}
        thinking: true
    profiles:
      mine: {categories: [math], max_per_category: 2}
"""


def test_good_config_round_trip(tmp_path, monkeypatch):
    cfg = load_config(write(tmp_path, GOOD))
    assert cfg.providers["local"].base_url == "http://127.0.0.1:1234/v1"
    small, big = cfg.select("small,big")
    assert small.model_id == "small" and small.context_length == 8192
    assert big.model_id == "vendor/big-1" and big.thinking is True
    assert big.cost(1_000_000, 2_000_000) == pytest.approx(0.5 + 3.0)
    monkeypatch.delenv("EXAMPLE_KEY", raising=False)
    assert big.provider.api_key() is None and "not set" in big.provider.key_state()
    monkeypatch.setenv("EXAMPLE_KEY", "secret-value")
    assert big.provider.api_key() == "secret-value" and big.provider.key_state() == "key set"
    assert cfg.profile("mine") == {"categories": ["math"], "max_per_category": 2}
    assert [m.name for m in cfg.select("all")] == ["small", "big"]


def test_unknown_model_lists_known(tmp_path):
    cfg = load_config(write(tmp_path, GOOD))
    with pytest.raises(ConfigError, match=r"unknown model 'nope'; known models: small, big"):
        cfg.select("small,nope")


@pytest.mark.parametrize("snippet, line, field, message", [
    ("providers:\n  p:\n    base_url: http://x/v1\n    api_key: sk-abc\nmodels: []\n", 4, "providers.p.api_key",
     "API keys never go in models.yaml"),
    ("providers:\n  p:\n    base_url: http://x/v1\n    api_key_env: sk-proj-abcdefghijklmnopqrstuvwxyz0123456789\n",
     4, "providers.p.api_key_env", "literal API key"),
    ("providers:\n  p:\n    base_url: http://x/v1\n    headers: {Authorization: Bearer abc}\n", 4,
     "providers.p.headers", "secret"),
    ("providers:\n  p: {base_url: ftp://x}\n", 2, "providers.p.base_url", "http"),
    ("providers:\n  p: {base_url: 'http://x/v1'}\nmodels:\n  - name: a\n    provider: q\n", 5,
     "models[a].provider", "unknown provider 'q'"),
    ("providers:\n  p: {base_url: 'http://x/v1'}\nmodels:\n  - name: a\n    provider: p\n    context_length: -3\n", 6,
     "models[a].context_length", "positive"),
    ("providers:\n  p: {base_url: 'http://x/v1'}\nmodels:\n  - name: a\n    provider: p\n    colour: red\n", 6,
     "models[a].colour", "unknown field"),
    ("providers:\n  p: {base_url: 'http://x/v1'}\nmodels:\n  - {name: a, provider: p}\n  - {name: a, provider: p}\n",
     5, "models[a].name", "defined twice"),
    ("models:\n  - name: a\n    provider: p\n    price: {input: cheap}\n", 3, "models[a].provider", "unknown provider"),
    ("providers: {}\nmodles: []\n", 2, "modles", "unknown top-level key"),
    ("providers:\n  p: {base_url: 'http://x/v1'}\nmodels:\n  - name: a\n    provider: p\n    thinking_api: deepseek\n",
     6, "models[a].thinking_api", "thinking_api must be one of auto, chat_template"),
    ("providers:\n  p: {base_url: 'http://x/v1'}\nmodels:\n  - name: a\n    provider: p\n    reasoning_budget: 0\n",
     6, "models[a].reasoning_budget", "reasoning_budget must be a positive number"),
    ("providers:\n  p: [1, 2\n", 3, None, "invalid YAML"),
])
def test_errors_name_file_line_field(tmp_path, snippet, line, field, message):
    path = write(tmp_path, snippet)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    err = info.value
    assert err.file == str(path)
    assert err.line == line, str(err)
    assert err.field == field
    assert message in str(err)
    assert str(err).startswith(f"{path}:{line}")


def test_config_lookup_order(tmp_path, monkeypatch):
    explicit = write(tmp_path, GOOD, "explicit.yaml")
    env = write(tmp_path, GOOD, "env.yaml")
    local_dir = tmp_path / "work"
    local_dir.mkdir()
    local = write(local_dir, GOOD)
    monkeypatch.setenv("CRUCIBLE_CONFIG", str(env))
    assert find_config_path(explicit, cwd=local_dir) == explicit
    assert find_config_path(None, cwd=local_dir) == env
    monkeypatch.delenv("CRUCIBLE_CONFIG")
    assert find_config_path(None, cwd=local_dir) == local
    monkeypatch.setattr("pytest_crucible.engine.config.default_config_dir", lambda: tmp_path / "nowhere")
    assert find_config_path(None, cwd=tmp_path / "nothing-here") is None


def test_missing_file_says_how_to_create(tmp_path):
    with pytest.raises(ConfigError, match="crucible init"):
        load_config(tmp_path / "absent.yaml")


def test_model_max_tokens_caps_every_case(tmp_path, loopback):
    from pytest_crucible.client.chat import ChatClient
    from pytest_crucible.engine.item_runner import run_case
    from pytest_crucible.suite.case import build_case
    cfg = load_config(write(tmp_path, f"""\
        providers:
          loop: {{base_url: "{loopback.base_url}"}}
        models:
          - {{name: small, provider: loop, max_tokens: 256}}
          - {{name: big, provider: loop}}
        """))
    case = build_case({"id": "M1", "category": "math", "difficulty": "easy", "prompt": "1+1?",
                       "max_tokens": 4096, "grader": {"type": "numeric", "answer": 2}}, tmp_path / "x.cases.yaml")
    for name, expected in (("small", 256), ("big", 4096)):
        model = cfg.select(name)[0]
        with ChatClient(loopback.base_url, model_id=model.model_id) as client:
            row = run_case(case, model, client)
        assert row.params["max_tokens"] == expected
        assert loopback.chat_requests[-1].body["max_tokens"] == expected


def test_model_max_tokens_must_be_positive(tmp_path):
    path = write(tmp_path, "providers:\n  p: {base_url: 'http://x/v1'}\nmodels:\n  - {name: a, provider: p, max_tokens: 0}\n")
    with pytest.raises(ConfigError, match="max_tokens must be a positive"):
        load_config(path)


def test_model_params_that_would_change_the_request_are_refused(tmp_path):
    path = write(tmp_path, "providers:\n  p: {base_url: 'http://x/v1'}\nmodels:\n"
                           "  - name: a\n    provider: p\n    params: {temperature: 0, n: 4}\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value) == (f"{path}:6: field 'models[a].params': params may not set n: one item is one "
                              "answer; use --crucible-repeats N to ask several times")
