"""The state of one benchmark run, kept apart from pytest so the CLI and the plugin share it."""

from __future__ import annotations

import dataclasses
import math
import os
import platform
import secrets
from collections import defaultdict
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_crucible import __version__
from pytest_crucible.client.chat import ChatClient
from pytest_crucible.client.circuit import Circuit
from pytest_crucible.client.thinking_control import Thinking
from pytest_crucible.common.cache import cache_dir
from pytest_crucible.common.errors import InputError
from pytest_crucible.common.filelocks import SlotPool
from pytest_crucible.engine.config import Config, ModelSpec, Provider, find_config_path, load_config
from pytest_crucible.engine.endpoint_lock import EndpointHolds
from pytest_crucible.engine.item_kinds import ItemContext, RunSettings
from pytest_crucible.engine.item_runner import ask, prepare, run_case, run_item
from pytest_crucible.engine.scheduler import (
    CostLedger,
    Prefetcher,
    ProviderLane,
    ScheduledClient,
    ledger_path,
    window_for,
)
from pytest_crucible.local import LeaseManager, local_model_meta
from pytest_crucible.results.row import Row, latest_rows
from pytest_crucible.results.store import RunStore, hold_run_dir, new_run_id, read_rows, resolve_run_dir
from pytest_crucible.suite.case import DEFAULT_SEED, Case
from pytest_crucible.suite.profiles import select
from pytest_crucible.suite.python_case_files import TreeStamp

if TYPE_CHECKING:
    from filelock import FileLock


class RunSession:
    """Models, profile, settings and clients for this process; on the controller also the rows and the
    store (the run's end, its reports and the gate, is analysis/run_end.py's RunEnd)."""

    def __init__(self, *, models: str, config_path: str | None = None, out_dir: str = "crucible-results",
                 profile: str | None = None, repeats: int = 1, controller: bool = True,
                 run_id: str | None = None, seed: int | None = None, settings: RunSettings | None = None,
                 resume: str | None = None, max_cost: float | None = None, invocation: str | None = None,
                 judge: str | None = None, on_client: Callable[[ModelSpec, object], None] | None = None,
                 config_dirs: tuple[Path, ...] = (), share: float = 1.0, processes: tuple[int, int] = (0, 1)):
        # config_dirs: where else models.yaml may be (pytest's rootdir and ini folder), after the current folder
        # share: of every provider's concurrency and cost cap, and of max_cost (a shard of --crucible-shard)
        # processes: (this one's index, how many) of the processes that ask in this run (xdist's workers):
        # each lane tries its own block of a provider's slots first (_lane)
        self.process_index, self.processes = processes[0], max(1, processes[1])
        self.config: Config = load_config(find_config_path(config_path, also=config_dirs))
        if share < 1:
            self.config = self.config.shared(share)
            max_cost = max_cost * share if max_cost is not None else None
        self.models: list[ModelSpec] = self.config.select(models)
        if share < 1:
            _check_share(self.models + ([self.config.select([judge])[0]] if judge else []), share)
        self.profile_name = profile
        self.profile = self.config.profile(profile) if profile else {}
        if repeats < 1:
            raise ValueError("--crucible-repeats must be at least 1")
        self.repeats = repeats
        self.seed = seed  # case families' seed; None: the suite's fixed DEFAULT_SEED
        self.case_files_stamp = TreeStamp()  # the built-in suite's kept cases are checked once per collection
        self.out_dir = Path(out_dir)
        self.controller = controller
        # The controller names the run; workers get the name from it. The folder appears with the first row.
        self.run_id = run_id or (new_run_id() if controller else None)
        self.settings = settings or RunSettings()
        self.store: RunStore | None = None
        self.rows: list[Row] = []
        self.flags: dict = {}
        self._clients: dict[str, ScheduledClient] = {}
        self.on_client = on_client  # told of each client made here (the plugin's pytest_crucible_client_made)
        self._seen_ids: dict[str, str] = {}
        self._models_by_params: dict[str, str] | None = None
        self.other_failures = 0  # failed items that are not a model's wrong answer (a gated run still fails)
        self.import_sources: dict[Path, str] = {}  # data file of each --crucible-import -> import name
        # --crucible-resume: the finished rows of the run being continued, by resume key
        self.finished: dict[str, Row] = {}
        self.spent_before: dict[str, float] = {}
        self._run_lock: FileLock | None = None  # a resumed folder's writer lock, from the start (hold_run_dir)
        if resume:
            self._continue(resume)
        if max_cost is not None and not (math.isfinite(max_cost) and max_cost > 0):  # NaN would switch the cap off
            raise ValueError("--crucible-max-cost must be a positive, finite number of US dollars")
        self.max_cost = max_cost
        # this pytest invocation (a resume is a new one): names what its processes share, like the ledger
        self.invocation = invocation or secrets.token_hex(4)
        self.notes: list[str] = []   # things to tell the user once (a provider rate-limiting)
        self._lanes: dict[str, ProviderLane] = {}
        self.endpoint_holds = EndpointHolds()  # this process's shared holds of local endpoints' locks
        self._circuits: dict[str, Circuit] = {}  # per provider: stops asking one that is down (client/circuit.py)
        self._ledger: CostLedger | None = None
        self.prefetcher: Prefetcher | None = None
        # (base_url, api_key) of a launched model's server: set by whoever holds the leases (the plugin's
        # crucible_leases fixture), for a launched judge
        self.local_endpoint: Callable[[ModelSpec], tuple[str, str | None]] | None = None
        if judge:
            self.settings = dataclasses.replace(self.settings, judge=self._judge(judge))
            self.flags["judge"] = judge

    def _judge(self, name: str):
        """The run's judge (--crucible-judge): a model from models.yaml, asked through this session's clients."""
        from pytest_crucible.grading.judge_model import Judge  # lazy: start-up: grading.extract costs ~25 ms
        model = self.config.select([name])[0]
        return Judge(model, lambda: self._judge_client(model), cache_dir=cache_dir() / "judge")

    def _judge_client(self, model: ModelSpec):
        if not model.launch:
            return self.client_for(model)
        if self.local_endpoint is None:
            from pytest_crucible.grading.judge_model import JudgeError  # lazy: start-up, as in _judge
            raise JudgeError(f"judge {model.name} is a launched local model, and no local server is leased here")
        base_url, api_key = self.local_endpoint(model)
        return self.client_for(model, base_url, api_key)

    def _continue(self, given: str) -> None:
        """Continue a run: its folder, its id, its rows (every process reads them: xdist workers skip
        what is finished without asking the controller)."""
        run_dir = resolve_run_dir(self.out_dir, given)
        self.out_dir, self.run_id = run_dir.parent, run_dir.name
        if self.controller:  # refused while another live process writes it (no request asked twice)
            self._run_lock = hold_run_dir(run_dir)
        old = [Row.from_dict(r) for r in read_rows(run_dir)]
        for row in latest_rows(old):
            self.spent_before[row.provider] = self.spent_before.get(row.provider, 0.0) + (row.cost_usd or 0.0)
        seeds = {r.seed for r in old}
        if self.seed is None and len(seeds) == 1:
            self.seed = seeds.pop()  # the same case families as the run being continued
        if self.controller:
            self.rows = old
            self.flags["resumed"] = {"rows_before": len(old)}
        self.finished = {r.resume_key: r for r in old if r.final}

    # -- collection -------------------------------------------------------------------------------
    def model(self, name: str) -> ModelSpec:
        return self.config.models[name]

    def item_params(self, model: str, repeat: int) -> str:
        """What an item's id carries in brackets: `model`, or `model-rK` with --crucible-repeats."""
        return model if self.repeats == 1 else f"{model}-r{repeat}"

    def model_of_item_id(self, nodeid: str) -> str | None:
        """The model of an item (a case's or a user's check's) from its id, read back from the brackets
        `item_params` wrote; None for an item of no model."""
        if not nodeid.endswith("]") or "[" not in nodeid:
            return None
        if self._models_by_params is None:
            self._models_by_params = {self.item_params(m.name, r): m.name
                                      for m in self.models for r in range(1, self.repeats + 1)}
        return self._models_by_params.get(nodeid[nodeid.rindex("[") + 1:-1])

    def claim_case_id(self, case: Case) -> str | None:
        """Record a case id; return where it was first defined if it is a duplicate."""
        first = self._seen_ids.setdefault(case.id, f"{case.file}:{case.line}")
        return None if first == f"{case.file}:{case.line}" else first

    def select(self, cases: list[Case]) -> tuple[list[Case], list[Case]]:
        """Split cases into (selected, deselected) by the profile, keeping suite order."""
        return select(cases, self.profile, judge=self.settings.judge is not None)

    # -- execution --------------------------------------------------------------------------------
    def begin_row(self, case: Case, model: ModelSpec, repeat: int = 1) -> Row:
        return Row.begin(case, model, repeat, run_id=self.run_id, seed=self.seed)

    def finished_row(self, case: Case, model: ModelSpec, repeat: int = 1) -> Row | None:
        """The row a resumed run already has for this item (then it is not asked again), or None."""
        if not self.finished:
            return None
        return self.finished.get(self.begin_row(case, model, repeat).resume_key)

    def run_item(self, case: Case, model: ModelSpec, client, repeat: int = 1, key: str | None = None) -> Row:
        """Ask and grade one item; always a finished row (see runner.run_item). An item asked ahead
        under `key` (see `start_ahead`) takes that answer."""
        ahead = self.prefetcher.take(key) if self.prefetcher is not None and key is not None else None
        if ahead is not None:
            item, future = ahead
            if item.client is client and not future.cancelled():
                return run_item(item, asked=future.result)
            future.cancel()
        return run_case(case, model, client, repeat=repeat, run_id=self.run_id, seed=self.seed,
                        settings=self.settings)

    # -- asking ahead (scheduler.Prefetcher) --------------------------------------------------------
    def ahead_lane(self, model: ModelSpec) -> str | None:
        """The lane a model's items are asked ahead in: its provider's, unless it is launched locally
        (local servers keep their lease and lock rules: one item at a time per process)."""
        return model.provider.name if model.provider is not None and not model.launch else None

    def lookahead(self) -> int:
        """How many items one process wants to know ahead: every lane's window together (0: none)."""
        return sum(window_for(p.concurrency) for p in self._ahead_providers().values())

    def _ahead_providers(self) -> dict[str, Provider]:
        return {m.provider.name: m.provider for m in self.models if m.provider is not None and self.ahead_lane(m)}

    def prefetch(self) -> Prefetcher:
        if self.prefetcher is None:
            providers = self._ahead_providers()
            self.prefetcher = Prefetcher({name: window_for(p.concurrency) for name, p in providers.items()},
                                         threads=sum(p.concurrency for p in providers.values()))
        return self.prefetcher

    def start_ahead(self, case: Case, model: ModelSpec, repeat: int):
        """(item, ask) to send off ahead of pytest, or None when the item must not be asked ahead
        (already finished in a resumed run, skipped, or its kind holds the endpoint alone)."""
        if self.finished_row(case, model, repeat) is not None:
            return None
        item = ItemContext(case, model, self.client_for(model), self.begin_row(case, model, repeat), self.settings)
        kind, reason = prepare(item)
        if kind is None or reason or kind.exclusive:
            return None
        return item, lambda it: ask(it, kind)

    def client_for(self, model: ModelSpec, base_url: str | None = None, api_key: str | None = None):
        """One client per model and endpoint in this process (connection reuse), its requests paced by
        the provider's lane and the cost ledger (scheduler.py). A model with a launch spec talks to its
        own local server: no lane (the lease rules apply), and its provider's key and headers are never
        sent there."""
        provider = model.provider
        base_url = base_url or (provider.base_url if provider and not model.launch else None)
        if base_url is None:
            raise ValueError(f"model {model.name} has no endpoint: give it a provider or a launch spec")
        if api_key is None and provider is not None and not model.launch:
            api_key = provider.api_key()
        key = f"{model.name}@{base_url}"
        if key not in self._clients:
            lane = self._lane(provider) if provider is not None and not model.launch else None
            client = ChatClient(
                base_url, api_key, model_id=model.model_id,
                timeout=provider.timeout if provider else 600.0,
                max_retries=provider.max_retries if provider else 2,
                headers=provider.headers if provider and not model.launch else None,
                extra_body=provider.extra_body if provider else None,
                model_guard=model.model_guard, on_retry=lane.throttled if lane is not None else None,
                thinking=Thinking(model.thinking, model.thinking_api),
                circuit=self._circuit(provider) if provider is not None and not model.launch else None)
            self._clients[key] = ScheduledClient(client, model, lane, self.ledger(), self.endpoint_holds)
            if self.on_client is not None:
                self.on_client(model, self._clients[key])
        return self._clients[key]

    def _circuit(self, provider) -> Circuit:
        if provider.name not in self._circuits:
            self._circuits[provider.name] = Circuit(provider.name, on_change=self.notes.append)
        return self._circuits[provider.name]

    def _lane(self, provider) -> ProviderLane:
        """The provider's lane in this process. With several processes asking (xdist's workers), each takes
        the slots of its own block first (its share of the concurrency, rounded up) and borrows another
        block's only when its one looking request finds one free: where every process tried every slot,
        they met each other's slots at every request (benchmarks/concurrency.py's docstring)."""
        if provider.name not in self._lanes:
            share = math.ceil(provider.concurrency / self.processes)
            slots = SlotPool(provider.base_url, provider.concurrency, share=share,
                             index=self.process_index % self.processes)
            self._lanes[provider.name] = ProviderLane(provider.name, provider.concurrency, slots=slots,
                                                      log=self.notes.append)
        return self._lanes[provider.name]

    def ledger(self) -> CostLedger | None:
        """The run's cost ledger, when a cap is set (--crucible-max-cost, a provider's max_cost_usd)."""
        caps = {p.name: p.max_cost_usd for p in self.config.providers.values() if p.max_cost_usd}
        if self._ledger is None and (self.max_cost or caps):
            self._ledger = CostLedger(ledger_path(self.run_id, self.invocation), run_cap=self.max_cost,
                                      provider_caps=caps, spent_before=self.spent_before)
        return self._ledger

    def in_flight(self) -> dict[str, int]:
        """Requests in flight in this process, per model."""
        counts: dict[str, int] = defaultdict(int)
        for client in self._clients.values():
            counts[client.model.name] += client.in_flight
        return dict(counts)

    def secret_env_names(self) -> list[str]:
        """The variables that hold this config's API keys (kept out of the servers we start)."""
        return sorted({p.api_key_env for p in self.config.providers.values() if p.api_key_env})

    def close(self) -> None:
        """Stop asking ahead (requests still waiting for their turn are not sent), close this process's
        clients (their connection pools) and, on the controller, remove the cost ledger."""
        for lane in self._lanes.values():
            lane.close()
        if self.prefetcher is not None:
            self.prefetcher.stop()
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            client.close()
        ledger = self.ledger() if self.controller else None
        if ledger is not None:
            ledger.remove()
        if self.store is None and self._run_lock is not None and self._run_lock.is_locked:
            self._run_lock.release()  # a resume that recorded nothing (the store releases it otherwise)

    # -- results (controller) ---------------------------------------------------------------------
    def open_store(self) -> RunStore:
        if self.store is None:
            self.store = RunStore(self.out_dir, self.run_id, lock=self._run_lock)
            self.store.write_meta(self.meta())  # so `crucible report` rebuilds the same report after a crash
        return self.store

    def record(self, row: Row, data: dict | None = None) -> None:
        """Keep a finished row and append it to rows.jsonl; `data`: its `to_dict()`, when the caller has it."""
        self.rows.append(row)
        self.open_store().append(row, data)

    def meta(self) -> dict:
        return {
            "run_id": self.run_id,
            "crucible_version": __version__,
            "models": {m.name: self._model_meta(m) for m in self.models},
            "profile": self.profile_name,
            "repeats": self.repeats,
            "seed": self.seed if self.seed is not None else DEFAULT_SEED,
            "config": str(self.config.path) if self.config.path else None,
            "host": platform.node(),
            "pid": os.getpid(),
            **self.flags,
        }

    @staticmethod
    def _model_meta(model: ModelSpec) -> dict:
        meta: dict[str, object] = {"model_id": model.model_id,
                                   "provider": model.provider.name if model.provider else "local"}
        if model.launch:
            meta["local"] = local_model_meta(model)  # GGUF size, quant, parameters: the report header
        return meta


def _check_share(models: list[ModelSpec], share: float) -> None:
    """A shard's share of a provider must allow one request in flight, or N shards would pass its limit."""
    for model in models:
        if model.provider is not None and not model.launch and model.provider.concurrency < 1:
            raise InputError(f"provider {model.provider.name}: a shard's share ({share:g}) of its concurrency is "
                             "less than one request: raise its concurrency, run fewer shards, or give "
                             "--crucible-shard-share=1 when every machine has an endpoint of its own")


@contextmanager
def judge_from_config(name: str, config_path: str | None = None, log: Callable[[str], None] = print):
    """The judge of a command outside a pytest run (`crucible pairwise`, `crucible cases verify --judge`): a
    model from models.yaml asked through a session's clients; a launched local model is leased, and its
    server stopped at the end."""
    session = RunSession(models=name, config_path=config_path, judge=name)
    judge = session.settings.judge
    leases = None
    if judge.model.launch:
        leases = LeaseManager(run_id=session.run_id, log=log, secret_env_names=session.secret_env_names())

        def local_endpoint(model):
            server = leases.server_for(model)
            return server.base_url, server.api_key
        session.local_endpoint = local_endpoint
    try:
        yield judge
    finally:
        session.close()
        if leases is not None:
            leases.close()
