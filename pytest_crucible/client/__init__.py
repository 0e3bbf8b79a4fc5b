"""The chat client (layer 1): one request to an OpenAI-compatible endpoint, streamed, retried, kernel-stamped.

    chat.py             ChatClient: builds requests, retries, assembles the stream into a Response
    transport.py        the wire (chat completions over httpx2), swappable through the Transport protocol
    sse.py              the event stream's bytes decoded into events
    wire.py             kernel receive stamps for every chunk
    limits.py           how long a request may take and how much of a reply is kept (from timeout, max_tokens)
    guard.py            those bounds kept on the bytes as they arrive, below the SSE decoder
    compat.py           every use of private parts of httpx2, each behind one function
    stream.py           the pure stream assembler (chunks -> Response)
    retry.py            which failures are retried, and how long to wait
    response.py         Response, ToolCall, Usage: what one request produced
    reasoning_split.py  where a reply's reasoning is, and which part is the answer
    thinking_control.py how a request asks a model to think or not, and what the client learned
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_crucible.client.chat import ChatClient

__all__ = ["ChatClient"]


def __getattr__(name: str) -> Any:
    """ChatClient loaded when first named: a reader of rows (`crucible report`) imports response.py, not
    the HTTP stack behind chat.py."""
    if name == "ChatClient":
        from pytest_crucible.client.chat import ChatClient  # lazy: the HTTP stack, only for a client
        return ChatClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
