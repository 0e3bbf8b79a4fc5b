"""Which chat template a launched model is served with, and the exact prompt that template gives it.

llama-cpp-python renders `chatml-function-calling` through a Jinja environment with HTML autoescaping on
(checked up to 0.3.36): the model is shown `&#34;` for `"`, `&gt;` for `>`, `&#39;` for `'`. A launch
with that format therefore runs `python -m pytest_crucible.local.llamacpp_server`, which registers the
same handler again, its code unchanged, with an environment that does not escape. Without a
chat_format the server uses the GGUF's own `tokenizer.chat_template` (Jinja2ChatFormatter, no escaping),
or a built-in format the template matches.

`served_prompt` renders what the server feeds the model for some messages, through llama-cpp-python's
own chat-format lookup and handler, on the GGUF's vocabulary alone (no weights are loaded).
"""

from __future__ import annotations

import types
from pathlib import Path

from pytest_crucible.local.launch_spec import LaunchSpec

# llama-cpp-python chat formats whose template escapes HTML; the launcher serves them unescaped
UNESCAPED_FORMATS = ("chatml-function-calling",)


def unescaped_handler(chat_format: str):
    """llama-cpp-python's handler for `chat_format`, rebuilt from its own code with globals in which
    ImmutableSandboxedEnvironment never autoescapes. The library's module is left as it is."""
    from llama_cpp import llama_chat_format  # lazy: optional (local extra) (the local extra)
    handler = llama_chat_format.get_chat_completion_handler(chat_format)
    sandbox = handler.__globals__["ImmutableSandboxedEnvironment"]

    class VerbatimEnvironment(sandbox):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, "autoescape": False})

    scope = {**handler.__globals__, "ImmutableSandboxedEnvironment": VerbatimEnvironment}
    rebuilt = types.FunctionType(handler.__code__, scope, handler.__name__, handler.__defaults__,
                                 handler.__closure__)
    rebuilt.__kwdefaults__ = handler.__kwdefaults__
    return rebuilt


def parses_tool_calls(spec: LaunchSpec) -> bool:
    """Whether a run can get tool calls from this server. The plugin streams every request and leaves
    tool_choice as the case has it (unset or auto): llama-cpp-python's server then shows the model no
    tools (chatml-function-calling renders them only with a tool_choice), refuses `auto` in a stream once
    the model picks a function, and without a function-calling format returns text. Only a forced call
    works there, and cases do not force calls. A llama-server binary does tool calls (with --jinja)."""
    return spec.server == "binary"


def template_label(spec: LaunchSpec, gguf_path: str | Path | None) -> str:
    """What `crucible status` and the run meta say about the template, e.g.
    "the GGUF's own (tokenizer.chat_template)"."""
    fmt = spec.chat_format
    if spec.server == "binary":
        if fmt == "jinja":
            return "the GGUF's own (llama-server --jinja)"
        return f"{fmt} (llama-server --chat-template)" if fmt else "llama-server's default for the GGUF"
    if fmt:
        return f"{fmt} (llama-cpp-python, HTML escaping off)" if fmt in UNESCAPED_FORMATS else \
            f"{fmt} (llama-cpp-python)"
    from pytest_crucible.local.gguf import gguf_chat_template  # lazy: reads the GGUF only when asked
    template = gguf_chat_template(gguf_path) if gguf_path else None
    if template is None:
        return "llama-2 (llama-cpp-python's fallback: the GGUF has no chat template)"
    try:
        from llama_cpp.llama_chat_format import guess_chat_format_from_gguf_metadata  # lazy: optional (local extra)
        guessed = guess_chat_format_from_gguf_metadata({"tokenizer.chat_template": template})
    except ImportError:
        guessed = None
    if guessed:
        return f"{guessed} (llama-cpp-python's, the GGUF's template matches it)"
    return "the GGUF's own (tokenizer.chat_template)"


class _Prompt(Exception):
    """Raised by the stand-in for the model: the handler got this far, the prompt is rendered."""


def served_prompt(spec: LaunchSpec, gguf_path: str | Path, messages: list[dict], tools=None,
                  tool_choice=None) -> str:
    """The text llama-cpp-python's server, started for `spec`, feeds the model for these messages
    (special tokens written out). Only for `server: python`."""
    if spec.server != "python":
        raise ValueError("served_prompt renders llama-cpp-python's templates only (server: python)")
    from llama_cpp import Llama  # lazy: optional (local extra)
    handler = unescaped_handler(spec.chat_format) if spec.chat_format in UNESCAPED_FORMATS else None
    llama = Llama(model_path=str(gguf_path), vocab_only=True, verbose=False, chat_format=spec.chat_format,
                  chat_handler=handler)

    def model_stand_in(prompt=None, **_):
        raise _Prompt(prompt)

    llama.create_completion = model_stand_in  # the handler renders, tokenizes, then would ask the model
    try:
        llama.create_chat_completion(messages=messages, tools=tools, tool_choice=tool_choice)
    except _Prompt as rendered:
        prompt = rendered.args[0]
    else:
        raise RuntimeError(f"the {spec.chat_format or 'default'} chat handler never asked the model")
    if isinstance(prompt, str):
        return prompt
    return llama.detokenize(prompt, special=True).decode("utf-8")


__all__ = ["UNESCAPED_FORMATS", "parses_tool_calls", "served_prompt", "template_label", "unescaped_handler"]
