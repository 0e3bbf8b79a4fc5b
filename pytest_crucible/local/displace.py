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

from pytest_crucible.local.adapter import Adapter, DisplaceError, LoadedModel
from pytest_crucible.local.http import HTTPFailure
from pytest_crucible.local.lmstudio import LMStudioAdapter
from pytest_crucible.local.ollama import OllamaAdapter

ADAPTERS: dict[str, type[Adapter]] = {"lmstudio": LMStudioAdapter, "ollama": OllamaAdapter}


def make_adapter(entry: dict, gpu_ids: list[str] | None = None) -> Adapter:
    cls = ADAPTERS[entry["kind"]]
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
