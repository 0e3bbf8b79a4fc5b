"""What the hardware under a model can physically do: memory bandwidth and peak matrix throughput.

The table holds vendor spec-sheet figures, rounded, per device: memory bandwidth in GB/s and dense
FP16/BF16 tensor throughput in TFLOPS (the higher of the published figures, so a ceiling built from it
is generous: a number above it is impossible, not merely unusual). `--crucible-bandwidth GBPS`
overrides the bandwidth for every model of a run.

Where the model runs is decided from what is known about it, most specific first:

1. `--crucible-bandwidth GBPS`                                  -> that bandwidth ("override")
2. an endpoint on another machine (hosted API, remote server)   -> unknown: no ceiling is claimed
3. a launched model on the CPU (lease devices, `gpu_layers: 0`),
   or a local endpoint on a machine without GPUs                -> the CPU default below
4. a launched model on GPUs (the lease's devices), or a local
   endpoint on a machine with GPUs                              -> the sum over those GPUs
   (the sum is an upper bound: a layer split across cards is slower than that, never faster)
"""

from __future__ import annotations

import ipaddress
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from urllib.parse import urlparse

from pytest_crucible.local.devices import discover_gpus
from pytest_crucible.local.launch_spec import LaunchSpec
from pytest_crucible.local.lease_manager import resolve_devices

# A generous bound for system memory: dual-channel DDR5 desktops reach 60-100 GB/s, quad-channel
# workstations and Apple "Pro" chips about 200-270; big servers and Max/Ultra chips more (pass
# --crucible-bandwidth there). Generous on purpose: a ceiling that is too low flags honest numbers.
CPU_DEFAULT_GBPS = 200.0
CPU_DEFAULT_TFLOPS = 10.0  # far above what llama.cpp reaches on CPUs; only a sanity bound

# (pattern matched against the lower-cased device name, label, GB/s, dense FP16 TFLOPS)
# More specific patterns come first.
GPU_TABLE: list[tuple[str, str, float, float]] = [
    # NVIDIA data centre
    (r"\bb200\b", "NVIDIA B200", 8000, 2250),
    (r"\bgb200\b", "NVIDIA GB200", 8000, 2500),
    (r"\bh200\b", "NVIDIA H200", 4800, 989),
    (r"\bgh200\b", "NVIDIA GH200", 4900, 989),
    (r"\bh100\b.*\bnvl\b", "NVIDIA H100 NVL", 3900, 835),
    (r"\bh100\b.*\bpcie\b", "NVIDIA H100 PCIe", 2000, 756),
    (r"\bh100\b", "NVIDIA H100 SXM", 3350, 989),
    (r"\bh800\b", "NVIDIA H800", 3350, 989),
    (r"\ba100\b.*(80\s*gb|sxm4-80)", "NVIDIA A100 80GB", 2039, 312),
    (r"\ba100\b", "NVIDIA A100 40GB", 1555, 312),
    (r"\bl40s\b", "NVIDIA L40S", 864, 366),
    (r"\bl40\b", "NVIDIA L40", 864, 181),
    (r"\bl4\b", "NVIDIA L4", 300, 121),
    (r"\ba40\b", "NVIDIA A40", 696, 150),
    (r"\ba10g?\b", "NVIDIA A10", 600, 125),
    (r"\bt4\b", "NVIDIA T4", 320, 65),
    (r"\bv100\b", "NVIDIA V100", 900, 125),
    # NVIDIA workstation
    (r"rtx pro 6000", "NVIDIA RTX PRO 6000 Blackwell", 1792, 500),
    (r"rtx 6000 ada", "NVIDIA RTX 6000 Ada", 960, 364),
    (r"rtx a6000", "NVIDIA RTX A6000", 768, 155),
    (r"rtx a5000", "NVIDIA RTX A5000", 768, 111),
    (r"rtx a4000", "NVIDIA RTX A4000", 448, 77),
    # NVIDIA GeForce
    (r"rtx 5090", "NVIDIA RTX 5090", 1792, 419),
    (r"rtx 5080", "NVIDIA RTX 5080", 960, 225),
    (r"rtx 5070 ti", "NVIDIA RTX 5070 Ti", 896, 176),
    (r"rtx 5070", "NVIDIA RTX 5070", 672, 124),
    (r"rtx 5060 ti", "NVIDIA RTX 5060 Ti", 448, 96),
    (r"rtx 4090", "NVIDIA RTX 4090", 1008, 330),
    (r"rtx 4080", "NVIDIA RTX 4080", 736, 195),
    (r"rtx 4070 ti", "NVIDIA RTX 4070 Ti", 672, 160),
    (r"rtx 4070", "NVIDIA RTX 4070", 504, 117),
    (r"rtx 4060 ti", "NVIDIA RTX 4060 Ti", 288, 89),
    (r"rtx 4060", "NVIDIA RTX 4060", 272, 61),
    (r"rtx 3090 ti", "NVIDIA RTX 3090 Ti", 1008, 160),
    (r"rtx 3090", "NVIDIA RTX 3090", 936, 142),
    (r"rtx 3080 ti", "NVIDIA RTX 3080 Ti", 912, 137),
    (r"rtx 3080", "NVIDIA RTX 3080", 760, 119),
    (r"rtx 3070", "NVIDIA RTX 3070", 448, 81),
    (r"rtx 3060", "NVIDIA RTX 3060", 360, 51),
    # AMD
    (r"mi355", "AMD Instinct MI355X", 8000, 2500),
    (r"mi325", "AMD Instinct MI325X", 6000, 1307),
    (r"mi300", "AMD Instinct MI300X", 5300, 1307),
    (r"mi250", "AMD Instinct MI250X", 3277, 383),
    (r"7900 xtx", "AMD Radeon RX 7900 XTX", 960, 123),
    (r"7900 xt\b", "AMD Radeon RX 7900 XT", 800, 103),
    (r"9070 xt", "AMD Radeon RX 9070 XT", 640, 195),
    (r"6900 xt|6950 xt", "AMD Radeon RX 6900/6950 XT", 576, 46),
    (r"ai max|strix halo|8060s", "AMD Ryzen AI Max (Strix Halo)", 256, 59),
    # Apple (unified memory)
    (r"m3 ultra", "Apple M3 Ultra", 819, 60),
    (r"m2 ultra|m1 ultra", "Apple M1/M2 Ultra", 800, 54),
    (r"m4 max", "Apple M4 Max", 546, 34),
    (r"m[123] max", "Apple M1-M3 Max", 400, 28),
    (r"m4 pro", "Apple M4 Pro", 273, 17),
    (r"m[123] pro", "Apple M1-M3 Pro", 200, 14),
]


@dataclass(frozen=True)
class Device:
    label: str
    bandwidth_gbps: float
    tflops: float | None


@dataclass(frozen=True)
class Hardware:
    """The bandwidth (and compute) a model's decode and prefill are bounded by; None when unknown."""
    bandwidth_gbps: float | None
    tflops: float | None = None
    source: str = "unknown"        # override | gpu | cpu-default | unknown
    description: str = ""          # e.g. "2x NVIDIA RTX 3090 (1872 GB/s)", or why it is unknown
    devices: tuple[str, ...] = field(default_factory=tuple)
    label: str = ""                # short, for reasons: "2x NVIDIA RTX 3090", "CPU default", "--crucible-bandwidth"

    @property
    def known(self) -> bool:
        return self.bandwidth_gbps is not None

    def to_dict(self) -> dict:
        return {"bandwidth_gbps": self.bandwidth_gbps, "tflops": self.tflops, "source": self.source,
                "description": self.description, "devices": list(self.devices), "label": self.label}


def lookup_device(name: str) -> Device | None:
    """The table row for a device name as nvidia-smi / rocm-smi / the OS prints it."""
    text = " ".join(name.lower().replace("geforce", "").replace("-", " ").split())
    for pattern, label, gbps, tflops in GPU_TABLE:
        if re.search(pattern, text):
            return Device(label, float(gbps), float(tflops))
    return None


def parse_bandwidth(text: str | float | None) -> float | None:
    """`--crucible-bandwidth` value: a positive number of GB/s (a trailing 'GB/s' is allowed)."""
    if text is None or text == "":
        return None
    if isinstance(text, (int, float)):
        value = float(text)
    else:
        cleaned = re.sub(r"\s*(gb/?s|gbps)\s*$", "", str(text).strip(), flags=re.I)
        try:
            value = float(cleaned)
        except ValueError:
            raise ValueError(f"--crucible-bandwidth takes a number of GB/s, e.g. 960; got {text!r}") from None
    if not value > 0:
        raise ValueError(f"--crucible-bandwidth must be positive, got {text!r}")
    return value


def is_local_url(url: str | None) -> bool:
    """Whether an endpoint runs on this machine or its private network (where we know the hardware)."""
    if not url:
        return False
    host = (urlparse(url).hostname or "").lower()
    if host in ("localhost", "") or host.endswith(".local") or host.endswith(".localhost"):
        return True
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return False
    return addr.is_loopback or addr.is_private or addr.is_link_local


def is_local_model(model, base_url: str | None = None) -> bool:
    if getattr(model, "launch", None):
        return True
    provider = getattr(model, "provider", None)
    url = base_url or (provider.base_url if provider else None)
    return is_local_url(url)


def gpu_names() -> list[str]:
    """Names of the GPUs on this machine: from the lease's device discovery, else from nvidia-smi; an
    empty list when there are none."""
    try:
        return [d.name or d.id for d in discover_gpus()]
    except Exception:  # discovery is best effort
        return _nvidia_smi_names()


def _nvidia_smi_names() -> list[str]:
    exe = shutil.which("nvidia-smi")
    if not exe:
        return []
    try:
        out = subprocess.run([exe, "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in out.stdout.splitlines() if line.strip()] if out.returncode == 0 else []


def launch_devices(model) -> list[tuple[str, str]] | None:
    """(kind, name) of the devices a launched model runs on, from the lease's launch spec; None when
    the model has no launch spec or its devices cannot be resolved here."""
    if not getattr(model, "launch", None):
        return None
    try:
        devices = resolve_devices(LaunchSpec.from_model(model))
    except Exception:  # the launch spec cannot resolve here: decide without it
        return None
    return [(d.kind, d.name or d.id) for d in devices]


def resolve_hardware(model, *, override_gbps: float | None = None, base_url: str | None = None,
                     gpus: list[str] | None = None, devices: list[tuple[str, str]] | None = None) -> Hardware:
    """The hardware bound for one model (see the module docstring for the order of precedence).

    `devices` are (kind, name) pairs the model is known to run on (kind "cpu" or a GPU vendor);
    `gpus` are the GPU names on this machine, for a local endpoint we did not launch."""
    if override_gbps:
        return Hardware(float(override_gbps), None, "override", f"--crucible-bandwidth {override_gbps:g} GB/s",
                        label="--crucible-bandwidth")
    if not is_local_model(model, base_url):
        return Hardware(None, None, "unknown", "remote endpoint: its hardware is unknown "
                        "(pass --crucible-bandwidth GBPS to check it)")
    launch = getattr(model, "launch", None) or {}
    if devices is None and launch.get("gpu_layers") == 0:
        return _cpu("launch.gpu_layers is 0")
    if devices is not None:
        names = [name for kind, name in devices if kind != "cpu"]
        if not names:
            return _cpu("the model runs on the CPU")
    else:
        names = gpus if gpus is not None else gpu_names()
    if not names:
        return _cpu("no GPU found")
    looked_up = [lookup_device(n) for n in names]
    unknown = [n for n, d in zip(names, looked_up) if d is None]
    if unknown:
        return Hardware(None, None, "unknown", f"GPU {unknown[0]!r} is not in the bandwidth table "
                        "(pass --crucible-bandwidth GBPS)", tuple(names))
    found = [d for d in looked_up if d is not None]
    gbps = sum(d.bandwidth_gbps for d in found)
    tflops = sum(d.tflops for d in found if d.tflops)
    labels: dict[str, int] = {}
    for d in found:
        labels[d.label] = labels.get(d.label, 0) + 1
    text = ", ".join(f"{n}x {label}" if n > 1 else label for label, n in labels.items())
    return Hardware(gbps, tflops or None, "gpu", f"{text} ({gbps:g} GB/s)", tuple(names), label=text)


def _cpu(why: str) -> Hardware:
    return Hardware(CPU_DEFAULT_GBPS, CPU_DEFAULT_TFLOPS, "cpu-default",
                    f"CPU, {why}: assumed at most {CPU_DEFAULT_GBPS:g} GB/s memory bandwidth "
                    "(pass --crucible-bandwidth GBPS for this machine's figure)", label="CPU default")
