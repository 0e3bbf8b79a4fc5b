"""Lines of our own amid pytest's progress letters, without breaking them.

pytest writes a letter per test and, at the right edge, ` [NN%]` and a new line; the next letters go on
without the file's name. A line of ours is written the same way: the current line of letters is ended
with its ` [NN%]`, as pytest ends a full one, then ours follows, and the letters go on below it. When the
next test is in another file, its name is written at once on the fresh line (what pytest's own
`write_fspath_result` would do), so no line holds a lone ` [NN%]`. Under -v every test has a line of its
own and ours go between them.
"""

from __future__ import annotations

import pytest

from pytest_crucible.pytest_plugin import compat

PREFIX = "crucible: "


class TerminalLines:
    def __init__(self, config: pytest.Config):
        self.config = config
        self._fresh = False  # our line was the last thing written: the cursor is at the start of a line

    @property
    def reporter(self):
        return self.config.pluginmanager.get_plugin("terminalreporter")

    def say(self, lines: list[str], report: pytest.TestReport | None = None, **markup: bool) -> None:
        """`report`: the report being logged, when called from `pytest_runtest_logreport`."""
        reporter = self.reporter
        if reporter is None or not lines:
            return
        if self.config.get_verbosity() > 0:
            for line in lines:
                reporter.write_line(PREFIX + line, **markup)
            return
        writer = self.config.get_terminal_writer()
        if writer.width_of_current_line:
            compat.end_progress_line(reporter, report)
        for line in lines:
            writer.line(PREFIX + line, **markup)
        self._fresh = True

    def before_item(self, nodeid: str) -> None:
        """Before pytest's reporter hears of the item: on the fresh line after ours, start the item's file
        line here when the item is in another file (else pytest would first end the empty line with its
        ` [NN%]`)."""
        if not self._fresh:
            return
        self._fresh = False
        reporter = self.reporter
        if reporter is None or self.config.get_verbosity() > 0 or reporter.currentfspath is None:
            return
        if self.config.get_terminal_writer().width_of_current_line:
            return
        compat.start_file_line(reporter, nodeid)
