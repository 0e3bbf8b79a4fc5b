"""Java and JavaScript candidates for benchmarks/bfcl_agreement.py: calls whose arguments are source text.

BFCL's Java and JavaScript items take every argument as a string holding the value as the language writes it,
and its checker reads the text back by the declared type (bfcl_eval/eval_checker/ast_eval/type_convertor/).
The value-level candidates of bfcl_agreement (possible answers and their mutants) are written here as source
text the way the importer writes its possible replies (suite/importers/bfcl_languages.write), and one more
class, `source text`, writes the first possible answer's arguments in other ways, right and wrong by the type
rules: a suffix left out or added (`42` for a long, `1.5` for a float), another collection form
(`new ArrayList<>() {{ add(1); }}`, `List.of`, `new Array(...)`), other quotes, blanks around the text,
a value sent as JSON instead of text.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_crucible.suite.importers import bfcl_languages  # noqa: E402

Types = dict[str, dict[str, str]]  # BFCL function name -> argument -> declared type ("ArrayList<long>")


def declared(functions: list[dict]) -> Types:
    return {f["name"]: bfcl_languages.declared_types(f) for f in functions}


def _type(types: Types, name: str, arg: str) -> str:
    return types.get(name, {}).get(arg, "any")


def written(calls: tuple, types: Types, language: str) -> tuple:
    """Every argument of every call as source text of its declared type (an undeclared one as `any`)."""
    return tuple((name, {arg: bfcl_languages.write(value, _type(types, name, arg), language)
                         for arg, value in args.items()}) for name, args in calls)


def _elements(values: list, element: str | None, language: str, quote: str = '"') -> list[str]:
    out = []
    for v in values:
        if isinstance(v, str):
            out.append(quote + v + quote)
        else:
            out.append(bfcl_languages.write(v, element or "any", language))
    return out


def _java(value: Any, declared_type: str) -> Iterator[tuple[str, str]]:
    kind, _, inner = declared_type.partition("<")
    element = inner.rstrip(">") or None
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind in ("integer", "short", "byte") and isinstance(value, int) and not isinstance(value, bool):
        yield "long suffix on an int", f"{value}L"
    if kind == "long" and is_number:
        yield "lower-case l suffix", f"{value}l"
        yield "suffix left out", str(value)
    if kind == "float" and is_number:
        yield "upper-case F suffix", f"{value}F"
        yield "suffix left out", str(value)
    if kind == "double" and is_number:
        yield "float suffix on a double", f"{value}f"
        yield "d suffix", f"{value}d"
        if float(value).is_integer():
            yield "whole number without a point", str(int(value))
    if kind == "boolean" and isinstance(value, bool):
        yield "capitalised boolean", str(value)
        yield "quoted boolean", json.dumps(str(value).lower())
    if isinstance(value, str):
        yield "quoted text", json.dumps(value)
    if isinstance(value, list):
        parts = _elements(value, element, "java")
        if kind == "Array":
            yield "array spaced", f"new {element or 'Object'}[] {{ {', '.join(parts)} }}"
            yield "array initializer without new", "{" + ", ".join(parts) + "}"
            bare = [v if isinstance(v, str) else p for v, p in zip(value, parts)]
            yield "array of unquoted strings", f"new {element or 'Object'}[]{{" + ", ".join(bare) + "}"
        if kind == "ArrayList":
            yield "ArrayList with add()", "new ArrayList<>() {{ " + " ".join(f"add({p});" for p in parts) + " }}"
            yield "ArrayList of List.of", f"new ArrayList<>(List.of({', '.join(parts)}))"
            yield "Arrays.asList without ArrayList", f"Arrays.asList({', '.join(parts)})"
    if isinstance(value, dict):
        puts = " ".join(f"put({json.dumps(k)}, {_elements([v], None, 'java')[0]});" for k, v in value.items())
        yield "HashMap with the diamond", f"new HashMap<>() {{{{ {puts} }}}}"
        yield "Map.of", "Map.of(" + ", ".join(f"{json.dumps(k)}, {_elements([v], None, 'java')[0]}"
                                              for k, v in value.items()) + ")"


def _javascript(value: Any, declared_type: str) -> Iterator[tuple[str, str]]:
    kind, _, inner = declared_type.partition("<")
    element = inner.rstrip(">") or None
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(value, str):
        yield "single-quoted text", f"'{value}'"
        yield "double-quoted text", json.dumps(value)
        yield "template literal", f"`{value}`"
    if kind == "integer" and is_number:
        yield "integer with a point", f"{value}.0"
    if kind == "float" and is_number:
        if float(value).is_integer():
            yield "whole number without a point", str(int(value))
        yield "exponent", f"{float(value)}e0"
    if kind == "Boolean" and isinstance(value, bool):
        yield "capitalised boolean", str(value)
        yield "quoted boolean", json.dumps(str(value).lower())
    if isinstance(value, list):
        parts = _elements(value, element, "javascript")
        yield "new Array", f"new Array({', '.join(parts)})"
        yield "single-quoted elements", "[" + ", ".join(_elements(value, element, "javascript", "'")) + "]"
        yield "array spaced", "[ " + " , ".join(parts) + " ]"
        if any(isinstance(v, str) for v in value):
            yield "unquoted elements", "[" + ", ".join(_elements(value, element, "javascript", "")) + "]"
    if isinstance(value, dict):
        body = ", ".join(f"{json.dumps(k)}: {_elements([v], None, 'javascript')[0]}" for k, v in value.items())
        yield "quoted keys", "{" + body + "}"
        yield "dict as JSON", json.dumps(value)


def source_variants(calls: tuple, types: Types, language: str) -> Iterator[tuple[str, tuple]]:
    """(detail, written calls): the first possible answer with one argument written another way."""
    base = written(calls, types, language)
    variants = _java if language == "java" else _javascript
    for i, (name, args) in enumerate(calls):
        for arg, value in args.items():
            text = base[i][1][arg]

            def put(new: Any, i: int = i, name: str = name, arg: str = arg) -> tuple:
                return (*base[:i], (name, {**base[i][1], arg: new}), *base[i + 1:])

            yield "blanks around the text", put(f" {text} ")
            if not isinstance(value, str):
                yield "a JSON value, not text", put(value)
            for detail, new in variants(value, _type(types, name, arg)):
                if new != text:
                    yield detail, put(new)


def unquoted_arrays(calls: tuple, functions: list[dict]) -> tuple:
    """The calls with every Java String or char array's elements written without their quotes (the only form
    BFCL's converter reads as the strings)."""
    types = declared(functions)
    out = []
    for name, args in calls:
        new = dict(args)
        for arg, text in args.items():
            if _type(types, name, arg) in ("Array<String>", "Array<char>") and isinstance(text, str):
                new[arg] = re.sub(r"\"([^\"]*)\"|'([^']*)'", lambda m: m.group(1) or m.group(2) or "", text)
        out.append((name, new))
    return tuple(out)
