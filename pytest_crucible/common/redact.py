"""Keeping credentials out of what the package shows: URLs with a user and password in them, and API keys
a server echoes back.

    redact_url("http://user:pass@host/v1")  -> "http://***@host/v1"
    redact_secret("bad key sk-1 echoed", "sk-1") -> "bad key *** echoed"
    has_url_credentials("http://user:pw@proxy:3128") -> True

Only the user-info part of a URL (``user:pass@``) is treated as a credential; a query string
(``?key=...``) is left as it is.
"""

from __future__ import annotations

import re

__all__ = ["MASK", "redact_url", "redact_secret", "has_url_credentials"]

MASK = "***"
# user-info anywhere in a text: `//` up to `@` with no `/` between
_USER_INFO = re.compile(r"//[^/@]*@")
# a whole value that is a URL with user-info: a scheme, `://`, then a non-empty user-info without blanks
_URL_WITH_USER_INFO = re.compile(r"^[a-z][a-z0-9+.-]*://[^/@\s]+@", re.I)


def redact_url(text: str) -> str:
    """`text` with the user-info of every URL in it (``user:pass@``) replaced by ``***@``."""
    return _USER_INFO.sub(f"//{MASK}@", text)


def redact_secret(text: str, secret: str | None) -> str:
    """`text` with every occurrence of `secret` replaced by ``***`` (unchanged when there is no secret)."""
    return text.replace(secret, MASK) if secret else text


def has_url_credentials(value: str) -> bool:
    """Whether `value` is a URL that carries a user and/or password (``scheme://user:pass@host``)."""
    return _URL_WITH_USER_INFO.match(value) is not None
