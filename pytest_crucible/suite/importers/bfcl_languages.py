"""BFCL's Java and JavaScript categories: tools whose arguments are source text, and replies that write it.

BFCL offers these functions with every parameter typed `string` and the declared type named in its
description ("This is Java long type parameter in string representation."), and reads the text back by that
type (grading/typed_strings.py). The tools are sent the same way; the possible replies write each possible
value as the language writes it, so that `crucible cases verify` can check that each one reads back right.
"""

from __future__ import annotations

import json
from typing import Any

LANGUAGE_OF = {"java": "java", "javascript": "javascript"}  # our category -> typed_strings language
_WORD = {"java": "Java", "javascript": "JavaScript"}
_COLLECTIONS = {"Array", "ArrayList", "array"}


def declared_types(function: dict) -> dict[str, str]:
    """Each parameter's declared type as typed_strings reads it ("ArrayList<long>", "String")."""
    out = {}
    for name, param in (function.get("parameters") or {}).get("properties", {}).items():
        kind = param.get("type", "any")
        element = (param.get("items") or {}).get("type") if kind in _COLLECTIONS else None
        out[name] = f"{kind}<{element}>" if element else kind
    return out


def string_parameters(function: dict, language: str) -> dict:
    """The function's parameters as BFCL offers them: every one a string that names its declared type."""
    word = _WORD[language]
    parameters = dict(function.get("parameters") or {})
    properties = {}
    for name, param in parameters.get("properties", {}).items():
        kind = param.get("type", "any")
        note = (f" This parameter can be of any type of {word} object in string representation." if kind == "any"
                else f" This is {word} {kind} type parameter in string representation.")
        if kind in _COLLECTIONS and "items" in param:
            element = param["items"].get("type")
            note += f" The list elements are of type {element}; they are not in string representation."
        if kind == "dict" and "properties" in param:
            note += (" The dictionary entries have the following schema; they are not in string representation. "
                     + json.dumps(param["properties"]))
        properties[name] = {"type": "string", "description": param.get("description", "") + note}
    return {"type": "object", "properties": properties,
            **({"required": parameters["required"]} if parameters.get("required") else {})}


def _literal(value: Any, language: str) -> str:
    """An element written without a declared type."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v, language) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_literal(v, language)}" for k, v in value.items()) + "}"
    return str(value)


def _element(value: Any, element_type: str | None, language: str) -> str:
    if element_type in (None, "any") or isinstance(value, str):
        return _literal(value, language)
    return write(value, element_type, language)


def write(value: Any, declared: str, language: str) -> str:
    """`value` as source text for an argument of the declared type ("Array<String>", "long", ...)."""
    kind, _, inner = declared.partition("<")
    element = inner.rstrip(">") or None
    if isinstance(value, str):
        return value  # a variable, an expression or text: written as it is
    if isinstance(value, bool):
        return "true" if value else "false"
    if language == "java":
        suffix = {"long": "L", "float": "f"}.get(kind, "")
        if isinstance(value, (int, float)):
            return f"{value}{suffix}"
        if kind == "Array" and isinstance(value, list):
            return f"new {element or 'Object'}[]{{" + ", ".join(_element(v, element, language) for v in value) + "}"
        if kind == "ArrayList" and isinstance(value, list):
            return "new ArrayList<>(Arrays.asList(" + ", ".join(_element(v, element, language) for v in value) + "))"
        if isinstance(value, dict):
            puts = " ".join(f"put({json.dumps(k)}, {_literal(v, language)});" for k, v in value.items())
            return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
        return _literal(value, language)
    if kind == "Bigint" and isinstance(value, int):
        return f"{value}n"
    if isinstance(value, list):
        return "[" + ", ".join(_element(v, element, language) for v in value) + "]"
    return _literal(value, language)
