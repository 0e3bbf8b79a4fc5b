"""What the LM Studio and Ollama adapters share: a loaded model, the adapter interface, small helpers.

displace.py picks an adapter per server entry and does the unloading and restoring; lmstudio.py and
ollama.py implement the interface. Nothing here imports either of them.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from pytest_crucible.common.errors import InfraError


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
    def from_dict(cls, data: dict) -> LoadedModel:
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
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def wait_until(check, timeout: float, poll: float = 0.25) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        if check():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)
