"""One model of a reply's reasoning: where it is, and which part of the text is the answer.

Servers hand reasoning over in two ways. Some put it in a field of its own on every streamed delta
(`reasoning_content`: DeepSeek, vLLM, llama.cpp, LM Studio; `reasoning`: Ollama, OpenRouter, newer vLLM).
Others leave it in the text, between tags: `<think>...</think>` (Qwen, DeepSeek-R1 distills),
`<thinking>...</thinking>` or `<reasoning>...</reasoning>`. Chat templates that pre-fill the opening tag in
the prompt make the reply open *inside* the block: only `</think>` arrives, and everything before it is
reasoning. `split` applies one set of rules to a whole text, so the client (timing the first answer
token) and answer extraction (grading) can never disagree:

- a reply whose first tag is a closing tag opened inside a block: the text before it is reasoning;
- an opening tag starts a block that ends at the matching closing tag; a block that never closes is
  reasoning to the end of the text when nothing but blank text or earlier blocks came before it (the
  model was still thinking when it stopped), and plain text otherwise ("use a <think> tag here");
- inside a block, other tags are text; outside one, a stray closing tag is text;
- tag names are matched without regard to case.

`inside=True` says the reply opened inside a block although no closing tag came (a template known to
pre-fill the tag, and a reply cut off before it closed).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["TAG_NAMES", "REASONING_FIELDS", "Split", "split", "reasoning_of"]

TAG_NAMES = ("think", "thinking", "reasoning")
# delta fields that carry reasoning, in the order they are read
REASONING_FIELDS = ("reasoning_content", "reasoning")
_TAG = re.compile(r"<(/?)(" + "|".join(TAG_NAMES) + r")>", re.I)


@dataclass(frozen=True)
class Split:
    reasoning: str          # the reasoning text, tags removed, parts joined
    answer: str             # the rest, as written (not stripped)
    spans: tuple[tuple[int, int], ...]  # (start, end) of each answer part in the text
    tagged: bool            # the text held reasoning tags (or opened inside a block)
    opened_inside: bool     # the reply began inside a block (a pre-filled opening tag)
    unclosed: bool          # the text ended inside a block


def split(text: str, inside: bool | None = None) -> Split:
    """Reasoning and answer of a whole reply text (see the module docstring)."""
    text = text or ""
    tags = list(_TAG.finditer(text))
    if inside is None:
        inside = bool(tags) and tags[0].group(1) == "/"
    opened_inside = inside
    block: str | None = None  # the name of the open block; "" for one opened before the text began
    if inside:
        block = ""
    reasoning: list[str] = []
    spans: list[tuple[int, int]] = []
    at = 0  # start of the text not yet assigned
    answered = False  # a visible answer character came before `at`
    opened = 0  # blocks opened by a tag
    last_close = {tag.group(2).lower(): i for i, tag in enumerate(tags) if tag.group(1) == "/"}
    for i, tag in enumerate(tags):
        closing, name = tag.group(1) == "/", tag.group(2).lower()
        if block is not None:
            if closing and block in ("", name):
                reasoning.append(text[at:tag.start()])
                at, block = tag.end(), None
            continue
        if closing:
            continue  # a stray closing tag outside a block is text
        preceding = text[at:tag.start()]
        if last_close.get(name, -1) > i or not (answered or preceding.strip()):
            if preceding:
                spans.append((at, tag.start()))
                answered = answered or bool(preceding.strip())
            at, block = tag.end(), name
            opened += 1
    if block is not None:
        reasoning.append(text[at:])
    elif at < len(text):
        spans.append((at, len(text)))
    return Split(reasoning="".join(reasoning), answer="".join(text[s:e] for s, e in spans), spans=tuple(spans),
                 tagged=opened_inside or opened > 0, opened_inside=opened_inside, unclosed=block is not None)


def reasoning_of(delta: Any) -> str:
    """Reasoning text of a streamed delta (an openai object or its JSON mapping): its reasoning fields."""
    out = ""
    for name in REASONING_FIELDS:
        value = delta.get(name) if isinstance(delta, Mapping) else getattr(delta, name, None)
        if isinstance(value, str):
            out += value
    return out
