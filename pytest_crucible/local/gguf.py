"""GGUF metadata of a local model, read with the `gguf` package (headers only; nothing is loaded).

    info = read_gguf("model.gguf")
    info.describe()   # 'GGUF size 16.5 GB, quant Q4_K_M, 27.0B params, qwen3moe, MoE 8 of 128 experts, ctx 40960'
    info.to_dict()    # for the run meta and the speed plausibility check

`active_weight_bytes` estimates the weight bytes read to produce one token: every tensor, except the
token embedding table (one row is read) and, in a mixture of experts, only the used share of the expert
tensors. Decode speed on a memory-bound device is at most bandwidth / active_weight_bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from pytest_crucible.common.cache import cache_dir


class GGUFError(Exception):
    """The file is not a readable GGUF (or the `gguf` package is missing)."""


@dataclass(frozen=True)
class GGUFInfo:
    path: str
    size_bytes: int
    architecture: str | None = None
    name: str | None = None
    quant: str | None = None               # file type, e.g. Q4_K_M; else the dominant tensor type
    parameter_count: int | None = None
    size_label: str | None = None          # general.size_label, e.g. 135M
    context_length: int | None = None      # trained context
    block_count: int | None = None
    expert_count: int | None = None
    expert_used_count: int | None = None
    active_parameter_count: int | None = None
    active_weight_bytes: int | None = None

    @property
    def is_moe(self) -> bool:
        return bool(self.expert_count and self.expert_count > 1)

    def describe(self) -> str:
        parts = [f"GGUF size {format_bytes(self.size_bytes)}"]
        if self.quant:
            parts.append(f"quant {self.quant}")
        if self.parameter_count:
            parts.append(f"{format_count(self.parameter_count)} params")
        if self.architecture:
            parts.append(self.architecture)
        if self.is_moe:
            used = f"{self.expert_used_count} of " if self.expert_used_count else ""
            parts.append(f"MoE {used}{self.expert_count} experts")
        if self.context_length:
            parts.append(f"ctx {self.context_length}")
        return ", ".join(parts)

    def to_dict(self) -> dict:
        return {**asdict(self), "summary": self.describe()}


def format_bytes(n: int) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def format_count(n: int) -> str:
    for unit, size in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= size:
            value = n / size
            return f"{value:.1f}{unit}" if value < 100 else f"{value:.0f}{unit}"
    return str(n)


def _value(field):
    """A scalar or string field's value, for old and new versions of the gguf package."""
    if field is None:
        return None
    try:
        return field.contents()
    except AttributeError:
        pass
    except (IndexError, ValueError):
        return None
    try:
        part = field.parts[field.data[0]]
    except (IndexError, AttributeError):
        return None
    try:
        return bytes(part).decode("utf-8") if getattr(part, "dtype", None) is not None and \
            part.dtype.kind == "u" and part.dtype.itemsize == 1 else part.tolist()[0]
    except (AttributeError, IndexError, UnicodeDecodeError):
        return None


def _int(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def quant_name(file_type) -> str | None:
    try:
        from gguf import LlamaFileType  # lazy: the gguf package is optional (the local extra)
        name = LlamaFileType(int(file_type)).name
    except (ImportError, ValueError, TypeError):
        return None
    for prefix in ("MOSTLY_", "ALL_"):
        if name.startswith(prefix):
            name = name[len(prefix):]
    return name


@lru_cache(maxsize=32)  # keyed by the file's size and mtime: a changed file is read again
def _read_cached(path: str, size: int, mtime: float) -> GGUFInfo:
    try:
        from gguf import GGUFReader  # lazy: the gguf package is optional (the local extra)
    except ImportError:
        raise GGUFError("the gguf package is not installed (pip install 'pytest-crucible[local]')") from None
    try:
        reader = GGUFReader(path, "r")
    except Exception as exc:  # the reader raises plain ValueError / struct errors on foreign files
        raise GGUFError(f"{path}: not a readable GGUF file ({exc})") from None
    fields = reader.fields
    arch = _value(fields.get("general.architecture"))

    def arch_field(key):
        return _int(_value(fields.get(f"{arch}.{key}"))) if arch else None

    quant = quant_name(_value(fields.get("general.file_type")))
    tensors = list(reader.tensors)
    if quant is None and tensors:
        by_bytes: Counter[str] = Counter()
        for tensor in tensors:
            if len(tensor.shape) >= 2:
                by_bytes[tensor.tensor_type.name] += int(tensor.n_bytes)
        quant = by_bytes.most_common(1)[0][0] if by_bytes else None
    expert_count = arch_field("expert_count")
    expert_used = arch_field("expert_used_count")
    params = sum(int(t.n_elements) for t in tensors) or None
    active_params = active_bytes = None
    if tensors:
        share = (expert_used / expert_count) if expert_count and expert_used and expert_count > 1 else 1.0
        params_sum = bytes_sum = 0.0
        for tensor in tensors:
            name = tensor.name
            if name.startswith("token_embd"):
                continue
            factor = share if "_exps" in name else 1.0
            params_sum += int(tensor.n_elements) * factor
            bytes_sum += int(tensor.n_bytes) * factor
        active_params, active_bytes = int(params_sum), int(bytes_sum)
    return GGUFInfo(path=path, size_bytes=size, architecture=arch, name=_value(fields.get("general.name")),
                    quant=quant, parameter_count=params, size_label=_value(fields.get("general.size_label")),
                    context_length=arch_field("context_length"), block_count=arch_field("block_count"),
                    expert_count=expert_count, expert_used_count=expert_used,
                    active_parameter_count=active_params, active_weight_bytes=active_bytes)


def read_gguf(path: str | Path) -> GGUFInfo:
    path = Path(path)
    try:
        stat = path.stat()
    except OSError as exc:
        raise GGUFError(f"{path}: {exc.strerror}") from None
    return _read_cached(str(path.resolve()), stat.st_size, stat.st_mtime)


def gguf_chat_template(path: str | Path) -> str | None:
    """The GGUF's `tokenizer.chat_template` (what llama.cpp serves without a chat format), or None."""
    try:
        from gguf import GGUFReader  # lazy: gguf is optional (the local extra)
        field = GGUFReader(str(path), "r").fields.get("tokenizer.chat_template")
    except Exception as exc:  # see _read_cached
        raise GGUFError(f"{path}: not a readable GGUF file ({exc})") from None
    template = _value(field)
    return template if isinstance(template, str) else None


def gguf_summary(path: str | Path) -> str:
    """The one line the report header shows, e.g. 'GGUF size 16.5 GB, quant Q4_K_M, ...'."""
    return read_gguf(path).describe()


HASH_CACHE_FILE = "gguf-sha256.json"


def gguf_sha256(path: str | os.PathLike) -> str:
    """The file's sha256: which weights served a run. Hashing a large GGUF takes seconds per GB, so the
    digest is kept in the user cache, keyed by path, size and modification time."""
    path = Path(path).resolve()
    stat = path.stat()
    key = f"{path}|{stat.st_size}|{stat.st_mtime_ns}"
    cache = cache_dir() / HASH_CACHE_FILE
    try:
        known = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    if isinstance(known, dict) and isinstance(known.get(key), str):
        return known[key]
    with open(path, "rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    known = known if isinstance(known, dict) else {}
    known[key] = digest
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(known, indent=1), encoding="utf-8")
        os.replace(tmp, cache)  # a concurrent writer loses an entry at worst, never corrupts the file
    except OSError:
        pass
    return known[key]
