"""The end-of-run card per model in the terminal: bars per category, latency, and how much of it each
verbosity keeps (through pytest: tests/test_report_html.py)."""

from synthetic_run import write_run

from pytest_crucible.analysis.report import aggregate, render_terminal, text_bar
from pytest_crucible.results.store import read_rows


def test_terminal_card_per_verbosity(tmp_path):
    assert text_bar(0.5, 10) == "█████░░░░░" and text_bar(1.0, 4, "#.") == "####" and text_bar(None, 3) == "   "
    run_dir = write_run(tmp_path, models=1, cases=21)
    report = aggregate(read_rows(run_dir))
    full, quiet, very_quiet = (render_terminal(report, v) for v in (0, -1, -2))
    name = next(iter(report["models"]))
    t = report["models"][name]["categories"]["math"]
    bar = f"  math       {text_bar(t['rate'])} {round(t['rate'] * 100)}% ({t['passed']}/{t['n']})"
    assert any(line.startswith(bar) for line in full) and any(line.startswith(bar) for line in quiet)
    assert any(line.startswith(f"  SPEED {name}") for line in full)
    assert not any("SPEED" in line for line in quiet) and any(line.startswith("  latency") for line in quiet)
    assert very_quiet == [full[0]] and full[0].startswith(f"{name}: ")
    assert not any(line.startswith("  speed ") for line in full)  # the speed block, not a bar, says it
