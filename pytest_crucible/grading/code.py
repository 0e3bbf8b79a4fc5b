"""Code grader: the model's Python runs against the case's tests in the sandbox.

Spec (the case's `grader`)::

    grader:
      type: code
      language: python           # the only language (the default)
      entry_point: median        # the function (or class) the tests call
      tests: |                   # assert statements: at module level, in test_*() functions, or in
        assert median([3, 1, 2]) == 2      # check(candidate), which gets the entry point (HumanEval)
      setup: ...                 # optional, test side: helpers and data the tests use
      prelude: ...               # optional, solution side: code run before the model's code in the same
                                 # namespace (given helper functions, imports)
      memory_mb: 1024            # optional memory limit (default 1024)
      perf:                      # optional: complexity, with a calibrated time limit (below)
        input: |                 # builds a large, seeded input: sets `args` (and optionally `kwargs`)
          import random
          rng = random.Random(7)
          args = ([rng.randrange(10**9) for _ in range(200_000)],)
        check: assert result == sorted(args[0])[100_000]    # optional asserts about `result`
    verify:
      solution: |                # the reference solution: calibrates perf cases; `crucible cases verify`
        def median(xs): ...      # runs it against the tests

Grading: the code is taken from the reply (the last python block that defines the entry point,
with earlier definition-only python blocks in front; an unclosed fence at the end of the reply counts;
a bare reply that is code counts), then run with the tests in the sandbox's harness. It passes only
on the harness's authenticated pass record, written after every test ran to its end (see
`pytest_crucible.sandbox.harness`). Failures read like `AssertionError in test 3: expected 7, got 6`,
`timeout >15s`, `SyntaxError line 4: expected ':'`, `NameError: name 'foo' is not defined`,
`no code in response`, `memory limit exceeded`, `entry point median not defined`.

Time limit (the rule):
- a case with `perf`: calibrated on the machine that runs it, ``max(2 s, 10 x reference time)``, where
  the reference time is the fastest of 3 sandboxed runs of `verify.solution` through the same harness
  (tests and perf input included). It is measured once per machine and cached under
  ``user_cache_dir("pytest-crucible")/calibration`` (or ``$CRUCIBLE_CACHE_DIR/calibration``), keyed by the
  case id, a hash of the solution, tests, setup, prelude and perf code, the harness version and a
  machine fingerprint; a file lock makes parallel workers wait for a single measurement. So a slow box
  does not fail a correct O(n log n) solution and a fast one does not pass an O(n^2) one;
- any other case: its `timeout_s`, 15 s by default.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import platform
import re
import sys
import time
from pathlib import Path

from filelock import FileLock

from pytest_crucible.common.cache import cache_dir
from pytest_crucible.common.errors import CaseError, SandboxError
from pytest_crucible.grading.base import (
    BaseGrader,
    Grade,
    VerifyContext,
    VerifyJob,
    as_list,
)
from pytest_crucible.grading.extract import code_blocks
from pytest_crucible.sandbox import get_sandbox
from pytest_crucible.sandbox.bwrap import Sandbox
from pytest_crucible.sandbox.testrun import (
    HARNESS_VERSION,
    TestOutcome,
    TestSpecError,
    compile_trusted,
    parse_python,
    prepare_tests,
    run_tests,
)

DEFAULT_TIMEOUT_S = 15.0
DEFAULT_MEMORY_MB = 1024
CALIBRATION_FLOOR_S = 2.0
CALIBRATION_FACTOR = 10.0
CALIBRATION_RUNS = 3
MAX_CODE_CHARS = 200_000
_KEYS = {"type", "language", "entry_point", "tests", "setup", "prelude", "memory_mb", "perf"}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# ---------------------------------------------------------------------------------------- the spec

def check(spec: dict) -> list[tuple[str | None, str]]:
    problems: list[tuple[str | None, str]] = []
    for key in sorted(set(spec) - _KEYS):
        problems.append((key, f"unknown key for a code grader; allowed: {', '.join(sorted(_KEYS))}"))
    language = spec.get("language", "python")
    if str(language).lower() not in ("python", "py", "python3"):
        problems.append(("language", f"only python is supported, got {language!r}"))
    entry = spec.get("entry_point")
    if not isinstance(entry, str) or not _IDENT.match(entry):
        problems.append(("entry_point", "write the name of the function the tests call, e.g. entry_point: median"))
        entry = "solution"
    for key in ("tests", "setup", "prelude"):
        if key in spec and spec[key] is not None and not isinstance(spec[key], str):
            problems.append((key, f"{key} must be Python code (a string)"))
    if not isinstance(spec.get("tests"), str) or not spec["tests"].strip():
        problems.append(("tests", "write the tests as Python code with assert statements, e.g. "
                                  "tests: \"assert median([3, 1, 2]) == 2\""))
    memory = spec.get("memory_mb", DEFAULT_MEMORY_MB)
    if not isinstance(memory, int) or isinstance(memory, bool) or not 64 <= memory <= 65536:
        problems.append(("memory_mb", f"memory_mb must be an integer between 64 and 65536, got {memory!r}"))
    if problems:
        return problems
    try:
        prepare_tests(spec["tests"], entry_point=entry, setup=spec.get("setup") or "", perf=spec.get("perf"))
    except TestSpecError as exc:
        message = str(exc)
        where = message.split(":", 1)[0].split(".", 1)[0]
        problems.append((where if where in ("tests", "setup", "perf") else "tests", message))
    try:
        compile_trusted(spec.get("prelude") or "", "<prelude>")
    except TestSpecError as exc:
        problems.append(("prelude", str(exc)))
    return problems


def _prepared(case):
    spec = case.grader
    try:
        return prepare_tests(spec["tests"], entry_point=spec["entry_point"], setup=spec.get("setup") or "",
                             perf=spec.get("perf"))
    except TestSpecError as exc:
        raise CaseError(str(exc), file=case.file or None, line=case.line or None, field="grader",
                        case_id=case.id) from None


# ---------------------------------------------------------------------------------------- the code

_DEF = r"^[ \t]*(?:async[ \t]+)?def[ \t]+{name}[ \t]*\(|^[ \t]*class[ \t]+{name}\b|^{name}[ \t]*(?::[^=\n]*)?="
_CODE_START = re.compile(r"^(?:from[ \t]+\S+[ \t]+import\b|import[ \t]+\w|(?:async[ \t]+)?def[ \t]+\w|"
                         r"class[ \t]+\w|@\w)", re.M)


def _defines(code: str, name: str) -> bool:
    return re.search(_DEF.format(name=re.escape(name)), code, re.M) is not None


def _parses(code: str) -> bool:
    if len(code) > MAX_CODE_CHARS:
        return False
    try:
        parse_python(code)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def _definitions_only(code: str) -> bool:
    """Imports, functions, classes and assignments only: a helper block, safe to put in front."""
    if len(code) > MAX_CODE_CHARS:
        return False
    try:
        tree = parse_python(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    allowed = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign,
               ast.AnnAssign)
    assert isinstance(tree, ast.Module)  # parse_python's default mode, "exec"
    return bool(tree.body) and all(isinstance(n, allowed) for n in tree.body)


def extract_code(text: str, entry_point: str) -> str | None:
    """The code to grade in a reply, or None when there is none.

    - fenced blocks: among python blocks (tagged python/py/python3, or untagged), the last one that
      defines the entry point, preceded by the earlier python blocks that only define things (helper
      functions, imports) and do not define the entry point themselves; with no block defining it,
      the last python block (grading then says the entry point is missing). An unclosed fence at the
      end of the reply is a block. Blocks of other languages count only if they define the entry point.
    - no fences: the reply itself if it parses as Python; else, from its first line that starts code
      (import, def, class, decorator), the longest stretch that parses, if it defines the entry point.
    """
    text = text or ""
    blocks = code_blocks(text)
    if blocks:
        python = [b for b in blocks if b.language in ("python", "")]
        if not python:
            python = [b for b in blocks if _defines(b.code, entry_point)]
        python = [b for b in python if b.code.strip()]
        if not python:
            return None
        defining = [i for i, b in enumerate(python) if _defines(b.code, entry_point)]
        if not defining:
            return python[-1].code.strip("\n") + "\n"
        last = defining[-1]
        helpers = [b.code.strip("\n") for b in python[:last]
                   if not _defines(b.code, entry_point) and _definitions_only(b.code)]
        return "\n\n".join(helpers + [python[last].code.strip("\n")]) + "\n"
    stripped = text.strip()
    if not stripped:
        return None
    if _parses(stripped) and _CODE_START.search(stripped):
        return stripped + "\n"
    start = _CODE_START.search(text)
    if start is None:
        return None
    lines = text[start.start():].rstrip().split("\n")
    for end in range(len(lines), 0, -1):
        candidate = "\n".join(lines[:end]).rstrip()
        if _defines(candidate, entry_point) and _parses(candidate):
            return candidate + "\n"
        if len(lines) - end > 200:
            break
    candidate = "\n".join(lines)
    return candidate + "\n" if _defines(candidate, entry_point) else None


# ---------------------------------------------------------------------------------------- grading

def grade(case, response, sandbox: Sandbox | None = None) -> Grade:
    """Grade a reply in `sandbox` (default: the process's bwrap sandbox). The first code grade in a
    sandbox runs the canary first (see `canary`): a sandbox that cannot run known-good code raises
    SandboxError, an infrastructure error."""
    spec = case.grader
    code = extract_code(response.content, spec["entry_point"])
    if code is None:
        return Grade(passed=False, reason="no code in response", answer=None, details={})
    if len(code) > MAX_CODE_CHARS:
        return Grade(passed=False, reason=f"code too long ({len(code)} characters)", answer=code[:2000],
                     details={})
    sandbox = sandbox or get_sandbox()
    canary(sandbox)
    return run_code(case, code, sandbox=sandbox)


def run_code(case, code: str, *, sandbox: Sandbox | None = None, timeout_s: float | None = None) -> Grade:
    """Grade `code` (already extracted) against the case's tests. Raises SandboxError when the sandbox
    breaks and CaseError when the case's own code (prelude, setup, tests) fails."""
    spec = case.grader
    sandbox = sandbox or get_sandbox()
    prepared = _prepared(case)
    if timeout_s is None:
        timeout_s, source = time_limit(case, sandbox=sandbox)
    else:
        source = "given"
    outcome = run_tests(sandbox, code, prepared, entry_point=spec["entry_point"], prelude=spec.get("prelude") or "",
                        timeout_s=timeout_s, memory_mb=int(spec.get("memory_mb", DEFAULT_MEMORY_MB)))
    if outcome.case_problem:
        raise CaseError(outcome.reason, file=case.file or None, line=case.line or None, field="grader",
                        case_id=case.id)
    details = dict(outcome.details)
    details.update(time_limit_s=round(timeout_s, 3), time_limit_source=source, kind=outcome.kind,
                   unsandboxed=sandbox.unsandboxed)
    return Grade(passed=outcome.passed, reason=outcome.reason, answer=code, details=details)


def verify_reference(case, *, sandbox: Sandbox | None = None) -> Grade:
    """Run the case's reference solution (verify.solution) against its own tests."""
    solution = (case.verify or {}).get("solution")
    if not isinstance(solution, str) or not solution.strip():
        raise CaseError("a code case needs verify.solution, the reference solution", file=case.file or None,
                        line=case.line or None, field="verify.solution", case_id=case.id)
    return run_code(case, solution, sandbox=sandbox)


# ---------------------------------------------------------------------------------------- time limits

def time_limit(case, *, sandbox: Sandbox | None = None) -> tuple[float, str]:
    """(seconds, where the number comes from): "calibrated", "case" (timeout_s) or "default"."""
    spec = case.grader
    if spec.get("perf") and isinstance((case.verify or {}).get("solution"), str):
        return calibrated_limit(case, sandbox=sandbox or get_sandbox()), "calibrated"
    if case.timeout_s:
        return float(case.timeout_s), "case"
    return DEFAULT_TIMEOUT_S, "default"


def machine_fingerprint(sandbox: Sandbox | None = None) -> dict:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"node": platform.node(), "machine": platform.machine(), "cpu": cpu or platform.processor(),
            "cpus": os.cpu_count(), "python": sys.version.split()[0],
            "sandbox": sandbox.mode if sandbox is not None else None}


def calibration_key(case, sandbox: Sandbox | None = None) -> str:
    spec = case.grader
    material = json.dumps({
        "id": case.id, "solution": case.verify.get("solution"), "tests": spec.get("tests"),
        "setup": spec.get("setup"), "prelude": spec.get("prelude"), "perf": spec.get("perf"),
        "entry_point": spec.get("entry_point"), "memory_mb": spec.get("memory_mb"), "harness": HARNESS_VERSION,
        "machine": machine_fingerprint(sandbox),
    }, sort_keys=True, default=str)
    return hashlib.sha256(material.encode()).hexdigest()


def calibrated_limit(case, *, sandbox: Sandbox) -> float:
    """max(2 s, 10 x the reference solution's time), measured once per machine and cached."""
    key = calibration_key(case, sandbox)
    folder = cache_dir() / "calibration"
    folder.mkdir(parents=True, exist_ok=True)
    safe_id = re.sub(r"[^A-Za-z0-9_.-]", "_", case.id)[:60]
    path = folder / f"{safe_id}-{key[:20]}.json"
    cached = _read_calibration(path, key)
    if cached is not None:
        return cached
    with FileLock(str(path) + ".lock", timeout=900):
        cached = _read_calibration(path, key)
        if cached is not None:
            return cached
        ceiling = max(float(case.timeout_s or 0), 120.0)
        times = []
        for _ in range(CALIBRATION_RUNS):
            grade_ = run_code(case, case.verify["solution"], sandbox=sandbox, timeout_s=ceiling)
            if not grade_.passed:
                raise CaseError(f"the reference solution fails its own tests while calibrating the time limit: "
                                f"{grade_.reason}", file=case.file or None, line=case.line or None,
                                field="verify.solution", case_id=case.id)
            times.append(grade_.details["duration_s"])
        reference = min(times)
        limit = max(CALIBRATION_FLOOR_S, CALIBRATION_FACTOR * reference)
        data = {"key": key, "case": case.id, "reference_s": reference, "runs_s": times, "limit_s": limit,
                "rule": f"max({CALIBRATION_FLOOR_S:g} s, {CALIBRATION_FACTOR:g} x reference)",
                "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine_fingerprint(sandbox)}
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=1))
        os.replace(tmp, path)
        return limit


def _read_calibration(path: Path, key: str) -> float | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if data.get("key") != key or not isinstance(data.get("limit_s"), (int, float)):
        return None
    return float(data["limit_s"])


# ---------------------------------------------------------------------------------------- canary

_CANARY_TESTS = """
def check(candidate):
    assert candidate([3, 1, 2]) == 6
    assert candidate([]) == 0
    assert candidate(list(range(1000))) == 499500
"""
_CANARY_GOOD = "def canary_sum(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n"
_CANARY_BAD = "def canary_sum(xs):\n    return len(xs)\n"


def canary(sandbox: Sandbox | None = None) -> None:
    """Before the first code case of a run: the sandbox must run a known-good program, pass a known-good
    solution and fail a known-wrong one. Raises SandboxError (infrastructure) otherwise. The result,
    good or bad, is kept on the sandbox for its life."""
    sandbox = sandbox or get_sandbox()
    with sandbox.canary_lock:
        if not sandbox.canary_checked:
            try:
                _run_canary(sandbox)
            except SandboxError as exc:
                sandbox.canary_failure = str(exc)
            sandbox.canary_checked = True
        failure = sandbox.canary_failure
    if failure is not None:
        raise SandboxError(failure)


def _run_canary(sandbox: Sandbox) -> None:
    sandbox.canary()
    prepared = prepare_tests(_CANARY_TESTS, entry_point="canary_sum")
    good = run_tests(sandbox, _CANARY_GOOD, prepared, entry_point="canary_sum", timeout_s=60)
    if not good.passed:
        raise SandboxError(f"sandbox canary failed: a known-good solution did not pass its tests ({good.reason}; "
                           f"stderr: {good.details.get('stderr_tail', '')[-300:]!r})")
    bad = run_tests(sandbox, _CANARY_BAD, prepared, entry_point="canary_sum", timeout_s=60)
    if bad.passed or bad.kind != "assert":
        raise SandboxError(f"sandbox canary failed: a known-wrong solution was not failed by its tests "
                           f"({bad.kind}: {bad.reason or 'passed'})")


# ---------------------------------------------------------------------------------------- the grader

def _fenced(code: str) -> str:
    return f"```python\n{code.rstrip()}\n```\n"


class _ReferenceRuns:
    """`crucible cases verify` of one code case: its reference solution must pass its tests, then its other
    replies are graded like a model's (not when the solution failed: tests or a time limit that fail it
    cannot be trusted to judge them)."""

    def __init__(self, case, context: VerifyContext):
        self.case, self.context = case, context
        self.verify = case.verify if isinstance(case.verify, dict) else {}
        self.solution_failed = False

    def _grade(self, content: str, sandbox: Sandbox) -> Grade:
        """A CaseError (the case's own tests or setup broke) propagates: a problem of the case."""
        code = extract_code(content, self.case.grader["entry_point"])
        if code is None:
            return Grade(passed=False, reason="no code in response")
        return run_code(self.case, code, sandbox=sandbox)

    def run_solution(self, sandbox: Sandbox) -> None:
        try:
            result = self._grade(_fenced(self.verify["solution"]), sandbox)
        except CaseError as exc:
            self.solution_failed = True
            self.context.problem(f"verify.solution: {exc.message}")
        else:
            if not result.passed:
                self.solution_failed = True
                self.context.problem(f"verify.solution fails its own tests: {result.reason}")
        self.context.count("solutions_run")

    def grade_replies(self, sandbox: Sandbox) -> None:
        if self.solution_failed:
            return
        v = self.verify
        entries = [("verify.reference", v["reference"], True)] if "reference" in v else []
        entries += [(f"verify.wrong[{i}]", w, False) for i, w in enumerate(as_list(v.get("wrong")))]
        graded = 0
        for label, reply, should_pass in entries:
            if isinstance(reply, dict):
                reply = reply.get("content") or ""
            if not isinstance(reply, str):
                self.context.problem(f"{label}: a code reply is program text (or a reply containing a code block)")
                continue
            try:
                result = self._grade(reply if "```" in reply else _fenced(reply), sandbox)
            except CaseError as exc:
                self.context.problem(f"{label}: {exc.message}")
                continue
            graded += 1
            if should_pass and not result.passed:
                self.context.problem(f"{label} fails its own tests: {result.reason}")
            elif not should_pass and result.passed:
                short = " ".join(reply.split())
                self.context.problem(f"{label} passes the tests but must fail: "
                                     f"{short if len(short) <= 80 else short[:77] + '...'}")
        self.context.count("references_graded", graded)


class CodeGrader(BaseGrader):
    uses_sandbox = True

    def check(self, spec: dict) -> list[tuple[str | None, str]]:
        return check(spec)

    def grade(self, case, response, sandbox: Sandbox | None = None) -> Grade:
        return grade(case, response, sandbox=sandbox)

    def verification_problems(self, case, verify: dict) -> list[str]:
        if "solution" not in verify:
            return ["code case without verify.solution (a reference solution that passes the tests)"]
        return []

    def verify_replies(self, case, context: VerifyContext) -> None:
        """A code case's replies are programs: sandbox_jobs grades them."""

    def sandbox_jobs(self, case, context: VerifyContext) -> list[VerifyJob]:
        runs = _ReferenceRuns(case, context)
        jobs = []
        if isinstance(runs.verify.get("solution"), str):
            jobs.append(VerifyJob("verify.solution", runs.run_solution, phase=0))
        if "reference" in runs.verify or as_list(runs.verify.get("wrong")):
            jobs.append(VerifyJob("verify.reference/wrong", runs.grade_replies, phase=1))
        return jobs


GRADER = CodeGrader()

__all__ = ["DEFAULT_TIMEOUT_S", "GRADER", "TestOutcome", "calibrated_limit", "canary", "check", "extract_code",
           "grade", "run_code", "time_limit", "verify_reference"]
