"""Server-sent events, decoded as the body's bytes arrive, by the WHATWG event-stream rules:
- lines end at CR, LF or CRLF, and a line that is not UTF-8 raises UnicodeDecodeError (a ValueError);
- ``data:`` lines join with newlines, and a blank line dispatches the event: a body that ends without one
  leaves its last event undispatched, and its last line unread when no line end closes it;
- an event without a ``data:`` line is dropped (the openai package hands it on with empty data);
- comments (``:``), ``id:``, ``retry:`` and unknown fields are dropped.

Lines are buffered without a bound here: guard.py's `SSEBudget` counts every line and event before its bytes
reach this decoder and cuts the stream past the request's bound.
"""

from __future__ import annotations

import re

__all__ = ["SSEDecoder"]

_LINE_END = re.compile(rb"\r\n|\r|\n")


class SSEDecoder:
    """``feed(bytes)`` returns the events completed by those bytes, each as ``(event name or None, data)``."""

    def __init__(self) -> None:
        self._rest = b""             # an unfinished line (with a CR kept back: an LF may follow it)
        self._event: str | None = None
        self._data: list[str] = []

    def feed(self, piece: bytes) -> list[tuple[str | None, str]]:
        buffer = self._rest + piece if self._rest else piece
        held = buffer[-1:] == b"\r"
        lines = _LINE_END.split(buffer[:-1] if held else buffer)
        self._rest = lines.pop() + (b"\r" if held else b"")
        return self._events(lines)

    def end(self) -> list[tuple[str | None, str]]:
        """The body ended: a CR kept back ends its line after all. A line no line end closed is dropped."""
        rest, self._rest = self._rest, b""
        return self._events([rest[:-1]]) if rest[-1:] == b"\r" else []

    def _events(self, lines: list[bytes]) -> list[tuple[str | None, str]]:
        events = []
        for raw in lines:
            if not raw:
                if self._data:
                    events.append((self._event, "\n".join(self._data)))
                self._event, self._data = None, []
                continue
            line = raw.decode("utf-8")
            if line[0] == ":":
                continue
            field, _, value = line.partition(":")
            if value[:1] == " ":
                value = value[1:]
            if field == "data":
                self._data.append(value)
            elif field == "event":
                self._event = value
        return events
