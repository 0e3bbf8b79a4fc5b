"""What a request asks of a reasoning model, and what the client learned about the model's reasoning.

A model's `thinking` (models.yaml) is `true`, `false` or `auto`:

- `false` asks the server not to think, where it can be asked, and gives the answer budget alone;
- `true` asks it to think, with the reasoning budget (`reasoning_budget`, per model or case: the smaller
  of the two when both are set) sent the way the server understands and added to `max_tokens` on top
  of the answer budget;
- `auto` (the default) sends nothing: the server's default. The first reply tells whether the model
  reasons (a reasoning field or tags); from then on a reasoning model gets its reasoning budget added
  to `max_tokens` as with `true`, and one that does not gets the answer budget alone.

How the server is asked is the model's `thinking_api`:

- `chat_template` (vLLM, SGLang, llama.cpp (`--jinja`), LM Studio): false sends
  `chat_template_kwargs: {enable_thinking: false}`, true with budget B sends
  `chat_template_kwargs: {enable_thinking: true, thinking_budget: B}`;
- `reasoning_effort` (OpenAI, Ollama, Groq): false sends `reasoning_effort: none`, true sends
  `reasoning_effort: low / medium / high` (B up to 2048 / 8192 / more);
- `openrouter` (OpenRouter): false sends `reasoning: {enabled: false}`, true sends `reasoning: {max_tokens: B}`;
- `no_think` (Qwen3 soft switch, any server): false puts ` /no_think` after the last user message, true
  puts ` /think` after it;
- `none`: nothing either way (the budget is only added to max_tokens);
- `auto` (default): `chat_template` and `reasoning_effort` together, either way.

With `auto`, a field the server refuses (HTTP 400 naming it) is dropped and not sent again to that
endpoint; with a named api the refusal is an error that says so. No server enforces B exactly: the hard
limit of a request is always `max_tokens` = answer budget + B.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["APIS", "MODES", "Thinking", "RequestPlan", "effort_for"]

MODES = (True, False, "auto")
APIS = ("auto", "chat_template", "reasoning_effort", "openrouter", "no_think", "none")
# the request field each api sets (the soft switch changes the prompt instead)
_FIELDS = {"chat_template": "chat_template_kwargs", "reasoning_effort": "reasoning_effort", "openrouter": "reasoning"}
_AUTO_APIS = ("chat_template", "reasoning_effort")


def effort_for(budget: int | None) -> str | None:
    """OpenAI-style effort for a token budget (None: leave the server's default)."""
    if not budget:
        return None
    return "low" if budget <= 2048 else "medium" if budget <= 8192 else "high"


def _fields(api: str, on: bool, budget: int | None) -> dict:
    if api == "chat_template":
        kwargs: dict[str, Any] = {"enable_thinking": on}
        if on and budget:
            kwargs["thinking_budget"] = budget
        return {"chat_template_kwargs": kwargs}
    if api == "reasoning_effort":
        effort = "none" if not on else effort_for(budget)
        return {"reasoning_effort": effort} if effort else {}
    if api == "openrouter":
        return {"reasoning": {"max_tokens": budget} if on and budget else {"enabled": on}}
    return {}


def _soft_switch(messages: Sequence[Mapping[str, Any]], on: bool) -> list[dict]:
    """The messages with Qwen3's ` /think` or ` /no_think` after the last user message's text."""
    out = [dict(m) for m in messages]
    for m in reversed(out):
        if m.get("role") == "user" and isinstance(m.get("content"), str):
            m["content"] = m["content"].rstrip() + (" /think" if on else " /no_think")
            break
    return out


@dataclass
class RequestPlan:
    messages: list[dict]
    max_tokens: int                 # answer budget + reasoning budget
    fields: dict                    # request fields that ask for (no) thinking
    reasoning_budget: int | None    # the part of max_tokens given to reasoning
    thinking: str                   # "on", "off" or "auto" (nothing asked)


@dataclass
class Thinking:
    """One model's thinking setting and what its replies showed (kept by its client, so per model and
    endpoint within one run's session; nothing in module globals)."""
    mode: bool | str = "auto"
    api: str = "auto"
    detected: bool | None = None    # auto: did the first reply reason?
    form: str | None = None         # how it reasons: "field", "tags" or "prefilled"
    dropped: set = field(default_factory=set)  # apis whose field the server refused (api auto)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"thinking must be true, false or auto, not {self.mode!r}")
        if self.api not in APIS:
            raise ValueError(f"thinking_api must be one of {', '.join(APIS)}, not {self.api!r}")

    @property
    def opens_inside(self) -> bool:
        """The model's template pre-fills the opening tag: a reply cut off before any tag is reasoning."""
        return self.form == "prefilled"

    def plan(self, messages: Sequence[Mapping[str, Any]], max_tokens: int, reasoning_budget: int | None = None,
             *, force_off: bool = False) -> RequestPlan:
        """What to send for one request with answer budget `max_tokens`. `force_off` asks for no thinking
        whatever the mode (`crucible recover --force-answer`)."""
        mode = False if force_off else self.mode
        reasons = mode is True or (mode == "auto" and self.detected is not False)
        budget = reasoning_budget if reasons and reasoning_budget else None
        fields: dict = {}
        sent = [dict(m) for m in messages]
        if mode != "auto":
            for api in self._apis():
                fields.update(_fields(api, bool(mode), budget))
            if self.api == "no_think":
                sent = _soft_switch(sent, bool(mode))
        thinking = "auto" if mode == "auto" else "on" if mode else "off"
        return RequestPlan(sent, max_tokens + (budget or 0), fields, budget, thinking)

    def _apis(self) -> list[str]:
        if self.api == "auto":
            return [api for api in _AUTO_APIS if api not in self.dropped]
        return [self.api]

    def refused(self, message: str) -> bool:
        """A 400 answer's message: when it names a field this setting sent (api auto), drop that field for
        good and return True (the request is sent again without it)."""
        if self.api != "auto":
            return False
        text = message.lower()
        for api in self._apis():
            if _FIELDS[api] in text:
                with self._lock:
                    self.dropped.add(api)
                return True
        return False

    def observe(self, response) -> None:
        """Learn from a reply: whether the model reasons at all (its first reply decides), and how."""
        with self._lock:
            if self.detected is None:
                self.detected = bool(response.reasoning)
            if response.reasoning_form and self.form != "prefilled":
                self.form = response.reasoning_form

    def describe(self) -> dict:
        """For the run's meta.json: the setting and what was learned."""
        return {"mode": self.mode, "api": self.api, "detected": self.detected, "form": self.form,
                "dropped": sorted(self.dropped)}
