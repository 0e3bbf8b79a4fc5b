"""`crucible gui` details: any loopback address it binds, tokens with any characters (kept in a cookie, then
dropped from the URL), odd Last-Event-IDs, and scripts allowed by hash, never 'unsafe-inline'."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import re
import socket
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

import pytest
from synthetic_run import write_run

pytest.importorskip("starlette", reason="crucible gui needs the gui extra")
pytest.importorskip("uvicorn", reason="crucible gui needs the gui extra")

from pytest_crucible.apps.gui import build_app  # noqa: E402  (after the skip: starlette is optional)
from pytest_crucible.results.store import ROWS_FILE  # noqa: E402

RUN = "20250101-100000-base"


@pytest.fixture
def results(tmp_path) -> Path:
    out = tmp_path / "crucible-results"
    run_dir = write_run(out, RUN, models=2, cases=10, seed=1)
    os.utime(run_dir / ROWS_FILE, (1e9, 1e9))  # a run that ended long ago: its event stream ends at once
    return out


def call(app, path: str, headers: dict | None = None, host: str = "127.0.0.1:8777"):
    """(status, headers, body) of one GET through the ASGI app, no server needed."""
    raw_path, _, query = path.partition("?")
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": raw_path, "raw_path": raw_path.encode(), "query_string": query.encode(), "root_path": "",
             "server": ("127.0.0.1", 8777), "client": ("127.0.0.1", 5000),
             "headers": [(b"host", host.encode())] + [(k.lower().encode(), v.encode())
                                                      for k, v in (headers or {}).items()]}
    sent: list[dict] = []
    received: list[bool] = []

    async def receive():
        if not received:
            received.append(True)
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the client stays connected until the response ends

    async def send(message):
        sent.append(message)

    # a thread of its own: a playwright test on the same xdist worker leaves an event loop running in this one
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, app(scope, receive, send)).result()
    start = next(m for m in sent if m["type"] == "http.response.start")
    got = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], got, body.decode()


def test_bound_to_another_loopback_address_its_own_host_is_accepted(results):
    app = build_app(results, loopback=True, host="127.0.0.2")
    assert call(app, "/", host="127.0.0.2:8777")[0] == 200
    assert call(app, "/", host="localhost:8777")[0] == 200
    assert call(app, "/", host="attacker.example")[0] == 400  # DNS rebinding is still refused


def test_crucible_gui_host_127_0_0_2_answers(results):
    from test_gui import Gui

    class GuiAt(Gui):
        def _listening(self) -> bool:
            with socket.socket() as sock:
                return sock.connect_ex(("127.0.0.2", self.port)) == 0

    try:
        server = GuiAt(results, "--host", "127.0.0.2")
    except AssertionError:
        pytest.skip("127.0.0.2 cannot be bound here")
    try:
        server.base = f"http://127.0.0.2:{server.port}"
        assert server.url == f"http://127.0.0.2:{server.port}/"  # no token on loopback
        assert server.get("/")[0] == 200
    finally:
        server.stop()


TOKEN = 'a b+c/=%&;"é,x'


def test_a_token_with_special_characters_works_through_the_cookie(results):
    app = build_app(results, token=TOKEN, loopback=False)
    status, headers, _ = call(app, f"/runs/{RUN}?x=1&token={quote(TOKEN, safe='')}")
    assert status == 303 and headers["location"] == f"/runs/{RUN}?x=1"  # the token leaves the URL
    cookie = headers["set-cookie"].split(";")[0]
    assert "HttpOnly" in headers["set-cookie"] and TOKEN not in cookie
    assert call(app, f"/runs/{RUN}?x=1", {"cookie": cookie})[0] == 200
    assert call(app, f"/runs/{RUN}/events", {"cookie": cookie})[0] == 200  # the live view's stream
    assert call(app, "/", {"cookie": cookie[:-2] + "zz"})[0] == 401
    assert call(app, "/", {"cookie": f"crucible_gui_token={TOKEN}"})[0] == 401  # only the token it set


@pytest.mark.parametrize("last_id", ["-5", "garbage", "99999999999999999999", "9" * 5000, ""])
def test_an_odd_last_event_id_starts_over_or_ends(results, last_id):
    app = build_app(results)
    status, _, body = call(app, f"/runs/{RUN}/events", {"last-event-id": last_id})
    assert status == 200 and "event: finished" in body
    rows = (results / RUN / ROWS_FILE).read_bytes().count(b"\n")
    assert body.count("event: row") == rows  # every row, from the start


def test_scripts_run_by_hash_not_unsafe_inline(results):
    app = build_app(results)
    for path in ("/", f"/runs/{RUN}", f"/runs/{RUN}/live"):
        status, headers, body = call(app, path)
        policy = headers["content-security-policy"]
        script_src = re.search(r"script-src ([^;]*)", policy).group(1)
        assert status == 200 and "unsafe-inline" not in script_src and "unsafe-eval" not in script_src
        for script in re.findall(r"<script>(.*?)</script>", body, re.DOTALL):  # every inline script is allowed
            digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
            assert f"'sha256-{digest}'" in script_src, path
    live = call(app, f"/runs/{RUN}/live")[2]
    assert f'data-run="{RUN}"' in live and "{{" not in live


def test_the_run_list_events_carry_json(results):
    app = build_app(results)
    body = call(app, f"/runs/{RUN}/events")[2]
    rows = [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: {") and "model" in line]
    assert rows and all(r["case"] for r in rows)
