"""`crucible merge`: the runs of a sharded benchmark (`--crucible-shard=K/N`) joined into one run folder.

Shards are joined only when they are the N parts of one run: the same suite (fingerprint of every item
before sharding), the same settings that change what is asked or how it is graded (MATCHED), every shard
from 1 to N exactly once, and no item in two of them. The merged folder holds rows.jsonl (every shard's
rows, their run id the merged run's) and meta.json; its reports are written by the caller from them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_crucible.common.errors import InputError
from pytest_crucible.common.numbers import dumps_finite
from pytest_crucible.results.store import META_FILE, ROWS_FILE, read_meta, read_rows
from pytest_crucible.suite.shards import Shard

# meta.json keys every shard must agree on (RunSession.meta, the plugin's flags)
MATCHED = ("crucible_version", "profile", "repeats", "seed", "judge", "selection", "sandbox", "bandwidth_gbps",
           "slo", "speed_warmup", "speed_repeats")
# meta.json keys of one machine or one shard, not of the merged run
PER_SHARD = ("run_id", "host", "pid", "config", "started_at", "resumed", "shard", "items")


class MergeRefused(InputError):
    """Shard runs that are not the parts of one run (`crucible merge` exits 2)."""


@dataclass
class ShardRun:
    path: Path
    meta: dict[str, Any]
    shard: Shard
    suite: str
    rows: list[dict[str, Any]]

    @property
    def label(self) -> str:
        return f"{self.path} (shard {self.shard})"


def read_shard(path: str | os.PathLike[str]) -> ShardRun:
    path = Path(path)
    if not (path / ROWS_FILE).is_file():
        raise MergeRefused(f"{path}: not a run folder (no {ROWS_FILE} in it)")
    meta = read_meta(path) or {}
    record = meta.get("shard")
    if not isinstance(record, dict):
        raise MergeRefused(f"{path}: not a shard run (its {META_FILE} records no shard: run each part with "
                           "--crucible-shard=K/N)")
    if not record.get("suite"):
        raise MergeRefused(f"{path}: shard {record.get('index')}/{record.get('count')} never finished collecting "
                           "(no suite fingerprint): resume it with --crucible-resume")
    return ShardRun(path, meta, Shard(int(record["index"]), int(record["count"])), str(record["suite"]),
                    read_rows(path))


def _settings(meta: dict[str, Any]) -> dict[str, Any]:
    models = meta.get("models") or {}
    named = {name: {k: (spec or {}).get(k) for k in ("model_id", "provider")} for name, spec in models.items()}
    return {**{key: meta.get(key) for key in MATCHED}, "models": named}


def check_shards(runs: list[ShardRun]) -> None:
    """MergeRefused unless `runs` are shards 1..N of one suite with the same settings, each once."""
    if not runs:
        raise MergeRefused("no shard runs given")
    first = runs[0]
    for run in runs[1:]:
        if run.shard.count != first.shard.count:
            raise MergeRefused(f"{run.label} and {first.label} split the run into different numbers of shards")
        if run.suite != first.suite:
            raise MergeRefused(f"{run.label} and {first.label} ran different suites (fingerprints {run.suite} and "
                               f"{first.suite}): other cases, case files, seeds, models or selection")
        mine, theirs = _settings(run.meta), _settings(first.meta)
        for key in mine:
            if mine[key] != theirs[key]:
                raise MergeRefused(f"{run.label} and {first.label} differ in {key}: {mine[key]!r} against "
                                   f"{theirs[key]!r}")
    by_index: dict[int, ShardRun] = {}
    for run in runs:
        if run.shard.index in by_index:
            raise MergeRefused(f"shard {run.shard} given twice: {by_index[run.shard.index].path} and {run.path}")
        by_index[run.shard.index] = run
    missing = [str(k) for k in range(1, first.shard.count + 1) if k not in by_index]
    if missing:
        raise MergeRefused(f"missing shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} of "
                           f"{first.shard.count}: give every shard's run folder")
    _check_disjoint(runs)


def _check_disjoint(runs: list[ShardRun]) -> None:
    owner: dict[tuple[Any, Any, Any], ShardRun] = {}
    for run in runs:
        for row in run.rows:
            item = (row.get("model"), row.get("case_id"), row.get("repeat", 1))
            other = owner.setdefault(item, run)
            if other is not run:
                raise MergeRefused(f"item {item[1]}[{item[0]}] repeat {item[2]} is in both {other.label} and "
                                   f"{run.label}")


def merged_meta(runs: list[ShardRun], run_id: str) -> dict[str, Any]:
    first = runs[0]
    meta = {key: value for key, value in first.meta.items() if key not in PER_SHARD}
    items: dict[str, int] = {}
    for run in runs:
        for model, count in (run.meta.get("items") or {}).items():
            items[model] = items.get(model, 0) + count
    starts = [str(run.meta["started_at"]) for run in runs if run.meta.get("started_at")]
    shards = [{"index": run.shard.index, "run_id": run.meta.get("run_id"), "host": run.meta.get("host"),
               "started_at": run.meta.get("started_at"), "rows": len(run.rows)} for run in runs]
    return {"run_id": run_id, **meta, **({"started_at": min(starts)} if starts else {}),
            **({"items": items} if items else {}),
            "merged": {"count": first.shard.count, "suite": first.suite, "shards": shards}}


def merge_runs(paths: list[str | os.PathLike[str]],
               out: str | os.PathLike[str]) -> tuple[Path, list[dict[str, Any]], dict[str, Any]]:
    """Join shard runs into the run folder `out` (new or empty): (its path, its rows, its meta)."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise MergeRefused(f"--out {out}: exists and is not an empty folder; name a new one")
    runs = sorted((read_shard(p) for p in paths), key=lambda r: r.shard.index)
    check_shards(runs)
    run_id = out.resolve().name
    rows = [{**row, "run_id": run_id} for run in runs for row in run.rows]
    meta = merged_meta(runs, run_id)
    out.mkdir(parents=True, exist_ok=True)
    _write(out / ROWS_FILE, "".join(dumps_finite(row, ensure_ascii=False, default=str) + "\n" for row in rows))
    _write(out / META_FILE, dumps_finite(meta, indent=2, default=str) + "\n")
    return out, rows, meta


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
