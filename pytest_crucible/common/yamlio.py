"""YAML loading that remembers line numbers, so every validation error can name its line."""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path
from typing import Any

import yaml

from pytest_crucible.common.errors import InputError


class LineDict(dict[Any, Any]):
    """A mapping from YAML that knows its own line and the line of each key (1-based)."""

    line: int = 0
    key_lines: dict[Any, int]

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)


class LineList(list[Any]):
    line: int = 0
    item_lines: list[int]


if getattr(yaml, "__with_libyaml__", False):
    from yaml.composer import Composer
    from yaml.constructor import SafeConstructor
    from yaml.cyaml import CParser
    from yaml.resolver import Resolver

    class _LineLoader(Composer, CParser, SafeConstructor, Resolver):  # type: ignore[misc]  # PyYAML ships no types
        """libyaml's scanner and parser (seven times faster on the suite's files) under PyYAML's own composer:
        libyaml's composer recurses in C and crashes the process on deeply nested input, PyYAML's raises
        RecursionError (a message below). Same nodes, marks and messages as `yaml.SafeLoader`."""

        def __init__(self, stream: str):
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
else:
    class _LineLoader(yaml.SafeLoader):  # type: ignore[misc,no-redef]  # PyYAML ships no types
        pass


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    result = LineDict()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, Hashable):
            what = "list" if isinstance(key, list) else "mapping"
            raise yaml.constructor.ConstructorError(
                None, None, f"a key must be a plain value (a name), not a {what}", key_node.start_mark)
        if key in result:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key '{key}'", key_node.start_mark)
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = key_node.start_mark.line + 1
    return result


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> LineList:
    result = LineList(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    return result


def _construct_int(loader: _LineLoader, node: yaml.ScalarNode) -> int:
    """An integer, unless it has more digits than Python turns into an int (a traceback, not a message)."""
    try:
        return int(loader.construct_yaml_int(node))
    except ValueError:
        raise yaml.constructor.ConstructorError(
            None, None, f"a number with {len(node.value):,} digits is too long to be a setting", node.start_mark
        ) from None


_LineLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def load_yaml(path: Path, error_type: type[InputError]) -> Any:
    """Parse a YAML file; syntax errors become `error_type` with the file and line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise error_type(f"cannot read file: {exc.strerror}", file=str(path)) from None
    except UnicodeDecodeError:
        raise error_type("file is not UTF-8 text", file=str(path)) from None
    try:
        data = yaml.load(text, Loader=_LineLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = exc.problem or exc.context
        if problem and "nesting depth" in problem:  # PyYAML 6.0.4 and later limit nesting themselves
            problem = "nested too deeply"
        raise error_type(f"invalid YAML: {problem}", file=str(path), line=line) from None
    except yaml.YAMLError as exc:
        raise error_type(f"invalid YAML: {exc}", file=str(path)) from None
    except RecursionError:
        raise error_type("invalid YAML: nested too deeply", file=str(path)) from None
    if _expanded_size(data, {}) > MAX_EXPANDED_NODES:
        raise error_type(f"YAML expands to more than {MAX_EXPANDED_NODES:,} values through anchors and aliases; "
                         "write the data out or use fewer nested aliases", file=str(path))
    return data


MAX_EXPANDED_NODES = 1_000_000


def _expanded_size(value: object, memo: dict[int, int]) -> int:
    """Values the document holds once every alias is copied out (aliases share objects until then)."""
    if not isinstance(value, (dict, list)):
        return 1
    key = id(value)
    if key not in memo:
        memo[key] = 0  # a self-referencing alias counts once
        items = value.values() if isinstance(value, dict) else value
        memo[key] = 1 + sum(min(_expanded_size(v, memo), MAX_EXPANDED_NODES + 1) for v in items)
    return memo[key]
