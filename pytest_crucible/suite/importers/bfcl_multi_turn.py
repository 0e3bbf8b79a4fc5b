"""BFCL's multi-turn categories as agent-loop cases, run against BFCL's own simulated APIs.

Each entry of `data/BFCL_v*_multi_turn_<kind>.json` becomes a case `BFCL-multi-turn-<kind>-<n>`: its
first user turn is the case's messages, the others the simulation's `user_turns` (agent_loop), and the
tools are the function documents of its `involved_classes` (`data/multi_turn_func_doc/`). The model's
calls are executed against instances of BFCL's classes (GorillaFileSystem, TwitterAPI, ...), imported at
run time from the installed package (`bfcl_eval/eval_checker/multi_turn_eval/func_source_code/`) and
loaded with the entry's `initial_config`, as BFCL's inference does: each call's result (a dict as JSON, any
other value as text, an exception as "Error during execution: ...") goes back as the tool message.

    base            every turn can be done with the functions offered
    miss-param      one turn lacks an argument: the model should ask (its ground truth is no call)
    miss-func       one turn needs a function not offered yet; a later turn offers it (BFCL's message
                    "I have updated some more functions you can choose from. What about now?")
    long-context    as base, with BFCL's long-context padding loaded into the instances

The grader (grading/bfcl_multi_turn.py) is BFCL's multi-turn checker. Nothing is evaluated as Python:
calls are made with getattr on the instances and the ground truth's call texts are read with `ast`.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import importlib
import inspect
import json
from pathlib import Path
from typing import Any

from pytest_crucible.common.errors import CaseError
from pytest_crucible.suite.case import Case, build_case

# our category -> (BFCL's file category, difficulty)
CATEGORIES = {
    "multi-turn-base": ("multi_turn_base", "hard"),
    "multi-turn-miss-func": ("multi_turn_miss_func", "hard"),
    "multi-turn-miss-param": ("multi_turn_miss_param", "hard"),
    "multi-turn-long-context": ("multi_turn_long_context", "hard"),
}
STEP_LIMIT = 21  # BFCL's inference stops a user turn after MAXIMUM_STEP_LIMIT (20) + 1 requests with calls
_BACKEND = "bfcl_eval.constants.executable_backend_config"
_BLOCKED = {"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"}  # BFCL refuses these names
DONE = "Done."
ASK_BACK = "I cannot do that with the functions and details I have. Could you tell me more?"
REFUSAL = "I'm sorry, but I can't help with that request."


def backend() -> Any:
    return importlib.import_module(_BACKEND)


def holdout_prompt() -> str:
    return str(importlib.import_module("bfcl_eval.constants.default_prompts")
               .DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC)


# ------------------------------------------------------------------------------------------ the simulated world

class World:
    """The instances of BFCL's classes one run calls, set up as BFCL's execute_multi_turn_func_call does."""

    def __init__(self, classes: list[str], config: dict, long_context: bool):
        config_of = backend()
        self.instances: dict[str, Any] = {}
        self.methods: dict[str, Any] = {}
        for name in classes:
            instance = getattr(importlib.import_module(config_of.CLASS_FILE_PATH_MAPPING[name]), name)()
            if name not in config_of.STATELESS_CLASSES:
                instance._load_scenario(copy.deepcopy(config.get(name, {})), long_context=long_context)
            self.instances[name] = instance
            for method, bound in inspect.getmembers(instance, predicate=inspect.ismethod):
                if not method.startswith("_"):
                    self.methods[method] = bound  # a later class's method of the same name wins, as in BFCL

    def __str__(self) -> str:
        return f"BFCL instances: {', '.join(self.instances)}"

    def call(self, name: str, args: tuple = (), kwargs: dict | None = None) -> str:
        """One call's result as BFCL's execution writes it."""
        try:
            if name in _BLOCKED:
                raise PermissionError(f"Function call {name} is not allowed.")
            method = self.methods.get(name)
            if method is None:
                raise NameError(f"name '{name}' is not defined")
            result = method(*args, **(kwargs or {}))
        except Exception as exc:  # the model's call failed: BFCL hands the error back as the result
            return f"Error during execution: {exc}"
        if isinstance(result, str):
            return result
        if type(result) is dict:
            try:
                return json.dumps(result)
            except (TypeError, ValueError):
                return str(result)
        return str(result)

    def run(self, text: str) -> str:
        """A ground-truth call written as Python ("cd(folder='document')")."""
        name, args, kwargs = parse_call(text)
        return self.call(name, args, kwargs)


def parse_call(text: str) -> tuple[str, tuple, dict]:
    """(name, positional arguments, keyword arguments) of a call written as Python with literal arguments."""
    node = ast.parse(text.strip(), mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a call of a function by name: {text}")
    args = tuple(ast.literal_eval(a) for a in node.args)
    kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    return node.func.id, args, kwargs


def named_arguments(world: World, text: str) -> tuple[str, dict]:
    """A ground-truth call as a tool call: (name, its arguments by name)."""
    name, args, kwargs = parse_call(text)
    if args:
        names = list(inspect.signature(world.methods[name]).parameters)
        kwargs = {**dict(zip(names, args)), **kwargs}
    return name, kwargs


class WorldHandler:
    """The simulation handler of one entry: the run's World lives in the run's state."""

    def __init__(self, classes: list[str], config: dict, long_context: bool):
        self.classes, self.config, self.long_context = classes, config, long_context

    def __call__(self, name: str, arguments: dict, state: dict) -> dict:
        world = state.get("world")
        if not isinstance(world, World):
            world = state["world"] = World(self.classes, self.config, self.long_context)
        return {"result": world.call(name, (), arguments)}


# ------------------------------------------------------------------------------------------ cases

def function_docs(package: Path, classes: list[str]) -> list[dict]:
    folder = package / "data" / "multi_turn_func_doc"
    docs = []
    for name in classes:
        with (folder / backend().MULTI_TURN_FUNC_DOC_FILE_MAPPING[name]).open(encoding="utf-8") as f:
            docs += [json.loads(line) for line in f if line.strip()]
    return docs


def _scripts(world: World, truth: list[list[str]]) -> tuple[list, list]:
    """The reference script (each ground-truth call as its own step, or a few together where a turn has
    more than the step limit allows, then a short answer, per user turn)
    and the wrong ones: a refusal at every turn, and the reference with its last turn of calls skipped."""
    turns = []
    for calls in truth:
        named = [dict(zip(("name", "arguments"), named_arguments(world, text))) for text in calls]
        size = -(-len(named) // (STEP_LIMIT - 1))  # calls per step: one, or more where a turn has many
        steps: list = [{"tool_calls": named[i:i + size]} for i in range(0, len(named), size)] if named else []
        turns.append(steps + [DONE if calls else ASK_BACK])
    reference = [step for turn in turns for step in turn]
    last = max(i for i, calls in enumerate(truth) if calls)
    skipped = [step for i, turn in enumerate(turns) for step in (turn if i != last else [ASK_BACK])]
    return reference, [[REFUSAL] * len(truth), skipped]


def to_case(entry: dict, truth: list[list[str]], category: str, path: Path, line: int, tools: list[dict]) -> Case:
    """The case of one entry; `tools` are its classes' function documents as OpenAI tools."""
    stem, difficulty = CATEGORIES[category]
    classes = list(entry["involved_classes"])
    held = {int(turn): list(names) for turn, names in (entry.get("missed_function") or {}).items()}
    if len(entry["question"]) != len(truth):
        raise CaseError(f"{entry['id']}: {len(entry['question'])} user turns, {len(truth)} ground-truth turns",
                        file=str(path), line=line)
    long_context = "long_context" in stem
    config = entry.get("initial_config") or {}
    user_turns: list = []
    for index, messages in enumerate(entry["question"][1:], start=1):
        said = [dict(m) for m in messages] or [{"role": "user", "content": holdout_prompt()}]
        user_turns.append({"messages": said, "add_tools": held.get(index, [])})
    reference, wrong = _scripts(World(classes, config, long_context), truth)
    raw = {"id": f"BFCL-{category}-{entry['id'].rsplit('_', 1)[-1]}", "title": entry["id"],
           "category": "tooluse", "difficulty": difficulty, "messages": [dict(m) for m in entry["question"][0]],
           "tools": tools, "tags": ["bfcl"], "family": f"BFCL-{category}", "report_category": f"bfcl/{category}",
           "simulation": {"handler": WorldHandler(classes, config, long_context), "max_turns": STEP_LIMIT,
                          "user_turns": user_turns},
           "grader": {"type": "bfcl_multi_turn", "classes": classes, "initial_config": config,
                      "long_context": long_context, "ground_truth": truth},
           "verify": {"reference": reference, "wrong": wrong}}
    case = build_case(raw, path)
    return dataclasses.replace(case, line=line)
