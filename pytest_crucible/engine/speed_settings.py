"""Run-wide speed settings: bandwidth override, latency targets (SLO), warm-up and repeat counts.

The plugin parses the command line into a `SpeedSettings` in every process (the controller and each
xdist worker parse the same options) and keeps it on the run's session (`kinds.RunSettings`), which
hands it to every speed item.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pytest_crucible.local.hardware import parse_bandwidth

# --crucible-slo keys -> (row timing key, "max" or "min")
SLO_KEYS = {
    "ttft": ("ttft_s", "max"),
    "ttft_answer": ("ttft_answer_s", "max"),
    "e2e": ("e2e_s", "max"),
    "itl": ("itl_p95_s", "max"),
    "decode": ("decode_tps", "min"),
}


@dataclass(frozen=True)
class SpeedSettings:
    bandwidth_gbps: float | None = None
    slo: dict = field(default_factory=dict)   # e.g. {"ttft_s": 0.5, "e2e_s": 20.0}
    warmup: int | None = None                 # None: each case's own (default 1)
    repeats: int | None = None                # None: each case's own (default 3)

    def to_meta(self) -> dict:
        out: dict = {}
        if self.bandwidth_gbps:
            out["bandwidth_gbps"] = self.bandwidth_gbps
        if self.slo:
            out["slo"] = dict(self.slo)
        if self.warmup is not None:
            out["speed_warmup"] = self.warmup
        if self.repeats is not None:
            out["speed_repeats"] = self.repeats
        return out


def parse_slo(text: str | None, option: str = "--crucible-slo") -> dict:
    """`ttft=0.5,e2e=20` -> {"ttft_s": 0.5, "e2e_s": 20.0}. Times in seconds; `decode` in tokens/s (a
    minimum); `itl` bounds the p95 inter-token latency. A trailing unit (s, ms, tok/s) is accepted.
    `option` is the flag named in the error messages."""
    if not text:
        return {}
    out: dict = {}
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            raise ValueError(f"{option} takes KEY=VALUE pairs like ttft=0.5,e2e=20; got {part!r}")
        key, value = (s.strip().lower() for s in part.split("=", 1))
        if key not in SLO_KEYS:
            raise ValueError(f"{option}: unknown target {key!r}; use {', '.join(SLO_KEYS)}")
        m = re.fullmatch(r"([0-9]*\.?[0-9]+)\s*(ms|s|tok/s|tps)?", value)
        if not m:
            raise ValueError(f"{option}: {key}={value!r} is not a number; write e.g. {key}=0.5 or {key}=500ms")
        number = float(m.group(1)) / (1000.0 if m.group(2) == "ms" else 1.0)
        if number <= 0:
            raise ValueError(f"{option}: {key} must be positive")
        out[SLO_KEYS[key][0]] = number
    return out


def slo_misses(timings: dict, slo: dict) -> list[str]:
    """The targets of `slo` (parse_slo's keys) that one request's timings miss; a metric the request lacks
    (no answer token, too few chunks for a gap) misses its target."""
    kinds = {metric: kind for metric, kind in SLO_KEYS.values()}
    missed = []
    for key, target in slo.items():
        value = timings.get(key)
        if value is None or (value > target if kinds.get(key, "max") == "max" else value < target):
            missed.append(key)
    return missed


def slo_text(slo: dict) -> str:
    """`ttft<=0.5 s, decode>=30 tok/s`: the targets as a user reads them."""
    names = {metric: key for key, (metric, _) in SLO_KEYS.items()}
    kinds = {metric: kind for metric, kind in SLO_KEYS.values()}
    parts = []
    for key, target in slo.items():
        unit = " tok/s" if key == "decode_tps" else " s"
        parts.append(f"{names.get(key, key)}{'<=' if kinds.get(key, 'max') == 'max' else '>='}{target:g}{unit}")
    return ", ".join(parts)


def parse_count(text, name: str, minimum: int) -> int | None:
    if text is None or text == "":
        return None
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise ValueError(f"{name} takes a whole number, got {text!r}") from None
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def build(*, bandwidth=None, slo=None, warmup=None, repeats=None) -> SpeedSettings:
    """Parse the option strings; raise ValueError with a message naming the option."""
    return SpeedSettings(bandwidth_gbps=parse_bandwidth(bandwidth), slo=parse_slo(slo),
                         warmup=parse_count(warmup, "--crucible-speed-warmup", 0),
                         repeats=parse_count(repeats, "--crucible-speed-repeats", 1))
