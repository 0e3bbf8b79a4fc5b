"""pytest hooks for pytest-crucible: options, markers, collection and reporting.

Every hook forwards to the RunSession kept in `config.stash`; the work itself lives in core modules.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .case import CATEGORIES, DIFFICULTIES, MARKER_TAGS, Case, builtin_cases_dir, is_case_file, load_case_file
from . import importers, sandbox
from .errors import CrucibleError, InputError
from .session import RunSession
from .speed import settings as speed_settings

pytest_plugins = ["pytest_crucible.fixtures"]

SESSION_KEY = pytest.StashKey[RunSession]()
ROW_PROPERTY = "crucible_row"

MARKER_HELP = {
    "coding": "code written by the model, run against tests in a sandbox",
    "math": "maths with checkable answers",
    "reasoning": "logic puzzles and reasoning with unique answers",
    "tooluse": "tool calls checked structurally",
    "instruct": "instruction following checked by program",
    "longctx": "long-context retrieval from generated haystacks",
    "agent": "multi-turn agent tasks over simulated tools (logs, files, tickets, calendars)",
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
        session = RunSession(
            models=models, config_path=_option(config, "crucible_config"),
            out_dir=_option(config, "crucible_out") or "crucible-results",
            profile=_option(config, "crucible_profile"), repeats=repeats,
            seed=int(seed) if seed not in (None, "") else None,
            controller=not hasattr(config, "workerinput"),
            run_id=config.workerinput.get("crucible_run_id") if hasattr(config, "workerinput") else None)
        speed = speed_settings.build(
            bandwidth=_option(config, "crucible_bandwidth"), slo=_option(config, "crucible_slo"),
            warmup=_option(config, "crucible_speed_warmup"), repeats=_option(config, "crucible_speed_repeats"))
        session.import_sources = {importers.import_source(n).resolve(): n for n in config.getoption("crucible_imports")}
    except (CrucibleError, ValueError) as exc:
        raise pytest.UsageError(str(exc)) from None
    speed_settings.configure(speed)  # this process's speed runner reads it
    session.flags.update(speed.to_meta())
    sandbox.configure(allow_unsandboxed=config.getoption("allow_unsandboxed"))
    mode = sandbox.sandbox_mode()
    session.flags.update(sandbox=mode, unsandboxed=mode == "unsandboxed")
    if mode == "unsandboxed" and session.controller:
        config.issue_config_time_warning(pytest.PytestWarning(sandbox.UNSANDBOXED_WARNING), 2)
    config.stash[SESSION_KEY] = session
    _add_builtin_suite(config, session)
    if session.controller:
        config.pluginmanager.register(RunRecorder(session), "crucible-recorder")
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
    """Registered only when xdist is loaded: workers share the controller's run id."""

    def __init__(self, session: RunSession):
        self.session = session

    def pytest_configure_node(self, node) -> None:
        node.workerinput["crucible_run_id"] = self.session.run_id


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


def _run_crucible_case(crucible_result: dict) -> None:
    """The test body: the answer was already graded in setup; a wrong answer fails here."""
    if crucible_result["outcome"] == "failed":
        pytest.fail(crucible_result["reason"] or "wrong answer", pytrace=False)


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


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    outcome = yield
    report = outcome.get_result()
    row = getattr(item, "crucible_row", None)
    if row is not None and not any(k == ROW_PROPERTY for k, _ in report.user_properties):
        report.user_properties.append((ROW_PROPERTY, row))


class RunRecorder:
    """Registered on the controlling process only: one row per item, appended as the item's outcome is known."""

    def __init__(self, session: RunSession):
        self.session = session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        row = dict(report.user_properties).get(ROW_PROPERTY)
        if row is None:
            return
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.session.record(row)


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item, call):
    row = getattr(item, "crucible_row", None)
    return {ROW_PROPERTY: row} if row is not None and call.when != "teardown" else None


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    run = config.stash.get(SESSION_KEY, None)
    if run is None or not run.controller:
        return
    report = run.finish()
    if report is None:
        return
    terminalreporter.write_sep("=", "crucible summary")
    for line in run.summary_lines(report, config.get_verbosity(), _bar_glyphs(terminalreporter)):
        terminalreporter.write_line(line)


def _bar_glyphs(terminalreporter) -> str:
    """Block characters for the summary's bars where the terminal's encoding has them, else ASCII."""
    stream = getattr(terminalreporter._tw, "_file", None)
    try:
        "█░".encode(getattr(stream, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return "#."
    return "█░"


def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.stash.get(SESSION_KEY, None)
    if run is not None:
        run.finish()  # without a terminal summary (e.g. -p no:terminal) the report is still written
        speed_settings.configure(None)  # an in-process run (pytester) must not leak into the next
