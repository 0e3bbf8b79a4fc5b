"""The built-in suite as `load_cases()` gives it, loaded once per test process: many test modules read it
(several at import, so every xdist worker would load it once per module), and loading it generates every
family, seconds each time. The cases are frozen; each caller gets a list of its own."""

from __future__ import annotations

import functools

from pytest_crucible.suite.case import Case, load_cases


@functools.cache
def _loaded() -> tuple[Case, ...]:
    return tuple(load_cases())


def builtin_cases() -> list[Case]:
    return list(_loaded())
