"""Small JSON-over-HTTP calls for health checks and the LM Studio / Ollama management APIs.

Standard library only: these calls are few, short and not on the benchmark's measured path. Every such
call in the package goes through `request_json`. A token goes to the URL it was meant for and to
redirects on the same origin only: urllib would forward `Authorization` to any host a redirect names.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.parse
import urllib.request

from pytest_crucible.common.redact import redact_base_url

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
_CREDENTIAL_HEADERS = ("authorization", "proxy-authorization", "cookie")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme)


class _CredentialsStayHome(urllib.request.HTTPRedirectHandler):
    """Follow redirects, but a redirect to another origin (scheme, host, port) loses the credentials."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and origin(newurl) != origin(req.full_url):
            for name in list(new.headers):
                if name.lower() in _CREDENTIAL_HEADERS:
                    del new.headers[name]
            for name in list(new.unredirected_hdrs):
                if name.lower() in _CREDENTIAL_HEADERS:
                    del new.unredirected_hdrs[name]
        return new


# Loopback servers are reached directly, whatever HTTP(S)_PROXY says.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}), _CredentialsStayHome)
_VIA_ENV_PROXY = urllib.request.build_opener(_CredentialsStayHome)


def _split_user_info(url: str) -> tuple[str, str | None]:
    """(`url` without `user:password@`, the Basic Authorization header they make, or None)."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    user_info, _, host = parts.netloc.rpartition("@")
    user, _, password = user_info.partition(":")
    pair = f"{urllib.parse.unquote(user)}:{urllib.parse.unquote(password)}".encode()
    return urllib.parse.urlunsplit(parts._replace(netloc=host)), "Basic " + base64.b64encode(pair).decode("ascii")


class HTTPFailure(Exception):
    """A request failed; `status` is None when the server could not be reached at all."""

    def __init__(self, message: str, status: int | None = None, body: str = ""):
        super().__init__(message)
        self.status = status
        self.body = body

    @property
    def unreachable(self) -> bool:
        return self.status is None


def request_json(method: str, url: str, body: dict | None = None, *, timeout: float = 5.0,
                 token: str | None = None):
    """Send a request and return the decoded JSON reply (None for an empty body)."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Accept": "application/json"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    url, basic = _split_user_info(url)
    if basic:  # as the chat client's HTTP stack does with user:password@ in a base URL
        headers["Authorization"] = basic
    shown = redact_base_url(url)
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        host = urllib.parse.urlsplit(url).hostname or ""
        opener = _DIRECT if host in _LOOPBACK else _VIA_ENV_PROXY
        with opener.open(req, timeout=timeout) as resp:
            raw = resp.read()
    except urllib.error.HTTPError as exc:
        text = exc.read().decode("utf-8", "replace")[:500] if exc.fp else ""
        raise HTTPFailure(f"{method} {shown}: HTTP {exc.code} {text}".strip(), status=exc.code,
                          body=text) from None
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        reason = getattr(exc, "reason", exc)
        raise HTTPFailure(f"{method} {shown}: {reason}") from None
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        raise HTTPFailure(f"{method} {shown}: reply is not JSON: {raw[:200]!r}", status=200) from None


def get_json(url: str, *, timeout: float = 5.0, token: str | None = None):
    return request_json("GET", url, timeout=timeout, token=token)


def post_json(url: str, body: dict, *, timeout: float = 60.0, token: str | None = None):
    return request_json("POST", url, body, timeout=timeout, token=token)
