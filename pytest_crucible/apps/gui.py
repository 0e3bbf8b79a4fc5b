"""`crucible gui`: a read-only web view of a results folder (starlette, served by uvicorn).

Pages: the run list, a run's report (report.html, rebuilt from its rows so a run in progress has one
too), a live view that follows rows.jsonl as rows are appended (server-sent events), and a comparison
of two runs. Only GET and HEAD are answered; nothing is written and no run is started.

Bound to a loopback address it answers only requests whose Host is a loopback name (no DNS
rebinding). Bound anywhere else it needs a token (generated unless given), printed once in the URL and
checked on every request in constant time: the `token` query parameter (answered with a redirect to
the same URL without it, setting a cookie), that cookie, or `Authorization: Bearer`. The access log is
off, so the token is not written anywhere.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import os
import secrets
import socket
import threading
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, parse_qsl, quote, unquote, urlencode

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, StreamingResponse
from starlette.routing import Route

from pytest_crucible.analysis.compare import compare_runs, load_run
from pytest_crucible.analysis.json_shapes import Comparison
from pytest_crucible.analysis.report import aggregate
from pytest_crucible.analysis.report_html import page_policy, render_html, templates
from pytest_crucible.analysis.report_rows import ReportRows, collector_paused
from pytest_crucible.common.errors import InputError
from pytest_crucible.results import runs
from pytest_crucible.results.store import ROWS_FILE, run_meta

COOKIE = "crucible_gui_token"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")
POLL_S = 0.5           # how often the live view looks for new rows
KEEPALIVE_S = 15.0     # an SSE comment this often keeps proxies from closing a quiet stream
REPORT_CACHE = 8       # rendered reports kept per server
SECURITY_HEADERS = {"x-content-type-options": "nosniff", "referrer-policy": "no-referrer", "cache-control": "no-store"}


def gui_policy() -> str:
    """The report page's policy (scripts by hash only), plus what the live view and the forms need."""
    return f"{page_policy()}; connect-src 'self'; form-action 'self'; frame-ancestors 'none'"


def is_loopback(host: str) -> bool:
    """Whether binding to `host` keeps the server to this machine (names other than localhost count as
    not: what they resolve to can change)."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class TokenGate:
    """ASGI middleware: 401 unless the request carries the token (compared in constant time)."""

    def __init__(self, app, token: str):
        self.app = app
        self.token = token.encode()

    def _given(self, scope) -> tuple[str | None, bool]:
        """(the token the request carries, whether it came in the query string)."""
        query = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
        if query:
            return query[0], True
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            return auth[7:].strip(), False
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:  # a malformed cookie header is no token
            return None, False
        # the cookie holds the token percent-encoded (a cookie value cannot hold every character)
        return (unquote(cookie[COOKIE].value) if COOKIE in cookie else None), False

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        given, in_query = self._given(scope)
        if given is None or not hmac.compare_digest(given.encode(), self.token):
            refused = PlainTextResponse(
                "401 Unauthorized: this crucible gui needs its token; open the URL it printed "
                "(http://HOST:PORT/?token=...).\n", status_code=401, headers=SECURITY_HEADERS)
            return await refused(scope, receive, send)
        if not in_query or scope["type"] != "http":
            return await self.app(scope, receive, send)
        # the cookie carries the token from now on: the same URL without it keeps it out of the history
        cookie = f"{COOKIE}={quote(given, safe='')}; Path=/; HttpOnly; SameSite=Strict"
        response = RedirectResponse(_without_token(scope), status_code=303,
                                    headers={"set-cookie": cookie, **SECURITY_HEADERS})
        return await response(scope, receive, send)


def _without_token(scope) -> str:
    """The request's path and query string less its `token` parameter."""
    query = [(k, v) for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
             if k != "token"]
    return quote(scope.get("path") or "/") + (f"?{urlencode(query)}" if query else "")


class SecurityHeaders:
    """ASGI middleware: the page policy and friends on every response."""

    def __init__(self, app):
        self.app = app
        self.headers = {"content-security-policy": gui_policy(), **SECURITY_HEADERS}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k.encode(), v.encode()) for k, v in self.headers.items() if k.encode() not in have]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        return await self.app(scope, receive, send_with_headers)


# -- pages ---------------------------------------------------------------------------------------------

def _nav(run_id: str | None = None) -> list[tuple[str, str]]:
    links = [("Runs", "/")]
    if run_id:
        links += [("Report", f"/runs/{quote(run_id)}"), ("Live", f"/runs/{quote(run_id)}/live")]
    return links


def _page(name: str, **context) -> HTMLResponse:
    return HTMLResponse(templates().get_template(name).render(policy=None, **context))


def _run_or_404(request: Request) -> Path:
    run_dir = runs.find_run(request.app.state.results_dir, request.path_params["run_id"])
    if run_dir is None:
        raise HTTPException(404, f"no run {request.path_params['run_id']!r} in {request.app.state.results_dir}")
    return run_dir


async def run_list(request: Request) -> HTMLResponse:
    results_dir = request.app.state.results_dir
    found = await run_in_threadpool(runs.list_runs, results_dir, request.app.state.run_counts)
    return _page("runs.html", title="crucible runs", links=_nav(), runs=found, results_dir=str(results_dir))


def _render_report(app_state, run_dir: Path) -> str:
    """The run's report page, rebuilt from its rows (cached until rows.jsonl or its report changes). Each
    run renders under its own lock (a second request for it waits for the first's page): a small run's
    page never waits for a big one's rows; only the charts, drawn in a moment, take turns."""
    rows_path = run_dir / ROWS_FILE
    stat = rows_path.stat()
    report_json = run_dir / runs.REPORT_FILE
    stamp = (stat.st_size, stat.st_mtime_ns, report_json.stat().st_mtime_ns if report_json.is_file() else 0)
    with app_state.run_locks.lock(run_dir.name):
        cached = app_state.report_cache.get(run_dir.name)
        if cached and cached[0] == stamp:
            return cached[1]
        rows = ReportRows.read(run_dir)
        with collector_paused():  # a big run's rows held: the collector would walk them over and over
            report = aggregate(rows.rows, run_meta(run_dir))
            report["generated_at"] = written_at(run_dir)
            html = render_html(report, rows, links=_nav(run_dir.name), chart_lock=app_state.chart_lock)
        app_state.report_cache.put(run_dir.name, (stamp, html))
        return html


class KeyedLocks:
    """One lock per key (a run), made when first asked for."""

    def __init__(self) -> None:
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def lock(self, key: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())


class PageCache:
    """The last `size` pages rendered, by run, safe across the server's threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._pages: dict[str, tuple[tuple[int, int, int], str]] = {}
        self._guard = threading.Lock()

    def get(self, key: str) -> tuple[tuple[int, int, int], str] | None:
        with self._guard:
            return self._pages.get(key)

    def put(self, key: str, value: tuple[tuple[int, int, int], str]) -> None:
        with self._guard:
            self._pages.pop(key, None)
            self._pages[key] = value
            while len(self._pages) > self.size:
                self._pages.pop(next(iter(self._pages)))


def written_at(run_dir: Path) -> str:
    """When the run wrote its report (report.json's own stamp), not when this page was rendered."""
    report_json = run_dir / runs.REPORT_FILE
    try:
        stamp = json.loads(report_json.read_text(encoding="utf-8")).get("generated_at")
    except (OSError, ValueError, AttributeError):
        stamp = None
    return str(stamp) if stamp else "not yet (the run has written no report)"


async def run_report(request: Request) -> HTMLResponse:
    run_dir = _run_or_404(request)
    return HTMLResponse(await run_in_threadpool(_render_report, request.app.state, run_dir))


async def run_live(request: Request) -> HTMLResponse:
    run_dir = _run_or_404(request)
    items = run_meta(run_dir).get("items")  # per model, recorded by the plugin: the live page's total and ETA
    total = sum(v for v in items.values() if isinstance(v, int)) if isinstance(items, dict) else 0
    return _page("live.html", title=f"live: {run_dir.name}", links=_nav(run_dir.name), run_id=run_dir.name,
                 total=total)


def live_fields(row: dict) -> dict:
    """What the live view shows of a row (the reply stays in rows.jsonl)."""
    timings = row.get("timings") or {}
    reason = str(row.get("reason") or "")
    return {"model": row.get("model"), "case": row.get("case_id"), "category": row.get("category"),
            "difficulty": row.get("difficulty"), "repeat": row.get("repeat", 1), "outcome": row.get("outcome"),
            "reason": reason[:300] + ("..." if len(reason) > 300 else ""),
            "ttft_s": timings.get("ttft_s"), "decode_tps": timings.get("decode_tps"),
            "cost_usd": row.get("cost_usd"), "at": row.get("started_at")}


async def run_events(request: Request) -> StreamingResponse:
    """Server-sent events: one `row` event per row appended (from the start, or from Last-Event-ID, the
    byte offset a reconnecting browser already has), then `finished` once the run wrote its report."""
    run_dir = _run_or_404(request)
    rows_path = run_dir / ROWS_FILE
    try:  # the byte offset the browser already has; anything but an offset in the file starts over
        start = int(request.headers.get("last-event-id", "0"))
    except ValueError:
        start = 0
    if not 0 <= start <= rows_path.stat().st_size:
        start = 0

    async def stream():
        offset, quiet = start, 0.0
        yield "retry: 2000\n\n"
        while True:
            # the state before the read: a run that had ended by then has all its rows in this read
            state = runs.run_state(run_dir, run_meta(run_dir))
            rows = await run_in_threadpool(runs.read_new_rows, rows_path, offset)
            for offset, row in rows:
                yield f"id: {offset}\nevent: row\ndata: {json.dumps(live_fields(row), default=str)}\n\n"
            if rows:
                quiet = 0.0
                continue  # more may be waiting: read again before sleeping
            if state != "running":
                yield f"event: finished\ndata: {json.dumps({'state': state})}\n\n"
                return
            await asyncio.sleep(POLL_S)
            quiet += POLL_S
            if quiet >= KEEPALIVE_S:
                quiet = 0.0
                yield ": still running\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"x-accel-buffering": "no"})


def compare_run_dirs(base_dir: Path, new_dir: Path, base_model: str | None, new_model: str | None) -> Comparison:
    """`crucible compare --json` of two run folders."""
    return compare_runs(load_run(base_dir), load_run(new_dir), base_model=base_model, new_model=new_model)


async def compare_page(request: Request) -> HTMLResponse:
    results_dir = request.app.state.results_dir
    found = await run_in_threadpool(runs.list_runs, results_dir, request.app.state.run_counts)
    params = request.query_params
    base_id, new_id = params.get("base", ""), params.get("new", "")
    context: dict[str, Any] = {
        "title": "compare runs", "links": _nav(), "runs": found, "base_id": base_id, "new_id": new_id,
        "base_model": params.get("base_model", ""), "new_model": params.get("new_model", ""),
        "result": None, "problem": None}
    if base_id and new_id:
        base_dir, new_dir = runs.find_run(results_dir, base_id), runs.find_run(results_dir, new_id)
        if base_dir is None or new_dir is None:
            context["problem"] = f"no run {base_id if base_dir is None else new_id!r} in {results_dir}"
        else:
            try:
                context["result"] = await run_in_threadpool(
                    compare_run_dirs, base_dir, new_dir, context["base_model"] or None, context["new_model"] or None)
            except InputError as exc:  # e.g. several models and none chosen
                context["problem"] = str(exc)
    return _page("compare.html", **context)


def build_app(results_dir: str | os.PathLike, *, token: str | None = None, loopback: bool = True,
              host: str | None = None) -> Starlette:
    """The read-only app over `results_dir`. With a token every request must carry it; bound to a
    loopback address, requests must name a loopback host (the loopback names, or `host`, the address bound)."""
    middleware = [Middleware(SecurityHeaders)]
    if loopback:
        bound = [host.strip("[]"), f"[{host.strip('[]')}]"] if host else []
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=[*LOOPBACK_NAMES, *bound]))
    if token:
        middleware.append(Middleware(TokenGate, token=token))
    app = Starlette(routes=[
        Route("/", run_list, methods=["GET"]),
        Route("/compare", compare_page, methods=["GET"]),
        Route("/runs/{run_id}", run_report, methods=["GET"]),
        Route("/runs/{run_id}/live", run_live, methods=["GET"]),
        Route("/runs/{run_id}/events", run_events, methods=["GET"]),
    ], middleware=middleware)
    app.state.results_dir = Path(results_dir)
    app.state.report_cache = PageCache(REPORT_CACHE)
    app.state.run_locks = KeyedLocks()
    app.state.chart_lock = threading.Lock()  # matplotlib's settings are process-wide: one page's charts at a time
    app.state.run_counts = runs.RunCounts(runs.COUNT_BUDGET_S)  # the run list's counts, kept between loads
    return app


def resolve_token(host: str, given: str | None) -> str | None:
    """The token to require: the one given (--token or $CRUCIBLE_GUI_TOKEN), else a new one when bound
    off loopback; none on loopback unless one was given."""
    if not given and not is_loopback(host):
        return secrets.token_urlsafe(24)
    return given or None


def serve(results_dir: str | os.PathLike, *, host: str, port: int, token: str | None = None,
          start_path: str = "/", announce=print) -> None:
    """Serve until interrupted. The URL (with the token, once) goes to `announce`."""
    import uvicorn  # lazy: only serving needs uvicorn; build_app does not
    token = resolve_token(host, token)
    app = build_app(results_dir, token=token, loopback=is_loopback(host), host=host)
    shown = socket.gethostname() if host in ("0.0.0.0", "::", "") else host
    shown = f"[{shown}]" if ":" in shown and not shown.startswith("[") else shown
    url = f"http://{shown}:{port}{start_path}" + (f"?token={quote(token)}" if token else "")
    announce(f"crucible gui: serving {results_dir} (read-only) at {url}")
    if token and not is_loopback(host):
        announce("  bound off loopback: every request needs this token; anyone with the URL can read the results")
    config = uvicorn.Config(app, host=host.strip("[]"), port=port, log_level="warning", access_log=False,
                            timeout_graceful_shutdown=2, lifespan="off")
    uvicorn.Server(config).run()
