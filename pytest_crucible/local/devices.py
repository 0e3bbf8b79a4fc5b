"""What a local model can run on: GPUs found through nvidia-smi / rocm-smi, else the CPU.

Lease names: `gpu0`, `gpu1`, ... (the index nvidia-smi / rocm-smi gives) and `cpu`. Memory bandwidth
for the speed plausibility check is looked up from the device name by `speed.hardware`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import asdict, dataclass

SMI_TIMEOUT = 10.0


@dataclass(frozen=True)
class Device:
    id: str                       # lease name: "cpu", "gpu0", ...
    kind: str                     # "cpu", "nvidia", "amd"
    index: int | None = None      # GPU index as the vendor tool numbers it
    name: str = ""
    memory_bytes: int | None = None
    memory_used_bytes: int | None = None
    cores: int | None = None      # CPU only

    def describe(self) -> str:
        parts = [self.name or self.kind]
        if self.cores:
            parts.append(f"{self.cores} cores")
        if self.memory_bytes:
            parts.append(f"{self.memory_bytes / 2**30:.0f} GiB")
        if self.memory_used_bytes is not None and self.kind != "cpu":
            parts.append(f"{self.memory_used_bytes / 2**30:.1f} GiB used")
        return f"{self.id}: " + ", ".join(parts)

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


def gpu_id(index: int) -> str:
    return f"gpu{index}"


def _run(argv: list[str]) -> str | None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=SMI_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def parse_nvidia_smi(text: str) -> list[Device]:
    """Rows of `nvidia-smi --query-gpu=index,name,memory.total,memory.used --format=csv,noheader,nounits`."""
    devices = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 4 or not parts[0].isdigit():
            continue
        index = int(parts[0])
        devices.append(Device(id=gpu_id(index), kind="nvidia", index=index, name=parts[1],
                              memory_bytes=_mib(parts[2]), memory_used_bytes=_mib(parts[3])))
    return devices


def _mib(text: str) -> int | None:
    try:
        return int(float(text) * 2**20)
    except ValueError:
        return None


def parse_rocm_smi(text: str) -> list[Device]:
    """`rocm-smi --showproductname --showmeminfo vram --json`: {"card0": {...}, ...}."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return []
    devices = []
    for card, fields in sorted(data.items()):
        if not card.startswith("card") or not card[4:].isdigit() or not isinstance(fields, dict):
            continue
        index = int(card[4:])
        low = {k.lower(): v for k, v in fields.items()}
        name = next((str(low[k]) for k in ("card series", "card model", "marketing name", "device name")
                     if low.get(k) not in (None, "", "N/A")), "AMD GPU")
        devices.append(Device(id=gpu_id(index), kind="amd", index=index, name=name,
                              memory_bytes=_int_field(low, "vram total memory (b)"),
                              memory_used_bytes=_int_field(low, "vram total used memory (b)")))
    return devices


def _int_field(fields: dict, key: str) -> int | None:
    try:
        return int(fields[key])
    except (KeyError, ValueError, TypeError):
        return None


def cpu_device() -> Device:
    name = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = None
    try:
        with open("/proc/meminfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    memory = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError):
        pass
    return Device(id="cpu", kind="cpu", name=name or os.uname().machine, memory_bytes=memory,
                  cores=usable_cpus())


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def discover_gpus() -> list[Device]:
    """GPUs found by nvidia-smi, then rocm-smi; [] when neither is present or works."""
    if shutil.which("nvidia-smi"):
        out = _run(["nvidia-smi", "--query-gpu=index,name,memory.total,memory.used",
                    "--format=csv,noheader,nounits"])
        if out:
            found = parse_nvidia_smi(out)
            if found:
                return found
    if shutil.which("rocm-smi"):
        out = _run(["rocm-smi", "--showproductname", "--showmeminfo", "vram", "--json"])
        if out:
            return parse_rocm_smi(out)
    return []


def discover_devices() -> list[Device]:
    """Every GPU found, then the CPU."""
    return [*discover_gpus(), cpu_device()]


def visible_devices_env(devices: list[Device]) -> dict[str, str]:
    """Environment for a server so it sees only its leased GPUs (none for a CPU lease)."""
    gpus = [d for d in devices if d.kind != "cpu"]
    ids = ",".join(str(d.index) for d in gpus)
    if not gpus:
        return {"CUDA_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": ""}
    if all(d.kind == "amd" for d in gpus):
        return {"HIP_VISIBLE_DEVICES": ids}
    return {"CUDA_VISIBLE_DEVICES": ids}
