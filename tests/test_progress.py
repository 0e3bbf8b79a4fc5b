"""The progress lines: counts, cost, requests in flight and ETA per model (the plugin prints them)."""

from __future__ import annotations

import textwrap

from loopback import Reply

from pytest_crucible.engine import progress as progress_module
from pytest_crucible.engine.progress import Progress
from pytest_crucible.engine.session import RunSession
from pytest_crucible.results.row import Row


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def row(model, outcome, cost=0.0):
    return Row(run_id=None, model=model, model_id=model, provider="p", case_id="x", category="math",
               difficulty="easy", tags=[], family="", case_hash="h", seed=None, repeat=1, outcome=outcome,
               cost_usd=cost)


def test_lines_count_cost_in_flight_and_eta():
    clock = Clock()
    progress = Progress(clock)
    progress.expect("a", 10)
    progress.expect("b", 2)
    assert not progress.due()
    for outcome, cost in (("passed", 0.001), ("failed", 0.002), ("error", 0.0)):
        clock.now += 2.0
        assert progress.record(row("a", outcome, cost)) is False
    progress.in_flight = {"gw0": {"a": 3}, "gw1": {"a": 2, "b": 1}}
    assert progress.lines(["a"]) == ["a: 3/10 done (1 passed, 1 failed, 1 errors, 0 skipped), $0.0030, "
                                     "5 in flight, ETA 0:14"]   # 2 s an item since the first, 7 to go
    clock.now += progress_module.EVERY_S
    assert progress.due()
    assert progress.record(row("b", "skipped")) is False and progress.record(row("b", "passed")) is True
    assert progress.lines()[1] == "b: 2/2 done (1 passed, 0 failed, 0 errors, 1 skipped), $0.0000, 1 in flight, ETA done"
    assert not progress.due()


def test_the_run_prints_progress_and_is_quiet_under_q(pytester, loopback):
    pytester.makefile(".yaml", models=textwrap.dedent(f"""\
        providers:
          loop: {{base_url: "{loopback.base_url}", concurrency: 4, max_retries: 0}}
        models:
          - {{name: m1, provider: loop, model_id: m1}}
        """))
    pytester.makefile(".cases.yaml", few="cases:\n" + "".join(
        f"  - {{id: P{i}, category: math, difficulty: easy, prompt: 'p{i}', grader: {{type: numeric, answer: 1}}}}\n"
        for i in range(6)))
    pytester.makepyfile(test_mine="def test_mine(crucible_model):\n    assert crucible_model.name == 'm1'\n")
    loopback.script(default=Reply("Answer: 1"))
    # a user's check ends in a row too: it counts, with -n and without
    args = ("-p", "no:cacheprovider", "--models", "m1", "--crucible-no-builtin-cases", "few.cases.yaml", "test_mine.py")
    result = pytester.runpytest(*args)
    result.stdout.fnmatch_lines(["crucible: m1: 7/7 done (7 passed, 0 failed, 0 errors, 0 skipped), $0.0000, "
                                 "0 in flight, ETA done"])
    quiet = pytester.runpytest(*args, "-q")
    assert "7/7 done" not in quiet.stdout.str()
    spread = pytester.runpytest_subprocess(*args, "-n", "2")
    spread.stdout.fnmatch_lines(["crucible: m1: 7/7 done (7 passed*ETA done"])


def test_an_items_model_is_read_back_from_the_id_the_plugin_wrote(tmp_path):
    (tmp_path / "models.yaml").write_text(textwrap.dedent("""\
        providers:
          p: {base_url: "http://127.0.0.1:9/v1"}
        models:
          - {name: a, provider: p, model_id: a}
          - {name: a-r2, provider: p, model_id: b}
        """))
    for repeats in (1, 3):
        session = RunSession(models="all", config_path=str(tmp_path / "models.yaml"), repeats=repeats,
                             controller=False)
        ids = {f"crucible/math/x.cases.yaml::MA1[{session.item_params(m, r)}]": m
               for m in ("a", "a-r2") for r in range(1, repeats + 1)}
        assert len(ids) == 2 * repeats
        assert {i: session.model_of_item_id(i) for i in ids} == ids
        assert session.model_of_item_id("test_x.py::test_plain") is None
        assert session.model_of_item_id("test_x.py::test_p[a-r9]") is None
    assert session.item_params("a-r2", 2) == "a-r2-r2"
