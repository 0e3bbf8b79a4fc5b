"""The progress lines: counts, cost, requests in flight and ETA per model (the plugin prints them)."""

from __future__ import annotations

import textwrap

from loopback import Reply

from pytest_crucible.analysis.stats import wilson_interval
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


def test_lines_count_rate_cost_in_flight_and_eta():
    clock = Clock()
    progress = Progress(clock, interval=wilson_interval)
    progress.expect("a", 10, priced=True)
    progress.expect("b", 2)
    assert not progress.due()
    for outcome, cost in (("passed", 0.001), ("failed", 0.002), ("error", 0.0)):
        clock.now += 2.0
        assert progress.record(row("a", outcome, cost)) is False
    progress.in_flight = {"gw0": {"a": 3}, "gw1": {"a": 2, "b": 1}}
    assert progress.lines(["a"]) == ["a: 3/10 done, 50% [9%-91%] passed (1/2), 1 errors, 0 skipped, $0.0030, "
                                     "5 in flight, ETA 0:14"]   # 2 s an item since the first, 7 to go
    clock.now += progress_module.EVERY_S
    assert progress.due()
    assert progress.record(row("b", "skipped")) is False and progress.record(row("b", "measured")) is True
    # b has no price: no cost shown; nothing scored yet; its speed item is a measurement
    assert progress.lines()[1] == "b: 2/2 done, no answer scored yet, 0 errors, 1 skipped, 1 measured, 1 in flight, " \
        "ETA done"
    assert not progress.due()
    assert progress.line() == "5/12 done, 50% [9%-91%] passed (1/2), ETA 0:49"  # a's pace: 14 s for 2 items


def test_the_run_prints_progress_between_pytests_lines(pytester, loopback, monkeypatch):
    monkeypatch.setattr(progress_module, "EVERY_S", 0.0)  # a line after every item
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
    out = result.stdout.lines
    result.stdout.re_match_lines([r"crucible: m1: 2/7 done, 100% \[\d+%-100%\] passed \(2/2\), 0 errors, 0 skipped, "
                                  r"\d+ in flight, ETA \d+:\d\d$"])
    assert not any("$" in line for line in out if line.startswith("crucible: m1"))  # a free model: no cost
    # pytest's lines stay whole: every line of letters ends with its [NN%], each file is named once
    letters = [line for line in out if line.rstrip().endswith("%]")]
    assert letters and all(not line.startswith("crucible") for line in letters)
    assert sum(line.startswith("few.cases.yaml") for line in out) == 1
    assert sum(line.startswith("test_mine.py") for line in out) == 1
    assert not any(line.strip().startswith("[") for line in out)  # no line holding a lone [NN%]
    assert out[out.index(next(line for line in out if line.startswith("test_mine.py")))].endswith("[100%]")
    quiet = pytester.runpytest(*args, "-q")
    quiet.stdout.re_match_lines([r"crucible: 2/7 done, 100% \[\d+%-100%\] passed \(2/2\), ETA \d+:\d\d$"])
    assert "crucible: m1:" not in quiet.stdout.str()
    assert "crucible:" not in pytester.runpytest(*args, "-qq").stdout.str()
    spread = pytester.runpytest(*args, "-n", "2")  # the controller (this process) prints
    spread.stdout.re_match_lines([r"crucible: m1: \d/7 done, 100% \[\d+%-100%\] passed"])


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


def test_ctrl_c_says_how_many_requests_in_flight_it_waits_for():
    from types import SimpleNamespace

    from pytest_crucible.pytest_plugin.recording import RunRecorder
    said = []
    reporter = SimpleNamespace(write_line=lambda text, **markup: said.append(text))
    config = SimpleNamespace(pluginmanager=SimpleNamespace(get_plugin=lambda name: reporter), get_verbosity=lambda: 0)
    recorder = RunRecorder(SimpleNamespace(in_flight=lambda: {"m1": 2}), config)
    recorder.progress.in_flight = {"main": {"m1": 2}, "gw0": {"m1": 3, "m2": 1}}  # main: this process, counted once
    recorder.pytest_keyboard_interrupt(None)
    assert said == ["crucible: interrupted; waiting for 6 requests in flight to end, then the report is written "
                    "(Ctrl-C again to stop at once)"]
    said.clear()
    idle = RunRecorder(SimpleNamespace(in_flight=lambda: {}), config)
    idle.pytest_keyboard_interrupt(None)
    assert said == []
