"""Ollama: what is loaded (`GET /api/ps`), unload (`keep_alive: 0`), load again (`keep_alive` as before).

    GET  /api/ps        {"models": [{"name", "model", "size", "size_vram", "expires_at", ...}]}
    POST /api/generate  {"model": NAME, "keep_alive": 0}          unloads (no prompt: nothing generated)
    POST /api/generate  {"model": NAME, "keep_alive": SECONDS|-1} loads it and keeps it that long
"""

from __future__ import annotations

from datetime import UTC, datetime

from pytest_crucible.local.adapter import Adapter, DisplaceError, LoadedModel, parse_time, wait_until
from pytest_crucible.local.http import get_json, post_json

FOREVER_AFTER_S = 365 * 24 * 3600   # an expiry further away than this was keep_alive -1
MIN_KEEP_ALIVE_S = 60
UNLOAD_WAIT_S = 30.0
LOAD_TIMEOUT_S = 600.0


class OllamaAdapter(Adapter):
    kind = "ollama"

    def _ps(self) -> list[dict]:
        body = get_json(f"{self.url}/api/ps", timeout=5.0, token=self.token) or {}
        models = body.get("models") if isinstance(body, dict) else None
        return [m for m in models or [] if isinstance(m, dict) and (m.get("name") or m.get("model"))]

    def loaded(self) -> list[LoadedModel]:
        out = []
        now = datetime.now(UTC)
        for entry in self._ps():
            name = str(entry.get("name") or entry.get("model") or "")
            expires = parse_time(entry.get("expires_at"))
            if expires is None:
                keep_alive = 300
            else:
                left = (expires - now).total_seconds()
                keep_alive = -1 if left > FOREVER_AFTER_S else max(MIN_KEEP_ALIVE_S, int(left))
            out.append(LoadedModel(kind=self.kind, url=self.url, name=name,
                                   size_bytes=_int(entry.get("size")), vram_bytes=_int(entry.get("size_vram")),
                                   restore={"model": name, "keep_alive": keep_alive},
                                   api_key_env=self.api_key_env))
        return out

    def placement(self, model: LoadedModel) -> set[str]:
        gpus = {d for d in self.devices if d != "cpu"}
        size, vram = model.size_bytes or 0, model.vram_bytes or 0
        where: set[str] = set()
        if vram > 0:
            where |= gpus or {"cpu"}
        if vram < size or size == 0:
            where.add("cpu")
        return where

    def unload(self, model: LoadedModel) -> None:
        post_json(f"{self.url}/api/generate", {"model": model.name, "keep_alive": 0}, timeout=60.0,
                  token=self.token)
        if not wait_until(lambda: model.name not in {m.get("name") or m.get("model") for m in self._ps()},
                          UNLOAD_WAIT_S):
            raise DisplaceError(f"ollama at {self.url} still lists {model.name} {UNLOAD_WAIT_S:.0f} s after "
                                f"the unload request")

    def restore(self, model: LoadedModel) -> None:
        body = dict(model.restore or {"model": model.name, "keep_alive": 300})
        body["stream"] = False
        post_json(f"{self.url}/api/generate", body, timeout=LOAD_TIMEOUT_S, token=self.token)


def _int(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
