"""Screenshots of report.html and of `crucible gui`'s pages, from real run folders.

    python docs/screenshots/make.py LABEL=RUN_DIR [LABEL=RUN_DIR ...]

    e.g. python docs/screenshots/make.py smollm2=crucible-results/20261204-123535-b09f \\
                                        three-models=crucible-results/20261204-132241-4357

Each run folder is copied to a temporary results folder and its reports rebuilt with this checkout's code
(`crucible report`), so the pictures show the current page, not the one the run wrote. Headless Chromium
(Debian's /usr/bin/chromium, through playwright) then takes, into docs/screenshots/:

    report-LABEL.png          the top of each run's report.html
    answers-LABEL.png         its answers table with the first reply opened
    gui-runs.png              the GUI's run list
    gui-run.png               the GUI's page of the first run given
    gui-compare.png           the GUI's comparison of the first two runs (their first models)

The PNGs are reduced to a 256-colour palette to stay small. The folders given are never written to.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

from PIL import Image  # Pillow comes with matplotlib
from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
WIDTH, TOP = 1360, 1500  # the viewport's width; how much of a long page is kept


def shrink(path: Path) -> None:
    Image.open(path).convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(path, optimize=True)
    print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB)")


def rebuilt_copies(given: list[tuple[str, Path]], results: Path) -> list[tuple[str, Path]]:
    """Each run copied under `results`, its report rebuilt by `crucible report` with this checkout."""
    out = []
    for label, src in given:
        dst = results / src.resolve().name
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.lock", ".*.tmp"))
        subprocess.run([sys.executable, "-m", "pytest_crucible.apps.cli", "report", str(dst)], check=True,
                       stdout=subprocess.DEVNULL)
        out.append((label, dst))
    return out


def shoot(page, path: Path, full: bool = True) -> None:
    height = page.evaluate("document.documentElement.scrollHeight") if full else TOP
    page.screenshot(path=str(path), clip={"x": 0, "y": 0, "width": WIDTH, "height": min(TOP, height)},
                    full_page=True)
    shrink(path)


def shoot_report(page, label: str, run_dir: Path) -> None:
    page.goto((run_dir / "report.html").as_uri())
    shoot(page, HERE / f"report-{label}.png")
    opener = page.locator("#problems-table tbody tr summary").first
    if opener.count():
        page.select_option("#f-outcome", "all")
        opener.click()
        top = page.evaluate("document.getElementById('problems').getBoundingClientRect().top + window.scrollY")
        page.screenshot(path=str(HERE / f"answers-{label}.png"), full_page=True,
                        clip={"x": 0, "y": top, "width": WIDTH, "height": 900})
        shrink(HERE / f"answers-{label}.png")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def first_model(run_dir: Path) -> str:
    return next(iter(json.loads((run_dir / "meta.json").read_text())["models"]))


def shoot_gui(page, results: Path, runs: list[Path]) -> None:
    port = free_port()
    gui = subprocess.Popen([sys.executable, "-m", "pytest_crucible.apps.cli", "gui", str(results), "--port",
                            str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = re.search(r"at (http://\S+)", gui.stdout.readline()).group(1)
        for _ in range(100):  # until it listens
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        page.goto(url)
        shoot(page, HERE / "gui-runs.png")
        page.goto(f"{url.rstrip('/')}/runs/{runs[0].name}")
        page.wait_for_selector("#chart-rates svg")
        shoot(page, HERE / "gui-run.png")
        if len(runs) > 1:
            query = urlencode({"base": runs[0].name, "new": runs[1].name, "base_model": first_model(runs[0]),
                               "new_model": first_model(runs[1])})
            page.goto(f"{url.rstrip('/')}/compare?{query}")
            shoot(page, HERE / "gui-compare.png")
    finally:
        gui.terminate()
        gui.wait(timeout=20)


def main(argv: list[str]) -> None:
    given = [(a.split("=", 1)[0], Path(a.split("=", 1)[1])) for a in argv if "=" in a]
    if not given or len(given) != len(argv):
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "crucible-results"
        results.mkdir()
        runs = rebuilt_copies(given, results)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page(viewport={"width": WIDTH, "height": 1000})
            for label, run_dir in runs:
                shoot_report(page, label, run_dir)
            shoot_gui(page, results, [run_dir for _, run_dir in runs])
            browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
