"""report.html at scale: file size and render time in headless Chromium, against the issue's targets.

    python benchmarks/report_html.py [--runs 5] [--models 10] [--cases 1000]
    python benchmarks/report_html.py --large [--runs 3]     # the 100,000-row case (benchmarks/large_run.py)

Writes a synthetic run (tests/synthetic_run.py: N models x M accuracy cases plus the speed sweep, with
replies and reasoning of realistic length) and a small one (3 x 60) side by side, builds each report
the way a run does (`write_reports`: report.json, report.md, report.html) and prints, as medians over
the runs:
  - the time to build the reports, and report.html's size against the 5 MB target;
  - the render time in headless Chromium (Debian's /usr/bin/chromium through playwright): from the
    start of navigation to the first frame after the load event, against the 3 s target.
Pages are loaded round-robin (big, small, big, ...) so a noisy machine slows both alike. For the choice
of plotting library it also prints the size of the script that plotly or bokeh would have to inline,
when they are installed.

`--large` (benchmarks/large_run.py, whose docstring says where the time goes): 100,000 rows, 516 MB. On
the shared 2-core machine at load 10, medians of 3 with the old and new code interleaved, session 9
took `crucible report` from 8.95 to 7.60 CPU s (wall 25.9 -> 19.4 s under that load) and 383 to 310 MB
peak RSS, the big run's page from 6.8 to 5.6 CPU s, and the run list's first load with the big run
lacking report.json from 7.9 to 0.6 s (counted in the background past 0.5 s); at load 3-5 the report
took 7.5 -> 6.4 CPU s (15.7 -> 11.0 s wall) and the page 5.9 -> 5.0. Half of what is left is json's
parsing of the lines; the stdlib stays (orjson halves it but reads integers past 64 bits as floats).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from synthetic_run import write_run  # noqa: E402

from pytest_crucible.analysis.report import write_reports  # noqa: E402
from pytest_crucible.results.store import HTML_FILE, read_rows  # noqa: E402

SIZE_TARGET = 5 * 1024 * 1024
RENDER_TARGET_S = 3.0
CHROMIUM = "/usr/bin/chromium"
# the first frame painted after the load event, in ms since navigation started
READY_JS = """() => new Promise((done) => {
  const after = () => requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now())));
  if (document.readyState === "complete") after(); else addEventListener("load", after);
})"""


def build(out: Path, run_id: str, models: int, cases: int, runs: int) -> tuple[Path, float]:
    run_dir = write_run(out, run_id, models=models, cases=cases)
    rows = read_rows(run_dir)
    meta = json.loads((run_dir / "meta.json").read_text())
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        write_reports(run_dir, rows, meta)
        times.append(time.perf_counter() - start)
    return run_dir / HTML_FILE, statistics.median(times)


def render_times(pages: list[Path], runs: int) -> dict[Path, list[float]]:
    from playwright.sync_api import sync_playwright
    out: dict[Path, list[float]] = {p: [] for p in pages}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        for _ in range(runs):
            for page_path in pages:
                # bypass_csp: the page's policy forbids the evaluation that reads the timing back
                context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
                page = context.new_page()
                page.goto(page_path.as_uri(), wait_until="commit")
                out[page_path].append(page.evaluate(READY_JS) / 1000)
                context.close()
        browser.close()
    return out


def library_scripts() -> list[str]:
    lines = []
    try:
        import plotly
        size = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").stat().st_size
        lines.append(f"plotly {plotly.__version__}: plotly.min.js alone is {size / 1e6:.2f} MB inlined")
    except (ImportError, OSError):
        pass
    try:
        import bokeh
        size = (Path(bokeh.__file__).parent / "server" / "static" / "js" / "bokeh.min.js").stat().st_size
        lines.append(f"bokeh {bokeh.__version__}: bokeh.min.js alone is {size / 1e6:.2f} MB inlined")
    except (ImportError, OSError):
        pass
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--large", action="store_true",
                        help="the 100,000-row case: crucible report, the GUI's run list and pages, compare")
    args = parser.parse_args()
    if args.large:
        from large_run import large_case
        with tempfile.TemporaryDirectory() as tmp:
            return 0 if large_case(Path(tmp), args.runs) else 1
    with tempfile.TemporaryDirectory() as tmp:
        big, big_build = build(Path(tmp), "big", args.models, args.cases, args.runs)
        small, small_build = build(Path(tmp), "small", 3, 60, args.runs)
        renders = render_times([big, small], args.runs)
        print(f"report.html, medians of {args.runs} runs")
        print(f"{'run':<24} {'rows':>6} {'build s':>8} {'size MB':>8} {'of 5 MB':>8} {'render s':>9} {'of 3 s':>7}")
        ok = True
        for label, path, built in ((f"{args.models} x {args.cases}", big, big_build), ("3 x 60", small, small_build)):
            rows = sum(1 for _ in open(path.parent / "rows.jsonl"))
            size = path.stat().st_size
            render = statistics.median(renders[path])
            ok &= size < SIZE_TARGET and render < RENDER_TARGET_S
            print(f"{label:<24} {rows:>6} {built:>8.2f} {size / 1e6:>8.2f} {size / SIZE_TARGET:>8.0%} "
                  f"{render:>9.3f} {render / RENDER_TARGET_S:>7.0%}")
        print(f"big / small: size {big.stat().st_size / small.stat().st_size:.1f}x, render "
              f"{statistics.median(renders[big]) / statistics.median(renders[small]):.1f}x")
        for line in library_scripts():
            print(line)
        print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
