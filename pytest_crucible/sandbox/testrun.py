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
import re
import signal
import sys
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pytest_crucible.common.errors import SandboxError
from pytest_crucible.sandbox.bwrap import RunResult, Sandbox

HARNESS_SOURCE = Path(__file__).with_name("harness.py").read_text(encoding="utf-8")
HARNESS_VERSION = hashlib.sha256(HARNESS_SOURCE.encode()).hexdigest()[:12]
# compiled once here (7 ms saved per run); the sandbox runs the same interpreter
HARNESS_CODE = marshal.dumps(compile(HARNESS_SOURCE, "crucible-harness.py", "exec", dont_inherit=True))
# CPython 3.11 counts AST conversion depth in interpreter-wide state: two threads parsing or compiling a
# tree at once can fail with "SystemError: AST constructor recursion depth mismatch" (gh-106905). The
# verifier and xdist-less runs grade in threads, so trees are made one at a time.
_AST_LOCK = threading.RLock()  # re-entrant: a finalizer run mid-parse may parse too
RESERVED = "__crucible"
CANDIDATE_NAMES = ("candidate",)
# always private to the tests (cheap, and what numeric tests call)
DEFAULT_CLONES = ("math", "cmath", "operator", "itertools")
_NEVER_PREIMPORT = frozenset({
    "antigravity", "this", "tkinter", "turtle", "turtledemo", "idlelib", "ctypes", "subprocess",
    "multiprocessing", "pty", "tty", "readline", "webbrowser", "pydoc", "venv", "ensurepip", "lib2to3",
})
_OP_NAMES = {ast.Eq: "Eq", ast.NotEq: "NotEq", ast.Lt: "Lt", ast.LtE: "LtE", ast.Gt: "Gt", ast.GtE: "GtE",
             ast.Is: "Is", ast.IsNot: "IsNot", ast.In: "In", ast.NotIn: "NotIn"}
_OP_SYMBOLS = {"Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">=", "Is": "is",
               "IsNot": "is not", "In": "in", "NotIn": "not in"}


class TestSpecError(ValueError):
    """The tests (or setup / perf code) of a case cannot be used; the message says why."""


@dataclass(frozen=True)
class AssertSite:
    index: int            # global, 1-based, in the order tests, setup, perf checks
    where: str            # "tests" | "setup" | "perf"
    number: int           # 1-based within `where`: "test 3"
    line: int
    end_line: int
    source: str           # the assert's condition as written (shortened)
    op: str | None        # comparison operator of the condition, if it is a single comparison
    got: str | None       # "left" | "right": the side holding the code's answer (== and != only)


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
    new_tests = _compile(_rewrite(tree, tests, "tests", entry_point, sites), "<tests>")
    new_setup = _compile(_rewrite(_parse(setup, "setup"), setup, "setup", entry_point, sites), "<setup>") \
        if setup.strip() else None
    perf_out = []
    for name, input_code, check_code in perf:
        input_new = _compile(_parse(input_code, "perf.input"), "<perf-input>")
        check_new = _compile(_rewrite(_parse(check_code, "perf.check"), check_code, "perf", entry_point, sites),
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


@lru_cache(maxsize=512)
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


@lru_cache(maxsize=1024)
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


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


def _const(value) -> ast.Constant:
    return ast.Constant(value=value)


def _rewrite(tree: ast.Module, source: str, where: str, entry_point: str,
             sites: list[AssertSite]) -> ast.Module:
    asserts = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Assert)),
                     key=lambda n: (n.lineno, n.col_offset))
    first = len(sites) + 1
    numbers = {}
    lines = _LINE.findall(source) if asserts else []
    for i, node in enumerate(asserts):
        index = first + i
        numbers[id(node)] = index
        op = got = None
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            op = _OP_NAMES[type(test.ops[0])]
            if op in ("Eq", "NotEq"):
                got = _got_side(test.left, test.comparators[0], entry_point)
        segment = _segment(lines, test) or ast.unparse(test)
        segment = " ".join(segment.split())
        sites.append(AssertSite(index=index, where=where, number=i + 1, line=node.lineno,
                                end_line=node.end_lineno or node.lineno,
                                source=segment if len(segment) <= 120 else segment[:117] + "...", op=op, got=got))
    rewritten = _AssertRewriter(numbers).visit(tree)
    ast.fix_missing_locations(rewritten)
    return rewritten   # compiled here, so line numbers stay those of the case file's code


# Lines as the parser counts them, split once per source: ast.get_source_segment splits the whole
# source in a Python loop on every call, tens of milliseconds when the tests carry a data literal.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _segment(lines: list[str], node: ast.expr) -> str | None:
    """The source text of `node` (column offsets are UTF-8 byte offsets)."""
    end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
    if end_line is None or end_col is None or end_line > len(lines):
        return None
    chunk = [line.encode("utf-8") for line in lines[node.lineno - 1:end_line]]
    if len(chunk) == 1:
        return chunk[0][node.col_offset:end_col].decode("utf-8", "replace")
    chunk[0], chunk[-1] = chunk[0][node.col_offset:], chunk[-1][:end_col]
    return b"".join(chunk).decode("utf-8", "replace")


def _mentions_call(node: ast.AST, entry_point: str) -> bool:
    names = {entry_point, *CANDIDATE_NAMES}
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names
               for n in ast.walk(node))


def _is_literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def _got_side(left: ast.AST, right: ast.AST, entry_point: str) -> str:
    lc, rc = _mentions_call(left, entry_point), _mentions_call(right, entry_point)
    if lc != rc:
        return "left" if lc else "right"
    ll, rl = _is_literal(left), _is_literal(right)
    if ll != rl:
        return "right" if ll else "left"
    return "left"


class _AssertRewriter(ast.NodeTransformer):
    """`assert TEST, MSG` -> `if not __crucible_check__(i, TEST'): __crucible_fail__(i, MSG)`."""

    def __init__(self, numbers: dict[int, int]):
        self.numbers = numbers

    def visit_Assert(self, node: ast.Assert):
        index = self.numbers[id(node)]
        test = _ExprRewriter(index, node.test).visit(node.test)
        check = _call("__crucible_check__", _const(index), test)
        fail = ast.Expr(value=_call("__crucible_fail__", _const(index), node.msg or _const(None)))
        new = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=check), body=[fail], orelse=[])
        return ast.copy_location(new, node)


class _ExprRewriter(ast.NodeTransformer):
    """Inside one assert condition: comparisons, truth tests and all()/any() go through the guards."""

    def __init__(self, index: int, top: ast.AST):
        self.index = index
        self.top = top
        self.boolean = {id(top)}
        for node in ast.walk(top):   # nodes whose truth value (not their value) is what counts
            if id(node) in self.boolean and isinstance(node, ast.BoolOp):
                self.boolean |= {id(v) for v in node.values}
            if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                self.boolean.add(id(node.operand))

    def _bool(self, node: ast.expr) -> ast.expr:
        return _call("__crucible_bool__", _const(self.index), node)

    def visit_Compare(self, node: ast.Compare):
        top = node is self.top
        self.generic_visit(node)  # edits the node in place
        ops = [_OP_NAMES[type(op)] for op in node.ops]
        if len(ops) == 1:
            return ast.copy_location(_call("__crucible_cmp__", _const(self.index), _const(ops[0]), node.left,
                                           node.comparators[0], _const(top)), node)
        return ast.copy_location(_call("__crucible_chain__", _const(self.index),
                                       ast.Tuple(elts=[_const(o) for o in ops], ctx=ast.Load()),
                                       ast.List(elts=[node.left, *node.comparators], ctx=ast.Load())), node)

    def visit_UnaryOp(self, node: ast.UnaryOp):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            node.operand = self._bool(node.operand)
        return node

    def visit_BoolOp(self, node: ast.BoolOp):
        boolean = id(node) in self.boolean
        self.generic_visit(node)
        if boolean:
            node.values = [self._bool(v) for v in node.values]
        return node

    def visit_IfExp(self, node: ast.IfExp):
        self.generic_visit(node)
        node.test = self._bool(node.test)
        return node

    def visit_comprehension(self, node: ast.comprehension):
        self.generic_visit(node)
        node.ifs = [self._bool(i) for i in node.ifs]
        return node

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if (isinstance(node.func, ast.Name) and node.func.id in ("all", "any") and len(node.args) == 1
                and not node.keywords and not isinstance(node.args[0], ast.Starred)):
            return ast.copy_location(_call(f"__crucible_{node.func.id}__", _const(self.index), node.args[0]),
                                     node)
        return node


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
