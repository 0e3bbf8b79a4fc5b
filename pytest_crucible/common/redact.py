"""Keeping credentials out of what the package shows: URLs with a user and password in them, and API keys
a server echoes back.

    redact_url("http://user:pass@host/v1")  -> "http://***@host/v1"
    redact_secret("bad key sk-1 echoed", "sk-1") -> "bad key *** echoed"
    has_url_credentials("http://user:pw@proxy:3128") -> True

`redact_url` treats only the user-info part of a URL (``user:pass@``) as a credential; a base URL as the
package prints it (`redact_base_url`) also hides the value of a query parameter named like a key
(``?key=...``, ``?api_key=...``, ``?token=...``), and `url_secrets` lists both for redacting replies.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

__all__ = ["MASK", "redact_url", "redact_base_url", "redact_secret", "has_url_credentials", "url_secrets"]

MASK = "***"
# user-info anywhere in a text: `//` up to `@` with no `/` between
_USER_INFO = re.compile(r"//[^/@]*@")
# a whole value that is a URL with user-info: a scheme, `://`, then a non-empty user-info without blanks
_URL_WITH_USER_INFO = re.compile(r"^[a-z][a-z0-9+.-]*://[^/@\s]+@", re.I)
_KEY_PARAM = r"(?:key|api[-_]?key|token|access[-_]?token|auth|secret|password|sig|signature)"
# `?key=VALUE` / `&api_key=VALUE` in a text: the name kept, the value hidden
_SECRET_QUERY = re.compile(rf"([?&]{_KEY_PARAM}=)[^&#\s'\"]*", re.I)


def redact_url(text: str) -> str:
    """`text` with the user-info of every URL in it (``user:pass@``) replaced by ``***@``."""
    return _USER_INFO.sub(f"//{MASK}@", text)


def redact_secret(text: str, secret: str | None) -> str:
    """`text` with every occurrence of `secret` replaced by ``***`` (unchanged when there is no secret)."""
    return text.replace(secret, MASK) if secret else text


def has_url_credentials(value: str) -> bool:
    """Whether `value` is a URL that carries a user and/or password (``scheme://user:pass@host``)."""
    return _URL_WITH_USER_INFO.match(value) is not None


def redact_base_url(url: str) -> str:
    """A base URL as it may be printed: no user-info, no value of a key-like query parameter."""
    return _SECRET_QUERY.sub(rf"\g<1>{MASK}", redact_url(url))


def url_secrets(url: str) -> list[str]:
    """The credentials a URL carries (user-info password, key-like query values), as written and as
    decoded, longest first: what must not come back in a reply or an error message."""
    try:
        parts = urlsplit(url)
        found = [parts.password or ""]
    except ValueError:  # a port that is not a number: nothing can be read from it
        return []
    for pair in parts.query.split("&"):
        name, _, value = pair.partition("=")
        if re.fullmatch(_KEY_PARAM, unquote(name), re.I):
            found.append(value)
    found += [unquote(v) for v in found]
    return sorted({v for v in found if len(v) >= 4}, key=len, reverse=True)  # short ones would mask words
