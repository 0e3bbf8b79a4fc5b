"""Sharding a run across machines (`--crucible-shard=K/N`): which share of the items each shard runs.

The unit is the family (a case's family key: its family, or the case itself), never the item: a
family's cases, models and repeats land in one shard, so the paired and family-clustered statistics of
the merged run are those of a single run. Families go greedily, largest first (ties by key), to the
shard holding the fewest items so far: deterministic for a given suite on every machine, independent of
the number of models and repeats (they scale every family alike), and no two shards differ by more than
the largest family. The suite fingerprint lets `crucible merge` refuse shards of different suites.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pytest_crucible.common.errors import InputError

SHARD_FLAG = "--crucible-shard"


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str, source: str = SHARD_FLAG) -> Shard:
    """`K/N` (1 <= K <= N) as a Shard; anything else is an InputError that says the form."""
    parts = str(text).strip().split("/")
    try:
        index, count = (int(p) for p in parts) if len(parts) == 2 else (0, 0)
    except ValueError:
        index, count = 0, 0
    if count < 1 or not 1 <= index <= count:
        raise InputError(f"{source}: expected K/N with 1 <= K <= N (shard K of N, counted from 1), "
                         f"e.g. 2/3; got {text!r}")
    return Shard(index, count)


def assign(sizes: Mapping[str, int], count: int) -> dict[str, int]:
    """Each family key's shard (1..count), from the number of items of each family."""
    loads = [(0, index) for index in range(1, count + 1)]  # a heap of (items so far, shard)
    shard_of: dict[str, int] = {}
    for key in sorted(sizes, key=lambda k: (-sizes[k], k)):
        load, index = heapq.heappop(loads)
        shard_of[key] = index
        heapq.heappush(loads, (load + sizes[key], index))
    return shard_of


def fingerprint(lines: Iterable[str]) -> str:
    """A suite's fingerprint: its items (node id and case content hash, one line each), in any order."""
    digest = hashlib.sha256()
    for line in sorted(lines):
        digest.update(line.encode("utf-8") + b"\n")
    return digest.hexdigest()[:16]


def shard_share(shard: Shard | None, share: float | None) -> float:
    """The share of every provider's concurrency and cost cap one shard takes: `share` when given
    (--crucible-shard-share), else 1/N, so N shards together stay within the limits; 1 unsharded."""
    if shard is None:
        return 1.0
    return share if share is not None else 1.0 / shard.count
