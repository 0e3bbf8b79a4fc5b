"""Rewrite a case's trusted test code so every assert reports through the harness's guard functions.

`rewrite_asserts` numbers the asserts of one piece of code (an `AssertSite` each, which says where it
is and which side of an equality holds the code's answer) and turns each into calls of
`__crucible_check__`, `__crucible_cmp__` and friends, defined by harness.py inside the sandbox.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

CANDIDATE_NAMES = ("candidate",)
_OP_NAMES = {ast.Eq: "Eq", ast.NotEq: "NotEq", ast.Lt: "Lt", ast.LtE: "LtE", ast.Gt: "Gt", ast.GtE: "GtE",
             ast.Is: "Is", ast.IsNot: "IsNot", ast.In: "In", ast.NotIn: "NotIn"}


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



def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


def _const(value) -> ast.Constant:
    return ast.Constant(value=value)


def rewrite_asserts(tree: ast.Module, source: str, where: str, entry_point: str,
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


__all__ = ["CANDIDATE_NAMES", "AssertSite", "rewrite_asserts"]
