"""Every regular expression a grader runs on replies must finish on adversarial input within a deadline:
a catastrophic pattern would hang the grading of a long reply. Each runs in a subprocess of its own."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from pytest_crucible.grading.base import RegexProbe

REGEX_DEADLINE_S = 1.0
ADVERSARIAL_LENGTH = 5000


def adversarial_inputs(pattern: str, length: int = ADVERSARIAL_LENGTH) -> list[str]:
    """Long strings built from the characters the pattern talks about, each spoiled at the end, the
    classic trigger of exponential (or high-polynomial) backtracking."""
    chars = ["a", "A", "1", " ", "\t", ".", "-", "_", "x"]
    body = re.sub(r"\\[dDsSwWbBAZ]", "", pattern)
    for ch in body:
        if (ch.isalnum() or ch in " .,:;-_'\"/") and ch not in chars:
            chars.append(ch)
        if len(chars) >= 24:
            break
    out = []
    for ch in chars:
        out += [ch * length + "!", ch * length, (ch + " ") * (length // 2) + "!", (ch + "\n") * (length // 2) + "!"]
    return out


_PROBE = r"""
import json, re, signal, sys
spec = json.loads(sys.stdin.read())
try:
    rx = re.compile(spec["pattern"], spec["flags"])
except re.error as exc:
    print(json.dumps({"compile_error": str(exc)}), flush=True)
    sys.exit(0)
match = rx.fullmatch if spec["mode"] == "fullmatch" else rx.search
signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the regex engine never yields: let the kernel end us
for i, text in enumerate(spec["inputs"]):
    print(json.dumps({"start": i}), flush=True)
    signal.setitimer(signal.ITIMER_REAL, spec["deadline"])
    match(text)
    signal.setitimer(signal.ITIMER_REAL, 0)
print(json.dumps({"ok": True}), flush=True)
"""


def probe_regex(probe: RegexProbe, deadline_s: float = REGEX_DEADLINE_S) -> str | None:
    """None when the pattern compiles and handles every adversarial input within the deadline."""
    spec = {"pattern": probe.pattern, "flags": probe.flags, "mode": probe.mode}
    inputs = adversarial_inputs(probe.pattern)
    payload = json.dumps({**spec, "inputs": inputs, "deadline": deadline_s})
    cmd = [sys.executable, "-I", "-S", "-c", _PROBE]
    try:
        proc = subprocess.run(cmd, input=payload, capture_output=True, text=True,
                              timeout=deadline_s * 3 + 10 + len(inputs) * 0.05)
    except subprocess.TimeoutExpired:
        return f"regex check did not finish (catastrophic backtracking?) on /{spec['pattern']}/"
    last = {}
    for line in proc.stdout.splitlines():
        try:
            last = json.loads(line)
        except json.JSONDecodeError:
            continue
    if "compile_error" in last:
        return f"regex does not compile: {last['compile_error']}"
    if last.get("ok"):
        return None
    if "start" in last:
        text = inputs[last["start"]]
        return (f"catastrophic backtracking: /{spec['pattern']}/ ({spec['mode']}) ran over "
                f"{deadline_s:g} s on an adversarial input of {len(text)} characters "
                f"(starting {text[:6]!r}, ending {text[-3:]!r}); rewrite it without nested or "
                f"overlapping repetition")
    return f"regex check failed (exit {proc.returncode}): {proc.stderr.strip()[-200:]}"


__all__ = ["ADVERSARIAL_LENGTH", "REGEX_DEADLINE_S", "adversarial_inputs", "probe_regex"]
