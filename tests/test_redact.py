"""common/redact.py: credentials kept out of URLs and messages, known inputs to known outputs."""

from __future__ import annotations

import pytest

from pytest_crucible.client.chat import ChatClient
from pytest_crucible.common.redact import has_url_credentials, redact_secret, redact_url


@pytest.mark.parametrize(("url", "shown"), [
    ("http://user:pass@host/v1", "http://***@host/v1"),
    ("https://token@api.example.com:8443/v1", "https://***@api.example.com:8443/v1"),
    ("http://@host/v1", "http://***@host/v1"),
    ("endpoint http://u:p@a/v1 and https://v:q@b/v1 failed", "endpoint http://***@a/v1 and https://***@b/v1 failed"),
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
    ("http://host/v1/users/me@example", "http://host/v1/users/me@example"),  # an @ in the path is no user-info
    # only user-info is a credential: a key in the query string is shown as it is
    ("http://host/v1?key=abc123", "http://host/v1?key=abc123"),
    ("", ""),
])
def test_redact_url(url, shown):
    assert redact_url(url) == shown


@pytest.mark.parametrize(("text", "secret", "shown"), [
    ("bad key sk-1 echoed: sk-1", "sk-1", "bad key *** echoed: ***"),
    ("nothing to hide", "sk-1", "nothing to hide"),
    ("no key set", None, "no key set"),
    ("an empty key hides nothing", "", "an empty key hides nothing"),
])
def test_redact_secret(text, secret, shown):
    assert redact_secret(text, secret) == shown


@pytest.mark.parametrize(("value", "has"), [
    ("http://user:pw@proxy:3128", True),
    ("socks5h://u@proxy", True),
    ("HTTPS://U:P@HOST", True),
    ("http://proxy:3128", False),
    ("http://@proxy", False),            # no user-info in it
    ("see http://u:p@host", False),      # not a URL value: only whole values are checked
    ("http://u p@host", False),
    ("user@example.com", False),
])
def test_has_url_credentials(value, has):
    assert has_url_credentials(value) is has


def test_the_client_shows_its_url_without_credentials():
    client = ChatClient("http://user:pass@127.0.0.1:9/v1", "sk-SECRET", model_id="m")
    try:
        assert repr(client) == "ChatClient(base_url='http://***@127.0.0.1:9/v1', model_id='m', api_key=set)"
        assert client.transport.redact("echoed sk-SECRET") == "echoed ***"
    finally:
        client.close()
