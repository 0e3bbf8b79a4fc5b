"""`crucible cases verify`: prove every case is right before it is allowed to judge a model.

For each case:
- it loads (schema), its id is unique, its grader spec is valid;
- every tool the grader (or a scripted assistant turn) names is defined in the case's tools;
- every regular expression in the grader compiles and finishes on adversarial input within a
  deadline (a catastrophic pattern would hang grading of a long reply);
- its verification data is present (`verify:` in the case), and
  - `solution` (code cases): run through the code grader in the sandbox; it must pass its own tests;
  - `solver`: a brute-force program run in the sandbox; what it prints must equal the grader's answer
    (one line: a number, a string, or a JSON object; a logic puzzle whose solver prints two solutions
    is reported as not unique);
  - `haystack`: the generator parameters of a long-context case; the prompt is rebuilt and must be
    identical, and the needles and counts the grader relies on are checked in it;
  - `reference`: a model-like reply that must pass the grader; `wrong`: replies that must fail;
    `accepted`: replies the grader should accept, judged together (an imported benchmark's listed
    possible answers): at least ACCEPTED_SHARE of all of them must pass, and each that does not is
    listed with its reason (VerifyReport.rejected) without being a problem of its own;
    For a multi-turn case (a `simulation`), each is a script of assistant turns (a list; a single reply
    is a one-turn script) replayed against the simulation through agent_loop, and the whole trace is
    graded; the reference must use only calls the simulation's tables answer, and every script must
    end exactly where the loop stops. Such a case needs at least two wrong scripts.

Sandbox work (solvers, reference solutions) runs in parallel on a few threads. Without a sandbox
nothing is run, and every case that needed one is reported as a problem: a case that was not
verified is never counted as verified.

The core imports no pytest.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterable

from pytest_crucible import sandbox as sandbox_module
from pytest_crucible.client.response import Response, ToolCall
from pytest_crucible.common.errors import CaseError, CrucibleError
from pytest_crucible.grading import Grade, check_spec, grade, json_object, mapping, matchers
from pytest_crucible.grading import regex as regex_grader
from pytest_crucible.grading.code import extract_code, run_code
from pytest_crucible.grading.extract import clean_answer, normalize, parse_number
from pytest_crucible.grading.judge import screen
from pytest_crucible.grading.judge_model import JudgeError
from pytest_crucible.grading.numeric import close_enough
from pytest_crucible.grading.tool_calls import call_problem, comparer, tool_schema_problem
from pytest_crucible.grading.trace import call_fits
from pytest_crucible.suite import haystack
from pytest_crucible.suite.agent_loop import ScriptExhausted, normalise, run_case_loop, scripted
from pytest_crucible.suite.case import Case, builtin_cases_dir, iter_case_files, load_case_file
from pytest_crucible.suite.importers import load_import
from pytest_crucible.suite.speed_plan import check_plan

VERIFY_KEYS = ("solver", "solution", "reference", "wrong", "accepted", "haystack", "notes")
ACCEPTED_SHARE = 0.99  # of all verify.accepted replies, the share the graders must accept
SOLVER_TIMEOUT_S = 60.0
REGEX_DEADLINE_S = 1.0
ADVERSARIAL_LENGTH = 5000
MAX_WORKERS = 4

Progress = Callable[[int, int, str], None]


@dataclass
class CaseProblem:
    case_id: str
    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.case_id or '-'}: {self.message}"


@dataclass
class VerifyReport:
    checked: int = 0
    problems: list[CaseProblem] = field(default_factory=list)
    solutions_run: int = 0      # code reference solutions executed in the sandbox
    answers_derived: int = 0    # solver programs that ran and printed an answer
    haystacks_rebuilt: int = 0  # generated long-context prompts rebuilt from their parameters
    references_graded: int = 0  # verify.reference / verify.wrong replies put through the grader
    traces_replayed: int = 0    # of those, scripts of assistant turns replayed against a simulation
    accepted_graded: int = 0    # verify.accepted replies put through the grader
    left_to_judge: int = 0      # judged cases' wrong replies that pass the screen: only a judge can fail them
    judged: int = 0             # with --judge: references and near misses the judge gave a verdict on
    rejected: list[CaseProblem] = field(default_factory=list)  # the accepted replies the grader refused
    sandbox_note: str | None = None  # why sandboxed checks could not run, when they could not
    elapsed_s: float = 0.0

    @property
    def cases_with_problems(self) -> int:
        return len({p.case_id or f"{p.file}:{p.line}" for p in self.problems})

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        traces = f", {self.traces_replayed} traces replayed" if self.traces_replayed else ""
        if self.judged:
            traces += f", {self.judged} answers judged"
        elif self.left_to_judge:
            traces += f", {self.left_to_judge} near misses left to a judge"
        if self.accepted_graded:
            passed = self.accepted_graded - len(self.rejected)
            traces += (f", {passed} of {self.accepted_graded} possible answers accepted "
                       f"({100 * passed / self.accepted_graded:.2f}%)")
        return (f"{self.checked} cases checked, {self.cases_with_problems} with problems "
                f"({self.solutions_run} reference solutions executed, {self.answers_derived} answers "
                f"re-derived, {self.haystacks_rebuilt} haystacks rebuilt{traces})")


# ------------------------------------------------------------------------------------------ entry

def verify_paths(paths: Iterable[Path] | None = None, *, categories: Iterable[str] | None = None,
                 imports: Iterable[str] = (), progress: Progress | None = None, sandbox=None,
                 allow_unsandboxed: bool = False, seed: int | None = None, judge=None) -> VerifyReport:
    """Load every case file under `paths` (default: the built-in suite) and verify the cases.

    A file that fails to load is reported (file, line, case, field) and counts as one checked case
    with a problem; the other files are still verified."""
    load_problems: list[CaseProblem] = []
    cases: list[Case] = []
    wanted = set(categories) if categories else None
    paths = [Path(p) for p in paths] if paths else [builtin_cases_dir()]
    for p in paths:
        if not p.exists():
            load_problems.append(CaseProblem("", str(p), 0, "no such file or directory"))
    for path in iter_case_files([p for p in paths if p.exists()]):
        try:
            loaded = load_case_file(path, seed)
        except CaseError as exc:
            where = f"field '{exc.field}': " if exc.field else ""
            load_problems.append(CaseProblem(exc.case_id or "", exc.file or str(path), exc.line or 0,
                                             f"does not load: {where}{exc.message}"))
            continue
        cases.extend(c for c in loaded if wanted is None or c.category in wanted)
    for name in imports:
        try:
            cases.extend(c for c in _imported_cases(name) if wanted is None or c.category in wanted)
        except CaseError as exc:
            load_problems.append(CaseProblem(exc.case_id or "", exc.file or f"import {name}", exc.line or 0,
                                             f"import {name}: {exc.message}"))
        except CrucibleError as exc:
            load_problems.append(CaseProblem("", f"import {name}", 0, str(exc)))
    report = verify_cases(cases, sandbox=sandbox, progress=progress, allow_unsandboxed=allow_unsandboxed,
                          judge=judge)
    report.problems[:0] = load_problems
    report.checked += len({(p.file, p.case_id) for p in load_problems})
    return report


def verify_cases(cases: list[Case], *, sandbox=None, progress: Progress | None = None,
                 allow_unsandboxed: bool = False, judge=None) -> VerifyReport:
    """Verify already-loaded cases. `sandbox`: a Sandbox to run solvers and solutions in (default:
    a new bubblewrap sandbox; unsandboxed only with allow_unsandboxed=True). `judge`: a judge.Judge that
    must pass each judged case's reference and fail its near misses (without one, their shape is checked)."""
    started = time.monotonic()
    report = VerifyReport(checked=len(cases))
    runs: list[_CaseRun] = [_CaseRun(case) for case in cases]
    seen: dict[str, Case] = {}
    for run in runs:
        first = seen.setdefault(run.case.id, run.case)
        if first is not run.case:
            run.problem(f"duplicate id (first defined at {first.file}:{first.line})")

    # 1. static checks that need nothing but the case
    for run in runs:
        _check_static(run, report)

    # 2. regexes, in subprocesses with a deadline, before anything greps a reply with them
    probes = [(run, label, spec) for run in runs if run.spec_ok for label, spec in _patterns(run.case)]
    needs_sandbox = [run for run in runs if run.sandbox_jobs()]
    box, note = (sandbox, None) if sandbox is not None else (
        _make_sandbox(allow_unsandboxed) if needs_sandbox else (None, None))
    report.sandbox_note = note
    workers = max(2, min(MAX_WORKERS, os.cpu_count() or 2))
    total, done = len(runs), 0
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="crucible-verify") as pool:
        futures = {pool.submit(_probe_regex, spec): (run, label) for run, label, spec in probes}
        for future in as_completed(futures):
            run, label = futures[future]
            message = future.result()
            if message:
                run.regex_ok = False
                run.problem(f"{label}: {message}")

        # 3. references, wrong replies and haystacks (pure, fast), then the sandbox jobs
        for run in runs:
            _check_replies(run, report)
            _check_haystack(run, report)
        # Phase 0 runs programs that must succeed (solvers, reference solutions: the code grader
        # calibrates time limits on these, so they run before anything that burns CPU on purpose);
        # phase 1 runs the wrong code replies, which may run until their time limit.
        phases: list[list[tuple[_CaseRun, Callable]]] = [[], []]
        for run in runs:
            jobs = run.sandbox_jobs()
            if jobs and box is None:
                run.problem(f"not verified: {', '.join(name for name, _, _ in jobs)} need the sandbox, "
                            f"which is not available ({note})")
                continue
            for _name, job, phase in jobs:
                phases[phase].append((run, job))
                run.outstanding += 1
        for run in runs:
            if run.outstanding == 0:
                done += 1
                _notify(progress, done, total, run.case.id)
        for phase in phases:
            pending = {pool.submit(job, box): run for run, job in phase}
            for future in as_completed(pending):
                run = pending[future]
                try:
                    counts = future.result()
                except Exception as exc:  # an infrastructure failure is a problem, never a pass
                    run.problem(f"sandbox failed: {type(exc).__name__}: {exc}")
                    counts = {}
                for key, value in counts.items():
                    setattr(report, key, getattr(report, key) + value)
                run.outstanding -= 1
                if run.outstanding == 0:
                    done += 1
                    _notify(progress, done, total, run.case.id)

    if judge is not None:
        _judge_references(runs, judge, report)
    for run in runs:
        report.problems.extend(run.problems)
    if report.accepted_graded:
        share = 1 - len(report.rejected) / report.accepted_graded
        if share < ACCEPTED_SHARE:
            first = report.rejected[0]
            report.problems.append(CaseProblem("", "verify.accepted", 0,
                                               f"{len(report.rejected)} of {report.accepted_graded} possible "
                                               f"answers rejected ({100 * (1 - share):.2f}%; at most "
                                               f"{100 * (1 - ACCEPTED_SHARE):g}% may be), e.g. {first}"))
    report.elapsed_s = time.monotonic() - started
    return report


def _notify(progress: Progress | None, done: int, total: int, case_id: str) -> None:
    if progress is not None:
        progress(done, total, case_id)


# ------------------------------------------------------------------------------------------ per case

class _CaseRun:
    """One case's verification state. Problems are appended from worker threads, one list per case."""

    def __init__(self, case: Case):
        self.case = case
        self.problems: list[CaseProblem] = []
        self.spec_ok = True
        self.regex_ok = True
        self.outstanding = 0
        self.solution_failed = False

    def problem(self, message: str) -> None:
        self.problems.append(CaseProblem(self.case.id, self.case.file, self.case.line, message))

    @property
    def verify(self) -> dict:
        return self.case.verify if isinstance(self.case.verify, dict) else {}

    def sandbox_jobs(self) -> list[tuple[str, Callable, int]]:
        """(what, job(sandbox) -> counts, phase) for the work that needs the sandbox."""
        if not self.spec_ok:
            return []
        jobs: list[tuple[str, Callable, int]] = []
        v, kind = self.verify, self.case.grader.get("type")
        if kind == "code" and isinstance(v.get("solution"), str):
            jobs.append(("verify.solution", lambda box: _run_solution(self, box), 0))
        if kind == "code":
            replies = ([v["reference"]] if "reference" in v else []) + list(_as_list(v.get("wrong")))
            if replies:
                jobs.append(("verify.reference/wrong", lambda box: _grade_code_replies(self, box), 1))
        if isinstance(v.get("solver"), str):
            jobs.append(("verify.solver", lambda box: _run_solver(self, box), 0))
        return jobs


def _as_list(value) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _check_static(run: _CaseRun, report: VerifyReport) -> None:
    case, v = run.case, run.verify
    if case.speed is not None:
        # a speed case carries a measurement plan, not an answer: its plan is all there is to check
        run.spec_ok = False  # nothing to grade or run
        for fld, message in check_plan(case.speed):
            run.problem(f"speed{'.' + fld if fld else ''}: {message}")
        return
    try:
        spec_problems = check_spec(case.grader)
    except Exception as exc:  # a grader's own check crashed: report it, keep going
        spec_problems = [(None, f"grader check raised {type(exc).__name__}: {exc}")]
    for fld, message in spec_problems:
        run.spec_ok = False
        run.problem(f"grader{'.' + fld if fld else ''}: {message}")
    kind = case.grader.get("type")

    # tools named by the grader or by scripted assistant turns exist
    defined = {t.get("function", {}).get("name") for t in case.tools if isinstance(t, dict)}
    if kind in ("tool_calls", "trace"):
        if not case.tools:
            run.problem(f"{kind} grader but the case defines no tools")
        spec = case.grader
        named = [c.get("name") for key in ("calls", "forbidden", "stop_after") for c in spec.get(key) or []
                 if isinstance(c, dict)]
        named += [n for key in ("forbidden", "stop_after", "limit_to_required", "after_injection")
                  for n in spec.get(key) or [] if isinstance(n, str)]
        for name in dict.fromkeys(named):
            if name not in defined:
                run.problem(f"grader names tool {name!r}, which is not defined in tools "
                            f"(defined: {', '.join(sorted(n for n in defined if n)) or 'none'})")
    if kind == "tool_calls":
        for tool in case.tools:
            problem = tool_schema_problem(tool)
            if problem:
                run.spec_ok = False
                run.problem(problem)
    for msg in case.messages:
        for call in msg.get("tool_calls") or []:
            name = (call.get("function") or {}).get("name") if isinstance(call, dict) else None
            if name not in defined:
                run.problem(f"messages: an assistant turn calls tool {name!r}, which is not defined in tools")

    # verification data
    unknown = sorted(set(v) - set(VERIFY_KEYS))
    if unknown:
        run.problem(f"verify.{unknown[0]}: unknown key; allowed: {', '.join(VERIFY_KEYS)}")
    if not any(k in v for k in VERIFY_KEYS if k != "notes"):
        run.problem("no verification data: add verify.solver (a program printing the answer), "
                    "verify.solution (code), verify.reference (a passing reply) or verify.haystack")
        return
    if "wrong" in v and not isinstance(v["wrong"], list):
        run.problem("verify.wrong must be a list of replies that must fail")
    if "accepted" in v and (not isinstance(v["accepted"], list) or case.simulation or kind == "code"):
        run.problem("verify.accepted is a list of single replies (not for code or multi-turn cases)")
    for key in ("solver", "solution"):
        if key in v and (not isinstance(v[key], str) or not v[key].strip()):
            run.problem(f"verify.{key} must be Python source text")
    if kind == "code":
        if "solution" not in v:
            run.problem("code case without verify.solution (a reference solution that passes the tests)")
    else:
        if "reference" not in v and "accepted" not in v:
            run.problem("verify.reference missing: add a model-like reply that must pass the grader")
        if "solution" in v:
            run.problem(f"verify.solution is for code cases; this case is graded by {kind}")
    if kind == "judge" and (len(_as_list(v.get("wrong"))) < 3 or not all(isinstance(w, str) for w in _as_list(v.get("wrong")))
                            or not isinstance(v.get("reference"), str)):
        run.problem("a judged case needs verify.reference (an answer the judge must pass) and at least three "
                    "verify.wrong answers (a refusal, an off-task answer and a near miss the judge must fail)")
    if case.simulation and len(_as_list(v.get("wrong"))) < 2:
        run.problem("a multi-turn case needs at least two wrong scripts in verify.wrong (a refusal and an "
                    "off-task run, plus a hedge or an invented report)")
    if kind == "mapping" and "solver" not in v:
        run.problem("logic puzzle without verify.solver: add a program that enumerates every assignment "
                    "and prints each solution as JSON (it must find exactly one)")
    if case.category in ("math", "reasoning") and kind in ("numeric", "exact") and "solver" not in v \
            and "haystack" not in v:
        run.problem(f"{case.category} answer without verify.solver: add a program that derives it")
    if "solver" in v and kind not in _SOLVER_KINDS:
        run.problem(f"verify.solver cannot be compared with a {kind} grader "
                    f"(supported: {', '.join(sorted(_SOLVER_KINDS))})")


# ------------------------------------------------------------------------------------------ regexes

def _patterns(case: Case) -> list[tuple[str, dict]]:
    """(label, probe spec) for every regex in the grader spec."""
    spec = case.grader
    out: list[tuple[str, dict]] = []
    if spec.get("type") == "regex" and isinstance(spec.get("pattern"), str):
        try:
            flags = regex_grader.compile_spec(spec).flags
        except (re.error, KeyError, TypeError):
            flags = 0  # check_spec already reported it; the probe reports the compile error again
        out.append(("grader.pattern", {"pattern": spec["pattern"], "flags": flags,
                                       "mode": "fullmatch" if spec.get("fullmatch") else "search"}))
    if spec.get("type") == "checks":
        for i, c in enumerate(spec.get("constraints") or []):
            if isinstance(c, dict) and isinstance(c.get("pattern"), str):
                out.append((f"grader.constraints[{i}].pattern",
                            {"pattern": c["pattern"], "flags": 0, "mode": "fullmatch"}))
    return out


def adversarial_inputs(pattern: str, length: int = ADVERSARIAL_LENGTH) -> list[str]:
    """Long strings built from the characters the pattern talks about, each spoiled at the end, the
    classic trigger of exponential (or high-polynomial) backtracking."""
    chars = ["a", "A", "1", " ", "\t", ".", "-", "_", "x"]
    body = re.sub(r"\\[dDsSwWbBAZ]", "", pattern)
    for ch in body:
        if (ch.isalnum() or ch in " .,:;-_'\"/") and ch not in chars:
            chars.append(ch)
        if len(chars) >= 24:
            break
    out = []
    for ch in chars:
        out += [ch * length + "!", ch * length, (ch + " ") * (length // 2) + "!", (ch + "\n") * (length // 2) + "!"]
    return out


_PROBE = r"""
import json, re, signal, sys
spec = json.loads(sys.stdin.read())
try:
    rx = re.compile(spec["pattern"], spec["flags"])
except re.error as exc:
    print(json.dumps({"compile_error": str(exc)}), flush=True)
    sys.exit(0)
match = rx.fullmatch if spec["mode"] == "fullmatch" else rx.search
signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the regex engine never yields: let the kernel end us
for i, text in enumerate(spec["inputs"]):
    print(json.dumps({"start": i}), flush=True)
    signal.setitimer(signal.ITIMER_REAL, spec["deadline"])
    match(text)
    signal.setitimer(signal.ITIMER_REAL, 0)
print(json.dumps({"ok": True}), flush=True)
"""


def _probe_regex(spec: dict, deadline_s: float = REGEX_DEADLINE_S) -> str | None:
    """None when the pattern compiles and handles every adversarial input within the deadline."""
    inputs = adversarial_inputs(spec["pattern"])
    payload = json.dumps({**spec, "inputs": inputs, "deadline": deadline_s})
    cmd = [sys.executable, "-I", "-S", "-c", _PROBE]
    try:
        proc = subprocess.run(cmd, input=payload, capture_output=True, text=True,
                              timeout=deadline_s * 3 + 10 + len(inputs) * 0.05)
    except subprocess.TimeoutExpired:
        return f"regex check did not finish (catastrophic backtracking?) on /{spec['pattern']}/"
    last = {}
    for line in proc.stdout.splitlines():
        try:
            last = json.loads(line)
        except json.JSONDecodeError:
            continue
    if "compile_error" in last:
        return f"regex does not compile: {last['compile_error']}"
    if last.get("ok"):
        return None
    if "start" in last:
        text = inputs[last["start"]]
        return (f"catastrophic backtracking: /{spec['pattern']}/ ({spec['mode']}) ran over "
                f"{deadline_s:g} s on an adversarial input of {len(text)} characters "
                f"(starting {text[:6]!r}, ending {text[-3:]!r}); rewrite it without nested or "
                f"overlapping repetition")
    return f"regex check failed (exit {proc.returncode}): {proc.stderr.strip()[-200:]}"


# ------------------------------------------------------------------------------------------ replies

def response_from(reply: Any) -> Response:
    """A Response from a verify.reference / verify.wrong entry: a string (the answer text) or a
    mapping {content, reasoning, tool_calls: [{name, arguments}]} with arguments as a mapping or
    JSON text."""
    if isinstance(reply, str):
        return Response(content=reply, finish_reason="stop")
    if not isinstance(reply, dict) or not set(reply) <= {"content", "reasoning", "tool_calls"}:
        raise ValueError("a reply is a string or a mapping with content, reasoning and tool_calls")
    calls = []
    for call in reply.get("tool_calls") or []:
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise ValueError("each tool call is {name, arguments}")
        args = call.get("arguments", {})
        calls.append(ToolCall(call["name"], args if isinstance(args, str) else json.dumps(args)))
    return Response(content=reply.get("content") or "", reasoning=reply.get("reasoning") or "",
                    tool_calls=calls, finish_reason="tool_calls" if calls else "stop")


def _check_replies(run: _CaseRun, report: VerifyReport) -> None:
    """Grade verify.reference (must pass) and verify.wrong (must fail) for non-code graders."""
    case, v = run.case, run.verify
    if case.grader.get("type") == "code" or not run.spec_ok or not run.regex_ok:
        return
    if case.grader.get("type") == "judge":
        _check_judged(run, report)
        return
    entries = ([("verify.reference", v["reference"], True)] if "reference" in v else [])
    entries += [(f"verify.wrong[{i}]", w, False) for i, w in enumerate(_as_list(v.get("wrong")))]
    if isinstance(v.get("accepted"), list) and not case.simulation:
        _check_accepted(run, report, v["accepted"])
    for label, reply, should_pass in entries:
        if case.simulation:
            _check_script(run, report, label, reply, should_pass)
            continue
        try:
            result = grade(case, response_from(reply))
        except ValueError as exc:
            run.problem(f"{label}: {exc}")
            continue
        except Exception as exc:
            run.problem(f"{label}: the grader raised {type(exc).__name__}: {exc}")
            continue
        report.references_graded += 1
        if should_pass and not result.passed:
            run.problem(f"{label} fails its own grader: {result.reason}")
        elif not should_pass and result.passed:
            run.problem(f"{label} passes the grader but must fail: {_short(reply)}")


def _check_judged(run: _CaseRun, report: VerifyReport) -> None:
    """A judged case without a judge: its reference must pass the screen (or the screen would fail right
    answers), its wrong answers that fail the screen are checked here, and at least one must pass the screen:
    a near miss that only the judge can fail, so the case tests the judge and not just the screen."""
    v, spec = run.verify, run.case.grader
    if isinstance(v.get("reference"), str):
        failed = screen(spec, clean_answer(v["reference"]))
        report.references_graded += 1
        if failed:
            run.problem(f"verify.reference fails the screen of its judged case: {failed}")
    near_misses = 0
    for wrong in _as_list(v.get("wrong")):
        if not isinstance(wrong, str):
            continue
        if screen(spec, clean_answer(wrong)) is None:
            near_misses += 1
        else:
            report.references_graded += 1
    report.left_to_judge += near_misses
    if not near_misses:
        run.problem("no verify.wrong answer passes the screen: add a near miss (the reference's words, a wrong "
                    "claim) that only the judge can fail")


def _judge_references(runs: list[_CaseRun], judge, report: VerifyReport) -> None:
    """A judge's verdicts on the judged cases: each reference must pass, each near miss (a wrong answer the
    screen lets through) must fail. A judge that fails its canary judges nothing; one problem says so."""
    judged = [run for run in runs if run.spec_ok and run.case.grader.get("type") == "judge"
              and isinstance(run.verify.get("reference"), str)]
    if not judged:
        return
    try:
        judge.ensure_canary()
    except JudgeError as exc:
        report.problems.append(CaseProblem("", f"judge {judge.name}", 0, str(exc)))
        return
    for run in judged:
        spec, v = run.case.grader, run.verify
        replies = [("verify.reference", v["reference"], True)]
        replies += [(f"verify.wrong[{i}]", w, False) for i, w in enumerate(_as_list(v.get("wrong")))
                    if isinstance(w, str) and screen(spec, clean_answer(w)) is None]
        for label, reply, must_pass in replies:
            try:
                verdict = judge.grade(run.case, clean_answer(reply))
            except JudgeError as exc:
                run.problem(f"{label}: {exc}")
                continue
            report.judged += 1
            if verdict.passed != must_pass:
                run.problem(f"judge {judge.name} {'failed' if must_pass else 'passed'} {label}: "
                            f"{verdict.reasons or 'no reasons'}")


def _check_accepted(run: _CaseRun, report: VerifyReport, replies: list) -> None:
    """Grade each accepted reply; a refused one is listed in report.rejected, not a problem of the case."""
    for i, reply in enumerate(replies):
        label = f"verify.accepted[{i}]"
        try:
            result = grade(run.case, response_from(reply))
        except (ValueError, CaseError) as exc:
            run.problem(f"{label}: {exc}")
            continue
        report.accepted_graded += 1
        if not result.passed:
            report.rejected.append(CaseProblem(run.case.id, run.case.file, run.case.line,
                                               f"{label} {_short(reply)}: {result.reason}"))


def _check_script(run: _CaseRun, report: VerifyReport, label: str, script: Any, should_pass: bool) -> None:
    """Replay a script of assistant turns against the case's simulation and grade the trace."""
    case = run.case
    try:
        turns = [response_from(t) for t in (script if isinstance(script, list) else [script])]
    except ValueError as exc:
        run.problem(f"{label}: {exc}")
        return
    try:
        trace = run_case_loop(case, scripted(turns))
    except ScriptExhausted as exc:
        run.problem(f"{label}: {exc}; end the script with a turn that calls no tool")
        return
    except CaseError as exc:
        run.problem(f"{label}: {exc.message}")
        return
    if len(trace.turns) < len(turns):
        run.problem(f"{label}: the loop stopped after turn {len(trace.turns)} ({trace.stop}), the script "
                    f"has {len(turns)} turns")
        return
    if should_pass and "tools" in case.simulation:
        unanswered = [r for r in trace.results if r.rule is None]
        if unanswered:
            r = unanswered[0]
            run.problem(f"{label}: {r.name}({r.arguments}) fits no rule of the simulation: {r.content}")
    try:
        result = grade(case, None, trace)
    except Exception as exc:
        run.problem(f"{label}: the grader raised {type(exc).__name__}: {exc}")
        return
    report.references_graded += 1
    report.traces_replayed += 1
    if should_pass and not result.passed:
        run.problem(f"{label} fails its own grader: {result.reason}")
    elif not should_pass and result.passed:
        run.problem(f"{label} passes the grader but must fail: {_short(script)}")


def _short(reply: Any) -> str:
    text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."


# ------------------------------------------------------------------------------------------ haystacks

def _check_haystack(run: _CaseRun, report: VerifyReport) -> None:
    params = run.verify.get("haystack")
    if params is None:
        return
    if not isinstance(params, dict):
        run.problem("verify.haystack must be the generator parameters {seed, target_tokens, needles, ...}")
        return
    users = [m for m in run.case.messages if m.get("role") == "user"]
    prompt = users[-1].get("content") if users else None
    if not isinstance(prompt, str):
        run.problem("verify.haystack: the case has no user prompt to compare with")
        return
    report.haystacks_rebuilt += 1
    problems = haystack.check_haystack(params, prompt)
    for message in problems:
        run.problem(f"verify.haystack: {message}")
    if problems:
        return
    try:
        derived = haystack.expected_answer(params, prompt)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        run.problem(f"verify.haystack: {exc}")
        return
    mismatch = _compare_with_grader(run.case.grader, derived)
    if mismatch:
        run.problem(f"verify.haystack: the haystack supports {_short_value(derived)}, but {mismatch}")


def _short_value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)


def _compare_with_grader(spec: dict, derived: Any) -> str | None:
    """None when `derived` is the answer the grader expects; else why not."""
    kind = spec.get("type")
    if kind == "numeric":
        got = parse_number(derived) if not isinstance(derived, Fraction) else derived
        want = parse_number(spec.get("answer"))
        if got is None:
            return f"{derived!r} is not a number"
        if want is None or not close_enough(got, want, spec.get("tolerance", 0), spec.get("rel_tolerance", 0)):
            return f"the grader expects {spec.get('answer')}"
        return None
    if kind == "exact":
        cs = bool(spec.get("case_sensitive", False))
        accepted = [spec.get("answer"), *(spec.get("alternatives") or [])]
        if normalize(str(derived), cs) not in {normalize(str(a), cs) for a in accepted}:
            return f"the grader expects {spec.get('answer')!r}"
        return None
    if kind == "mapping":
        return mapping.answer_mismatch(spec, derived)
    if kind == "json":
        exact = spec.get("exact") or {}
        if not exact:
            return "the json grader has no exact values to compare with"
        problems = json_object.shape_problems(derived, spec.get("required") or {}, exact,
                                              spec.get("extra_keys", True))
        if problems:
            return f"against the grader: {problems[0]}"
        return None
    if kind == "contains":
        values = list(derived.values()) if isinstance(derived, dict) else _as_list(derived)
        required = {normalize(str(x)) for x in spec.get("all") or [] if not isinstance(x, list)}
        missing = [x for x in values if normalize(str(x)) not in required]
        if missing:
            return f"the grader's `all` does not require {missing[0]!r}"
        return None
    if kind == "trace":
        return _compare_with_trace(spec, derived)
    if kind == "tool_calls":
        return _compare_with_tool_calls(spec, derived)
    return f"answers cannot be compared with a {kind} grader"


def _same_pattern(derived: dict, pattern: dict) -> bool:
    """A solver may print a matcher where the reply's text is free (a title containing a word): the
    grader's own pattern fits, as does any value it accepts."""
    return json.dumps(derived, sort_keys=True) == json.dumps(pattern, sort_keys=True)


def _compare_with_tool_calls(spec: dict, derived: Any) -> str | None:
    """A tool_calls solver prints the calls the reply must make (a list, or {"calls": [...]}), each
    {name, arguments}; for a case that expects no call, what the answer must hold ({"answer": [...]}
    and/or {"values": {...}}, as for a trace solver)."""
    parts = derived if isinstance(derived, dict) else {"calls": derived}
    if spec.get("expect_no_call"):
        if parts.get("calls"):
            return "the solver derives calls, but the grader expects none"
        answer = {k: parts[k] for k in ("answer", "values") if k in parts}
        if not answer:
            return "a solver of a no-call case prints what the answer holds: {\"answer\": [...]} or {\"values\": {...}}"
        return _compare_with_trace({"answer": spec.get("answer") or {}}, answer)
    unknown = sorted(set(parts) - {"calls"})
    if unknown:
        return f"a tool_calls solver prints calls, not {unknown[0]!r}"
    got = [c for c in _as_list(parts.get("calls")) if isinstance(c, dict) and isinstance(c.get("name"), str)]
    want = spec.get("calls") or []
    exact, same = spec.get("arguments_match", "subset") == "exact", comparer(spec)
    fit = [[_same_pattern(c, w) or call_problem(w, c["name"], c.get("arguments") or {}, exact, same) is None
            for c in got] for w in want]
    strict = spec.get("order") == "strict"
    matched = [i if i < len(got) and fit[i][i] else None for i in range(len(want))] if strict else \
        matchers.assign(fit)
    lacking = [w for w, j in zip(want, matched) if j is None]
    if lacking:
        where = " in that position" if strict else ""
        return f"the grader expects {json.dumps(lacking[0])}, which the solver does not derive{where}"
    if len(got) != len(want):
        extra = next(c for j, c in enumerate(got) if j not in matched)
        return f"the solver derives the call {json.dumps(extra)}, which the grader does not expect"
    return None


def _compare_with_trace(spec: dict, derived: Any) -> str | None:
    """A trace solver prints the values the answer must hold (a list), or an object with any of
    `answer` (that list), `values` (answer.values), `calls` (the required calls), `json`
    (answer.json.exact) and `state`."""
    parts = derived if isinstance(derived, dict) else {"answer": _as_list(derived)}
    unknown = sorted(set(parts) - {"answer", "values", "calls", "json", "state"})
    if unknown:
        return f"a trace solver prints answer, values, calls, json or state, not {unknown[0]!r}"
    answer = spec.get("answer") or {}
    if "answer" in parts:
        required = answer.get("all") or []
        options = [{normalize(str(x)) for x in (item if isinstance(item, list) else [item])} for item in required]
        got = [normalize(str(x)) for x in _as_list(parts["answer"])]
        extra = [x for x in got if not any(x in o for o in options)]
        if extra:
            return f"the grader's answer.all does not require {extra[0]!r}"
        lacking = [item for item, o in zip(required, options) if not o & set(got)]
        if lacking:
            return f"the grader's answer.all requires {lacking[0]!r}, which the solver does not derive"
    if "calls" in parts:
        want = [c for c in spec.get("calls") or [] if not c.get("optional")]
        got = [c for c in _as_list(parts["calls"]) if isinstance(c, dict)]
        unmatched = list(want)
        for call in got:
            hit = next((w for w in unmatched if _same_pattern(call, w)
                        or call_fits(w, call.get("name"), call.get("arguments") or {})), None)
            if hit is None:
                return f"the solver derives the call {json.dumps(call)}, which the grader's calls do not require"
            unmatched.remove(hit)
        if unmatched:
            return f"the grader requires {json.dumps(unmatched[0])}, which the solver does not derive"
    if "values" in parts and normalise(parts["values"]) != normalise(answer.get("values") or {}):
        return f"the grader's answer.values are {json.dumps(answer.get('values'))}"
    if "json" in parts and not json_object.same_value(parts["json"], (answer.get("json") or {}).get("exact")):
        return f"the grader's answer.json.exact is {json.dumps((answer.get('json') or {}).get('exact'))}"
    if "state" in parts and normalise(parts["state"]) != normalise(spec.get("state") or {}):
        return f"the grader's state is {json.dumps(spec.get('state'))}"
    return None


_SOLVER_KINDS = {"numeric", "exact", "mapping", "json", "contains", "trace", "tool_calls"}


# ------------------------------------------------------------------------------------------ sandbox jobs

def _make_sandbox(allow_unsandboxed: bool):
    """(sandbox, None) or (None, why there is none)."""
    if not sandbox_module.bwrap_available() and not allow_unsandboxed:
        return None, "bubblewrap (bwrap) is not installed; install it, or pass --allow-unsandboxed"
    try:
        box = sandbox_module.Sandbox(allow_unsandboxed=allow_unsandboxed)
        canary = getattr(box, "canary", None)
        if canary is not None:
            canary()  # a known-good program first: a broken sandbox is not a broken case
        return box, None
    except Exception as exc:
        return None, f"the sandbox cannot start: {type(exc).__name__}: {exc}"


def _code_grade(case: Case, content: str, box):
    """Grade a code reply through the code grader, in `box`. A CaseError (the case's own tests or
    setup broke) propagates and is reported as a problem of the case."""
    code = extract_code(content, case.grader["entry_point"])
    if code is None:
        return Grade(passed=False, reason="no code in response")
    return run_code(case, code, sandbox=box)


def _fenced(code: str) -> str:
    return f"```python\n{code.rstrip()}\n```\n"


def _run_solution(run: _CaseRun, box) -> dict:
    try:
        result = _code_grade(run.case, _fenced(run.verify["solution"]), box)
    except CaseError as exc:
        run.solution_failed = True
        run.problem(f"verify.solution: {exc.message}")
        return {"solutions_run": 1}
    if not result.passed:
        run.solution_failed = True
        run.problem(f"verify.solution fails its own tests: {result.reason}")
    return {"solutions_run": 1}


def _grade_code_replies(run: _CaseRun, box) -> dict:
    if run.solution_failed:  # its tests (or time limit) cannot be trusted to judge other replies
        return {}
    v = run.verify
    entries = ([("verify.reference", v["reference"], True)] if "reference" in v else [])
    entries += [(f"verify.wrong[{i}]", w, False) for i, w in enumerate(_as_list(v.get("wrong")))]
    graded = 0
    for label, reply, should_pass in entries:
        if isinstance(reply, dict):
            reply = reply.get("content") or ""
        if not isinstance(reply, str):
            run.problem(f"{label}: a code reply is program text (or a reply containing a code block)")
            continue
        content = reply if "```" in reply else _fenced(reply)
        try:
            result = _code_grade(run.case, content, box)
        except CaseError as exc:
            run.problem(f"{label}: {exc.message}")
            continue
        graded += 1
        if should_pass and not result.passed:
            run.problem(f"{label} fails its own tests: {result.reason}")
        elif not should_pass and result.passed:
            run.problem(f"{label} passes the tests but must fail: {_short(reply)}")
    return {"references_graded": graded}


def _run_solver(run: _CaseRun, box) -> dict:
    case = run.case
    result = box.run_python(run.verify["solver"], timeout_s=SOLVER_TIMEOUT_S)
    if getattr(result, "timed_out", False):
        run.problem(f"verify.solver did not finish within {SOLVER_TIMEOUT_S:g} s")
        return {}
    if result.returncode != 0:
        tail = (result.stderr or "").strip().splitlines()[-1:] or [f"exit status {result.returncode}"]
        run.problem(f"verify.solver failed: {tail[0][:200]}")
        return {}
    lines = [ln.strip() for ln in (result.stdout or "").splitlines() if ln.strip()]
    if not lines:
        run.problem("verify.solver printed nothing; it must print the answer")
        return {"answers_derived": 1}
    kind = case.grader.get("type")
    if len(lines) > 1:
        if kind in ("mapping", "json"):
            run.problem(f"verify.solver found {len(lines)} solutions; the puzzle must have exactly one "
                        f"(first two: {lines[0][:80]} / {lines[1][:80]})")
        else:
            run.problem(f"verify.solver printed {len(lines)} lines; it must print only the answer")
        return {"answers_derived": 1}
    out = lines[0]
    derived: Any = out
    if kind in ("mapping", "json", "trace", "tool_calls") or (kind == "contains" and out[:1] in "[{"):
        try:
            derived = json.loads(out)
        except json.JSONDecodeError:
            run.problem(f"verify.solver must print the answer as JSON for a {kind} grader, got {out[:80]!r}")
            return {"answers_derived": 1}
    mismatch = _compare_with_grader(case.grader, derived)
    if mismatch:
        run.problem(f"verify.solver derives {out[:80]}, but {mismatch}")
    return {"answers_derived": 1}


# ------------------------------------------------------------------------------------------ imports

def _imported_cases(name: str) -> list[Case]:
    """The cases of an imported public benchmark (pytest_crucible.suite.importers.load_import)."""
    return list(load_import(name))


__all__ = ["CaseProblem", "VerifyReport", "adversarial_inputs", "response_from", "verify_cases",
           "verify_paths"]
