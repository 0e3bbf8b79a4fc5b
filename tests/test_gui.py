"""`crucible gui`: the real command on a real port, driven over HTTP and in headless Chromium."""

from __future__ import annotations

import http.cookiejar
import json
import os
import platform
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from polling import wait_for
from synthetic_run import write_run

from pytest_crucible.analysis.report import write_reports
from pytest_crucible.apps.gui import is_loopback, resolve_token
from pytest_crucible.results import runs
from pytest_crucible.results.store import read_rows, run_meta

pytest.importorskip("starlette", reason="crucible gui needs the gui extra")
pytest.importorskip("uvicorn", reason="crucible gui needs the gui extra")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # the 3xx comes back as an HTTPError: its status and headers


class Gui:
    """`crucible gui DIR` in a child process; `url` is the one it printed."""

    def __init__(self, results: Path, *args: str, env: dict | None = None):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pytest_crucible.apps.cli", "gui", str(results), "--port", str(self.port), *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, **(env or {})})
        self.output = [self.proc.stdout.readline()]
        self.url = re.search(r"at (http://\S+)", self.output[0]).group(1)
        self.base = f"http://127.0.0.1:{self.port}"
        assert wait_for(self._listening, timeout=20), "".join(self.output)

    def _listening(self) -> bool:
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", self.port)) == 0

    def get(self, path: str, headers: dict | None = None, method: str = "GET", follow: bool = True):
        """(status, headers, body) of one request; a redirect is followed with the cookies it set (as a
        browser does), unless `follow` is false."""
        request = urllib.request.Request(self.base + path, headers=headers or {}, method=method)
        handlers = [urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())]
        if not follow:
            handlers.append(NoRedirect())
        try:
            with urllib.request.build_opener(*handlers).open(request, timeout=30) as resp:
                return resp.status, resp.headers, resp.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers, exc.read().decode()

    def stop(self) -> str:
        self.proc.terminate()
        rest, _ = self.proc.communicate(timeout=20)
        return "".join(self.output) + rest


@pytest.fixture
def results(tmp_path) -> Path:
    """A results folder with two finished synthetic runs (report.json written) and no `latest`."""
    out = tmp_path / "crucible-results"
    for run_id, seed in (("20250101-100000-base", 1), ("20250102-100000-cand", 2)):
        run_dir = write_run(out, run_id, models=2, cases=56, seed=seed)
        write_reports(run_dir, read_rows(run_dir), json.loads((run_dir / "meta.json").read_text()))
    return out


@pytest.fixture
def gui(results):
    server = Gui(results)
    yield server
    server.stop()


def snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


# -- pieces --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("host, loopback", [("127.0.0.1", True), ("127.0.0.2", True), ("::1", True),
                                            ("[::1]", True), ("localhost", True), ("0.0.0.0", False),
                                            ("::", False), ("192.168.1.20", False), ("myhost.lan", False)])
def test_what_counts_as_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_token_generated_off_loopback_only_unless_given():
    assert resolve_token("127.0.0.1", None) is None
    first, second = resolve_token("0.0.0.0", None), resolve_token("0.0.0.0", None)
    assert len(first) >= 32 and first != second
    assert resolve_token("0.0.0.0", "mine") == "mine" and resolve_token("127.0.0.1", "mine") == "mine"


def test_run_states_and_names(tmp_path, results):
    listed = runs.list_runs(results)
    assert [r.run_id for r in listed] == ["20250102-100000-cand", "20250101-100000-base"]
    base = listed[1]
    assert base.state == "finished" and base.started == "2025-01-01 10:00 UTC" and base.profile == "full"
    rows = read_rows(base.path)
    assert base.counts == {o: sum(r["outcome"] == o for r in rows)
                           for o in ("passed", "failed", "error", "skipped", "measured")}

    live = write_run(results, "20250103-100000-live", models=1, cases=7)
    meta = json.loads((live / "meta.json").read_text())
    (live / "meta.json").write_text(json.dumps({**meta, "pid": os.getpid(), "host": platform.node()}))
    assert runs.run_state(live, run_meta(live)) == "running"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (live / "meta.json").write_text(json.dumps({**meta, "pid": dead.pid, "host": platform.node()}))
    assert runs.run_state(live, run_meta(live)) == "incomplete"

    for name in ("..", ".", "latest", "../crucible-results/20250101-100000-base", "", "nope"):
        assert runs.find_run(results, name) is None
    (results / "alias").symlink_to(base.path)
    assert runs.find_run(results, "alias") is None and "alias" not in [r.run_id for r in runs.list_runs(results)]


def test_new_rows_are_read_whole_lines_only(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"n": 1}\n{"n": 2}\n{"n": 3, "half')
    got = runs.read_new_rows(path, 0)
    assert [r["n"] for _, r in got] == [1, 2] and [o for o, _ in got] == [9, 18]
    assert runs.read_new_rows(path, 18) == []  # the half line waits
    with open(path, "ab") as fh:
        fh.write(b'\n{"n": 4}\n')  # the torn line ends (a resumed run does this) and a row follows
    assert [(o, r["n"]) for o, r in runs.read_new_rows(path, 18)] == [(path.stat().st_size, 4)]
    assert runs.read_new_rows(tmp_path / "missing.jsonl", 0) == []


# -- the server over HTTP ------------------------------------------------------------------------------

def test_read_only_and_only_its_own_runs(gui, results):
    before = snapshot(results)
    status, headers, body = gui.get("/")
    assert status == 200 and "20250101-100000-base" in body
    assert "default-src 'none'" in headers["content-security-policy"]
    for method in ("POST", "PUT", "DELETE"):
        assert gui.get("/", method=method)[0] == 405
    assert gui.get("/runs/nope")[0] == 404
    assert gui.get("/runs/..%2F..%2Fetc")[0] == 404
    assert gui.get("/runs/20250101-100000-base")[0] == 200
    assert gui.get("/", headers={"Host": "attacker.example"})[0] == 400  # DNS rebinding
    assert snapshot(results) == before  # nothing written, not even a report


def test_off_loopback_every_request_needs_the_token(results, monkeypatch):
    monkeypatch.delenv("CRUCIBLE_GUI_TOKEN", raising=False)
    server = Gui(results, "--host", "0.0.0.0")
    try:
        token = re.search(r"\?token=([\w-]+)", server.url).group(1)
        assert len(token) >= 32
        for path in ("/", "/runs/20250101-100000-base", "/runs/20250101-100000-base/events", "/compare"):
            assert server.get(path)[0] == 401, path
            assert server.get(path + "?token=" + token[:-1] + "x")[0] == 401, path
            assert server.get(path, headers={"Authorization": "Bearer wrong"})[0] == 401, path
        status, headers, _ = server.get("/?token=" + token, follow=False)
        assert status == 303 and headers["location"] == "/"  # the token leaves the URL once the cookie has it
        assert server.get("/?token=" + token)[0] == 200
        cookie = headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert server.get("/", headers={"Cookie": cookie.split(";")[0]})[0] == 200
        assert server.get("/", headers={"Authorization": f"Bearer {token}"})[0] == 200
    finally:
        output = server.stop()
    assert output.count(token) == 1  # printed once, in the URL; no access log repeats it


def test_the_token_can_come_from_the_environment_or_the_flag(results):
    env = {"CRUCIBLE_GUI_TOKEN": "a-token-from-the-environment"}
    server = Gui(results, "--host", "0.0.0.0", env=env)
    try:
        assert server.url.endswith("?token=a-token-from-the-environment")
        assert server.get("/")[0] == 401
        assert server.get("/?token=a-token-from-the-environment")[0] == 200
    finally:
        server.stop()
    server = Gui(results, "--token", "the-flag-wins", env=env)  # on loopback too, when one is given
    try:
        assert server.url.endswith("?token=the-flag-wins")
        assert server.get("/?token=a-token-from-the-environment")[0] == 401
        assert server.get("/?token=the-flag-wins")[0] == 200
    finally:
        server.stop()


def test_a_run_folder_opens_at_its_report(results):
    server = Gui(results / "20250101-100000-base")
    try:
        assert server.url == f"http://127.0.0.1:{server.port}/runs/20250101-100000-base"
        assert "20250102-100000-cand" in server.get("/")[2]  # the whole results folder is served
    finally:
        server.stop()


# -- the pages in Chromium -----------------------------------------------------------------------------

def test_pages_in_chromium(gui, results, browser_page, tmp_path):
    page = browser_page.page
    page.goto(gui.url)
    rows = page.locator("#runs tbody tr")
    assert rows.count() == 2 and "finished" in rows.first.inner_text()
    page.screenshot(path=str(tmp_path / "runs.png"))

    rows.nth(1).locator("a").first.click()
    page.wait_for_selector("#chart-categories svg")
    assert page.title() == "pytest-crucible report 20250101-100000-base"
    assert page.locator("header.bar a", has_text="Runs").count() == 1
    page.screenshot(path=str(tmp_path / "report.png"))

    page.goto(gui.url)
    page.select_option("select[name=base]", "20250101-100000-base")
    page.select_option("select[name=new]", "20250102-100000-cand")
    page.click("button[type=submit]")
    assert "the base run has several models" in page.inner_text(".warning")  # two each: which to pair?
    page.fill("input[name=base_model]", "qwen3-32b")
    page.fill("input[name=new_model]", "qwen3-32b")
    page.click("button[type=submit]")
    groups = page.locator("#groups tbody tr")
    assert groups.first.locator("th").inner_text() == "total"
    base = [r for r in read_rows(results / "20250101-100000-base") if r["model"] == "qwen3-32b"]
    new = {r["case_id"]: r for r in read_rows(results / "20250102-100000-cand") if r["model"] == "qwen3-32b"}
    flipped = [r["case_id"] for r in base if r["outcome"] == "passed" and new[r["case_id"]]["outcome"] == "failed"]
    assert flipped and page.inner_text("#pass_to_fail") == f"Worse: pass to fail ({len(flipped)})"
    for case_id in flipped:
        assert page.locator("td", has_text=case_id).count() == 1
    page.screenshot(path=str(tmp_path / "compare.png"), full_page=True)
    assert browser_page.errors == []
    assert all(url.startswith(gui.base) for url in browser_page.requests)


def test_live_view_follows_rows_as_they_are_appended(gui, results, browser_page, tmp_path):
    from playwright.sync_api import expect
    run_dir = write_run(results, "20250104-100000-live", models=1, cases=14, speed=False)
    lines = (run_dir / "rows.jsonl").read_text().splitlines(keepends=True)
    meta = json.loads((run_dir / "meta.json").read_text())
    (run_dir / "meta.json").write_text(json.dumps({**meta, "pid": os.getpid(), "host": platform.node()}))
    (run_dir / "rows.jsonl").write_text("".join(lines[:4]))  # the run is 4 rows in

    page = browser_page.page
    page.goto(f"{gui.url}runs/20250104-100000-live/live")
    rows = page.locator("#rows tbody tr")  # waits poll the DOM: the page's policy forbids eval
    expect(rows).to_have_count(4)
    with open(run_dir / "rows.jsonl", "a") as fh:
        fh.write(lines[4])
        fh.write(lines[5][:20])  # half a line: not shown until it is whole
        fh.flush()
        expect(rows).to_have_count(5)
        fh.write(lines[5][20:] + "".join(lines[6:]))
    expect(rows).to_have_count(14)
    newest = json.loads(lines[-1])
    assert newest["case_id"] in rows.first.inner_text()
    done = [json.loads(line) for line in lines]
    tally = page.locator("#tally tbody tr").first.inner_text().split("\t")
    assert tally[:6] == [newest["model"], "14", *(str(sum(r["outcome"] == o for r in done))
                                                    for o in ("passed", "failed", "error", "skipped"))]
    page.screenshot(path=str(tmp_path / "live.png"))

    write_reports(run_dir, read_rows(run_dir), meta)  # the run ends
    page.wait_for_selector("#status a")
    assert "the run is finished" in page.inner_text("#status")
    assert rows.count() == 14  # no row twice
    assert browser_page.errors == []


def test_runs_are_listed_by_their_start_not_by_folder_mtime(results):
    base, cand = results / "20250101-100000-base", results / "20250102-100000-cand"
    os.utime(base / "rows.jsonl")  # an old run copied or touched now: still listed by when it ran
    assert [r.run_id for r in runs.list_runs(results)] == [cand.name, base.name]
    # meta.json's start time wins over the time in the folder's name
    meta = json.loads((base / "meta.json").read_text())
    (base / "meta.json").write_text(json.dumps({**meta, "started_at": "2025-01-03T08:00:00Z"}))
    listed = runs.list_runs(results)
    assert [r.run_id for r in listed] == [base.name, cand.name] and listed[0].started == "2025-01-03 08:00 UTC"


def test_finished_runs_link_their_answers_and_written_is_the_reports_time(gui, results):
    run_dir = results / "20250101-100000-base"
    status, _, body = gui.get("/")
    assert status == 200
    assert '<a href="/runs/20250101-100000-base#problems">answers</a>' in body
    assert "/runs/20250101-100000-base/live" not in body  # a finished run does not open the live view
    written = json.loads((run_dir / "report.json").read_text())["generated_at"]
    _, _, page = gui.get("/runs/20250101-100000-base")
    assert f"written {written}" in page


def test_the_live_page_has_the_runs_total_for_its_eta(gui, results):
    run_dir = results / "20250101-100000-base"
    meta = json.loads((run_dir / "meta.json").read_text())
    (run_dir / "meta.json").write_text(json.dumps({**meta, "items": {"a": 40, "b": 30}}))
    _, _, page = gui.get("/runs/20250101-100000-base/live")
    assert 'data-total="70"' in page and "ETA" in page


def test_the_compare_pages_speed_table_has_units(gui, results):
    _, _, page = gui.get("/compare?base=20250101-100000-base&new=20250102-100000-cand"
                         "&base_model=qwen3-32b&new_model=qwen3-32b")
    speed = page[page.index('<table id="speed">'):]
    speed = speed[:speed.index("</table>")]
    assert re.search(r"<td class=\"num\">\d+\.\d tok/s</td>", speed)
    assert re.search(r"<td class=\"num\">\d+\.\d{3} s</td>", speed)
