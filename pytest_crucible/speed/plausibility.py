"""Is a measured speed physically possible? Checks against memory bandwidth and compute.

Decode is bound by memory: every generated token reads every active weight once, so

    decode tokens/s  <=  bandwidth / bytes read per token

where the bytes read per token are the GGUF's tensor bytes (the token-embedding table left out: decode
reads one row of it) and, for mixture-of-experts models, the expert tensors scaled by experts used /
experts in total (speed/gguf.py computes it). Without a GGUF: `active_params x bits / 8`, or
`weights_gb`, from model tags.

Prefill is bound by compute and by one pass over the weights, so

    TTFT  >=  max(bytes per token / bandwidth,  2 x active params x uncached prompt tokens / peak FLOPS)

A number past either bound is flagged: confidence LOW, with the reason. Speculative decoding, a prompt
or response cache, or a wrong hardware figure are the usual causes. Where the hardware or the weights
are unknown the check says UNKNOWN and claims nothing.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from pytest_crucible.local.gguf import read_gguf
from pytest_crucible.local.hardware import Hardware
from pytest_crucible.local.launch_spec import LaunchSpec

# Table figures are rounded; allow this much over a ceiling before calling a number impossible.
MARGIN = 1.05

HIGH, LOW, UNKNOWN = "HIGH", "LOW", "UNKNOWN"


@dataclass(frozen=True)
class Weights:
    """How much a model reads per decoded token."""
    bytes_per_token: float
    active_params: float | None = None
    total_bytes: float | None = None
    source: str = ""            # short: "GGUF model.gguf", "3B active params x 4.5 bits", "weights_gb=16.5"
    detail: str = ""            # e.g. the GGUF summary line

    def to_dict(self) -> dict:
        return {"bytes_per_token": round(self.bytes_per_token), "active_params": self.active_params,
                "total_bytes": self.total_bytes, "source": self.source, "detail": self.detail}


def weights_from_gguf(path: str) -> Weights:
    """Bytes read per token from a GGUF's tensor table (MoE-aware), by speed/gguf.py."""
    info = read_gguf(path)
    per_token = info.active_weight_bytes or info.size_bytes
    return Weights(float(per_token), float(info.active_parameter_count) if info.active_parameter_count else None,
                   float(info.size_bytes), f"GGUF {Path(path).name}", info.describe())


def weights_from_params(active_params: float, bits: float) -> Weights:
    """For a model without a GGUF at hand, e.g. a MoE with 3e9 active parameters at 4.5 bits."""
    return Weights(active_params * bits / 8.0, active_params, None,
                   f"{_si(active_params)} active params x {bits:g} bits")


_HINT = re.compile(r"^(weights_gb|active_params|bits)\s*[=:]\s*([0-9.]+)\s*([kmbt]?)$", re.I)
_SCALE = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


def model_weights(model) -> Weights | None:
    """What is known of a model's weights: its launch GGUF, or hints in models.yaml; else None.

    Hints (until models.yaml grows a field for them) are model tags such as `weights_gb=16.5`, or
    `active_params=3B` with `bits=4.5` for a mixture-of-experts model served elsewhere."""
    hints: dict[str, float] = {}
    for tag in getattr(model, "tags", ()) or ():
        m = _HINT.match(str(tag).strip())
        if m:
            hints[m.group(1).lower()] = float(m.group(2)) * _SCALE[m.group(3).lower()]
    extra = getattr(model, "speed", None)
    if isinstance(extra, dict):
        hints.update({k: float(v) for k, v in extra.items() if k in ("weights_gb", "active_params", "bits")})
    if "active_params" in hints and "bits" in hints:
        return weights_from_params(hints["active_params"], hints["bits"])
    if "weights_gb" in hints:
        return Weights(hints["weights_gb"] * 1e9, None, hints["weights_gb"] * 1e9,
                       f"weights_gb={hints['weights_gb']:g}")
    path = gguf_path(model)
    if path:
        try:
            return weights_from_gguf(path)
        except Exception:  # unreadable, or the gguf package is missing: fall back to the file size
            size = os.path.getsize(path)
            return Weights(float(size), None, float(size), f"file size of {Path(path).name}")
    return None


def gguf_path(model) -> str | None:
    """The GGUF a launched model serves (its path, or the file inside its package), else None."""
    launch = getattr(model, "launch", None) or {}
    if not launch:
        return None
    try:
        return str(LaunchSpec.from_model(model).resolve_gguf())
    except Exception:  # no lease package, or it cannot resolve the file here
        pass
    value = launch.get("gguf")
    if isinstance(value, str) and os.path.isfile(os.path.expanduser(value)):
        return os.path.expanduser(value)
    return None


@dataclass
class Verdict:
    confidence: str                     # HIGH | LOW | UNKNOWN
    reasons: list[str]
    decode_ceiling_tps: float | None = None
    ttft_floor_s: float | None = None

    @property
    def plausible(self) -> bool | None:
        return {HIGH: True, LOW: False}.get(self.confidence)

    def to_dict(self) -> dict:
        return {"confidence": self.confidence, "plausible": self.plausible, "reasons": list(self.reasons),
                "decode_ceiling_tps": _r(self.decode_ceiling_tps, 2), "ttft_floor_s": _r(self.ttft_floor_s, 6)}


def decode_ceiling(hardware: Hardware, weights: Weights | None) -> float | None:
    bandwidth = hardware.bandwidth_gbps  # None: the hardware is not known
    if bandwidth is None or weights is None or weights.bytes_per_token <= 0:
        return None
    return bandwidth * 1e9 / weights.bytes_per_token


def ttft_floor(hardware: Hardware, weights: Weights | None, uncached_prompt_tokens: int | None) -> float | None:
    """The shortest possible time to first token: one pass over the weights, and the prefill compute."""
    bandwidth = hardware.bandwidth_gbps
    if bandwidth is None or weights is None:
        return None
    floor = weights.bytes_per_token / (bandwidth * 1e9)
    if hardware.tflops and weights.active_params and uncached_prompt_tokens:
        floor = max(floor, 2.0 * weights.active_params * uncached_prompt_tokens / (hardware.tflops * 1e12))
    return floor


def check(*, decode_tps: float | None, ttft_s: float | None, uncached_prompt_tokens: int | None,
          hardware: Hardware, weights: Weights | None) -> Verdict:
    """Judge one measured decode rate and TTFT (medians of an item) against the physical bounds."""
    if not hardware.known:
        return Verdict(UNKNOWN, [f"no ceiling: {hardware.description or 'hardware unknown'}"])
    if weights is None:
        return Verdict(UNKNOWN, ["no ceiling: the model's size is unknown (no GGUF; add a tag weights_gb=N "
                                 "or active_params=NB with bits=N)"])
    ceiling = decode_ceiling(hardware, weights)
    floor = ttft_floor(hardware, weights, uncached_prompt_tokens)
    reasons: list[str] = []
    where = (f"{hardware.bandwidth_gbps:g} GB/s ({hardware.label or hardware.source}) / "
             f"{_gb(weights.bytes_per_token)} per token ({weights.source})")
    if decode_tps is not None and ceiling is not None and decode_tps > ceiling * MARGIN:
        reasons.append(f"decode {decode_tps:.1f} tok/s is above the ceiling {ceiling:.1f} tok/s "
                       f"= {where}: speculative decoding, a cache, or a wrong bandwidth (--crucible-bandwidth)")
    if ttft_s is not None and floor is not None and ttft_s * MARGIN < floor:
        prompt = f" for {uncached_prompt_tokens} uncached prompt tokens" if uncached_prompt_tokens else ""
        reasons.append(f"TTFT {ttft_s * 1000:.2f} ms{prompt} is below the physical minimum "
                       f"{floor * 1000:.2f} ms ({where}, {_tflops(hardware)}): a prompt or response cache answered")
    if reasons:
        return Verdict(LOW, reasons, ceiling, floor)
    return Verdict(HIGH, [f"within the ceiling {ceiling:.1f} tok/s = {where}"], ceiling, floor)


def _tflops(hardware: Hardware) -> str:
    return f"{hardware.tflops:g} TFLOPS" if hardware.tflops else "compute unknown"


def _gb(n: float) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e8 else f"{n / 1e6:.1f} MB"


def _si(n: float) -> str:
    for div, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if n >= div:
            return f"{n / div:g}{unit}"
    return f"{n:g}"


def _r(v, d):
    return round(v, d) if v is not None else None
