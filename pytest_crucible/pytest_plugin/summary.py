"""The end of a run: under --crucible-gate the exit status, then the crucible summary on the terminal;
the report is written (and the session closed) also without a terminal."""

from __future__ import annotations

import pytest

from pytest_crucible.pytest_plugin import compat
from pytest_crucible.pytest_plugin.state import RUN_END_KEY

BLOCK_GLYPHS, ASCII_GLYPHS = "█░", "#."


def pytest_sessionfinish(session: pytest.Session, exitstatus) -> None:
    """Under --crucible-gate the comparison with the baseline decides the exit status (this runs before
    the terminal summary, which prints the comparison)."""
    end = session.config.stash.get(RUN_END_KEY, None)
    if end is None or not end.session.controller:
        return
    gated = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED)
    fails = end.gate_fails_run(session.exitstatus == pytest.ExitCode.TESTS_FAILED)
    if fails is not None and session.exitstatus in gated:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED if fails else pytest.ExitCode.OK


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    end = config.stash.get(RUN_END_KEY, None)
    if end is None or not end.session.controller:
        return
    report = end.finish()
    if report is None:
        return
    terminalreporter.write_sep("=", "crucible summary")
    for line in end.summary_lines(report, config.get_verbosity(), bar_glyphs(config)):
        terminalreporter.write_line(line)


def bar_glyphs(config: pytest.Config) -> str:
    """Block characters for the summary's bars where the terminal's encoding has them, else ASCII."""
    try:
        BLOCK_GLYPHS.encode(compat.terminal_encoding(config) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return ASCII_GLYPHS
    return BLOCK_GLYPHS


def pytest_unconfigure(config: pytest.Config) -> None:
    end = config.stash.get(RUN_END_KEY, None)
    if end is not None:
        end.finish()  # without a terminal summary (e.g. -p no:terminal) the report is still written
        end.session.close()
