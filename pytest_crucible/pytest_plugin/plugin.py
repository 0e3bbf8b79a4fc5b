"""pytest-crucible's entry point (pytest11): options, markers, hooks of its own, and the run's session.

Every hook forwards to the RunSession kept in `config.stash`; the work itself lives in core modules. The
hooks are grouped by job in the modules `pytest_plugins` names (collection, recording, summary; fixtures),
registered right after this one, so they take this module's place among pytest's plugins; the parts a run
needs only sometimes (the recorder, asking ahead, xdist's hooks) are registered in pytest_configure.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest

from pytest_crucible import sandbox
from pytest_crucible.analysis.compare import Baseline, GateSettings
from pytest_crucible.analysis.run_end import RunEnd
from pytest_crucible.common.errors import CrucibleError, InputError
from pytest_crucible.engine import speed_settings
from pytest_crucible.engine.item_kinds import RunSettings
from pytest_crucible.engine.options import SETTINGS
from pytest_crucible.engine.session import RunSession
from pytest_crucible.pytest_plugin import hookspecs
from pytest_crucible.pytest_plugin.ask_ahead import AskAhead, XdistHooks
from pytest_crucible.pytest_plugin.state import INSTALLED_KEY, RUN_END_KEY, SESSION_KEY, setting_value
from pytest_crucible.results.store import RunBusy, read_meta
from pytest_crucible.suite import importers, shards
from pytest_crucible.suite.case import CATEGORIES, DIFFICULTIES, MARKER_TAGS

pytest_plugins = [
    "pytest_crucible.pytest_plugin.fixtures",
    "pytest_crucible.pytest_plugin.collection",
    "pytest_crucible.pytest_plugin.recording",
    "pytest_crucible.pytest_plugin.summary",
]

MARKER_HELP = {
    "coding": "code written by the model, run against tests in a sandbox",
    "math": "maths with checkable answers",
    "reasoning": "logic puzzles and reasoning with unique answers",
    "tooluse": "tool calls checked structurally",
    "instruct": "instruction following checked by program",
    "longctx": "long-context retrieval from generated haystacks",
    "agent": "multi-turn agent tasks over simulated tools (logs, files, tickets, calendars)",
    "prose": "open explanations and summaries, graded by a judge model against gold points",
    "speed": "speed measurements",
    "easy": "easy tier",
    "medium": "medium tier",
    "hard": "hard tier (reported apart)",
    "judged": "graded by a judge model (needs --crucible-judge)",
    "smoke": "a few fast cases for a first look",
    "starter": "one-step cases a 100M-1B model can sometimes pass (the starter tier, in the quick profile)",
}
assert set(MARKER_HELP) == set(CATEGORIES) | set(DIFFICULTIES) | set(MARKER_TAGS)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("crucible", "pytest-crucible LLM benchmark")
    for setting in SETTINGS.values():
        if not setting.plugin:
            continue
        kwargs = setting.argparse_kwargs()
        kwargs["help"] += f" [ini: {setting.dest}]"
        group.addoption(setting.pytest_flag, **kwargs)
        if setting.kind == "flag":
            parser.addini(setting.dest, help=setting.help, type="bool", default=None)
        else:
            parser.addini(setting.dest, help=setting.help, type="string", default=None)


def pytest_configure(config: pytest.Config) -> None:
    from pytest_crucible.pytest_plugin.case_protocol import CaseProtocol  # lazy: see below
    from pytest_crucible.pytest_plugin.collection import installed_collection, register_shard  # lazy: see below
    from pytest_crucible.pytest_plugin.recording import RunRecorder  # lazy: pytest_plugins imports them first

    for name, text in MARKER_HELP.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    try:
        models = setting_value(config, "models")
    except InputError as exc:
        raise pytest.UsageError(str(exc)) from None
    if not models:
        return
    _warn_space_separated_values(config)
    try:
        shard_text = setting_value(config, "shard")
        shard = shards.parse_shard(shard_text) if shard_text else None
        share = shards.shard_share(shard, setting_value(config, "shard_share"))
        session = _run_session(config, models, share)
        register_shard(config, session, shard, share)
        config.stash[INSTALLED_KEY] = installed_collection(config, session)
        baseline = _baseline(config, session)
    except RunBusy as exc:  # --crucible-resume of a run a live pytest still writes
        pytest.exit(f"crucible: {exc}", returncode=2)
    except (CrucibleError, ValueError) as exc:
        raise pytest.UsageError(str(exc)) from None
    session.flags.update(session.settings.speed.to_meta())
    mode = sandbox.sandbox_mode(session.settings.allow_unsandboxed)
    session.flags.update(sandbox=mode, unsandboxed=mode == "unsandboxed", **_when_and_what(config, session, models))
    if mode == "unsandboxed" and session.controller:
        config.issue_config_time_warning(pytest.PytestWarning(sandbox.UNSANDBOXED_WARNING), 2)
    config.stash[SESSION_KEY] = session
    config.stash[RUN_END_KEY] = RunEnd(session, baseline)
    if session.controller:
        config.pluginmanager.register(RunRecorder(session, config), "crucible-recorder")
    config.pluginmanager.register(CaseProtocol(session, config), "crucible-case-protocol")
    if any(session.ahead_lane(m) for m in session.models):
        config.pluginmanager.register(AskAhead(session, config), "crucible-ask-ahead")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistHooks(session), "crucible-xdist")


def _when_and_what(config: pytest.Config, session: RunSession, models) -> dict:
    """meta.json's started_at and selection: a resumed run keeps its own, and adds when it was resumed and,
    where it differs, what the resume selected."""
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    fresh = {"started_at": now, "selection": run_selection(config, models)}
    if not (session.flags.get("resumed") and session.controller and session.run_id):
        return fresh
    was = read_meta(session.out_dir / session.run_id) or {}
    kept = {**fresh, **{k: was[k] for k in fresh if k in was}, "resumed_at": now}
    if kept["selection"] != fresh["selection"]:
        kept["resumed_selection"] = fresh["selection"]  # the resume asked for other items
    return kept


def _run_session(config: pytest.Config, models, share: float = 1.0) -> RunSession:
    """This process's session: on an xdist worker with the run id, invocation and resumed run the
    controlling process handed it."""
    worker = getattr(config, "workerinput", None)
    speed = speed_settings.build(
        bandwidth=setting_value(config, "bandwidth"), slo=setting_value(config, "slo"),
        warmup=setting_value(config, "speed_warmup"), repeats=setting_value(config, "speed_repeats"))
    allow_unsandboxed = setting_value(config, "allow_unsandboxed")
    session = RunSession(
        models=models, config_path=setting_value(config, "config"), out_dir=setting_value(config, "out"),
        profile=setting_value(config, "profile"), repeats=setting_value(config, "repeats"),
        seed=setting_value(config, "seed"),
        controller=worker is None,
        run_id=worker.get("crucible_run_id") if worker else None,
        resume=worker.get("crucible_resume_dir") if worker else setting_value(config, "resume"),
        max_cost=setting_value(config, "max_cost"), invocation=worker.get("crucible_invocation") if worker else None,
        judge=setting_value(config, "judge"),
        config_dirs=tuple(dict.fromkeys(p for p in (config.rootpath, config.inipath and config.inipath.parent) if p)),
        settings=RunSettings(speed=speed, allow_unsandboxed=allow_unsandboxed), share=share,
        processes=_process_of(worker),
        on_client=lambda model, client: config.hook.pytest_crucible_client_made(
            config=config, model=model, client=client))
    session.import_sources = {path.resolve(): name for name in setting_value(config, "import") or []
                              for path in importers.import_files(name)}
    return session


def _process_of(worker: dict | None) -> tuple[int, int]:
    """(index, count) of this process among the run's asking processes: an xdist worker's `gwN` of its
    workers, or (0, 1) for the one process of a run without xdist."""
    if not worker:
        return 0, 1
    digits = "".join(ch for ch in str(worker.get("workerid", "")) if ch.isdigit())
    return int(digits or 0), int(worker.get("workercount", 1))


def _baseline(config: pytest.Config, session: RunSession) -> Baseline | None:
    """--crucible-baseline, read as the run starts (a wrong folder fails before anything is asked)."""
    path, enforce = setting_value(config, "baseline"), setting_value(config, "gate")
    if not path:
        if enforce:
            raise InputError("--crucible-gate needs --crucible-baseline=RUN_DIR, the run to compare with",
                             field="--crucible-gate")
        return None
    if not session.controller:
        return None
    settings = GateSettings(alpha=setting_value(config, "alpha"),
                            categories=tuple(setting_value(config, "gate_categories") or ()),
                            speed_tolerance=setting_value(config, "speed_tolerance"))
    return Baseline.load(path, settings, enforce, [m.name for m in session.models])


def _warn_space_separated_values(config: pytest.Config) -> None:
    """pytest picks rootdir and the ini file before plugin options exist, so in `--crucible-out DIR` it takes
    an existing DIR for a test path (and may pick another ini file). `--crucible-out=DIR` is safe."""
    flags = {s.pytest_flag for s in SETTINGS.values() if s.plugin and s.kind != "flag"}
    args = [str(a) for a in config.invocation_params.args]
    for flag, value in itertools.pairwise(args):
        if flag in flags and (config.invocation_params.dir / value).exists():
            config.issue_config_time_warning(pytest.PytestConfigWarning(
                f"write {flag}={value} (with '='): pytest chose rootdir and the ini file before it knew "
                f"{flag}, and took {value} for a test path"), 3)


def run_selection(config: pytest.Config, models: str) -> dict[str, object]:
    """What chose this run's items (-k, -m, profile, paths, --models): shown with its report, since two
    runs of one suite are comparable only on what both selected."""
    option = config.option
    return {key: value for key, value in (
        ("models", models), ("profile", setting_value(config, "profile")),
        ("-k", getattr(option, "keyword", "") or ""), ("-m", getattr(option, "markexpr", "") or ""),
        ("paths", [str(a) for a in config.args]),
    ) if value}
