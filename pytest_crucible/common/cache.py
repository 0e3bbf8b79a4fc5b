"""The user cache folder: results worth keeping between runs (time-limit calibration, GGUF hashes)."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_cache_dir

CACHE_DIR_ENV = "CRUCIBLE_CACHE_DIR"


def cache_dir() -> Path:
    """$CRUCIBLE_CACHE_DIR, else the platform's user cache folder for pytest-crucible."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override)
    return Path(user_cache_dir("pytest-crucible"))
