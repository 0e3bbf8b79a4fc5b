"""Credentials in a base URL (`user:password@`, `?key=`) are used, never printed, and never stored when a
server echoes them; report.json stays JSON; names and nesting from the endpoint never become a crash."""

from __future__ import annotations

import base64
import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from loopback import LoopbackServer
from synthetic_run import write_run

from pytest_crucible.analysis.report import write_reports
from pytest_crucible.client.chat import ChatClient
from pytest_crucible.client.response import ToolCall
from pytest_crucible.client.transport import HttpTransport
from pytest_crucible.common.redact import redact_base_url, url_secrets
from pytest_crucible.results.store import read_rows

PASSWORD = "pw-Sekr3t"
QUERY_KEY = "qk-0123456789"


@pytest.mark.parametrize("url, shown", [
    (f"http://user:{PASSWORD}@host/v1", "http://***@host/v1"),
    (f"https://host/v1?key={QUERY_KEY}", "https://host/v1?key=***"),
    (f"https://host/v1?api-version=2&api_key={QUERY_KEY}&x=1", "https://host/v1?api-version=2&api_key=***&x=1"),
    ("https://host/v1?monkey=banana", "https://host/v1?monkey=banana"),  # a word that ends in key is not a key
])
def test_a_base_url_is_printed_without_its_credentials(url, shown):
    assert redact_base_url(url) == shown


def test_the_transport_redacts_what_the_base_url_carries():
    url = f"http://user:{PASSWORD}@127.0.0.1:9/v1?key={QUERY_KEY}"
    assert set(url_secrets(url)) == {PASSWORD, QUERY_KEY}
    transport = HttpTransport(url, "sk-the-key-1234")
    assert transport.redact(f"echo {PASSWORD} and {QUERY_KEY} and sk-the-key-1234") == "echo *** and *** and ***"
    client = ChatClient(url, model_id="m", transport=transport)
    assert PASSWORD not in repr(client) and QUERY_KEY not in repr(client)


def crucible(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest_crucible.apps.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_status_and_models_use_user_info_and_never_print_it(tmp_path):
    with LoopbackServer() as server:
        host = server.base_url.split("//", 1)[1]
        (tmp_path / "models.yaml").write_text(textwrap.dedent(f"""\
            providers:
              basic: {{base_url: "http://user:{PASSWORD}@{host}"}}
              keyed: {{base_url: "http://127.0.0.1:9/v1?key={QUERY_KEY}"}}
            models:
              - {{name: m, provider: basic, model_id: loopback-model}}
            """))
        models = crucible("models", "--timeout", "5", cwd=tmp_path)
        status = crucible("status", "--timeout", "2", cwd=tmp_path)
        probes = [r for r in server.requests if r.path.rstrip("/").endswith("/models")]
    for result in (models, status):
        assert result.returncode == 0, result.stderr
        said = result.stdout + result.stderr
        assert PASSWORD not in said and QUERY_KEY not in said and "key=***" in said, said
    assert "provider basic (http://***@127.0.0.1" in models.stdout and ": up, " in models.stdout, models.stdout
    expected = "Basic " + base64.b64encode(f"user:{PASSWORD}".encode()).decode()
    assert probes and all(r.headers.get("authorization") == expected for r in probes)


def test_report_json_is_json_whatever_the_rows_hold(tmp_path):
    run_dir = write_run(tmp_path, "20250101-100000-nans", models=2, cases=6, seed=1)
    rows = read_rows(run_dir)
    rows[0]["cost_usd"] = math.inf
    rows[1]["timings"] = {**rows[1].get("timings", {}), "decode_tps": math.nan, "ttft_s": -math.inf}
    write_reports(run_dir, rows, {"run_id": "x", "price": math.inf})
    text = (run_dir / "report.json").read_text()
    json.loads(text, parse_constant=lambda name: pytest.fail(f"report.json holds {name}"))
    assert (run_dir / "report.html").is_file()


def test_charts_show_model_names_with_dollars_as_text(tmp_path):
    run_dir = write_run(tmp_path, "20250101-100000-dlrs", models=2, cases=6, seed=1)
    rows = read_rows(run_dir)
    names = sorted({r["model"] for r in rows})
    renamed = {names[0]: "m$\\frac{$1", names[1]: "n$^$2"}  # not valid mathtext
    for r in rows:
        r["model"] = renamed[r["model"]]
    write_reports(run_dir, rows, {"run_id": "x"})
    assert "n$^$2" in (run_dir / "report.html").read_text()


def test_tool_call_arguments_nested_past_the_parser_are_not_json():
    deep = "[" * 100_000 + "]" * 100_000
    assert ToolCall("f", deep).parsed_arguments() is None
