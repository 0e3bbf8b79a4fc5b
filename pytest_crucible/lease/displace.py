"""Politeness: make room on the leased devices by asking other servers to unload, then restore.

Configured per local model as `launch.displace` (see docs/local-models.md). For each listed server the
adapter (LM Studio or Ollama) lists what is loaded, the models that sit on a leased device are unloaded
through the server's own API, each recorded in the lease file *before* it is unloaded, and the same
models are loaded again when the lease ends -- or by the next run, if this one dies. Nothing is killed,
and nothing else is touched.

Where a loaded model sits: Ollama's /api/ps says how much of it is in VRAM (`size_vram`), so a model
with VRAM sits on the server's GPUs and one not wholly in VRAM also sits on the cpu. LM Studio does not
say, so its models are taken to sit on the server's devices: the entry's `devices`, by default every
GPU of the machine, or the cpu on a machine without GPUs.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone

from ..errors import InfraError
from .http import HTTPFailure


class DisplaceError(InfraError):
    """A model that had to leave the leased devices could not be unloaded."""


@dataclass
class LoadedModel:
    kind: str                     # lmstudio | ollama
    url: str                      # the server's root URL
    name: str                     # model key (LM Studio) or name (Ollama)
    instance_id: str | None = None
    size_bytes: int | None = None
    vram_bytes: int | None = None
    restore: dict = field(default_factory=dict)   # what to send to load it again
    api_key_env: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "LoadedModel":
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)

    def label(self) -> str:
        return f"{self.kind}:{self.name}"


class Adapter:
    kind = ""

    def __init__(self, url: str, api_key_env: str | None = None, devices: list | None = None,
                 gpu_ids: list[str] | None = None):
        self.url = url.rstrip("/")
        self.api_key_env = api_key_env
        gpus = list(gpu_ids or [])
        if devices is None:
            self.devices = set(gpus) if gpus else {"cpu"}
        else:
            self.devices = {"cpu" if d == "cpu" else f"gpu{d}" for d in devices}

    @property
    def token(self) -> str | None:
        return os.environ.get(self.api_key_env) if self.api_key_env else None

    def loaded(self) -> list[LoadedModel]:
        raise NotImplementedError

    def placement(self, model: LoadedModel) -> set[str]:
        return set(self.devices)

    def unload(self, model: LoadedModel) -> None:
        raise NotImplementedError

    def restore(self, model: LoadedModel) -> None:
        raise NotImplementedError

    def must_go(self, lease_devices: list[str]) -> list[LoadedModel]:
        wanted = set(lease_devices)
        return [m for m in self.loaded() if self.placement(m) & wanted]


def make_adapter(entry: dict, gpu_ids: list[str] | None = None) -> Adapter:
    from .lmstudio import LMStudioAdapter
    from .ollama import OllamaAdapter
    cls = {"lmstudio": LMStudioAdapter, "ollama": OllamaAdapter}[entry["kind"]]
    return cls(entry["url"], api_key_env=entry.get("api_key_env"), devices=entry.get("devices"),
               gpu_ids=gpu_ids)


def adapter_for_model(model: LoadedModel) -> Adapter:
    return make_adapter({"kind": model.kind, "url": model.url, "api_key_env": model.api_key_env})


def displace(entries: list[dict], lease_devices: list[str], gpu_ids: list[str], *,
             record, log=None) -> list[LoadedModel]:
    """Unload, from every listed server, the models that sit on the leased devices.

    `record(model)` is called before each unload so a crash leaves a note of what to restore.
    A server that is not running has nothing to unload; one that refuses raises DisplaceError.
    """
    done: list[LoadedModel] = []
    for entry in entries:
        adapter = make_adapter(entry, gpu_ids)
        try:
            victims = adapter.must_go(lease_devices)
        except HTTPFailure as exc:
            if exc.unreachable:
                if log:
                    log(f"{adapter.kind} at {adapter.url} is not running: nothing to unload")
                continue
            raise DisplaceError(f"cannot list the models loaded in {adapter.kind} at {adapter.url}: {exc}") \
                from None
        for model in victims:
            record(model)
            try:
                adapter.unload(model)
            except HTTPFailure as exc:
                raise DisplaceError(f"{adapter.kind} at {adapter.url} refused to unload {model.name}: {exc}") \
                    from None
            done.append(model)
            if log:
                log(f"unloaded {model.label()} from {adapter.url} (restored when the lease ends)")
    return done


def restore(models: list[LoadedModel | dict], log=None) -> list[str]:
    """Load again what was displaced; return the problems (a failed restore never raises)."""
    problems = []
    for model in models:
        if isinstance(model, dict):
            model = LoadedModel.from_dict(model)
        adapter = adapter_for_model(model)
        try:
            adapter.restore(model)
        except (HTTPFailure, DisplaceError) as exc:
            problems.append(f"could not load {model.label()} again at {model.url}: {exc}")
            continue
        if log:
            log(f"loaded {model.label()} again at {model.url}")
    return problems


# -- helpers shared by the adapters ---------------------------------------------------------------

_FRACTION = re.compile(r"(\.\d{6})\d+")


def parse_time(text: str | None) -> datetime | None:
    """An RFC 3339 time as Go writes it (nanoseconds, Z or offset)."""
    if not text:
        return None
    text = _FRACTION.sub(r"\1", text.strip()).replace("Z", "+00:00")
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        return None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def wait_until(check, timeout: float, poll: float = 0.25) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        if check():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)
