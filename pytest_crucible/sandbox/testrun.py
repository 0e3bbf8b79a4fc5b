"""Run a Python solution against a case's tests in the sandbox and read an unforgeable verdict.

Host side of `harness.py` (read that module's docstring for why a pass cannot be forged):

1. `prepare_tests` parses the tests (trusted: they come from the case file), numbers every `assert`
   in source order ("test 3" is the third assert of the `tests` code), and rewrites each one into calls
   of the harness's guard functions, so that only plain values are compared and a failed assert is
   recorded even when a test swallows its exception. It also lists the test units: the module body,
   every top-level `test_*()` function, then `check(candidate)` if the tests define it (the HumanEval
   convention), then the perf items.
2. `run_tests` sends the solution and the prepared tests on stdin, a fresh 32-byte key on a private
   pipe, runs the harness under the strict sandbox profile, and reads the MAC-authenticated records it
   wrote on its private result pipe. Only a valid pass record, with the expected number of units and at
   least one assert run, is a pass; everything else is a failure with a readable reason.
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import marshal
import os
import signal
import sys
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pytest_crucible.common.errors import SandboxError
from pytest_crucible.sandbox.assert_rewrite import AssertSite, rewrite_asserts
from pytest_crucible.sandbox.bwrap import RunResult, Sandbox

HARNESS_SOURCE = Path(__file__).with_name("harness.py").read_text(encoding="utf-8")
HARNESS_VERSION = hashlib.sha256(HARNESS_SOURCE.encode()).hexdigest()[:12]
# compiled once here (7 ms saved per run); the sandbox runs the same interpreter
HARNESS_CODE = marshal.dumps(compile(HARNESS_SOURCE, "crucible-harness.py", "exec", dont_inherit=True))
# CPython 3.11 counts AST conversion depth in interpreter-wide state: two threads parsing or compiling a
# tree at once can fail with "SystemError: AST constructor recursion depth mismatch" (gh-106905). The
# verifier and xdist-less runs grade in threads, so trees are made one at a time. Process-wide on purpose:
# the state it guards is the interpreter's.
_AST_LOCK = threading.RLock()  # re-entrant: a finalizer run mid-parse may parse too
RESERVED = "__crucible"
# always private to the tests (cheap, and what numeric tests call)
DEFAULT_CLONES = ("math", "cmath", "operator", "itertools")
_NEVER_PREIMPORT = frozenset({
    "antigravity", "this", "tkinter", "turtle", "turtledemo", "idlelib", "ctypes", "subprocess",
    "multiprocessing", "pty", "tty", "readline", "webbrowser", "pydoc", "venv", "ensurepip", "lib2to3",
})
_OP_SYMBOLS = {"Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">=", "Is": "is",
               "IsNot": "is not", "In": "in", "NotIn": "not in"}


class TestSpecError(ValueError):
    """The tests (or setup / perf code) of a case cannot be used; the message says why."""


@dataclass(frozen=True)
class PreparedTests:
    tests: object                 # code objects, compiled here from the rewritten trees
    setup: object | None
    perf: tuple[tuple[str, object, object | None], ...]   # (name, input code, check code or None)
    units: tuple[tuple[str, str], ...]
    sites: tuple[AssertSite, ...]
    modules: tuple[str, ...]
    clone: tuple[str, ...]

    def site(self, index: int) -> AssertSite | None:
        return self.sites[index - 1] if 0 < index <= len(self.sites) else None

    def site_at_line(self, line: int, where: str = "tests") -> AssertSite | None:
        for s in self.sites:
            if s.where == where and s.line <= line <= s.end_line:
                return s
        return None


@dataclass
class TestOutcome:
    passed: bool
    reason: str              # "" on a pass
    kind: str                # pass | assert | error | load | syntax | entry | memory | timeout | ended | noassert
    details: dict = field(default_factory=dict)
    run: RunResult | None = None
    case_problem: bool = False   # the case's own code failed (prelude, setup, tests), not the solution


# ---------------------------------------------------------------------------------------- preparing

def prepare_tests(tests: str, *, entry_point: str, setup: str = "", perf=()) -> PreparedTests:
    """Parse and rewrite a case's test code. Raises TestSpecError with a readable message."""
    perf_items = tuple(_perf_items(perf))
    return _prepare(tests, entry_point, setup or "",
                    tuple((p["name"], p["input"], p["check"]) for p in perf_items))


def _perf_items(perf) -> list[dict]:
    if not perf:
        return []
    items = perf if isinstance(perf, list) else [perf]
    out: list[dict] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("input"), str) or not item["input"].strip():
            raise TestSpecError("perf: each item needs `input`, Python code that sets `args` (a tuple) and "
                                "optionally `kwargs`, e.g. input: \"args = (list(range(10**6)),)\"")
        if item.get("check") is not None and not isinstance(item.get("check"), str):
            raise TestSpecError("perf.check must be Python code with asserts about `result`")
        unknown = set(item) - {"input", "check", "name"}
        if unknown:
            raise TestSpecError(f"perf: unknown key {sorted(unknown)[0]!r}; allowed: input, check, name")
        name = str(item.get("name") or ("perf" if len(items) == 1 else f"perf-{i + 1}"))
        if name in {o["name"] for o in out} or name in ("<module>", "check") or name.startswith("test_"):
            raise TestSpecError(f"perf: the name {name!r} is used twice or clashes with a test unit")
        out.append({"name": name, "input": item["input"], "check": item.get("check") or ""})
    return out


# memoised: a pure function of its arguments (the same tests are prepared for every model and repeat)
@lru_cache(maxsize=512)
def _prepare(tests: str, entry_point: str, setup: str, perf: tuple[tuple[str, str, str], ...]) -> PreparedTests:
    if not isinstance(tests, str) or not tests.strip():
        raise TestSpecError("tests must be Python code with assert statements")
    sites: list[AssertSite] = []
    tree = _parse(tests, "tests")
    units: list[tuple[str, str]] = [("<module>", "module")]
    check_unit = None
    for node in tree.body:
        if isinstance(node, ast.AsyncFunctionDef) and node.name.startswith("test"):
            raise TestSpecError(f"tests: {node.name} is async; write plain functions")
        if isinstance(node, ast.FunctionDef):
            required = len(node.args.posonlyargs) + len(node.args.args) - len(node.args.defaults)
            if node.name.startswith("test_"):
                if required or node.args.kwonlyargs and len(node.args.kw_defaults) != \
                        sum(d is not None for d in node.args.kw_defaults):
                    raise TestSpecError(f"tests: {node.name}() takes arguments; test functions run without "
                                        "any (no fixtures)")
                units.append((node.name, "function"))
            elif node.name == "check" and required == 1:
                check_unit = ("check", "check")
    if check_unit:
        units.append(check_unit)
    new_tests = _compile(rewrite_asserts(tree, tests, "tests", entry_point, sites), "<tests>")
    new_setup = _compile(rewrite_asserts(_parse(setup, "setup"), setup, "setup", entry_point, sites), "<setup>") \
        if setup.strip() else None
    perf_out = []
    for name, input_code, check_code in perf:
        input_new = _compile(_parse(input_code, "perf.input"), "<perf-input>")
        check_new = _compile(rewrite_asserts(_parse(check_code, "perf.check"), check_code, "perf", entry_point, sites),
                             "<perf-check>") if check_code.strip() else None
        perf_out.append((name, input_new, check_new))
        units.append((name, "perf"))
    if not any(s.where == "tests" for s in sites):
        raise TestSpecError("tests must contain at least one assert statement")
    modules = set()
    for code in (tests, setup, *(p[1] for p in perf), *(p[2] for p in perf)):
        if code.strip():
            modules |= _imported_modules(parse_python(code))
    stdlib: frozenset[str] = getattr(sys, "stdlib_module_names", frozenset())
    modules = {m for m in modules if m in stdlib and m not in _NEVER_PREIMPORT} | set(DEFAULT_CLONES)
    return PreparedTests(tests=new_tests, setup=new_setup, perf=tuple(perf_out), units=tuple(units),
                         sites=tuple(sites), modules=tuple(sorted(modules)), clone=tuple(sorted(modules)))


def _compile(tree: ast.Module, filename: str):
    with _AST_LOCK:
        return compile(tree, filename, "exec", dont_inherit=True)


def parse_python(source: str, mode: str = "exec") -> ast.AST:
    """`ast.parse`, one thread at a time (see _AST_LOCK)."""
    with _AST_LOCK:
        return ast.parse(source, mode=mode)


@lru_cache(maxsize=512)   # memoised: a pure function of the source (code objects are immutable)
def compile_trusted(source: str, filename: str):
    """Compile case code (a prelude) here on the host; raises TestSpecError on a syntax error."""
    if not source.strip():
        return None
    return _compile(_parse(source, filename.strip("<>")), filename)


def _parse(source: str, where: str) -> ast.Module:
    try:
        tree = parse_python(source)
    except SyntaxError as exc:
        raise TestSpecError(f"{where}: SyntaxError line {exc.lineno}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise TestSpecError(f"{where}: cannot be parsed ({type(exc).__name__})") from None
    assert isinstance(tree, ast.Module)  # mode "exec"
    for node in ast.walk(tree):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else \
            node.name if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else None
        if name and name.startswith(RESERVED):
            raise TestSpecError(f"{where}: names starting with {RESERVED} are reserved for the harness")
    return tree


@lru_cache(maxsize=1024)  # memoised: a pure function of the code
def code_imports(code: str) -> tuple[str, ...]:
    """Standard-library modules a piece of code imports, to import before the code under test runs
    (a module imported later goes through the audit hook, which is slower; a few, like `types`, even
    touch frames while they load). Best effort: code that does not parse imports nothing here."""
    if not code.strip() or len(code) > 200_000:
        return ()
    try:
        tree = parse_python(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    stdlib: frozenset[str] = getattr(sys, "stdlib_module_names", frozenset())
    return tuple(sorted(m for m in _imported_modules(tree) if m in stdlib and m not in _NEVER_PREIMPORT))


def _imported_modules(tree: ast.AST) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".")[0])
    return out


# ---------------------------------------------------------------------------------------- running

def run_tests(sandbox: Sandbox, solution: str, prepared: PreparedTests, *, entry_point: str,
              prelude: str = "", timeout_s: float = 15.0, memory_mb: int = 1024) -> TestOutcome:
    """Run `solution` (after `prelude`, in the same namespace) against `prepared` in the sandbox."""
    key = os.urandom(32)
    modules = sorted(set(prepared.modules) | set(code_imports(prelude or "")) | set(code_imports(solution)))
    payload = marshal.dumps({
        "entry_point": entry_point, "prelude": compile_trusted(prelude or "", "<prelude>"),
        "solution": solution, "setup": prepared.setup, "tests": prepared.tests,
        "units": [list(u) for u in prepared.units], "perf": [list(p) for p in prepared.perf],
        "modules": ["types", *modules], "clone": list(prepared.clone),
    })
    result = sandbox.execute(HARNESS_CODE, stdin=payload, timeout_s=timeout_s, memory_mb=memory_mb,
                             channel=True, secret=key, cwd_on_path=False, no_signal_handlers=True)
    return read_verdict(result, key, prepared, timeout_s=timeout_s, sandbox=sandbox)


def parse_records(channel: bytes, key: bytes) -> tuple[list[list], int]:
    """The authenticated records on the result pipe, and how many lines failed authentication."""
    records, forged = [], 0
    for line in channel.split(b"\n"):
        if not line:
            continue
        mac, _, body = line.partition(b"\t")
        expected = hashlib.blake2b(body, key=key, digest_size=16).hexdigest().encode()
        if not hmac.compare_digest(mac, expected):
            forged += 1
            continue
        fields = []
        for f in body.decode("ascii").split("\t"):
            fields.append(ast.literal_eval(parse_python(f, "eval")) if f[:1] in ("'", '"') else int(f))
        records.append(fields)
    return records, forged


def read_verdict(result: RunResult, key: bytes, prepared: PreparedTests, *, timeout_s: float,
                 sandbox: Sandbox | None = None) -> TestOutcome:
    records, forged = parse_records(result.channel, key)
    details: dict = {
        "duration_s": round(result.duration_s, 4), "returncode": result.returncode, "signal": result.signal,
        "stdout_tail": result.stdout[-500:], "stderr_tail": result.stderr[-1500:],
        "sandbox": sandbox.mode if sandbox is not None else None,
    }
    if forged:
        details["unauthenticated_lines"] = forged
    begun = [r[1] for r in records if r and r[0] == "B"]
    if begun:
        details["last_unit"] = begun[-1]
    failures = [r for r in records if r and r[0] == "F"]
    passes = [r for r in records if r and r[0] == "P"]
    if failures:
        return _failure(failures[0], prepared, result, details)
    if passes and records[-1] is passes[-1]:
        _, units, asserts, perf = passes[-1]
        details.update(units=units, asserts=asserts)
        if perf:
            details["perf_s"] = {k: float(v) for k, v in (item.split("=") for item in perf.split(";"))}
        if units == len(prepared.units) and asserts >= 1:
            return TestOutcome(True, "", "pass", details, result)
        return TestOutcome(False, f"tests did not all run ({units} of {len(prepared.units)} units)",
                           "ended", details, result)
    if result.timed_out:
        return TestOutcome(False, f"timeout >{round(timeout_s, 2):g}s", "timeout", details, result)
    if result.memory_exceeded:
        return TestOutcome(False, "memory limit exceeded", "memory", details, result)
    if result.output_truncated and result.signal is not None:
        return TestOutcome(False, "output limit exceeded (the program flooded its output)", "ended",
                           details, result)
    if result.signal is not None:
        return TestOutcome(False, f"killed by signal {_signal_name(result.signal)} before the tests finished",
                           "ended", details, result)
    return TestOutcome(False, f"exited with code {result.returncode} before the tests finished", "ended",
                       details, result)


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return str(sig)


def _failure(rec: list, prepared: PreparedTests, result: RunResult, details: dict) -> TestOutcome:
    kind = rec[1]
    if kind == "syntax":
        where, line, msg = rec[2], rec[3], rec[4]
        details.update(where=where, line=line)
        if where == "solution":
            return TestOutcome(False, f"SyntaxError line {line}: {msg}", "syntax", details, result)
        return TestOutcome(False, f"the case's {where} code does not compile: line {line}: {msg}", "syntax",
                           details, result, case_problem=True)
    if kind == "load":
        where, exc, msg, line = rec[2], rec[3], rec[4], rec[5]
        details.update(where=where, exception=exc, line=line)
        text = f"{exc}: {msg}" if msg else exc
        if where == "prelude":
            return TestOutcome(False, f"the case's prelude failed: {text}", "load", details, result,
                               case_problem=True)
        return TestOutcome(False, text, "load", details, result)
    if kind == "entry":
        return TestOutcome(False, f"entry point {rec[2]} not defined", "entry", details, result)
    if kind == "memory":
        details["where"] = rec[2]
        return TestOutcome(False, "memory limit exceeded", "memory", details, result)
    if kind == "noassert":
        return TestOutcome(False, "no assertion ran", "noassert", details, result)
    if kind == "assert":
        index, how, a, b, c, note = rec[2], rec[3], rec[4], rec[5], rec[6], rec[7]
        site = prepared.site(index)
        where = _where(site)
        details.update(test=site.number if site else index, line=site.line if site else None,
                       assertion=site.source if site else None)
        if how == "cmp" and site is not None:
            op, left, right = a, b, c
            if op in ("Eq", "NotEq") and site.got:
                got, expected = (left, right) if site.got == "left" else (right, left)
                details.update(got=got, expected=expected)
                if op == "Eq":
                    reason = f"AssertionError in {where}: expected {expected}, got {got}"
                else:
                    reason = f"AssertionError in {where}: expected anything but {expected}, got {got}"
            else:
                reason = (f"AssertionError in {where}: {site.source} is false "
                          f"({left} {_OP_SYMBOLS.get(op, op)} {right})")
        elif how == "plain":
            reason = f"AssertionError in {where}: {a}"
        else:
            reason = f"AssertionError in {where}: {site.source if site else 'assertion'} is false"
        if note:  # the test's own words say which step of a long script failed
            reason += f" ({note if len(note) <= 200 else note[:197] + '...'})"
        if note:
            details["message"] = note
        return TestOutcome(False, reason, "assert", details, result)
    if kind == "error":
        unit, exc, msg, line = rec[2], rec[3], rec[4], rec[5]
        details.update(unit=unit, exception=exc, line=line or None)
        is_perf = any(u == unit and kind_ == "perf" for u, kind_ in prepared.units)
        site = prepared.site_at_line(line) if line and not is_perf else None
        if site is not None:
            where = _where(site)
            details["test"] = site.number
        elif any(u == unit and kind_ == "perf" for u, kind_ in prepared.units):
            where = f"perf test {unit}"
        elif unit != "<module>":
            where = unit                      # a test_*() function or check(), outside any assert
        elif line:
            where = f"line {line} of the tests"
        else:
            where = "the tests"
        text = f"{exc} in {where}: {msg}" if msg else f"{exc} in {where}"
        return TestOutcome(False, text, "error", details, result)
    return TestOutcome(False, f"unexpected harness record {kind!r}", "error", details, result)


def _where(site: AssertSite | None) -> str:
    if site is None:
        return "a test"
    if site.where == "tests":
        return f"test {site.number}"
    if site.where == "perf":
        return f"perf check {site.number}"
    return f"setup assert {site.number}"


__all__ = ["AssertSite", "HARNESS_SOURCE", "HARNESS_VERSION", "PreparedTests", "SandboxError", "TestOutcome",
           "TestSpecError", "compile_trusted", "parse_python", "parse_records", "prepare_tests", "read_verdict",
           "run_tests"]
