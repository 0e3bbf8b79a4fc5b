"""A tool call's arguments against the tool's JSON schema, as the tool_calls grader checks them.

- Undeclared arguments fail: an argument the schema's `properties` do not name is refused unless the schema
  itself lets others in (`additionalProperties`, `patternProperties` or `unevaluatedProperties`). JSON
  schema's own default admits any property, which let a call carry an attacker's address, or `dry_run: true`,
  in an argument the tool does not have.
- Integers are integers: `10.0` is no `integer` (JSON schema counts it as one; a typed tool and BFCL do not).
  A `number` takes 10 and 10.0.
- The rest is the schema's (required arguments, types, enums, patterns, ranges), checked by `jsonschema`
  (Draft 2020-12). With `strings: loose` an enum's strings compare as matchers.loose() compares them, BFCL's
  rule ("FASTEST" is the enum's "fastest").
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError, UnknownType, ValidationError, best_match

from pytest_crucible.common.errors import CaseError
from pytest_crucible.grading.matchers import loose

# what a schema says when it lets arguments beyond its properties in
_OPEN_KEYWORDS = ("additionalProperties", "patternProperties", "unevaluatedProperties", "$ref", "$dynamicRef")


def _is_integer(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


def _loose_enum(validator: Any, enums: list, instance: Any, schema: dict) -> Iterator[ValidationError]:
    if isinstance(instance, str) and any(isinstance(e, str) and loose(e) == loose(instance) for e in enums):
        return
    yield from Draft202012Validator.VALIDATORS["enum"](validator, enums, instance, schema)


_STRICT = validators.extend(Draft202012Validator,
                            type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer))
_LOOSE_ENUMS = validators.extend(_STRICT, validators={"enum": _loose_enum})


def parameters(tool: dict) -> dict:
    return tool["function"].get("parameters") or {"type": "object"}


def declared(schema: dict) -> set[str] | None:
    """The argument names a parameters schema declares; None when it lets any other in."""
    if any(k in schema and schema[k] is not False for k in _OPEN_KEYWORDS):
        return None
    names = set(schema.get("properties") or {})
    for key in ("allOf", "anyOf", "oneOf"):
        for part in schema.get(key) or []:
            more = declared(part) if isinstance(part, dict) else None
            if more is None:
                return None
            names |= more
    return names


def problem(tool: dict, args: dict, *, loose_strings: bool = False, excused: Collection[str] = ()) -> str | None:
    """Why the tool (an OpenAI function tool) would refuse these arguments; None when it takes them. What
    the schema says of the values of the `excused` arguments is not asked (their names still must be declared,
    and required arguments given)."""
    name = tool["function"]["name"]
    schema = parameters(tool)
    validator = (_LOOSE_ENUMS if loose_strings else _STRICT)(schema)
    try:
        error = best_match(e for e in validator.iter_errors(args)
                           if not (e.absolute_path and e.absolute_path[0] in excused))
    except (SchemaError, UnknownType) as exc:
        raise CaseError(f"the parameters of tool {name} are not a valid JSON schema: "
                        f"{str(exc).splitlines()[0]}") from None
    names = declared(schema)
    undeclared = [k for k in args if names is not None and k not in names]
    if undeclared:
        takes = f"it takes {', '.join(sorted(names))}" if names else "it takes none"
        return f"{name}.{undeclared[0]}: not an argument of {name} ({takes})"
    if error is None:
        return None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    message = " ".join(error.message.split())
    return f"{name}{where}: {message if len(message) <= 120 else message[:117] + '...'}"


_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array", dict: "object",
               type(None): "null"}


def takes_type(param: Any, value: Any) -> bool:
    """Whether a parameter's schema declares the value's JSON type (no type declared: any; a number takes an
    integer)."""
    if not isinstance(param, dict) or "type" not in param:
        return True
    declared = param["type"] if isinstance(param["type"], list) else [param["type"]]
    kind = _JSON_TYPES.get(type(value))
    return kind in declared or (kind == "integer" and "number" in declared)


def schema_problem(tool: dict) -> str | None:
    """Why a tool's parameters are not a JSON schema the grader can check calls against."""
    try:
        Draft202012Validator.check_schema(parameters(tool))
    except SchemaError as exc:
        return f"the parameters of tool {tool['function']['name']} are not a valid JSON schema: {exc.message}"
    return None


__all__ = ["declared", "parameters", "problem", "schema_problem", "takes_type"]
