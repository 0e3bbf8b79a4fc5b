"""pytest's own selection and cache options on case items, for the two ways the plugin is installed:
the checkout (editable, or PYTHONPATH) and the built wheel installed into a site-packages folder, where
the built-in suite lies in site-packages/pytest_crucible/builtin_cases.

--lf, --ff, --sw and --nf re-find items by node id (pytest >= 9.2 compares structured ids); -k matches
case ids, models, categories, difficulties, tags, families and file stems, never the folders the suite is
installed in; any id a run prints can be pasted back, from any directory.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from builtin_suite import builtin_cases
from filelock import FileLock
from loopback import Reply

from pytest_crucible.suite.case import builtin_cases_dir

ROOT = Path(__file__).resolve().parents[1]
SUITE = builtin_cases()
# the maths below the hard tier: a dozen items, enough for --lf, --ff, --sw and --nf to show their order
MATH_MARK = "math and not hard"
MATH = [c for c in SUITE if c.category == "math" and not c.hard]
MODELS = ("zeta1", "zeta2")  # names no case id, category or tag contains
ID_LINE = re.compile(r"^(FAILED|PASSED|ERROR) (\S+\[[^\]]+\])")


@pytest.fixture(scope="session")
def wheel_site(tmp_path_factory, worker_id) -> Path:
    """A site-packages folder holding the project installed from its built wheel; with it first on
    PYTHONPATH, this environment's python imports that copy (its dependencies are this environment's).
    Built once per run: xdist's workers share it through their common temporary folder."""
    base = tmp_path_factory.getbasetemp()
    where = base if worker_id == "master" else base.parent  # the run's folder, above the workers' own
    site = where / "wheelinstall" / "site-packages"
    with FileLock(str(where / "wheelinstall.lock")):
        if not site.is_dir():
            dist = where / "wheelinstall" / "dist"
            subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(dist), str(ROOT)], check=True, capture_output=True)
            wheel = next(dist.glob("pytest_crucible-*.whl"))
            unpacked = site.with_name("site-packages.partial")  # renamed when whole: a worker never sees half
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target",
                            str(unpacked), str(wheel)], check=True, capture_output=True)
            unpacked.rename(site)
    return site


class Install:
    """`pytest --models zeta1 ...` run with one installation, in the pytester directory: the wheel's by a
    python whose PYTHONPATH puts it first, the checkout's (this process's) in this process."""

    def __init__(self, kind: str, pytester: pytest.Pytester):
        self.kind, self.python, self.pytester = kind, Path(sys.executable), pytester
        self.suite_dir = builtin_cases_dir() if kind == "editable" else Path(self.python_says(
            "from pytest_crucible.suite.case import builtin_cases_dir; print(builtin_cases_dir())"))

    def python_says(self, code: str) -> str:
        out = subprocess.run([str(self.python), "-c", code], check=True, capture_output=True, text=True)
        return out.stdout.strip()

    def pytest(self, *args: str) -> pytest.RunResult:
        """-n0: a run whose rootdir is the checkout reads its pyproject.toml, whose addopts spread the
        project's own tests over xdist workers. The checkout is the install this process runs: its runs
        need no process of their own."""
        args = ("-n0", "--models=zeta1", f"--crucible-config={self.pytester.path / 'models.yaml'}", *args)
        if self.kind == "editable":
            return self.pytester.runpytest(*args)
        return self.pytester.run(str(self.python), "-m", "pytest", *args, timeout=300)


@pytest.fixture(params=["editable", "wheel"])
def install(request, pytester, loopback, monkeypatch) -> Install:
    if request.param == "wheel":
        monkeypatch.setenv("PYTHONPATH", str(request.getfixturevalue("wheel_site")))
    pytester.makefile(".yaml", models=textwrap.dedent(f"""\
        providers:
          loop: {{base_url: {loopback.base_url}, max_retries: 1, timeout: 20}}
        models:
          - {{name: zeta1, provider: loop}}
          - {{name: zeta2, provider: loop}}
        """))
    installed = Install(request.param, pytester)
    if request.param == "wheel":
        assert "site-packages" in installed.suite_dir.parts and installed.suite_dir.name == "builtin_cases"
    else:
        assert installed.suite_dir == ROOT / "cases"
    return installed


def ids_run(result: pytest.RunResult) -> list[str]:
    """Ids of the items a run reports, as printed (relative to the working directory)."""
    return [m.group(2) for line in result.outlines if (m := ID_LINE.match(line))]


def from_root(printed: str, result: pytest.RunResult) -> str:
    """An id as printed, relative to the working directory (`../../checkout/crucible/math/x.yaml::ID[m]` when
    rootdir is the checkout), made rootdir-relative (`crucible/math/x.yaml::ID[m]`) whatever the folders on
    the way are named: a checkout folder may be named crucible too."""
    [rootdir] = [line.removeprefix("rootdir: ").split(", ")[0] for line in result.outlines
                 if line.startswith("rootdir: ")]
    path, sep, rest = printed.partition("::")
    return Path(os.path.normpath(Path.cwd() / path)).relative_to(rootdir).as_posix() + sep + rest


def collected(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::" in line]


def answer_right(loopback, case) -> None:
    loopback.script(rules=[(case.messages[-1]["content"], Reply(case.verify["reference"]))], default="Answer: -1")


def test_last_failed_reruns_the_failures_of_installed_and_user_files(install, loopback):
    right = next(c for c in MATH if c.verify.get("reference"))
    answer_right(loopback, right)
    install.pytester.makefile(".cases.yaml", mine="cases:\n"
                              "  - {id: MINE1, category: math, difficulty: easy, prompt: p, grader: {type: numeric, answer: 7}}\n"
                              "  - {id: MINE2, category: math, difficulty: easy, prompt: q, grader: {type: numeric, answer: -1}}\n")
    first = install.pytest("-m", MATH_MARK, "mine.cases.yaml", "-rA")
    first.assert_outcomes(passed=2, failed=len(MATH))
    failed = {i for i in ids_run(first) if i not in {f"mine.cases.yaml::MINE2[zeta1]"}} - {
        f"crucible/{Path(right.file).parent.name}/{Path(right.file).name}::{right.id}[zeta1]"}
    again = install.pytest("-m", MATH_MARK, "mine.cases.yaml", "--lf", "-rA")
    again.assert_outcomes(failed=len(MATH))
    assert set(ids_run(again)) == failed and "mine.cases.yaml::MINE1[zeta1]" in failed


def test_failed_first_and_stepwise_find_installed_items_again(install, loopback):
    first_math = MATH[0]
    assert first_math.verify.get("reference"), "the first maths case needs a reference reply"
    answer_right(loopback, first_math)  # in suite order: one pass, then failures
    install.pytest("-m", MATH_MARK).assert_outcomes(passed=1, failed=len(MATH) - 1)
    failed_first = install.pytest("-m", MATH_MARK, "--ff", "-x")
    assert failed_first.parseoutcomes() == {**failed_first.parseoutcomes(), "failed": 1}
    assert "passed" not in failed_first.parseoutcomes()  # a known failure ran first
    stepwise = install.pytest("-m", MATH_MARK, "--sw")
    assert stepwise.parseoutcomes()["failed"] == 1 and stepwise.parseoutcomes()["passed"] == 1
    resumed = install.pytest("-m", MATH_MARK, "--sw")
    outcomes = resumed.parseoutcomes()
    assert outcomes["failed"] == 1 and "passed" not in outcomes  # resumed at the failure, past the pass
    resumed.stdout.fnmatch_lines(["*skipping * already passed items*"])


def test_new_first_runs_an_item_new_to_the_cache_first(install, loopback):
    last = next(c for c in reversed(MATH) if c.verify.get("reference"))
    assert last is not MATH[0]
    answer_right(loopback, last)
    install.pytest("-m", MATH_MARK, "-k", f"not {last.id}").assert_outcomes(failed=len(MATH) - 1)
    new_first = install.pytest("-m", MATH_MARK, "--nf", "-x")
    assert new_first.parseoutcomes() == {**new_first.parseoutcomes(), "passed": 1, "failed": 1}


def keywords(case, model: str) -> set[str]:
    """What -k may match for a case item: its id, model, category, difficulty, tags, family, file stem."""
    return {case.id, model, case.category, case.difficulty, *case.tags, case.family,
            Path(case.file).name.split(".")[0]} - {""}


def selected_by(word: str, model: str = MODELS[0]) -> list[str]:
    return sorted(c.id for c in SUITE if any(word.lower() in k.lower() for k in keywords(c, model)))


def test_keywords_are_the_items_own_never_the_install_location(install, loopback):
    folders = [p for p in install.suite_dir.parts[1:] if not selected_by(p)]
    assert install.kind == "editable" or {"site-packages", "pytest_crucible", "builtin_cases"} <= set(folders)
    result = install.pytest("--collect-only", "-q", "-k", " or ".join(folders))
    assert collected(result) == [], folders
    tag = next(t for c in SUITE for t in c.tags if t not in ("smoke", "judged"))  # not a marker: a keyword
    stem = Path(MATH[0].file).name.split(".")[0]
    for word in (tag, stem, MATH[0].id):
        result = install.pytest("--collect-only", "-q", "-k", word)
        assert sorted(line.split("::")[1].removesuffix("[zeta1]") for line in collected(result)) == selected_by(word)
    result = install.pytest("--collect-only", "-q", "-k", "zeta2 and hard", "--models=zeta1,zeta2")
    assert len(collected(result)) == sum(c.hard for c in SUITE) > 0
    assert all(line.endswith("[zeta2]") for line in collected(result))


def test_a_printed_id_pasted_back_runs_that_item_from_any_directory(install, loopback, monkeypatch):
    loopback.script(default="Answer: -1")
    first = install.pytest("-m", MATH_MARK, "-rA")
    printed = ids_run(first)
    assert len(printed) == len(MATH) and all(i.startswith("crucible/math/") for i in printed)
    target = printed[len(printed) // 2]
    install.pytester.makeini("[pytest]\n")  # rootdir stays here when a run starts in a subfolder
    monkeypatch.chdir(install.pytester.mkdir("sub"))
    again = install.pytest(target, "-rA")
    again.assert_outcomes(failed=1)
    shown = ids_run(again)
    assert shown == [f"../{target}"]  # pytest shows rootdir-relative ids relative to the working directory
    monkeypatch.chdir(install.pytester.mkdir("other"))
    assert ids_run(install.pytest(shown[0], "-rA")) == shown  # and that form pastes back too
    # the installed file's real path, with the case id, is the same item under the same id
    path, name = target.removeprefix("crucible/").split("::")
    by_path = install.pytest(f"{install.suite_dir / path}::{name}", "-rA")
    assert [from_root(i, by_path) for i in ids_run(by_path)] == [target]
    # a whole installed file, and --deselect with a printed id
    file_id = target.split("::")[0]
    rest = install.pytest(file_id, f"--deselect={target}", "--collect-only", "-q")
    file_cases = [c for c in SUITE if c.category == "math" and Path(c.file).name == Path(path).name]
    assert len(collected(rest)) == len(file_cases) - 1 and target not in collected(rest)


def test_ids_stay_the_same_under_a_checkout_folder_named_crucible(pytester, loopback, monkeypatch):
    """The ids' fixed root is named crucible, and so may be the folder the project is checked out in (here
    a link to this checkout, the install the tests run): a case given by its path in that folder is printed
    relative to rootdir (the checkout, whose pyproject.toml is found first), and what is printed pastes back."""
    checkout = pytester.path / "crucible"
    checkout.symlink_to(ROOT, target_is_directory=True)
    case = MATH[len(MATH) // 2]
    rel = Path(case.file).relative_to(ROOT / "cases").as_posix()
    pytester.makefile(".yaml", models=f"providers:\n  loop: {{base_url: {loopback.base_url}, max_retries: 1}}\n"
                                     "models:\n  - {name: zeta1, provider: loop}\n")
    loopback.script(default="Answer: -1")
    monkeypatch.chdir(pytester.mkdir("work"))
    args = ("-p", "no:cacheprovider", "-n0", "--models=zeta1", f"--crucible-config={pytester.path / 'models.yaml'}",
            "-rA")
    by_path = pytester.runpytest(f"{checkout / 'cases' / rel}::{case.id}", *args)
    by_path.assert_outcomes(failed=1)
    [printed] = ids_run(by_path)
    assert printed == f"../crucible/crucible/{rel}::{case.id}[zeta1]"  # the checkout, then the ids' root
    assert from_root(printed, by_path) == f"crucible/{rel}::{case.id}[zeta1]"
    again = pytester.runpytest(printed, *args)
    again.assert_outcomes(failed=1)
    assert [from_root(i, again) for i in ids_run(again)] == [f"crucible/{rel}::{case.id}[zeta1]"]
