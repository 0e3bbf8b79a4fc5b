"""BFCL (the Berkeley Function Calling Leaderboard) as tooluse cases.

The questions, function documents and possible answers are read from the data files inside the
installed `bfcl-eval` package (`bfcl_eval/data/BFCL_v*_<category>.json` and `possible_answer/`, one JSON
object a line), located through the import system without importing the package; nothing is copied here.
`pip install --no-deps bfcl-eval` is enough (its own dependencies run its evaluation, not its data).

The categories become cases `BFCL-<category>-<n>`, each category its own family and report category
(`bfcl/<category>`):

    simple              one function offered, one call expected        (BFCL's simple_python)
    multiple            several functions offered, one call expected
    parallel            one function, several calls in one reply
    parallel-multiple   several functions, several calls in one reply
    irrelevance         no function fits: the reply must call none
    java, javascript    as simple, arguments written as source text (bfcl_languages.py, typed_strings.py)
    live-simple, live-multiple, live-parallel, live-parallel-multiple, live-irrelevance
                        the same kinds from BFCL's user-contributed live set
    live-relevance      some function fits: any call the functions take passes, none fails
    multi-turn-base, multi-turn-miss-func, multi-turn-miss-param, multi-turn-long-context
                        conversations run against BFCL's simulated APIs (bfcl_multi_turn.py)

Each expected call is checked as BFCL's possible answers describe it, by the tool_calls grader, following
BFCL's own checker (bfcl_eval/eval_checker/ast_eval/ast_checker.py): the function name, every argument
among its listed values (a value list with "" may also be left out), no argument the answer does not list
(`arguments_match: exact`) nor one the function does not declare, integers as integers (10.0 is no
integer; an integer passes for a float), strings under BFCL's standardisation (`strings: loose`: case,
blanks and , . / _ * ^ ignored, ' read as "), enum values in any case, calls in any order, and the
arguments valid under the function's JSON schema, except a value BFCL's answer key lists (`schema:
listed_values_pass`: of the listed value's type, and compared as written where that type is not the
declared one, as BFCL reads such a value as a variable); an irrelevance item passes any reply without a call,
an empty one too (`allow_empty`). BFCL writes its schemas in Python's words (dict, float, tuple, any);
they are sent as JSON schema (object, number, array, no type), and names are sent as OpenAI tools allow
them (`math.factorial` -> `math_factorial`).

Where the grader differs from BFCL's checker on purpose (benchmarks/checker_agreement.py counts each):
- parallel calls are matched as a largest assignment, not first fit: BFCL fails a reply whose first call
  fits two expected calls when its greedy pick takes the wrong one;
- strings are normalised at every depth (BFCL leaves strings inside a list inside a mapping as written);
- a minus sign that starts a value or follows an operator counts ("-5" != "5"; BFCL drops every "-");
- "" given for an argument BFCL lets be left out is a value, not the omission (BFCL passes it);
- a value the function's own schema refuses fails unless BFCL lists it (a relevance call without the
  required arguments); a parameter whose default is null or outside its enum takes that default too (live
  answers list it), and an enum written in another type than the declared one also lists its values as
  that type (["1", "2"] for an integer takes 1 and 2);
- Java: the quoted elements of a String array are the strings (BFCL keeps the quotes, failing every
  `new String[]{"-v"}`), and `new ArrayList<>(List.of(...))` is read as the list it is.

`verify.accepted` holds a reply for every listed possible value (the first value of every argument, then
each other value or omission in turn, and the calls in reverse order) that BFCL's own checker lets through
its required-argument, declared-argument and type checks, which `crucible cases verify
--import bfcl` grades: at least 99% must pass, and the rest are listed with the reason. `verify.wrong`
holds a refusal, a prose answer with no call and a reply with a value BFCL does not list (irrelevance:
a call with empty arguments and one with placeholder arguments), all of which must fail.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pytest_crucible.common.errors import CaseError
from pytest_crucible.suite.case import Case, build_case
from pytest_crucible.suite.importers import bfcl_languages, bfcl_multi_turn

NAME = "bfcl"
PACKAGE = "bfcl-eval"
INSTALL = f"pip install --no-deps {PACKAGE}"

# our category -> (BFCL's file category, difficulty)
CATEGORIES = {
    "simple": ("simple_python", "easy"),
    "multiple": ("multiple", "easy"),
    "parallel": ("parallel", "medium"),
    "parallel-multiple": ("parallel_multiple", "medium"),
    "irrelevance": ("irrelevance", "medium"),
    "java": ("simple_java", "easy"),
    "javascript": ("simple_javascript", "easy"),
    "live-simple": ("live_simple", "easy"),
    "live-multiple": ("live_multiple", "easy"),
    "live-parallel": ("live_parallel", "medium"),
    "live-parallel-multiple": ("live_parallel_multiple", "medium"),
    "live-irrelevance": ("live_irrelevance", "medium"),
    "live-relevance": ("live_relevance", "medium"),
    **bfcl_multi_turn.CATEGORIES,
}
NO_CALL = {"irrelevance", "live-irrelevance"}  # no possible answer: the reply must call nothing
ANY_CALL = {"live-relevance"}  # no possible answer: the reply must call one of the functions
# BFCL's Python type names -> JSON schema types (None: any value)
TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": None}
REFUSAL = "I'm sorry, but I can't help with that request."
NO_FUNCTION = "None of the functions available to me can do this, so I will not call any of them."

_OMIT = object()  # a possible "value" of an argument that may be left out
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_FILE = re.compile(r"BFCL_v(\d+)_(\w+)\.json")


def _missing(message: str) -> CaseError:
    return CaseError(message, file=f"import {NAME}")


def package_dir() -> Path:
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise _missing(f"the {NAME} import reads its questions from the {PACKAGE!r} package, which is not "
                       f"installed: {INSTALL}")
    return Path(next(iter(spec.submodule_search_locations)))


def _newest(folder: Path, category: str) -> Path | None:
    found = [(int(m.group(1)), p) for p in folder.glob(f"BFCL_v*_{category}.json")
             if (m := _FILE.fullmatch(p.name)) and m.group(2) == category]
    return max(found)[1] if found else None


def data_files() -> list[Path]:
    """The question file of each category, newest BFCL version first found."""
    data = package_dir() / "data"
    files = []
    for category, (stem, _) in CATEGORIES.items():
        path = _newest(data, stem)
        if path is None:
            raise _missing(f"the installed {PACKAGE!r} package has no data/BFCL_v*_{stem}.json (the {category} "
                           f"category); reinstall it: {INSTALL} --force-reinstall")
        files.append(path)
    return files


def _category_of(path: Path) -> str:
    m = _FILE.fullmatch(path.name)
    stem = m.group(2) if m else None
    for category, (name, _) in CATEGORIES.items():
        if name == stem:
            return category
    raise _missing(f"{path} is not one of the {NAME} data files ({', '.join(p.name for p in data_files())})")


def _read_lines(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load(path: Path | None = None) -> list[Case]:
    """The cases of one data file (one category), or of all of them."""
    files = [Path(path)] if path is not None else data_files()
    cases = []
    for file in files:
        category = _category_of(file)
        answers = {}
        if category not in NO_CALL | ANY_CALL:
            answer_file = file.parent / "possible_answer" / file.name
            if not answer_file.is_file():
                raise _missing(f"the installed {PACKAGE!r} package has no possible answers for {file.name} "
                               f"(data/possible_answer/{file.name}); reinstall it: {INSTALL} --force-reinstall")
            answers = {a["id"]: a["ground_truth"] for a in _read_lines(answer_file)}
        for line, entry in enumerate(_read_lines(file), start=1):
            truth = answers.get(entry["id"]) if answers else None
            if answers and truth is None:
                raise CaseError(f"{entry['id']} has no possible answer in possible_answer/{file.name}",
                                file=str(file), line=line)
            if category in bfcl_multi_turn.CATEGORIES:
                docs = bfcl_multi_turn.function_docs(package_dir(), entry["involved_classes"])
                cases.append(bfcl_multi_turn.to_case(entry, truth or [], category, file, line,
                                                     [_tool(d) for d in docs]))
                continue
            cases.append(to_case(entry, truth, category, file, line))
    return cases


# ------------------------------------------------------------------------------------------ one case

def tool_name(name: str) -> str:
    """A BFCL function name as an OpenAI tool name (letters, digits, '_' and '-')."""
    return _NAME_CHARS.sub("_", name)


def _null_default(node: dict) -> bool:
    return "default" in node and node["default"] is None


def json_schema(node: Any) -> Any:
    """A BFCL parameter document as JSON schema: its Python type names translated, its own `optional`
    marker dropped (JSON schema says that with `required`)."""
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "type":
            kind = TYPES.get(value, value) if isinstance(value, str) else value
            if kind is not None:  # a null default says the argument may be given as null (live items list it)
                out["type"] = [kind, "null"] if _null_default(node) else kind
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: json_schema(p) for name, p in value.items()}
        elif key == "enum" and isinstance(value, list) and "default" in node and node["default"] not in value:
            out[key] = [*value, node["default"]]  # the default is a value the function takes (often "N/A", null)
        elif key == "items":
            out[key] = json_schema(value)
        elif key != "optional":
            out[key] = value
    return _typed_enum(out)


_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array", dict: "object",
               type(None): "null"}
_READ_AS = {"integer": lambda t: int(t) if re.fullmatch(r"-?\d+", t) else None,
            "boolean": lambda t: {"true": True, "false": False}.get(t.lower())}


def _typed_enum(schema: dict) -> dict:
    """An enum whose values are not all of the declared type (BFCL writes ["1", "2"] for an integer and
    ["True", "False", "dontcare"] for a boolean): its strings are also listed as the type reads them (2,
    True), and the type takes the values' own types too, so that the values the function lists are values
    it takes."""
    kind, enum = schema.get("type"), schema.get("enum")
    if not isinstance(kind, str) or not isinstance(enum, list):
        return schema
    types = {t for v in enum if (t := _JSON_TYPES.get(type(v)))} - {kind, "null"} - ({"integer"} if kind == "number"
                                                                                 else set())
    if not types:
        return schema
    read = [_READ_AS[kind](v) for v in enum if isinstance(v, str) and kind in _READ_AS]
    added = [v for v in read if v is not None and v not in enum]
    return {**schema, "type": [kind, *sorted(types)], "enum": [*enum, *added]}


def _tool(function: dict, language: str | None = None) -> dict:
    """An OpenAI tool; for Java and JavaScript with every parameter a string (BFCL's way)."""
    if language:
        parameters = bfcl_languages.string_parameters(function, language)
        return {"type": "function", "function": {"name": tool_name(function["name"]),
                                                 "description": function.get("description", ""),
                                                 "parameters": parameters}}
    parameters = json_schema(function.get("parameters") or {"type": "dict", "properties": {}})
    return {"type": "function", "function": {"name": tool_name(function["name"]),
                                             "description": function.get("description", ""),
                                             "parameters": parameters}}


def _options(options: Any) -> list:
    """One argument's list of possible values. An empty list (two live items) is read as the one value []:
    BFCL's checker passes no reply there, neither one that gives [] nor one that leaves the argument out."""
    if not isinstance(options, list):
        return [options]
    return options or [[]]


def _wanted(options: Any) -> Any:
    """BFCL's list of possible values of one argument as a tool_calls matcher ("" = may be left out)."""
    options = _options(options)
    given = [_option(v) for v in options if v != ""]
    if "" in options:
        return {"optional": given}
    return given[0] if len(given) == 1 else {"one_of": given}


def _option(value: Any) -> Any:
    """One possible value; inside it, a mapping's values are again lists of possible values."""
    if isinstance(value, dict):
        return {k: _wanted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_option(v) for v in value]
    return value


def _choices(options: Any) -> list:
    """Every concrete value one argument may take (_OMIT: left out), the first one first."""
    options = _options(options)
    out: list = []
    for option in options:
        out += [_OMIT] if option == "" else _concrete(option)
    return out


def _concrete(option: Any) -> list:
    """The concrete values one possible value stands for: its first choices everywhere, then each other
    choice of one part at a time."""
    if isinstance(option, dict):
        parts = {k: _choices(v) for k, v in option.items()}
        base = {k: c[0] for k, c in parts.items() if c[0] is not _OMIT}
        out = [base]
        for k, c in parts.items():
            for alt in c[1:]:
                variant = {**base}
                variant.pop(k, None)
                out.append(variant if alt is _OMIT else {**variant, k: alt})
        return out
    if isinstance(option, list):
        items = [_concrete(v) for v in option]
        first = [c[0] for c in items]
        return [first] + [[*first[:i], alt, *first[i + 1:]] for i, c in enumerate(items) for alt in c[1:]]
    return [option]


_PYTHON_TYPES: dict[str, type] = {  # BFCL's ast_checker.PYTHON_TYPE_MAPPING: types compare exactly
    "string": str, "integer": int, "float": float, "boolean": bool, "array": list, "tuple": list, "dict": dict,
    "any": str}


def _first_listed(options: Any) -> Any:
    return next((o for o in _options(options) if o != ""), _OMIT)


def _checker_takes(value: Any, param: dict | None, first: Any) -> bool:
    """Whether BFCL's own checker lets a listed value through its type check (ast_checker.type_checker): a
    value of the declared type (an integer where a float is declared), or of the type of the first value
    listed, which BFCL reads as a variable; inside a list, each element by the declared element type."""
    declared = str((param or {}).get("type"))
    wanted = _PYTHON_TYPES.get(declared)
    if wanted is None:
        return True
    if first is not _OMIT and type(value) is type(first):
        return True
    if declared == "float" and type(value) is int:
        return True
    items = (param or {}).get("items")
    if type(value) is list and wanted is list and isinstance(items, dict):
        return all(_checker_takes(v, items, value[0]) for v in value)
    return type(value) is wanted


def possible_replies(truth: list[dict], functions: dict[str, dict] | None = None) -> list[dict]:
    """A reply (tool_calls) for every possible value BFCL lists, as described in the module docstring.
    Given the functions (BFCL name -> its document), values BFCL's own checker fails before it compares
    them are no possible answers although BFCL lists them: leaving out a required argument (listed as ""),
    a value whose type is neither the declared one nor the first listed value's (False for a string listed
    as text), an argument the function does not declare; where that leaves an argument no value, BFCL's
    checker passes no reply at all, and there is none."""
    calls = []
    for item in truth:
        (name, arguments), = item.items()
        parameters = ((functions or {}).get(name) or {}).get("parameters") or {}
        needed, props = set(parameters.get("required", ())), parameters.get("properties", {})
        args = {}
        for arg, options in arguments.items():
            choices, first = _choices(options), _first_listed(options)
            kept = [c for c in choices if (arg not in needed) if c is _OMIT] + [
                c for c in choices if c is not _OMIT and (functions is None or (
                    arg in props and _checker_takes(c, props.get(arg), first)))]
            if not kept:
                return []
            args[arg] = sorted(kept, key=choices.index)
        calls.append((tool_name(name), args))
    base = [(name, {a: c[0] for a, c in args.items() if c[0] is not _OMIT}) for name, args in calls]
    replies = [base]
    for i, (_, args) in enumerate(calls):
        for arg, choices in args.items():
            for alt in choices[1:]:
                changed = copy.deepcopy(base)
                changed[i][1].pop(arg, None)
                if alt is not _OMIT:
                    changed[i][1][arg] = alt
                replies.append(changed)
    if len(base) > 1:
        replies.append(base[::-1])
    return [{"tool_calls": [{"name": n, "arguments": a} for n, a in reply]} for reply in replies]


def _changed(value: Any, avoid: Iterable) -> Any:
    """A value of the same kind as `value` that is none of `avoid`."""
    out: Any
    if isinstance(value, bool):
        out = not value
    elif isinstance(value, (int, float)):
        out = value + 7919
    elif isinstance(value, str):
        out = value + " zq"
    elif isinstance(value, list):
        out = [*value, value[0] if value else "zq"]
    elif isinstance(value, dict):
        out = {**value, "zq": 1}
    else:
        out = "zq"
    return out if out not in list(avoid) else _changed(out, avoid)


def _wrong_value(truth: list[dict], base: dict) -> dict:
    """The first reply with one argument's value changed to one BFCL does not list (or, for a call without
    arguments, an argument it does not list)."""
    reply = copy.deepcopy(base)
    first = reply["tool_calls"][0]
    (_, arguments), = truth[0].items()
    for arg, options in arguments.items():
        if arg in first["arguments"]:
            first["arguments"][arg] = _changed(first["arguments"][arg], options if isinstance(options, list) else [])
            return reply
    first["arguments"]["zq_unlisted"] = 1
    return reply


def _placeholder(schema: dict) -> Any:
    if schema.get("enum"):
        return schema["enum"][0]
    return {"string": "example", "integer": 1, "number": 1.5, "boolean": True, "array": [],
            "object": {}}.get(str(schema.get("type")), "example")


def _no_call_verify(tools: list[dict]) -> dict:
    if not tools:  # a few live items offer no function at all
        return {"accepted": [NO_FUNCTION], "wrong": [{"tool_calls": [{"name": "lookup", "arguments": {}}]}]}
    first = tools[0]["function"]
    filled = {k: _placeholder(v) for k, v in first["parameters"].get("properties", {}).items()
              if k in first["parameters"].get("required", [])}
    return {"accepted": [NO_FUNCTION],
            "wrong": [{"tool_calls": [{"name": first["name"], "arguments": {}}]},
                      {"tool_calls": [{"name": first["name"], "arguments": filled}]}]}


def _any_call_verify(tools: list[dict]) -> dict:
    """Relevance: a call to each function with its required arguments filled in passes, no call fails."""
    accepted = []
    for tool in tools:
        schema = tool["function"]["parameters"]
        filled = {k: _placeholder(v) for k, v in schema.get("properties", {}).items()
                  if k in schema.get("required", [])}
        accepted.append({"tool_calls": [{"name": tool["function"]["name"], "arguments": filled}]})
    return {"accepted": accepted, "wrong": [REFUSAL, NO_FUNCTION]}


def _written(replies: list[dict], types: dict[str, dict[str, str]], language: str) -> list[dict]:
    """Replies with each argument written as source text of its declared type (Java, JavaScript)."""
    return [{"tool_calls": [{"name": c["name"], "arguments": {
        k: bfcl_languages.write(v, types[c["name"]].get(k, "any"), language) for k, v in c["arguments"].items()}}
        for c in reply["tool_calls"]]} for reply in replies]


def _expected_calls(truth: list[dict], functions: list[dict], language: str | None) -> tuple[dict, dict]:
    """The tool_calls grader and the verify block of a case with possible answers."""
    calls = []
    for item in truth:
        (name, arguments), = item.items()
        calls.append({"name": tool_name(name), "arguments": {a: _wanted(o) for a, o in arguments.items()}})
    grader = {"type": "tool_calls", "calls": calls, "order": "any", "allow_extra": False,
              "arguments_match": "exact", "strings": "loose"}
    accepted = possible_replies(truth, None if language else {f["name"]: f for f in functions})
    base = possible_replies(truth)[0]  # the listed values, whether or not BFCL's checker can pass them
    if language:
        types = {tool_name(f["name"]): bfcl_languages.declared_types(f) for f in functions}
        grader["string_types"] = {"language": language, "tools": types}
        accepted, (base,) = _written(accepted, types, language), _written([base], types, language)
    else:
        grader["schema"] = "listed_values_pass"  # BFCL's answer key wins where its own schema disagrees
    verify = {"accepted": accepted,
              "wrong": [REFUSAL, "Here is the answer in words, without calling any function: it depends.",
                        _wrong_value(truth, base)]}
    return grader, verify


def to_case(entry: dict, truth: list[dict] | None, category: str, path: Path, line: int) -> Case:
    stem, difficulty = CATEGORIES[category]
    language = bfcl_languages.LANGUAGE_OF.get(category)
    turns = entry["question"]
    if len(turns) != 1:
        raise CaseError(f"{entry['id']}: a single-turn question has one turn, this one has {len(turns)}",
                        file=str(path), line=line)
    tools = [_tool(f, language) for f in entry["function"]]
    names = [t["function"]["name"] for t in tools]
    if len(set(names)) != len(names):
        raise CaseError(f"{entry['id']}: two functions have the same tool name ({', '.join(names)})",
                        file=str(path), line=line)
    number = entry["id"].rsplit("_", 1)[-1]
    if category in NO_CALL:
        grader = {"type": "tool_calls", "expect_no_call": True, "allow_empty": True}
        verify = _no_call_verify(tools)
    elif category in ANY_CALL:
        grader = {"type": "tool_calls", "expect_call": True, "strings": "loose"}
        verify = _any_call_verify(tools)
    else:
        grader, verify = _expected_calls(truth or [], entry["function"], language)
    raw = {"id": f"BFCL-{category}-{number}", "title": entry["id"], "category": "tooluse",
           "difficulty": difficulty, "messages": [dict(m) for m in turns[0]], "tools": tools,
           "grader": grader, "verify": verify, "tags": [NAME], "family": f"BFCL-{category}",
           "report_category": f"{NAME}/{category}"}
    case = build_case(raw, path)
    return dataclasses.replace(case, line=line)
