"""The code sandbox (layer 1).

- `bwrap`: the bubblewrap runner (`Sandbox`, `RunResult`) and the per-process default sandbox;
- `supervise`: feeding a started child and collecting its output within the time and output limits;
- `seccomp`: the hand-written seccomp filter (no new processes; no signal handlers for harness runs);
- `harness`: the test harness that runs inside the sandbox (never imported on the host);
- `assert_rewrite`: numbering the tests' asserts and rewriting them into the harness's guard calls;
- `testrun`: the host side of the harness: preparing the tests, the run, the authenticated verdict.
"""

from pytest_crucible.sandbox.bwrap import (
    LAUNCHER,
    OUTPUT_LIMIT,
    SKIP_REASON,
    UNSANDBOXED_WARNING,
    RunResult,
    Sandbox,
    bwrap_available,
    find_bwrap,
    get_sandbox,
    sandbox_mode,
    unavailable_reason,
)

__all__ = ["LAUNCHER", "OUTPUT_LIMIT", "SKIP_REASON", "UNSANDBOXED_WARNING", "RunResult", "Sandbox",
           "bwrap_available", "find_bwrap", "get_sandbox", "sandbox_mode", "unavailable_reason"]
