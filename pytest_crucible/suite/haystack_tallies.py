"""Answers that tally or check figures spread over a haystack, derived by scanning the document text.

The `expect` modes of the long-context families that read numbers in context: a stock kept in several units
whose sizes the notes state once, the one record that breaks a stated rule (after reissues), the median of
scattered values, and a sum over a table split across pages whose repeated header may order the columns
differently. Each mode refuses a document it cannot read one way. The core imports no pytest.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping
from typing import Any

from pytest_crucible.suite.haystack_joins import find, function_of, number


def converted_total(spec: Mapping[str, Any], document: str) -> int:
    """The stock in the `base` unit: `add` matches less `sub` matches (groups `n`, `unit`), each unit's size
    read from the `unit` matches (groups `unit`, `n`: how many base units one holds)."""
    sizes = {unit: number(n) for unit, n in function_of(spec["unit"], document, "unit", "n").items()}
    sizes.setdefault(spec["base"], 1)
    total = 0
    for op, sign in (("add", 1), ("sub", -1)):
        for m in find(spec[op], document):
            if m.group("unit") not in sizes:
                raise ValueError(f"the notes never say how big a {m.group('unit')} is")
            total += sign * number(m.group("n")) * sizes[m.group("unit")]
    return total


def rule_breaker(spec: Mapping[str, Any], document: str) -> str:
    """The one `id` of the `pattern` matches (groups `id`, `a`, `b`, `total`) whose total is not a x b, a
    `fix` match (groups `id`, `total`) replacing the written total."""
    records = {m.group("id"): (number(m.group("a")), number(m.group("b")), number(m.group("total")))
               for m in find(spec["pattern"], document)}
    fixed = {k: number(v) for k, v in function_of(spec["fix"], document, "id", "total").items()} if spec.get("fix") \
        else {}
    broken = [k for k, (a, b, total) in records.items() if a * b != fixed.get(k, total)]
    if len(broken) != 1:
        raise ValueError(f"{len(broken)} records break the rule, expected exactly 1")
    return broken[0]


def median_of(spec: Mapping[str, Any], document: str) -> int:
    """The median of `n` over the matches of `pattern`, an odd number of them (so the median is one of them)."""
    values = [number(m.group("n")) for m in find(spec["pattern"], document)]
    if len(values) % 2 == 0:
        raise ValueError(f"the pattern matches {len(values)} values, an even number")
    return int(statistics.median(values))


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def split_table(spec: Mapping[str, Any], document: str) -> int:
    """Sum of column `sum` over the rows of a table split across pages, where column `where[0]` is `where[1]`:
    every line starting with `|` is a row, read by the last header row (one holding the cell `header`) above it."""
    header: list[str] | None = None
    total = rows = 0
    for line in document.splitlines():
        if not line.startswith("|"):
            continue
        cells = _cells(line)
        if spec["header"] in cells:
            header = cells
        elif set("".join(cells)) <= set("-: "):
            continue
        elif header is None or len(cells) != len(header):
            raise ValueError(f"a row {line!r} has no header of its width above it")
        else:
            row = dict(zip(header, cells))
            rows += 1
            column, wanted = spec["where"]
            total += number(row[spec["sum"]]) if row[column] == wanted else 0
    if not rows:
        raise ValueError("the document holds no table rows")
    return total


TALLY_MODES: dict[str, Callable[[Mapping[str, Any], str], Any]] = {
    "converted_total": converted_total, "rule_breaker": rule_breaker, "median_of": median_of,
    "split_table": split_table,
}
