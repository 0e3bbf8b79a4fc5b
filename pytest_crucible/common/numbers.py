"""Numbers from files and flags checked where they are read: finite, in range, and the range said.

NaN passes every comparison test written as `x <= 0` (it is neither), so a cap of NaN switches itself
off; infinity passes `x > 0` and ends up as `Infinity` in report.json, which is not JSON. Each check here
refuses both, and a YAML integer with hundreds of digits, with a message that states the allowed range.
"""

from __future__ import annotations

import json
import math
from typing import Any

# bounds shared by models.yaml, case files and settings
MAX_TOKENS = 10_000_000          # an answer or reasoning budget, a context length: more than any model serves
MAX_SECONDS = 7 * 24 * 3600.0    # a timeout: a week
MAX_USD = 1_000_000.0            # a cost cap, a price per million tokens


def shown(value: object, limit: int = 40) -> str:
    """`value` as a message shows it: its repr, cut (a YAML integer can have thousands of digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**limit:
        return f"an integer of {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def number_problem(value: object, *, minimum: float, maximum: float, integer: bool = False,
                   above: bool = False, unit: str = "", what: str | None = None) -> str | None:
    """Why `value` is not a number in range, stated with the range; None when it is. `above`: the
    minimum itself is excluded (a timeout of 0 is no timeout). `what` names the kind of number (default:
    a whole number / a number, of `unit`)."""
    what = what or f"{'a whole number' if integer else 'a number'}{' of ' + unit if unit else ''}"
    lower = f"greater than {_plain(minimum)}" if above else f"from {_plain(minimum)}"
    wanted = f"{what} {lower} {'up to' if above else 'to'} {_plain(maximum)}"
    if isinstance(value, bool) or not isinstance(value, int | float) or (integer and not isinstance(value, int)):
        return f"must be {wanted}, got {shown(value)}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be {wanted} (finite), got {value!r}"
    if value < minimum or (above and value == minimum) or value > maximum:
        return f"must be {wanted}, got {shown(value)}"
    return None


def _plain(bound: float) -> str:
    if not float(bound).is_integer():
        return f"{bound:g}"
    return f"{int(bound):,}" if abs(bound) >= 10_000 else str(int(bound))


def finite_json(value: object) -> object:
    """`value` with every NaN or infinity (nested in dicts and lists) replaced by None, so that
    `json.dumps(..., allow_nan=False)` writes JSON that every reader parses."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_json(v) for v in value]
    return value


def dumps_finite(value: object, **kwargs: Any) -> str:
    """JSON text of `value`, NaN and infinity written as null (json's default writes `NaN`, not JSON)."""
    try:  # the common case, with none: one pass (a big report.json is a million values)
        return json.dumps(value, allow_nan=False, **kwargs)
    except ValueError:
        return json.dumps(finite_json(value), allow_nan=False, **kwargs)
