"""LM Studio (0.4+ REST API): what is loaded, unload an instance, load a model again with its config.

    GET  /api/v1/models         {"models": [{"key", "type", "loaded_instances": [{"id", "config": {...}}]}]}
    POST /api/v1/models/unload  {"instance_id": ID}
    POST /api/v1/models/load    {"model": KEY, "context_length": N, ...}   (the instance's config again)

Older LM Studio (0.3) only lists models (`GET /api/v0/models`, `state: "loaded"`) and cannot unload
through HTTP: displacing a loaded model there is an error that says so.
"""

from __future__ import annotations

from pytest_crucible.local.adapter import Adapter, DisplaceError, LoadedModel
from pytest_crucible.local.http import HTTPFailure, get_json, post_json

# Load settings of an instance that the load endpoint accepts back.
RESTORE_KEYS = ("context_length", "eval_batch_size", "flash_attention", "num_experts", "offload_kv_cache_to_gpu")
LOAD_TIMEOUT_S = 600.0


class LMStudioAdapter(Adapter):
    kind = "lmstudio"

    def loaded(self) -> list[LoadedModel]:
        try:
            body = get_json(f"{self.url}/api/v1/models", timeout=5.0, token=self.token) or {}
        except HTTPFailure as exc:
            if exc.status == 404:
                return self._loaded_legacy()
            raise
        out = []
        entries = body.get("models") if isinstance(body, dict) else None
        for entry in entries or []:
            if not isinstance(entry, dict) or not entry.get("key"):
                continue
            for instance in entry.get("loaded_instances") or []:
                if not isinstance(instance, dict) or not instance.get("id"):
                    continue
                config = instance.get("config") or {}
                restore = {"model": entry["key"], **{k: config[k] for k in RESTORE_KEYS if k in config}}
                out.append(LoadedModel(kind=self.kind, url=self.url, name=entry["key"],
                                       instance_id=instance["id"], size_bytes=entry.get("size_bytes"),
                                       restore=restore, api_key_env=self.api_key_env))
        return out

    def _loaded_legacy(self) -> list[LoadedModel]:
        body = get_json(f"{self.url}/api/v0/models", timeout=5.0, token=self.token) or {}
        entries = body.get("data") if isinstance(body, dict) else None
        return [LoadedModel(kind=self.kind, url=self.url, name=m["id"], instance_id=None,
                            restore={"model": m["id"]}, api_key_env=self.api_key_env)
                for m in entries or []
                if isinstance(m, dict) and m.get("id") and m.get("state") == "loaded"]

    def unload(self, model: LoadedModel) -> None:
        if model.instance_id is None:
            raise DisplaceError(f"LM Studio at {self.url} is older than 0.4 and cannot unload {model.name} "
                                f"through its API; unload it by hand (lms unload) or upgrade LM Studio")
        post_json(f"{self.url}/api/v1/models/unload", {"instance_id": model.instance_id}, timeout=60.0,
                  token=self.token)

    def restore(self, model: LoadedModel) -> None:
        post_json(f"{self.url}/api/v1/models/load", dict(model.restore or {"model": model.name}),
                  timeout=LOAD_TIMEOUT_S, token=self.token)
