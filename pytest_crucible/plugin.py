"""pytest hooks for pytest-crucible: options, markers, collection and reporting.

Every hook forwards to the RunSession kept in `config.stash`; the work itself lives in core modules.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Iterator

import pytest

from .case import CATEGORIES, DIFFICULTIES, MARKER_TAGS, Case, builtin_cases_dir, is_case_file, load_case_file
from . import importers, sandbox
from .errors import CrucibleError, InputError
from .kinds import RunSettings, kind_for
from .progress import Progress
from .row import Row
from .scheduler import Upcoming
from .session import RunSession
from .speed import settings as speed_settings

pytest_plugins = ["pytest_crucible.fixtures"]

SESSION_KEY = pytest.StashKey[RunSession]()
ROW_PROPERTY = "crucible_row"
RESUMED_PROPERTY = "crucible_resumed"  # the row came from the run being resumed: not recorded again
NOTES_PROPERTY = "crucible_notes"      # messages for the terminal from the process that ran the item
IN_FLIGHT_PROPERTY = "crucible_in_flight"  # (process, {model: requests in flight}) when the item ended

MARKER_HELP = {
    "coding": "code written by the model, run against tests in a sandbox",
    "math": "maths with checkable answers",
    "reasoning": "logic puzzles and reasoning with unique answers",
    "tooluse": "tool calls checked structurally",
    "instruct": "instruction following checked by program",
    "longctx": "long-context retrieval from generated haystacks",
    "agent": "agent fitness: acknowledgement, format, conciseness",
    "speed": "speed measurements",
    "easy": "easy tier",
    "medium": "medium tier",
    "hard": "hard tier (reported apart)",
    "judged": "graded by a judge model (needs --judge)",
    "smoke": "a few fast cases for a first look",
}
assert set(MARKER_HELP) == set(CATEGORIES) | set(DIFFICULTIES) | set(MARKER_TAGS)

_OPTIONS = [
    # (flag, ini name, help, default)
    ("--models", "crucible_models", "comma-separated model names from models.yaml, or 'all'; enables the "
     "benchmark", None),
    ("--crucible-config", "crucible_config", "models.yaml to use (default: $CRUCIBLE_CONFIG, ./models.yaml, "
     "then the user config dir)", None),
    ("--crucible-out", "crucible_out", "folder for run results; each run writes DIR/<run-id>/ and DIR/latest "
     "points at it", "crucible-results"),
    ("--profile", "crucible_profile", "case selection: full, smoke, quick, hard, or a profile from "
     "models.yaml", None),
    ("--repeats", "crucible_repeats", "ask every case N times (each answer is scored)", "1"),
    ("--crucible-seed", "crucible_seed", "re-roll every case family with this seed (default: the suite's "
     "fixed seed), to check a score for memorisation", None),
    # speed (pytest_crucible/speed/settings.py parses these)
    ("--crucible-bandwidth", "crucible_bandwidth", "memory bandwidth in GB/s of the device serving the "
     "models, for the decode-speed plausibility ceiling (default: the GPU table, or a CPU default)", None),
    ("--crucible-slo", "crucible_slo", "latency targets for correct goodput, e.g. ttft=0.5,e2e=20 (keys: ttft, "
     "ttft_answer, e2e, itl, decode)", None),
    ("--crucible-speed-warmup", "crucible_speed_warmup", "warm-up rounds before each speed case (default: "
     "the case's, 1)", None),
    ("--crucible-speed-repeats", "crucible_speed_repeats", "measured rounds of each speed case (default: "
     "the case's, 3)", None),
    ("--crucible-max-cost", "crucible_max_cost", "stop sending requests once the run's cost would pass USD "
     "(recorded cost plus the worst case of the requests in flight); the rest is skipped", None),
]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("crucible", "pytest-crucible LLM benchmark")
    for flag, ini, help_text, default in _OPTIONS:
        group.addoption(flag, dest=ini, default=None, help=f"{help_text} [ini: {ini}]")
        parser.addini(ini, help=help_text, default=default)
    group.addoption("--no-builtin-cases", action="store_true", default=False,
                    help="collect only the case files given on the command line, not the built-in suite")
    group.addoption("--crucible-import", dest="crucible_imports", action="append", default=[], metavar="NAME",
                    help="add a public benchmark read from its installed package (humaneval)")
    group.addoption("--crucible-resume", dest="crucible_resume", nargs="?", const="latest", default=None,
                    metavar="RUN_DIR", help="continue a run (default: DIR/latest): items with a final row are "
                    "not asked again, new rows append to its rows.jsonl, error rows are asked again")
    group.addoption("--allow-unsandboxed", action="store_true", default=False,
                    help="run model-written code without bubblewrap when bwrap is missing (NOT isolated; "
                    "the report says so)")


def _option(config: pytest.Config, ini: str):
    value = config.getoption(ini)
    return value if value is not None else config.getini(ini)


def pytest_configure(config: pytest.Config) -> None:
    for name, text in MARKER_HELP.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    models = _option(config, "crucible_models")
    if not models:
        return
    try:
        repeats = int(_option(config, "crucible_repeats") or 1)
        seed = _option(config, "crucible_seed")
        speed = speed_settings.build(
            bandwidth=_option(config, "crucible_bandwidth"), slo=_option(config, "crucible_slo"),
            warmup=_option(config, "crucible_speed_warmup"), repeats=_option(config, "crucible_speed_repeats"))
        allow_unsandboxed = config.getoption("allow_unsandboxed")
        worker = getattr(config, "workerinput", None)
        max_cost = _option(config, "crucible_max_cost")
        try:
            max_cost = float(max_cost) if max_cost not in (None, "") else None
        except ValueError:
            raise ValueError(f"--crucible-max-cost takes a number of US dollars, e.g. 2.50; got {max_cost!r}") from None
        session = RunSession(
            models=models, config_path=_option(config, "crucible_config"),
            out_dir=_option(config, "crucible_out") or "crucible-results",
            profile=_option(config, "crucible_profile"), repeats=repeats,
            seed=int(seed) if seed not in (None, "") else None,
            controller=worker is None,
            run_id=worker.get("crucible_run_id") if worker else None,
            resume=worker.get("crucible_resume_dir") if worker else config.getoption("crucible_resume"),
            max_cost=max_cost, invocation=worker.get("crucible_invocation") if worker else None,
            settings=RunSettings(speed=speed, allow_unsandboxed=allow_unsandboxed))
        session.import_sources = {importers.import_source(n).resolve(): n for n in config.getoption("crucible_imports")}
    except (CrucibleError, ValueError) as exc:
        raise pytest.UsageError(str(exc)) from None
    session.flags.update(speed.to_meta())
    mode = sandbox.sandbox_mode(allow_unsandboxed)
    session.flags.update(sandbox=mode, unsandboxed=mode == "unsandboxed")
    if mode == "unsandboxed" and session.controller:
        config.issue_config_time_warning(pytest.PytestWarning(sandbox.UNSANDBOXED_WARNING), 2)
    config.stash[SESSION_KEY] = session
    _add_builtin_suite(config, session)
    if session.controller:
        config.pluginmanager.register(RunRecorder(session, config), "crucible-recorder")
    if any(session.ahead_lane(m) for m in session.models):
        config.pluginmanager.register(AskAhead(session, config), "crucible-ask-ahead")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistHooks(session), "crucible-xdist")


def _add_builtin_suite(config: pytest.Config, session: RunSession) -> None:
    """`pytest --models x` runs the built-in suite; paths on the command line add the user's own cases,
    and `--crucible-import NAME` a public benchmark's data file."""
    suite = builtin_cases_dir()
    explicit = config.args_source == pytest.Config.ArgsSource.ARGS
    args = list(config.args) if explicit else []
    given = [Path(a.split("::")[0]).resolve() for a in args]
    if not config.getoption("no_builtin_cases") and not any(p == suite or suite in p.parents for p in given):
        args.append(str(suite))
    args += [str(path) for path in session.import_sources]
    if args:
        config.args[:] = args


class XdistHooks:
    """Registered only when xdist is loaded: workers share the controller's run id (and what else a
    run's processes share); with provider-backed models each worker is kept a queue deep enough to ask
    its providers' `concurrency` requests ahead."""

    def __init__(self, session: RunSession):
        self.session = session

    def pytest_xdist_make_scheduler(self, config: pytest.Config, log):
        lookahead = self.session.lookahead()
        if config.getoption("dist", None) != "load" or not lookahead:
            return None
        return _ask_ahead_scheduling(config, log, lookahead)

    def pytest_configure_node(self, node) -> None:
        node.workerinput["crucible_run_id"] = self.session.run_id
        node.workerinput["crucible_invocation"] = self.session.invocation
        if self.session.finished or self.session.flags.get("resumed"):
            node.workerinput["crucible_resume_dir"] = str(self.session.out_dir / self.session.run_id)


def _ask_ahead_scheduling(config: pytest.Config, log, lookahead: int):
    """xdist's LoadScheduling (same order, same chunks of consecutive items), except that every worker
    is kept `lookahead` items queued while items are left: with LoadScheduling's own shrinking refills
    a worker knows too few of its next items to keep its providers busy near the end of a run."""
    from xdist.scheduler import LoadScheduling

    class AskAheadScheduling(LoadScheduling):
        def schedule(self) -> None:
            first = self.collection is None
            super().schedule()
            if first and self.collection:
                for node in self.nodes:
                    self.check_schedule(node)

        def check_schedule(self, node, duration: float = 0) -> None:
            if node.shutting_down:
                return
            if not self.pending:
                node.shutdown()
                return
            missing = lookahead - len(self.node2pending[node])
            if missing > 0:
                self._send_tests(node, missing)

    return AskAheadScheduling(config, log)


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    session = parent.config.stash.get(SESSION_KEY, None)
    if session is None:
        return None
    if is_case_file(file_path) or file_path.resolve() in session.import_sources:
        return CaseFile.from_parent(parent, path=file_path)
    return None


class CaseFile(pytest.File):
    """A YAML or Python case file, or an imported benchmark's data file: one item per case x model x repeat."""

    def collect(self):
        session = self.config.stash[SESSION_KEY]
        imported = session.import_sources.get(self.path.resolve())
        try:
            cases = importers.load_import(imported) if imported else load_case_file(self.path, session.seed)
        except InputError as exc:
            raise self.CollectError(str(exc)) from None
        for case in cases:
            first = session.claim_case_id(case)
            if first:
                raise self.CollectError(f"{case.file}:{case.line}: case {case.id}: duplicate case id "
                                        f"(first defined at {first}); ids must be unique across the suite")
        for case in cases:
            for model in session.models:
                for repeat in range(1, session.repeats + 1):
                    suffix = model.name if session.repeats == 1 else f"{model.name}-r{repeat}"
                    yield CaseItem.from_parent(self, name=f"{case.id}[{suffix}]", case=case,
                                               model_name=model.name, repeat=repeat)


def _run_crucible_case(crucible_result: Row) -> None:
    """The test body: the answer was already graded in setup; a wrong answer fails here."""
    if crucible_result.outcome == "failed":
        pytest.fail(crucible_result.reason or "wrong answer", pytrace=False)


class CaseItem(pytest.Function):
    def __init__(self, *, case: Case, model_name: str, repeat: int, **kwargs):
        super().__init__(callobj=_run_crucible_case, **kwargs)
        self.crucible_case = case
        self.crucible_model_name = model_name
        self.crucible_repeat = repeat
        for marker in case.markers():
            self.add_marker(marker)
        for tag in case.tags:
            self.keywords[tag] = True

    def reportinfo(self):
        return self.path, max(self.crucible_case.line - 1, 0), f"{self.crucible_case.id} [{self.crucible_model_name}]"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    session = config.stash.get(SESSION_KEY, None)
    if session is None:
        return
    if sum(1 for m in session.models if m.launch) > 1:
        # local models that share a device take turns: one model's items together, not a swap per item
        order = {m.name: i for i, m in enumerate(session.models)}
        items.sort(key=lambda i: order.get(getattr(i, "crucible_model_name", None), -1))
    if not session.profile:
        return
    cases = list({id(i.crucible_case): i.crucible_case for i in items if isinstance(i, CaseItem)}.values())
    keep_ids = {c.id for c in session.select(cases)[0]}
    selected, deselected = [], []
    for item in items:  # one pass: `item in list` per item would be quadratic on large imports
        kept = not isinstance(item, CaseItem) or item.crucible_case.id in keep_ids
        (selected if kept else deselected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


class AskAhead:
    """Registered when a run has provider-backed models: before each item runs, the items after it are
    asked ahead (scheduler.Prefetcher), so a provider's `concurrency` requests stay in flight with no
    -n at all. What comes next is pytest's own list (selection, --lf, -k, -m already applied), or under
    xdist the worker's queue of items the controller sent it; -x stops the asking."""

    def __init__(self, session: RunSession, config: pytest.Config):
        self.session, self.config = session, config
        self._entries: dict[str, Upcoming] = {}
        self._positions: dict[str, int] | None = None
        self._interactor = next((p for p in config.pluginmanager.get_plugins()
                                 if hasattr(p, "torun") and hasattr(p, "nextitem_index")), None)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        prefetcher = self.session.prefetch()
        if item.session.shouldstop or item.session.shouldfail:
            prefetcher.stop()
            return
        prefetcher.advance(self._entry(i) for i in self._upcoming(item, nextitem))

    def pytest_sessionfinish(self) -> None:
        if self.session.prefetcher is not None:
            self.session.prefetcher.stop()

    def _upcoming(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[pytest.Item]:
        items = item.session.items
        if self._interactor is None:
            if self._positions is None:
                self._positions = {it.nodeid: i for i, it in enumerate(items)}
            yield from itertools.islice(items, self._positions.get(item.nodeid, len(items)), None)
            return
        yield item
        if nextitem is not None:
            yield nextitem
        if self.config.getoption("dist", None) == "worksteal":
            return  # another worker may steal queued items: asking them here would ask them twice
        with self._interactor.torun.lock() as queue:
            queued = [i for i in queue if isinstance(i, int)]
        yield from (items[i] for i in queued)

    def _entry(self, item: pytest.Item) -> Upcoming:
        entry = self._entries.get(item.nodeid)
        if entry is None:
            if isinstance(item, CaseItem):
                session, case, repeat = self.session, item.crucible_case, item.crucible_repeat
                model = session.model(item.crucible_model_name)
                lane = session.ahead_lane(model) if _default_fixtures(item) else None
                entry = Upcoming(item.nodeid, lane, kind_for(case).exclusive,
                                 lambda: session.start_ahead(case, model, repeat))
            else:
                entry = Upcoming(item.nodeid, None, False, lambda: None)
            self._entries[item.nodeid] = entry
        return entry


def _default_fixtures(item: pytest.Item) -> bool:
    """Whether the item asks through this plugin's own fixtures (a conftest may override them: then
    its own client answers, and nothing may be asked ahead for it)."""
    try:
        manager = item.session._fixturemanager
        return all(getattr(manager.getfixturedefs(name, item)[-1].func, "__module__", None) == "pytest_crucible.fixtures"
                   for name in ("crucible_result", "crucible_client", "crucible_endpoint", "crucible_lease"))
    except Exception:  # pytest's fixture internals changed: do not ask ahead
        return False


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    outcome = yield
    report = outcome.get_result()
    session = item.config.stash.get(SESSION_KEY, None)
    if session is not None and session.notes:
        notes, session.notes[:] = list(session.notes), []
        report.user_properties.append((NOTES_PROPERTY, notes))
    if session is not None and call.when == "teardown":
        worker = getattr(item.config, "workerinput", {}).get("workerid", "main")
        report.user_properties.append((IN_FLIGHT_PROPERTY, (worker, session.in_flight())))
    row = getattr(item, "crucible_row", None)
    if row is not None and not any(k == ROW_PROPERTY for k, _ in report.user_properties):
        report.user_properties.append((ROW_PROPERTY, row.to_dict()))  # plain data: xdist sends it on
        if getattr(item, "crucible_resumed", False):
            report.user_properties.append((RESUMED_PROPERTY, True))


class RunRecorder:
    """Registered on the controlling process only: one row per item, appended as the item's outcome is
    known; notes from any process said once; a progress line per model now and then (not under -q)."""

    def __init__(self, session: RunSession, config: pytest.Config):
        self.session, self.config = session, config
        self.progress = Progress()
        self._said: set[str] = set()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._expect(item.crucible_model_name for item in session.items if isinstance(item, CaseItem))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids: list[str]) -> None:
        # the controller collects nothing itself: every worker sends the same ids
        self._expect(self.session.model_of_item_id(i) for i in ids)

    def _expect(self, models) -> None:
        counts: dict[str, int] = {}
        for model in models:
            if model is not None:
                counts[model] = counts.get(model, 0) + 1
        for model, total in counts.items():
            self.progress.expect(model, total)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        properties = dict(report.user_properties)
        for note in properties.get(NOTES_PROPERTY, ()):
            if note not in self._said:
                self._said.add(note)
                _say(self.config, note)
        if IN_FLIGHT_PROPERTY in properties:
            process, counts = properties[IN_FLIGHT_PROPERTY]
            self.progress.in_flight[process] = counts
        row = properties.get(ROW_PROPERTY)
        if row is None or not (report.when == "call" or (report.when == "setup" and not report.passed)):
            return
        row = Row.from_dict(row)
        if not properties.get(RESUMED_PROPERTY):
            self.session.record(row)
        last = self.progress.record(row)
        if self.config.get_verbosity() >= 0 and (last or self.progress.due()):
            for line in self.progress.lines([row.model] if last and not self.progress.due() else None):
                _say(self.config, line, yellow=False)


def _say(config: pytest.Config, message: str, yellow: bool = True) -> None:
    """A line of its own in pytest's output, also amid a line of progress letters (xdist prints those
    without the file name pytest itself would end the line for)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    writer = getattr(reporter, "_tw", None)
    if not reporter.currentfspath and writer is not None and writer.width_of_current_line:
        reporter.write("\n")
    reporter.write_line(f"crucible: {message}", yellow=yellow, bold=not yellow)


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item, call):
    row = getattr(item, "crucible_row", None)
    return {ROW_PROPERTY: row.to_dict()} if row is not None and call.when != "teardown" else None


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    run = config.stash.get(SESSION_KEY, None)
    if run is None or not run.controller:
        return
    report = run.finish()
    if report is None:
        return
    terminalreporter.write_sep("=", "crucible summary")
    for line in run.summary_lines(report):
        terminalreporter.write_line(line)


def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.stash.get(SESSION_KEY, None)
    if run is not None:
        run.finish()  # without a terminal summary (e.g. -p no:terminal) the report is still written
        run.close()
