"""One item without pytest: the row record, a runner that never loses an item, item kinds."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from loopback import Reply

from pytest_crucible.analysis.report import aggregate
from pytest_crucible.client.chat import ChatClient
from pytest_crucible.common.errors import RegistryError
from pytest_crucible.engine import item_kinds as kinds
from pytest_crucible.engine.config import ModelSpec, Provider
from pytest_crucible.engine.item_runner import run_case
from pytest_crucible.results.row import Row, latest_rows
from pytest_crucible.suite.case import Case


def math_case(answer=42, **fields) -> Case:
    base = dict(id="MA-t-01", category="math", difficulty="hard", family="MA-t",
                messages=({"role": "user", "content": "What is 6*7? End with 'Answer: N'."},),
                grader={"type": "numeric", "answer": answer}, max_tokens=64)
    base.update(fields)
    return Case(**base)


@pytest.fixture
def model(loopback):
    return ModelSpec("m", "loopback-model", Provider("loop", loopback.base_url), price_input=1.0, price_output=2.0)


@pytest.fixture
def client(loopback):
    with ChatClient(loopback.base_url, None, model_id="loopback-model", max_retries=2, timeout=10,
                    backoff_base=0.01) as client:
        yield client


def test_row_identity_params_and_what_came_back(loopback, model, client):
    loopback.script(default=Reply("Answer: 42", system_fingerprint="fp_abc123"))
    row = run_case(math_case(params={"temperature": 0}), model, client, repeat=2, run_id="r1", seed=7)
    assert (row.outcome, row.answer, row.kind) == ("passed", "42", "accuracy")
    assert (row.model, row.model_id, row.provider, row.case_id, row.family, row.seed, row.repeat, row.run_id) == \
        ("m", "loopback-model", "loop", "MA-t-01", "MA-t", 7, 2, "r1")
    assert row.case_hash == math_case(params={"temperature": 0}).content_hash
    assert row.params == {"max_tokens": 64, "temperature": 0}
    assert row.backend == {"model": "loopback-model", "system_fingerprint": "fp_abc123",
                           "server": "loopback/1 (tests)"}
    assert (row.retries, row.waits_s, row.truncated, row.turns) == (0, 0.0, None, [])
    assert row.cost_usd == pytest.approx((row.tokens["prompt"] * 1.0 + row.tokens["completion"] * 2.0) / 1e6)
    again = Row.from_dict(json.loads(json.dumps(row.to_dict())))
    assert again == row and again.resume_key == row.resume_key


def test_resume_key_is_model_content_params_and_repeat(model):
    def key(case=math_case(), repeat=1, model=model):
        return Row.begin(case, model, repeat).resume_key

    assert key() == key()
    assert key(repeat=2) != key()
    assert key(case=math_case(answer=41)) != key()                   # the case changed: a new question
    assert key(case=math_case(params={"temperature": 1})) != key()   # asked differently
    assert key(model=ModelSpec("m", "x", model.provider, params={"temperature": 1})) != key()
    assert key(case=math_case(title="renamed")) == key()             # the title is not what is asked


def test_rate_limit_retries_and_waits_are_on_the_row(loopback, model, client):
    loopback.script(default=Reply("Answer: 42"))
    loopback.fault(429, times=1, retry_after=0.2)
    row = run_case(math_case(), model, client)
    assert row.outcome == "passed" and row.attempts == 2 and row.retries == 1
    assert 0.2 <= row.waits_s < 0.3


@pytest.mark.parametrize("reply, where", [
    (Reply("Answer: 4", finish_reason="length"), "answer"),
    (Reply("", reasoning="Let me think about 6 and 7", finish_reason="length"), "reasoning"),
])
def test_truncation_says_where_the_reply_was_cut(loopback, model, client, reply, where):
    loopback.script(default=reply)
    row = run_case(math_case(), model, client)
    assert row.outcome == "failed" and row.truncated == where and row.reason.startswith("TRUNCATED")


def test_an_unexpected_exception_is_an_error_row_never_a_lost_item(loopback, model):
    class Broken:
        base_url = loopback.base_url

        def chat(self, messages, **kwargs):
            raise RuntimeError("boom")

    row = run_case(math_case(), model, Broken())
    assert (row.outcome, row.reason) == ("error", "crucible bug: RuntimeError: boom")
    assert aggregate([row])["models"]["m"]["total"]["errors"] == 1


def test_a_case_that_bypassed_validation_still_ends_in_a_row(loopback, model, client):
    """The issue's reproduction: `params: {stream: false}` made the client raise ValueError, and the
    item vanished. Load-time validation refuses it now; a Case built by hand still ends in a row."""
    row = run_case(math_case(params={"stream": False}), model, client)
    assert row.outcome == "error" and row.reason.startswith("crucible bug: ValueError: params may not set")
    assert loopback.chat_count == 0


def test_latest_row_of_each_item_wins(model):
    first = Row.begin(math_case(), model).settle("error", "endpoint down")
    second = Row.begin(math_case(), model).settle("passed", "answer 42")
    other = Row.begin(math_case(), model, repeat=2).settle("failed", "answer 1")
    changed = Row.begin(math_case(answer=41), model, repeat=2).settle("passed", "answer 41")
    assert latest_rows([first, other.to_dict(), second]) == [other, second]
    assert latest_rows([first, other, second, changed]) == [second, changed]  # the case changed since
    totals = aggregate([first, other, second])["models"]["m"]["total"]
    assert (totals["passed"], totals["failed"], totals["errors"]) == (1, 1, 0)


def install_kinds(tmp_path, monkeypatch, source: str, entries: str) -> None:
    """A dummy distribution on sys.path whose entry points add item kinds."""
    (tmp_path / "echo_kind.py").write_text(textwrap.dedent(source))
    dist = tmp_path / "echo_kind-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-kind\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[pytest_crucible.item_kinds]\n" + entries)
    monkeypatch.syspath_prepend(str(tmp_path))


@pytest.fixture
def fresh_kinds():
    yield
    sys.modules.pop("echo_kind", None)


def test_a_kind_that_is_no_item_kind_or_takes_a_built_in_name_is_refused(tmp_path, monkeypatch, fresh_kinds,
                                                                          model, client):
    install_kinds(tmp_path, monkeypatch, """\
        from pytest_crucible.engine.item_kinds import ACCURACY
        HALF = object()
        """, "accuracy = echo_kind:ACCURACY\nhalf = echo_kind:HALF\n")
    with pytest.warns(UserWarning, match="registers the item kind 'accuracy' in pytest_crucible.item_kinds, which "
                                         "is built in; the built-in one is used"):
        with pytest.raises(RegistryError, match=r"the item kind 'half' \(echo_kind:HALF, from echo-kind\) has no "
                                                r"applies\(\) or ask\(\) or finish\(\)"):
            kinds.registered()
    with pytest.warns(UserWarning, match="'accuracy'"):
        row = run_case(math_case(), model, client)  # the item still ends in a row, and says why
    assert row.outcome == "error" and row.reason.startswith("crucible bug: RegistryError: the item kind 'half'")


def test_an_item_kind_from_another_package(tmp_path, monkeypatch, fresh_kinds, loopback, model, client):
    """A package registers a kind through the `pytest_crucible.item_kinds` entry point group."""
    install_kinds(tmp_path, monkeypatch, """\
        from pytest_crucible.engine.item_kinds import ItemKind

        def ask(item):
            return [item.client.chat(list(item.case.messages), max_tokens=8) for _ in range(2)]

        def finish(item, replies):
            item.row.turns = [{"tokens": {"completion": r.usage.completion_tokens}} for r in replies]
            item.row.settle("passed", f"{len(replies)} turns")

        ECHO = ItemKind("echo", applies=lambda case: "echo" in case.tags, ask=ask, finish=finish)
        """, "echo = echo_kind:ECHO\n")
    assert [k.name for k in kinds.registered()] == ["echo", "speed", "multi_turn", "accuracy"]
    row = run_case(math_case(tags=("echo",)), model, client)
    assert (row.kind, row.outcome, row.reason, len(row.turns)) == ("echo", "passed", "2 turns", 2)
    assert loopback.chat_count == 2
    assert run_case(math_case(), model, client).kind == "accuracy"
