"""The tool_calls grader against BFCL's own checker (bfcl-eval's ast_checker) on generated candidate answers.

Used by benchmarks/checker_agreement.py (which prints the report) and tests/test_checker_agreement.py.

The corpus, per BFCL item of the imported single-turn categories (Python and live; Java and JavaScript, whose
candidates are the same, written as source text, plus a `source text` class: bfcl_source_agreement.py):
- `possible`: every possible answer (the first listed value of every argument, then each other listed value
  or omission in turn, and parallel calls reversed: bfcl.possible_replies); for irrelevance, a prose reply,
  a refusal and an empty reply;
- mutants of the first possible answer, one class each: `wrong value`, `dropped argument` (also given as
  ""), `extra argument` (one the function does not declare, one it declares but the answer does not list),
  `wrong function`, `reordered calls`, `duplicated call` (and a call left out), `type swap` (int/float/str),
  `sign and symbol` (a number negated, + and - swapped, @ or quotes or a minus sign dropped), `case and
  whitespace` (at the top and inside lists and mappings; each variant once per argument); for irrelevance,
  calls with empty and with placeholder arguments.
Counted once each: identical (item, candidate) pairs are deduplicated (the first class that produced one
keeps it), and the summary gives the agreement over all candidates and the mean of the per-class
agreements (each class weighted equally).

Every disagreement is put in a documented class (DOCUMENTED) with the side that is right, or in
UNDOCUMENTED. Nothing here executes model output: BFCL's checker compares data.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import itertools
import json
import random
import sys
import types
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_crucible.client.response import Response, ToolCall  # noqa: E402
from pytest_crucible.grading import grade  # noqa: E402
from pytest_crucible.grading import tool_schema  # noqa: E402
from pytest_crucible.suite.case import Case  # noqa: E402
from pytest_crucible.suite.importers import bfcl  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bfcl_source_agreement  # noqa: E402

MODEL = "stand-in"  # BFCL's checker asks its model table only whether to turn dots into underscores
NO_CALL_REPLIES = {"prose": bfcl.NO_FUNCTION, "refusal": bfcl.REFUSAL, "empty": ""}

# (direction, class) -> (who is right, why): direction "ours" = our grader passes, BFCL's fails
DOCUMENTED = {
    ("ours", "greedy matching"): ("ours", "BFCL matches parallel calls first-fit: a call that fits two expected "
                                          "calls can take the wrong one, and BFCL fails a reply a one-to-one "
                                          "assignment accepts"),
    ("ours", "nested strings"): ("ours", "BFCL compares strings inside a list inside a mapping as written (case, "
                                         "blanks); everywhere else it standardises them"),
    ("ours", "whole number in a float array"): ("ours", "BFCL turns an int into a float only at the top level; "
                                                        "inside an array 2 is refused where 2.0 is listed, though "
                                                        "JSON has one number type"),
    ("bfcl", "minus sign dropped"): ("ours", "BFCL deletes every '-' from strings, so a lost minus sign "
                                             "('exp(x**2)' for 'exp(-x**2)') passes"),
    ("bfcl", "empty value for an omittable argument"): ("ours", "BFCL reads \"\" (and, for a list, []) given for an "
                                                                "argument it lets be left out as the omission (its "
                                                                "own marker for 'may be left out'); it is a value"),
    ("ours", "no value listed"): ("ours", "BFCL lists no value at all ([]) for an argument of two live items, so its "
                                          "checker fails every reply there; the importer reads it as the value []"),
    ("bfcl", "schema refuses"): ("ours", "the call breaks the function's own schema where BFCL's answer key lists "
                                         "no value (a relevance call without its required arguments); BFCL "
                                         "checks the possible answers, not the schema"),
    ("ours", "quoted strings in a Java array"): ("ours", "BFCL reads the elements of a Java String array "
                                                         "(new String[]{\"-v\", \"-p\"}) with their quotes, so "
                                                         "it fails every array written as Java writes it and "
                                                         "passes only unquoted names; an ArrayList's it unquotes"),
    ("ours", "ArrayList of List.of"): ("ours", "new ArrayList<>(List.of(1L, 2L)) is the same list as "
                                               "new ArrayList<>(Arrays.asList(1L, 2L)); BFCL reads only the "
                                               "Arrays.asList and add() forms"),
    ("ours", "no reply passes BFCL"): ("ours", "BFCL's checker passes no right reply to the item: its answer "
                                               "key gives a mapping's values without their list of choices "
                                               "(java 64), or it keeps the text of any-typed list elements "
                                               "('\"userID\"', '42'), which equals no listed value (java 36)"),
}


# Multi-turn: graded by BFCL's own state and response checks (grading/bfcl_multi_turn.py), measured by
# benchmarks/bfcl_multi_turn_agreement.py
UNCOVERED = set(bfcl.bfcl_multi_turn.CATEGORIES)


@dataclass
class Item:
    case: Case
    category: str                 # ours: simple, multiple, parallel, parallel-multiple, irrelevance
    functions: list[dict]         # BFCL's function documents
    truth: list[dict] | None      # BFCL's possible answer (None: irrelevance)
    names: dict[str, str]         # our tool name -> BFCL's function name
    language: str | None = None   # java, javascript: arguments are source text


@dataclass(frozen=True)
class Candidate:
    item: str                     # case id
    kind: str                     # the mutant class
    detail: str                   # which variant of it
    calls: tuple | None           # ((BFCL name, arguments), ...); None: a reply without calls
    text: str = ""

    def key(self) -> str:
        return json.dumps([self.item, self.calls if self.calls is not None else self.text], sort_keys=True)


@dataclass
class Verdict:
    candidate: Candidate
    bfcl: bool
    bfcl_error: str
    ours: bool
    our_reason: str
    why: str = ""                 # the disagreement's class
    language: str = "python"      # python (the Python and live items), java, javascript


# ------------------------------------------------------------------------------------------ BFCL's side

def load_checker() -> types.ModuleType:
    """bfcl-eval's ast_checker module, loaded on its own: the package's model_config (which imports every
    model vendor's SDK, left out by `pip install --no-deps bfcl-eval`) is replaced, while the checker loads,
    by a stand-in for the one name it reads (MODEL_CONFIG_MAPPING: whether a model's function names have
    dots turned into underscores; names are given to the checker as BFCL writes them)."""
    path = bfcl.package_dir() / "eval_checker" / "ast_eval" / "ast_checker.py"
    config = "bfcl_eval.constants.model_config"
    stand_in = types.ModuleType(config)
    stand_in.MODEL_CONFIG_MAPPING = defaultdict(lambda: types.SimpleNamespace(underscore_to_dot=False))
    saved = sys.modules.get(config)
    sys.modules[config] = stand_in
    try:
        spec = importlib.util.spec_from_file_location("bfcl_eval_ast_checker", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if saved is None:
            sys.modules.pop(config, None)
        else:
            sys.modules[config] = saved
    return module


def bfcl_verdict(checker: types.ModuleType, item: Item, calls: tuple | None) -> tuple[bool, str]:
    """What BFCL's evaluation says of a reply: its irrelevance rule (no call decoded) or its ast_checker."""
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.utils import is_empty_output

    decoded = None if calls is None else [{name: copy.deepcopy(args)} for name, args in calls]
    if item.category in bfcl.NO_CALL:
        called = decoded is not None and not is_empty_output(decoded)
        return not called, "irrelevance_error:decoder_success" if called else ""
    if item.category in bfcl.ANY_CALL:  # BFCL's relevance rule: any decoded call passes
        called = decoded is not None and not is_empty_output(decoded)
        return called, "" if called else "relevance_error:decoder_failed"
    if decoded is None:  # a function-calling reply without calls does not decode
        return False, "ast_decoder:decoder_failed"
    stem = bfcl.CATEGORIES[item.category][0]
    try:
        language = {"java": Language.JAVA, "javascript": Language.JAVASCRIPT}.get(item.language or "",
                                                                                 Language.PYTHON)
        result = checker.ast_checker(copy.deepcopy(item.functions), decoded, copy.deepcopy(item.truth),
                                     language, stem, MODEL)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:  # it assumes well-formed output
        return False, f"exception:{type(exc).__name__}"
    return bool(result["valid"]), "" if result["valid"] else result.get("error_type", "")


def our_verdict(item: Item, calls: tuple | None, text: str = "") -> tuple[bool, str]:
    made = [ToolCall(bfcl.tool_name(name), json.dumps(args), id=f"call_{i}")
            for i, (name, args) in enumerate(calls or ())]
    result = grade(item.case, Response(content=text, tool_calls=made,
                                       finish_reason="tool_calls" if made else "stop"))
    return result.passed, result.reason


# ------------------------------------------------------------------------------------------ items

LANGUAGES = ("python", "java", "javascript")


def _language(category: str) -> str:
    return bfcl.bfcl_languages.LANGUAGE_OF.get(category, "python")


def load_items(languages: Iterable[str] | None = None) -> list[Item]:
    """The items of the covered categories, or of those in the given languages (python: the Python and live
    categories; java; javascript)."""
    items = []
    for path in bfcl.data_files():
        category = next(c for c, (stem, _) in bfcl.CATEGORIES.items() if path.name.split("_", 2)[-1] == f"{stem}.json")
        if category in UNCOVERED or (languages is not None and _language(category) not in languages):
            continue
        answers = {}
        if category not in bfcl.NO_CALL | bfcl.ANY_CALL:
            lines = (path.parent / "possible_answer" / path.name).read_text(encoding="utf-8").splitlines()
            answers = {a["id"]: a["ground_truth"] for a in map(json.loads, filter(str.strip, lines))}
        for line, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not text.strip():
                continue
            entry = json.loads(text)
            truth = answers.get(entry["id"])
            case = bfcl.to_case(entry, truth, category, path, line)
            names = {bfcl.tool_name(f["name"]): f["name"] for f in entry["function"]}
            items.append(Item(case, category, entry["function"], truth, names,
                              bfcl.bfcl_languages.LANGUAGE_OF.get(category)))
    return items


# ------------------------------------------------------------------------------------------ candidates

def _possible(item: Item) -> list[tuple]:
    return [tuple((item.names.get(c["name"], c["name"]), c["arguments"]) for c in reply["tool_calls"])
            for reply in bfcl.possible_replies(item.truth)]


def _strings(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, str]]:
    """(path, string) for every string in a value, outermost first."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, (*path, i))


def _replace(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    out = copy.deepcopy(value)
    node = out
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = new
    return out


def _other_text(text: str) -> str:
    """A different string of the same shape: its last letter or digit changed."""
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch in "0123456789":
            return text[:i] + str((int(ch) + 1) % 10) + text[i + 1:]
        if ch.isalpha():
            return text[:i] + ("a" if ch.lower() == "z" else chr(ord(ch.lower()) + 1)) + text[i + 1:]
    return text + "x"


def _wrong_value(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 0.5
    if isinstance(value, str):
        return _other_text(value)
    if isinstance(value, list):
        return value[:-1] if value else [0]
    if isinstance(value, dict) and value:
        key = next(iter(value))
        return {**value, key: _wrong_value(value[key])}
    return "x"


def _type_swaps(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, bool):
        yield "bool -> str", str(value).lower()
    elif isinstance(value, int):
        yield "int -> float", float(value)
        yield "int -> str", str(value)
    elif isinstance(value, float):
        yield "float -> str", repr(value)
        if value.is_integer():
            yield "float -> int", int(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return
        yield "str -> number", int(number) if number.is_integer() else number
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, float) and v.is_integer():
                yield "float -> int in a list", [*value[:i], int(v), *value[i + 1:]]
                return


def _sign_symbol(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value:
        yield "number negated", -value
    for path, text in _strings(value):
        if "+" in text or "-" in text:
            yield "+ and - swapped", _replace(value, path, text.translate(str.maketrans("+-", "-+")))
        if "@" in text:
            yield "@ dropped", _replace(value, path, text.replace("@", ""))
        if any(q in text for q in "'\""):
            yield "quotes dropped", _replace(value, path, text.replace('"', "").replace("'", ""))
        signed = [i for i, ch in enumerate(text) if ch == "-" and (i == 0 or text[i - 1] in "(=,*/ ")
                  and i + 1 < len(text) and not text[i + 1].isspace()]
        if signed:
            yield "minus sign dropped", _replace(value, path, text[:signed[0]] + text[signed[0] + 1:])


def _case_blanks(value: Any) -> Iterator[tuple[str, Any]]:
    for path, text in _strings(value):
        where = "nested " if len(path) > 1 else ""
        if text.upper() != text:
            yield f"{where}upper case", _replace(value, path, text.upper())
        if text.lower() != text:
            yield f"{where}lower case", _replace(value, path, text.lower())
        if " " in text.strip():
            yield f"{where}blanks removed", _replace(value, path, text.replace(" ", ""))
            yield f"{where}blanks doubled", _replace(value, path, text.replace(" ", "  "))
        yield f"{where}padded", _replace(value, path, f" {text} ")


def _once(variants: Iterator[tuple[str, Any]]) -> Iterator[tuple[str, Any]]:
    """Each variant once per argument (the first string it applies to): an argument holding a long list
    of strings does not outweigh the rest."""
    seen = set()
    for detail, value in variants:
        if detail not in seen:
            seen.add(detail)
            yield detail, value


def _placeholder(schema: dict) -> Any:
    return {"string": "example", "integer": 1, "float": 1.5, "boolean": True, "array": [], "tuple": [],
            "dict": {}}.get(schema.get("type"), "example")


def _argument_mutants(item: Item, base: tuple) -> Iterator[tuple[str, str, tuple]]:
    docs = {f["name"]: f for f in item.functions}
    for i, (name, args) in enumerate(base):
        def put(new_args: dict, i: int = i, name: str = name) -> tuple:
            return (*base[:i], (name, new_args), *base[i + 1:])

        for arg, value in args.items():
            yield "wrong value", arg, put({**args, arg: _wrong_value(value)})
            rest = {k: v for k, v in args.items() if k != arg}
            yield "dropped argument", "left out", put(rest)
            if isinstance(value, str):
                yield "dropped argument", "given as \"\"", put({**args, arg: ""})
            for detail, new in _type_swaps(value):
                yield "type swap", detail, put({**args, arg: new})
            for detail, new in _once(_sign_symbol(value)):
                yield "sign and symbol", detail, put({**args, arg: new})
            for detail, new in _once(_case_blanks(value)):
                yield "case and whitespace", detail, put({**args, arg: new})
        yield "extra argument", "undeclared", put({**args, "dry_run": True})
        properties = (docs.get(name, {}).get("parameters") or {}).get("properties") or {}
        listed = set(next(iter(item.truth[i].values()))) if i < len(item.truth) else set()
        for arg, schema in properties.items():
            if arg not in listed and arg not in args:
                yield "extra argument", "declared, not listed", put({**args, arg: _placeholder(schema)})
        others = [f["name"] for f in item.functions if f["name"] != name]
        yield "wrong function", "near name", (*base[:i], (name + "_v2", args), *base[i + 1:])
        if others:
            yield "wrong function", "another offered function", (*base[:i], (others[0], args), *base[i + 1:])


def _call_mutants(base: tuple) -> Iterator[tuple[str, str, tuple]]:
    for shift in range(1, len(base)):
        yield "reordered calls", f"rotated by {shift}", base[shift:] + base[:shift]
    yield "duplicated call", "first call twice", (*base, base[0])
    if len(base) > 1:
        yield "duplicated call", "last call left out", base[:-1]


def _as_source_text(item: Item, found: list[Candidate], base: tuple) -> list[Candidate]:
    """Java, JavaScript: every candidate's arguments written as source text, and the `source text` class."""
    types = bfcl_source_agreement.declared(item.functions)
    out = [c if c.calls is None else dataclasses.replace(
        c, calls=bfcl_source_agreement.written(c.calls, types, item.language)) for c in found]
    return out + [Candidate(item.case.id, "source text", detail, calls)
                  for detail, calls in bfcl_source_agreement.source_variants(base, types, item.language)]


def candidates(item: Item) -> list[Candidate]:
    """Every candidate of one item, deduplicated (the first class to produce a reply keeps it)."""
    found: list[Candidate] = []
    if item.truth is None:
        found += [Candidate(item.case.id, "possible", f"no call: {k}", None, text)
                  for k, text in NO_CALL_REPLIES.items()]
        if not item.functions:  # a few live irrelevance items offer no function
            return found
        first = item.functions[0]
        params = first.get("parameters") or {}
        filled = {k: _placeholder(v) for k, v in (params.get("properties") or {}).items()
                  if k in (params.get("required") or [])}
        found += [Candidate(item.case.id, "wrong function", "a call with empty arguments", ((first["name"], {}),)),
                  Candidate(item.case.id, "wrong function", "a call with placeholder arguments",
                            ((first["name"], filled),))]
    else:
        possible = _possible(item)
        found += [Candidate(item.case.id, "possible", "listed values", calls) for calls in possible]
        base = possible[0]
        found += [Candidate(item.case.id, kind, detail, calls) for kind, detail, calls in _argument_mutants(item, base)]
        found += [Candidate(item.case.id, kind, detail, calls) for kind, detail, calls in _call_mutants(base)]
        found.append(Candidate(item.case.id, "wrong function", "prose instead of a call", None, bfcl.NO_FUNCTION))
        if item.language:
            found = _as_source_text(item, found, base)
    seen, out = set(), []
    for candidate in found:
        if candidate.key() not in seen:
            seen.add(candidate.key())
            out.append(candidate)
    return out


# ------------------------------------------------------------------------------------------ verdicts

def _greedy_only(checker, item: Item, calls: tuple) -> bool:
    """BFCL fails these calls in this order but passes them in another: its first-fit matching."""
    if "parallel" not in item.category or len(calls) > 6:
        return False
    return any(bfcl_verdict(checker, item, order)[0] for order in itertools.permutations(calls))


def _empty_for_omittable(item: Item, calls: tuple) -> bool:
    """A call gives "" or [] for an argument BFCL's answer lets be left out (lists "" for)."""
    omittable = {(name, arg) for answer in item.truth or [] for name, args in answer.items()
                 for arg, options in args.items() if isinstance(options, list) and "" in options}
    return any(value in ("", []) and (name, arg) in omittable for name, args in calls for arg, value in args.items())


def _schema_refuses(item: Item, calls: tuple) -> bool:
    tools = {t["function"]["name"]: t for t in item.case.tools}
    loose = item.case.grader.get("strings") == "loose"
    return any(bfcl.tool_name(name) in tools and tool_schema.problem(tools[bfcl.tool_name(name)], args,
                                                                     loose_strings=loose)
               for name, args in calls)


def explain(checker, item: Item, verdict: Verdict) -> str:
    """The documented class of a disagreement, or UNDOCUMENTED: <mutant class / detail>."""
    if item.language and verdict.ours and verdict.candidate.calls is not None:
        unquoted = bfcl_source_agreement.unquoted_arrays(verdict.candidate.calls, item.functions)
        if unquoted != verdict.candidate.calls and bfcl_verdict(checker, item, unquoted)[0]:
            return "quoted strings in a Java array"
        if verdict.candidate.detail == "ArrayList of List.of":
            return "ArrayList of List.of"
        if not any(bfcl_verdict(checker, item, c.calls)[0] for c in candidates(item)):
            return "no reply passes BFCL"
    return _explain_values(checker, item, verdict)


def _explain_values(checker, item: Item, verdict: Verdict) -> str:
    """The documented class of a disagreement, or UNDOCUMENTED: <mutant class / detail>."""
    c = verdict.candidate
    if verdict.ours and any(options == [] for answer in item.truth or [] for args in answer.values()
                            for options in args.values()):
        return "no value listed"
    if verdict.ours and c.calls is not None:
        if _greedy_only(checker, item, c.calls):
            return "greedy matching"
        if c.detail.startswith("nested "):
            return "nested strings"
        if c.detail == "float -> int in a list":
            return "whole number in a float array"
    if verdict.bfcl and c.calls is not None:
        if c.detail == "minus sign dropped":
            return "minus sign dropped"
        if _empty_for_omittable(item, c.calls):
            return "empty value for an omittable argument"
        if _schema_refuses(item, c.calls):
            return "schema refuses"
    return f"UNDOCUMENTED: {c.kind} / {c.detail}"


def judge(checker, item: Item, candidate: Candidate) -> Verdict:
    bfcl_ok, error = bfcl_verdict(checker, item, candidate.calls)
    ours_ok, reason = our_verdict(item, candidate.calls, candidate.text)
    verdict = Verdict(candidate, bfcl_ok, error, ours_ok, reason, language=item.language or "python")
    if bfcl_ok != ours_ok:
        verdict.why = explain(checker, item, verdict)
    return verdict


def corpus(items: list[Item], per_class: int | None = None, seed: int = 0) -> list[tuple[Item, Candidate]]:
    """Every candidate of every item, or a seeded sample of at most `per_class` from each class."""
    pairs = [(item, c) for item in items for c in candidates(item)]
    if per_class is None:
        return pairs
    rng, by_kind = random.Random(seed), defaultdict(list)
    for pair in pairs:
        by_kind[pair[1].kind].append(pair)
    return [pair for kind in sorted(by_kind) for pair in rng.sample(by_kind[kind], min(per_class, len(by_kind[kind])))]


def run(per_class: int | None = None, seed: int = 0, languages: Iterable[str] | None = None) -> list[Verdict]:
    """The verdicts on the corpus (or a seeded sample of it) of the items in the given languages (default:
    all: python, java, javascript)."""
    checker = load_checker()
    return [judge(checker, item, c) for item, c in corpus(load_items(languages), per_class, seed)]


def summary(verdicts: list[Verdict]) -> dict:
    """Agreement over all candidates and per class (the mean of the class agreements weighs each class
    equally), the confusion counts, and the disagreements by class."""
    by_kind: dict[str, list[bool]] = defaultdict(list)
    confusion: dict[tuple[bool, bool], int] = defaultdict(int)
    classes: dict[tuple[str, str], list[Verdict]] = defaultdict(list)
    for v in verdicts:
        by_kind[v.candidate.kind].append(v.bfcl == v.ours)
        confusion[(v.bfcl, v.ours)] += 1
        if v.bfcl != v.ours:
            classes[("ours" if v.ours else "bfcl", v.why)].append(v)
    per_kind = {k: sum(a) / len(a) for k, a in sorted(by_kind.items())}
    return {"candidates": len(verdicts), "agreement": sum(v.bfcl == v.ours for v in verdicts) / max(len(verdicts), 1),
            "class_weighted": sum(per_kind.values()) / max(len(per_kind), 1), "per_kind": per_kind,
            "kind_sizes": {k: len(a) for k, a in sorted(by_kind.items())}, "confusion": dict(confusion),
            "disagreements": dict(classes),
            "undocumented": sum(len(v) for (side, why), v in classes.items() if (side, why) not in DOCUMENTED)}
