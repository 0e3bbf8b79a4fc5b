"""Java and JavaScript arguments written as source text, read back as values by their declared type.

BFCL's Java and JavaScript categories send every argument as a string holding the value as that language
writes it ("42L", "new ArrayList<>(Arrays.asList(1, 2))", "[1, 2]", "{a: 1}") and convert it by the type the
function declares before comparing it with the possible answers. These are the same rules, written anew
(BFCL's own converter: bfcl_eval/eval_checker/ast_eval/type_convertor/):

- Java: byte/short/integer need digits ("42"), long a trailing L ("42L"), float a trailing f ("1.5f"),
  double a plain decimal ("1.5", "2e3"), boolean `true`/`false`; Array is `new T[]{a, b}`, ArrayList
  `new ArrayList<>(Arrays.asList(a, b))`, `new ArrayList<>() {{ add(a); }}` or `new ArrayList<>()`, HashMap
  `new HashMap<K, V>() {{ put("k", v); }}` or `new HashMap<>()`; String, char and any stay as written.
- JavaScript: String drops one pair of surrounding quotes, integer needs digits, float a decimal, Bigint a
  trailing n ("42n"), Boolean `true`/`false`, array `[a, b]` or `new Array(a, b)` (nested arrays too), dict
  `{key: value, ...}`; any stays as written.
- A number, boolean or string must be the whole text (" 42L" stays text); a collection may have blanks
  around it. Only ' and " are quotes: a JavaScript `template literal` stays as written (it may interpolate).
- Text that does not read as its type stays a string, so it equals no number, boolean, list or mapping:
  "42" for a Java long, "1.5" for a Java float, "yes" for a boolean fail. Where the answer lists text for
  such an argument (the name of a constant or variable: "ResultSet.TYPE_FORWARD_ONLY" for an integer), or a
  non-text value first for a text one, BFCL reads the text as a variable and compares it exactly as listed
  (`variables`; the tool_calls grader applies it).
- Elements of a collection are read by the element type when one is declared, else as literals (quoted
  text, true/false, numbers with their suffixes); a quoted element is its text without the quotes (BFCL keeps
  the quotes of a Java `new String[]{"a"}`, which no possible answer lists: see README).

A grader spec names the declared types per tool and argument:
    string_types: {language: java, tools: {get_user: {ids: "ArrayList<long>", name: String}}}
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_Reader = tuple[re.Pattern, Callable[[str], Any]]

LANGUAGES = ("java", "javascript")
JAVA_TYPES = {"byte", "short", "integer", "long", "float", "double", "boolean", "char", "String", "any",
              "Array", "ArrayList", "HashMap"}
JS_TYPES = {"String", "integer", "float", "Bigint", "Boolean", "any", "array", "dict"}
TEXT_TYPES = {"String", "char", "any"}  # read as text; every other type reads as a value or stays a variable

_INT = re.compile(r"-?\d+")
_DECIMAL = r"-?\d+(\.\d+)?([eE][+-]?\d+)?"
_JAVA_SCALARS: dict[str, _Reader] = {
    "byte": (_INT, int), "short": (_INT, int), "integer": (_INT, int),
    "long": (re.compile(r"-?\d+[lL]"), lambda s: int(s[:-1])),
    "float": (re.compile(_DECIMAL + "[fF]"), lambda s: float(s[:-1])),
    "double": (re.compile(_DECIMAL), float),
}
_JS_SCALARS: dict[str, _Reader] = {
    "integer": (_INT, int), "float": (re.compile(r"-?\d+(\.\d+)?"), float),
    "Bigint": (re.compile(r"-?\d+n"), lambda s: int(s[:-1])),
}
_JAVA_ARRAY = re.compile(r"new\s+[\w.]+\s*\[\]\s*\{(.*)\}", re.DOTALL)
_JAVA_ASLIST = re.compile(r"new\s+ArrayList\s*<[^>]*>\s*\(\s*(?:Arrays\.asList|List\.of)\((.*)\)\s*\)", re.DOTALL)
_JAVA_ADDS = re.compile(r"new\s+ArrayList\s*<[^>]*>\s*\(\s*\)\s*\{\{(.*)\}\}", re.DOTALL)
_JAVA_PUTS = re.compile(r"new\s+HashMap\s*<[^>]*>\s*\(\s*\)\s*\{\{(.*)\}\}", re.DOTALL)
_JAVA_EMPTY = re.compile(r"new\s+(ArrayList|HashMap)\s*<[^>]*>\s*\(\s*\)")
_CALL = re.compile(r"(add|put)\s*\((.*)\)", re.DOTALL)
_JS_NEW_ARRAY = re.compile(r"new\s+Array\s*\((.*)\)", re.DOTALL)


def split_top(text: str, sep: str = ",") -> list[str]:
    """`text` cut at each `sep` outside quotes and brackets, parts stripped, empty parts dropped."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "\"'`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _unquote(text: str) -> str | None:
    """Text in one pair of ' or " quotes (BFCL's rule: a JavaScript `template literal` stays as written, as
    it may interpolate)."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return None


def literal(text: str) -> Any:
    """One element written without a declared type: quoted text, true/false, a number (Java suffixes too)."""
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    quoted = _unquote(text)
    if quoted is not None:
        return quoted
    for pattern, read in (_JAVA_SCALARS["long"], _JAVA_SCALARS["float"], _JS_SCALARS["Bigint"],
                          (_INT, int), _JAVA_SCALARS["double"]):
        if pattern.fullmatch(text):
            return read(text)
    if text.startswith("[") and text.endswith("]"):
        return [literal(p) for p in split_top(text[1:-1])]
    if text.startswith("{") and text.endswith("}"):
        return _js_dict(text)
    return text


def _element(text: str, element_type: str | None, language: str) -> Any:
    if element_type is None or element_type == "any":
        return literal(text)
    quoted = _unquote(text.strip())
    if element_type in ("String", "char") and quoted is not None:
        return quoted
    return convert(text.strip(), element_type, None, language)


def _java_collection(text: str, kind: str, element_type: str | None) -> Any:
    if kind == "Array":
        m = _JAVA_ARRAY.fullmatch(text)
        return [_element(p, element_type, "java") for p in split_top(m.group(1))] if m else text
    if _JAVA_EMPTY.fullmatch(text):
        return [] if kind == "ArrayList" else {}
    if kind == "ArrayList":
        m = _JAVA_ASLIST.fullmatch(text)
        if m:
            return [_element(p, element_type, "java") for p in split_top(m.group(1))]
        m = _JAVA_ADDS.fullmatch(text)
        calls = [_CALL.fullmatch(p) for p in split_top(m.group(1), ";")] if m else [None]
        if all(c and c.group(1) == "add" for c in calls):
            return [_element(c.group(2), element_type, "java") for c in calls if c]
        return text
    m = _JAVA_PUTS.fullmatch(text)
    calls = [_CALL.fullmatch(p) for p in split_top(m.group(1), ";")] if m else [None]
    pairs = [split_top(c.group(2)) for c in calls if c and c.group(1) == "put"]
    if len(pairs) != len(calls) or any(len(p) != 2 for p in pairs):
        return text
    return {str(literal(k)): literal(v) for k, v in pairs}


def _js_dict(text: str) -> Any:
    out = {}
    for part in split_top(text[1:-1]):
        key, colon, value = part.partition(":")
        if not colon:
            return text
        out[str(literal(key))] = literal(value)
    return out


def _js_array(text: str, element_type: str | None) -> Any:
    m = _JS_NEW_ARRAY.fullmatch(text)
    inner = m.group(1) if m else text[1:-1] if text.startswith("[") and text.endswith("]") else None
    if inner is None:
        return text
    return [literal(p) if p.startswith("[") else _element(p, element_type, "javascript") for p in split_top(inner)]


def convert(text: str, declared: str, element_type: str | None, language: str) -> Any:
    """The value `text` stands for as an argument of the declared type; the text itself when it does not
    read as one. A scalar or a string must be the whole text (" 42L" stays text, as in BFCL's converters); a
    collection may have blanks around it."""
    if declared in ("boolean", "Boolean"):
        return text == "true" if text in ("true", "false") else text
    scalars = _JAVA_SCALARS if language == "java" else _JS_SCALARS
    if declared in scalars:
        pattern, read = scalars[declared]
        return read(text) if pattern.fullmatch(text) else text
    if language == "java" and declared in ("Array", "ArrayList", "HashMap"):
        read = _java_collection(text.strip(), declared, element_type)
        return text if isinstance(read, str) else read
    if language == "javascript":
        if declared == "String":
            quoted = _unquote(text)
            return text if quoted is None else quoted
        if declared == "array":
            return _js_array(text.strip(), element_type)
        if declared == "dict":
            stripped = text.strip()
            return _js_dict(stripped) if stripped.startswith("{") and stripped.endswith("}") else stripped
    return text


def parse_declared(declared: str) -> tuple[str, str | None]:
    """"ArrayList<long>" -> ("ArrayList", "long"); "String" -> ("String", None)."""
    m = re.fullmatch(r"(\w+)(?:<(\w+)>)?", declared.strip())
    if not m:
        raise ValueError(f"not a declared type: {declared!r}")
    return m.group(1), m.group(2)


def convert_arguments(spec: dict, tool: str, args: dict) -> tuple[dict, str | None]:
    """The arguments of one call read by their declared types, or why they cannot be (a value that is
    not a string where the function takes source text)."""
    language = spec["language"]
    declared = (spec.get("tools") or {}).get(tool) or {}
    out = {}
    for name, value in args.items():
        if name not in declared:
            out[name] = value
            continue
        if not isinstance(value, str):
            return args, (f"{tool}.{name}: a {language} argument is sent as its source text (a string), "
                          f"got {type(value).__name__}")
        kind, element = parse_declared(declared[name])
        out[name] = convert(value, kind, element, language)
    return out, None


def variables(spec: dict, tool: str, converted: dict, first_listed: dict[str, Any]) -> list[str]:
    """The arguments BFCL reads as the name of a variable, compared exactly as listed: text that did not read as
    its declared type where the first value listed for it is text too, or text where a text type is declared
    and the first listed value is not text (its type check: the listed value's type is not the declared one)."""
    declared = (spec.get("tools") or {}).get(tool) or {}
    out = []
    for name, value in converted.items():
        if name in declared and name in first_listed and isinstance(value, str):
            is_text = parse_declared(declared[name])[0] in TEXT_TYPES
            if isinstance(first_listed[name], str) != is_text:
                out.append(name)
    return out


def spec_problem(spec: Any) -> str | None:
    """Why a `string_types` grader field is malformed; None when it is well formed."""
    if not isinstance(spec, dict) or spec.get("language") not in LANGUAGES:
        return f"string_types is {{language: {' or '.join(LANGUAGES)}, tools: {{tool: {{argument: type}}}}}}"
    known = JAVA_TYPES if spec["language"] == "java" else JS_TYPES
    for tool, arguments in (spec.get("tools") or {}).items():
        for name, declared in (arguments or {}).items():
            try:
                kind, element = parse_declared(str(declared))
            except ValueError as exc:
                return f"string_types.tools.{tool}.{name}: {exc}"
            if kind not in known or (element is not None and element not in known):
                return f"string_types.tools.{tool}.{name}: {declared!r} is not a {spec['language']} type"
    return None


__all__ = ["convert", "convert_arguments", "literal", "parse_declared", "spec_problem", "split_top", "variables"]
