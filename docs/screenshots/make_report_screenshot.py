"""Regenerate docs/screenshots/report.png, the README's picture of report.html.

    python docs/screenshots/make_report_screenshot.py

A synthetic run (tests/synthetic_run.py: 6 models x 280 cases and the speed sweep, seed 3) gets its
reports written as a run writes them; headless Chromium (Debian's /usr/bin/chromium, through playwright)
photographs the top of report.html: the pass-rate table, the total / hard-tier chart and the per-category
chart. The PNG is reduced to a 256-colour palette to stay small.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from PIL import Image  # noqa: E402 - Pillow comes with matplotlib
from playwright.sync_api import sync_playwright  # noqa: E402
from synthetic_run import write_run  # noqa: E402

from pytest_crucible.analysis.report import write_reports  # noqa: E402
from pytest_crucible.results.store import HTML_FILE, read_rows  # noqa: E402

OUT = HERE / "report.png"
CLIP = {"x": 0, "y": 0, "width": 1360, "height": 1060}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = write_run(Path(tmp), "20250301-093000-demo", models=6, cases=280, seed=3)
        write_reports(run_dir, read_rows(run_dir), json.loads((run_dir / "meta.json").read_text()))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
            page = browser.new_page(viewport={"width": 1360, "height": 1100})
            page.goto((run_dir / HTML_FILE).as_uri())
            page.screenshot(path=str(OUT), clip=CLIP)
            browser.close()
    Image.open(OUT).convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(OUT, optimize=True)
    print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
