"""Case schema: YAML and Python case files become validated `Case` objects."""

from __future__ import annotations

import hashlib
import inspect
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_crucible.common.errors import CaseError
from pytest_crucible.common.numbers import MAX_SECONDS, MAX_TOKENS, number_problem
from pytest_crucible.common.yamlio import LineDict, load_yaml
from pytest_crucible.suite.agent_loop import check_simulation
from pytest_crucible.suite.grader_types import check_spec, grades_trace
from pytest_crucible.suite.python_case_files import TreeStamp, python_case_entries
from pytest_crucible.suite.speed_plan import check_plan
from pytest_crucible.suite.tiers import hardness_problem

CATEGORIES = ("coding", "math", "reasoning", "tooluse", "instruct", "longctx", "agent", "prose", "speed")
DIFFICULTIES = ("easy", "medium", "hard")
# Tags that become pytest markers; any other tag is only a keyword for -k.
MARKER_TAGS = ("judged", "smoke", "starter")
_REPORT_CATEGORY = re.compile(r"[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9-]*")
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,79}$")
DEFAULT_MAX_TOKENS = 4096
TOKENS: dict[str, Any] = {"minimum": 1, "maximum": MAX_TOKENS, "integer": True, "what": "a positive integer (tokens)"}
SECONDS: dict[str, Any] = {"minimum": 0, "above": True, "maximum": MAX_SECONDS, "what": "a positive number of seconds"}
# The seed case families use unless the user re-rolls them (--crucible-seed N, cases verify --seed N):
# fixed, so two runs of one suite version ask the same questions.
DEFAULT_SEED = 20261203

YAML_SUFFIXES = (".cases.yaml", ".cases.yml")
PYTHON_SUFFIX = "_cases.py"

_FIELDS = {
    "id", "category", "difficulty", "prompt", "system", "messages", "grader", "tools", "tool_choice",
    "max_tokens", "params", "tags", "timeout_s", "min_context", "verify", "title", "notes", "family",
    "simulation", "speed", "reasoning_budget", "hardness", "report_category",
}
# Request fields that `params` (a case's or a model's) may not set: the client sets them, or they would
# change what one item is (several choices, another model). Each with what to write instead.
REFUSED_PARAMS = {
    "stream": "every request is streamed; remove it",
    "stream_options": "the client asks for usage itself; remove it",
    "n": "one item is one answer; use --crucible-repeats N to ask several times",
    "model": "the model comes from --models and models.yaml (model_id)",
    "messages": "write prompt: or messages: on the case",
    "max_tokens": "write max_tokens: on the case (or on the model in models.yaml)",
    "max_completion_tokens": "write max_tokens: on the case (or on the model in models.yaml)",
    "tools": "write tools: on the case",
    "tool_choice": "write tool_choice: on the case",
}


def refused_params(params: dict) -> list[tuple[str, str]]:
    """(key, what to write instead) for every field of `params` that a request may not take from it."""
    return [(key, REFUSED_PARAMS[key]) for key in params if key in REFUSED_PARAMS]


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    difficulty: str
    messages: tuple[dict, ...]
    grader: dict
    tools: tuple[dict, ...] = ()
    tool_choice: Any = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    params: dict = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    timeout_s: float | None = None
    min_context: int | None = None
    verify: dict = field(default_factory=dict)
    title: str = ""
    file: str = ""
    line: int = 0
    family: str = ""   # the generator a case came from (Python case files with cases(seed))
    notes: str = ""    # why the case is as hard as its tier says (search space, steps, traps)
    # simulated tools: the case is asked in turns through agent_loop (empty: one request)
    simulation: dict = field(default_factory=dict)
    speed: dict | None = None  # speed cases: the measurement plan {warmup, repeats, concurrency}
    # tokens a thinking model may reason on top of max_tokens (the model's own budget caps it)
    reasoning_budget: int | None = None
    # the facts the tier rule reads (suite/tiers.py): {steps, search, traps}; empty when not declared
    hardness: dict = field(default_factory=dict)
    # where reports count it ("bfcl/simple": an imported benchmark's own category); empty: its category
    report_category: str = ""
    # what graders derive from the case alone (its prompt's numbers, its accepted answers), computed on the
    # first grade: a 128k-token prompt takes a second to read, and verify grades each case many times
    # (not an init field: dataclasses.replace gives the new case an empty one)
    derived: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def hard(self) -> bool:
        return self.difficulty == "hard"

    @property
    def prompt_chars(self) -> int:
        return sum(len(m.get("content") or "") for m in self.messages if isinstance(m.get("content"), str))

    def markers(self) -> list[str]:
        return [self.category, self.difficulty] + [t for t in self.tags if t in MARKER_TAGS]

    @property
    def content_hash(self) -> str:
        """What the model is asked and how it is graded, hashed: a case whose question, tools, budget or
        grader changed is a different case (resume and compare never match it to an old row)."""
        asked = {"messages": self.messages, "tools": self.tools, "tool_choice": self.tool_choice,
                 "max_tokens": self.max_tokens, "params": self.params, "grader": self.grader,
                 "timeout_s": self.timeout_s}
        if self.simulation:  # only when present: single-turn cases keep their hashes
            asked["simulation"] = self.simulation
        if self.speed is not None:
            asked["speed"] = self.speed
        if self.reasoning_budget is not None:
            asked["reasoning_budget"] = self.reasoning_budget
        text = json.dumps(asked, sort_keys=True, ensure_ascii=False, default=_hash_text)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _hash_text(value) -> str:
    """What a value json cannot write stands for in a content hash: a simulation handler by its source
    (its address would differ in every process)."""
    if callable(value):
        try:
            return f"{getattr(value, '__qualname__', '')}:{inspect.getsource(value)}"
        except (OSError, TypeError):
            return getattr(value, "__qualname__", repr(type(value)))
    return str(value)


def is_case_file(path: Path) -> bool:
    name = path.name
    return name.endswith(YAML_SUFFIXES) or (name.endswith(PYTHON_SUFFIX) and not name.startswith("test_"))


def load_case_file(path: Path, seed: int | None = None, stamp: TreeStamp | None = None) -> list[Case]:
    """Load and validate every case in one file; raise CaseError naming file, line, case and field.

    `seed` re-rolls the families of Python case files whose `cases(seed)` takes one (DEFAULT_SEED when
    None); YAML files and seedless Python files are the same for every seed. Files loaded together share
    one `stamp` (see python_case_files)."""
    path = Path(path)
    if path.name.endswith(YAML_SUFFIXES):
        raw = load_yaml(path, CaseError)
        if isinstance(raw, dict) and "cases" in raw:
            entries = raw["cases"]
            defaults = {k: v for k, v in raw.items() if k != "cases"}
        elif isinstance(raw, list):
            entries, defaults = raw, {}
        else:
            raise CaseError("a case file holds a top-level 'cases:' list (or is itself a list of cases)",
                            file=str(path), line=getattr(raw, "line", None))
        if not isinstance(entries, list):
            raise CaseError("'cases' must be a list of mappings", file=str(path),
                            line=getattr(raw, "line_of", lambda k: None)("cases"), field="cases")
        unknown_defaults = set(defaults) - {"category", "difficulty", "hardness", "tags", "params", "max_tokens",
                                            "system", "timeout_s", "reasoning_budget"}
        first_line = None  # every YAML case has its own line
        if unknown_defaults:
            key = sorted(unknown_defaults, key=str)[0]
            raise CaseError("unknown file-level key; allowed: category, difficulty, hardness, tags, params, "
                            "max_tokens, reasoning_budget, system, timeout_s, cases", file=str(path),
                            line=raw.line_of(key), field=key)
    else:
        roots = (builtin_cases_dir(), Path(__file__).resolve().parents[1])  # the suite and what it may import
        seed = DEFAULT_SEED if seed is None else seed
        (entries, first_line), defaults = python_case_entries(path, seed, roots, stamp), {}
    cases = [build_case(entry, path, defaults, default_line=first_line) for entry in entries]
    check_unique_ids(cases)
    return cases


def build_case(entry: Any, path: Path, defaults: dict | None = None, *, default_line: int | None = None) -> Case:
    """Validate one raw mapping (from YAML or Python) into a Case; `default_line` is where a mapping
    without a line of its own (a generated one) was made. A ready Case (a Python case file may build
    them) is checked for what its constructor cannot know."""
    if isinstance(entry, Case):
        return _checked(entry)
    file = str(path)
    line = getattr(entry, "line", None) or default_line
    if not isinstance(entry, dict):
        raise CaseError(f"each case is a mapping with id, prompt and grader; got {type(entry).__name__}",
                        file=file, line=line)
    case_id = entry.get("id")

    def fail(message: str, fld: str | None = None) -> CaseError:
        at = _line_of_path(entry, fld) if fld else line
        return CaseError(message, file=file, line=at, field=fld,
                         case_id=case_id if isinstance(case_id, str) else None)

    unknown = set(entry) - _FIELDS
    if unknown:
        key = str(sorted(unknown, key=str)[0])
        raise fail(f"unknown field; allowed fields are {', '.join(sorted(_FIELDS))}", key)
    merged = dict(defaults or {})
    merged.update(entry)

    if not isinstance(case_id, str) or not ID_PATTERN.fullmatch(case_id):
        raise fail("write an id of letters, digits, '.', '_' or '-' (at most 80), e.g. id: MA01-digit-sum",
                   "id")

    category = merged.get("category") or _category_from_path(path)
    if category not in CATEGORIES:
        raise fail(f"unknown category {category!r}; use one of {', '.join(CATEGORIES)} "
                   "(or put the file in a folder named after the category)", "category")
    difficulty = merged.get("difficulty")
    if difficulty not in DIFFICULTIES:
        raise fail(f"difficulty must be one of {', '.join(DIFFICULTIES)}, got {difficulty!r}", "difficulty")

    messages = _build_messages(merged, fail)
    grader, speed = _grader_or_plan(merged, category, fail)

    tools = _build_tools(merged, fail)
    max_tokens, reasoning_budget = _token_limits(merged, fail)
    params = _build_params(merged, fail)
    tags = _build_tags(merged, grader, fail)
    timeout_s, min_context = _run_limits(merged, fail)
    verify = merged.get("verify") or {}
    if not isinstance(verify, dict):
        raise fail("verify must be a mapping (solver, reference, wrong, ...)", "verify")
    for key in ("family", "notes", "title"):
        if not isinstance(merged.get(key) or "", str):
            raise fail(f"{key} must be a string", key)
    report_category = merged.get("report_category") or ""
    if report_category and not (isinstance(report_category, str) and _REPORT_CATEGORY.fullmatch(report_category)):
        raise fail("report_category is SOURCE/NAME in lower case (bfcl/live-simple)", "report_category")
    simulation = _check_simulation(merged, tools, grader, fail)
    hardness = merged.get("hardness") or {}
    if hardness and (problem := hardness_problem(hardness)):
        raise fail(problem, "hardness")

    return Case(
        id=case_id, category=category, difficulty=difficulty, messages=tuple(messages),
        grader=_plain(grader), tools=tuple(_plain(t) for t in tools), tool_choice=merged.get("tool_choice"),
        max_tokens=max_tokens, params=_plain(params), tags=tuple(dict.fromkeys(tags)),
        timeout_s=float(timeout_s) if timeout_s is not None else None, min_context=min_context,
        verify=_plain(verify), title=merged.get("title") or "", file=file, line=line or 0,
        family=merged.get("family") or "", notes=merged.get("notes") or "",
        simulation=_plain(simulation), speed=_plain(speed) if speed is not None else None,
        reasoning_budget=reasoning_budget, hardness=_plain(hardness), report_category=report_category,
    )


def _build_tools(merged: dict, fail) -> list:
    tools = merged.get("tools") or []
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        raise fail("tools must be a list of OpenAI tool definitions ({type: function, function: {...}})",
                   "tools")
    for tool in tools:
        fn = tool.get("function")
        if tool.get("type") != "function" or not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise fail("each tool needs type: function and function: {name, description, parameters}", "tools")
    return tools


def _checked_number(merged: dict, key: str, bounds: dict, fail, default=None):
    """One optional number of a case: finite and in its stated range (common/numbers.py); `key: null` (YAML's
    empty value) is the default, as when the key is left out."""
    value = merged.get(key)
    value = default if value is None else value
    problem = None if value is None else number_problem(value, **bounds)
    if problem:
        raise fail(f"{key} {problem}", key)
    return value


def _token_limits(merged: dict, fail) -> tuple[int, int | None]:
    """max_tokens and reasoning_budget, each a positive integer in range (the budget may be absent)."""
    return (_checked_number(merged, "max_tokens", TOKENS, fail, DEFAULT_MAX_TOKENS),
            _checked_number(merged, "reasoning_budget", TOKENS, fail))


def _build_params(merged: dict, fail) -> dict:
    params = merged.get("params") or {}
    if not isinstance(params, dict):
        raise fail("params must be a mapping of sampling parameters, e.g. {temperature: 0}", "params")
    for key, instead in refused_params(params):
        raise fail(f"params may not set {key}: {instead}", f"params.{key}")
    return params


def _build_tags(merged: dict, grader: dict, fail) -> list[str]:
    tags = merged.get("tags") or []
    if isinstance(tags, str):
        tags = [tags]
    if not isinstance(tags, list) or not all(isinstance(t, str) and t.isidentifier() for t in tags):
        raise fail("tags must be a list of identifiers, e.g. tags: [smoke]", "tags")
    if grader.get("type") == "judge" and "judged" not in tags:
        tags = [*tags, "judged"]
    return tags


def _run_limits(merged: dict, fail) -> tuple[float | int | None, int | None]:
    """timeout_s (seconds) and min_context (tokens), both optional and in range."""
    return (_checked_number(merged, "timeout_s", SECONDS, fail),
            _checked_number(merged, "min_context", TOKENS, fail))


def _check_simulation(merged: dict, tools: list, grader: dict, fail) -> dict:
    """A simulation (multi-turn tools, see agent_loop) goes with tools and a grader of traces."""
    simulation = merged.get("simulation")
    if simulation is None:
        if grades_trace(grader.get("type")):
            raise fail("the trace grader grades a multi-turn run: add simulation: {tools: ...} "
                       "(see pytest_crucible/suite/agent_loop.py)", "grader")
        return {}
    names = [t["function"]["name"] for t in tools]
    for fld, message in check_simulation(simulation, names):
        raise fail(message, f"simulation.{fld}" if fld else "simulation")
    if not tools:
        raise fail("a simulation answers tool calls: define the tools it simulates", "tools")
    if not grades_trace(grader.get("type")):
        raise fail(f"a case with a simulation is graded on its whole trace: use grader type trace, "
                   f"not {grader.get('type') or 'a speed plan'}", "grader")
    if merged.get("tool_choice") == "required" or isinstance(merged.get("tool_choice"), dict):
        raise fail("a multi-turn case cannot force a tool call on every turn (the model could never "
                   "answer): leave tool_choice out or set it to auto", "tool_choice")
    return simulation


def _checked(case: Case) -> Case:
    def fail(message: str, fld: str) -> CaseError:
        return CaseError(message, file=case.file or None, line=case.line or None, field=fld, case_id=case.id)

    for key, instead in refused_params(case.params):
        raise fail(f"params may not set {key}: {instead}", f"params.{key}")
    if (case.speed is not None) != (case.category == "speed"):
        raise fail("a speed case (category speed) has a speed plan and no grader; every other case a grader "
                   "and no speed plan", "speed")
    if case.speed is not None:
        for fld, message in check_plan(case.speed):
            raise fail(message, f"speed.{fld}" if fld else "speed")
    return case


def _grader_or_plan(merged: dict, category: str, fail) -> tuple[dict, dict | None]:
    """(grader, speed plan): a speed case carries a measurement plan and no grader; every other case a
    grader and no plan."""
    grader, plan = merged.get("grader"), merged.get("speed")
    if category == "speed":
        if grader is not None:
            raise fail("a speed case is measured, not graded: remove grader: and give its plan as "
                       "speed: {warmup, repeats, concurrency}", "grader")
        plan = {} if plan is None else plan
        if not isinstance(plan, dict):
            raise fail("speed must be a mapping {warmup, repeats, concurrency}", "speed")
        for fld, message in check_plan(plan):
            raise fail(message, f"speed.{fld}" if fld else "speed")
        return {}, plan
    if plan is not None:
        raise fail(f"a speed plan belongs only on speed cases (this case is {category}); remove speed: or "
                   "put the case in the speed category", "speed")
    if isinstance(grader, str):
        grader = {"type": grader}
    if not isinstance(grader, dict) or not isinstance(grader.get("type"), str):
        raise fail("write a grader mapping with a type, e.g. grader: {type: numeric, answer: 42}", "grader")
    if grader["type"] == "speed":
        raise fail("speed is not a grader: a speed case (category speed) gives its plan as speed: "
                   "{warmup, repeats, concurrency}", "grader.type")
    for fld, message in check_spec(grader):
        raise fail(message, f"grader.{fld}" if fld else "grader")
    return grader, None


def _line_of_path(node, dotted: str) -> int | None:
    """Line of `a.b.c` inside nested YAML mappings: the deepest part that still has a line."""
    line = getattr(node, "line", None)
    for part in dotted.split("."):
        if not isinstance(node, LineDict):
            break
        line = node.line_of(part)
        node = node.get(part)
    return line or None


def _build_messages(merged: dict, fail) -> list[dict]:
    prompt, messages, system = merged.get("prompt"), merged.get("messages"), merged.get("system")
    if (prompt is None) == (messages is None):
        raise fail("give exactly one of prompt (a string) or messages (a list of {role, content})", "prompt")
    if prompt is not None:
        if not isinstance(prompt, str) or not prompt.strip():
            raise fail("prompt must be a non-empty string", "prompt")
        messages = [{"role": "user", "content": prompt}]
    if not isinstance(messages, list) or not messages:
        raise fail("messages must be a non-empty list of {role, content}", "messages")
    out = []
    for msg in messages:
        if not isinstance(msg, dict) or msg.get("role") not in ("system", "user", "assistant", "tool"):
            raise fail("each message needs role (system, user, assistant or tool) and content", "messages")
        out.append(_plain(msg))
    if system is not None:
        if not isinstance(system, str):
            raise fail("system must be a string", "system")
        if out[0]["role"] != "system":
            out.insert(0, {"role": "system", "content": system})
    return out


def _category_from_path(path: Path) -> str | None:
    for part in reversed(path.parent.parts):
        if part in CATEGORIES:
            return part
    return None


def _plain(value):
    """Strip line-tracking subclasses so cases pickle and compare as ordinary data."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def check_unique_ids(cases: list[Case]) -> None:
    seen: dict[str, Case] = {}
    for case in cases:
        if case.id in seen:
            first = seen[case.id]
            raise CaseError(f"duplicate case id (first defined at {first.file}:{first.line}); ids must be "
                            "unique across the suite", file=case.file, line=case.line, field="id",
                            case_id=case.id)
        seen[case.id] = case


# ---------------------------------------------------------------- helpers for Python case files

def function_tool(name: str, description: str, properties: dict | None = None,
                  required: list[str] | None = None, *, additional_properties: bool = False) -> dict:
    """An OpenAI function-tool definition; `properties` maps argument names to JSON-schema types. Other
    arguments are refused (`additionalProperties: false`) unless `additional_properties` lets them in."""
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": properties or {}, "required": list(required or []),
                       "additionalProperties": additional_properties}}}


def tool_turn(*calls: tuple[str, dict], content: str = "") -> dict:
    """One scripted assistant turn that calls tools (verify.reference / verify.wrong scripts)."""
    return {"content": content, "tool_calls": [{"name": name, "arguments": args} for name, args in calls]}


def builtin_cases_dir() -> Path:
    """The built-in suite: inside the installed wheel, or the repository's cases/ folder."""
    package = Path(__file__).resolve().parent.parent
    packaged = package / "builtin_cases"
    return packaged if packaged.is_dir() else package.parent / "cases"


def iter_case_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file() and is_case_file(f)))
        elif p.is_file():
            files.append(p)
    return files


def load_cases(paths: list[Path] | None = None, seed: int | None = None) -> list[Case]:
    """All cases under the given paths (default: the built-in suite), ids checked unique across files."""
    files, stamp = iter_case_files(paths or [builtin_cases_dir()]), TreeStamp()
    cases = [c for f in files for c in load_case_file(f, seed, stamp)]
    check_unique_ids(cases)
    return cases
