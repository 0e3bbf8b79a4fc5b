"""The scheduler's parts without pytest: provider lanes (slots, rate limits), the cost ledger, asking ahead."""

from __future__ import annotations

import threading
import time

import pytest
from loopback import Reply

from pytest_crucible.client.chat import ChatClient
from pytest_crucible.common.errors import CostCapReached
from pytest_crucible.common.filelocks import SlotPool
from pytest_crucible.engine.config import ModelSpec, Provider
from pytest_crucible.engine.scheduler import (
    CostLedger,
    LaneClosed,
    Prefetcher,
    ProviderLane,
    ScheduledClient,
    Upcoming,
)
from pytest_crucible.engine.session import RunSession


@pytest.fixture(autouse=True)
def private_locks(tmp_path, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_LOCK_DIR", str(tmp_path / "locks"))


def test_slots_are_shared_by_every_pool_of_the_same_name():
    mine, theirs = SlotPool("http://x/v1", 2), SlotPool("http://x/v1", 2)   # as if in two processes
    assert mine.try_take() == 0 and theirs.try_take() == 1
    assert mine.try_take() is None and theirs.try_take() is None
    theirs.give_back(1)
    assert mine.try_take() == 1 and mine.held == 2
    assert SlotPool("http://other/v1", 2).try_take() == 0


def test_a_slot_this_process_gave_back_is_tried_first():
    """Another process's slots are not tried one by one for every request: the slot given back last is."""
    mine, theirs = SlotPool("http://z/v1", 40), SlotPool("http://z/v1", 40)
    assert [theirs.try_take() for _ in range(30)] == list(range(30))
    assert [mine.try_take() for _ in range(3)] == [30, 31, 32]
    mine.give_back(30)
    mine.give_back(32)
    tried = []
    take = mine._lock
    mine._lock = lambda index: tried.append(index) or take(index)
    assert mine.try_take() == 32 and tried == [32]
    assert mine.try_take() == 30 and tried == [32, 30]
    assert mine.try_take() == 33   # none given back left: the first free one
    theirs.give_back(5)
    assert mine.try_take() == 5


def test_processes_that_split_the_slots_take_their_own_block_first():
    """xdist's workers each hold a block of the provider's slots: in steady state no lock call meets a slot
    another process holds; a slot is borrowed from another block only by a scan, and `within` (a lowered
    limit) keeps to the first slots of every block."""
    first, second = (SlotPool("http://w/v1", 6, share=3, index=i) for i in (0, 1))
    tried = []
    take = second._lock
    second._lock = lambda index: tried.append(index) or take(index)
    assert [first.try_take() for _ in range(3)] == [0, 1, 2]
    assert [second.try_take() for _ in range(3)] == [3, 4, 5] and tried == [3, 4, 5]
    assert first.try_take(scan=False) is None and first.try_take() is None   # every slot held
    second.give_back(4)
    assert first.try_take(scan=False) is None   # its own recent slots and block only
    assert first.try_take() == 4   # a scan borrows the other block's
    first.give_back(0)
    first.give_back(4)
    assert first.try_take(within=1) == 0 and first.try_take(within=1) is None   # 4 is 2nd of its block
    assert SlotPool("http://v/v1", 5, share=3, index=1).home == range(3, 5)


def test_each_process_of_a_run_takes_its_own_block_of_a_providers_slots_first(tmp_path):
    (tmp_path / "models.yaml").write_text("providers:\n  p: {base_url: 'http://127.0.0.1:9/v1', concurrency: 9}\n"
                                          "models:\n  - {name: m, provider: p, model_id: m}\n")
    lanes = []
    for index in range(2):
        session = RunSession(models="m", config_path=str(tmp_path / "models.yaml"), out_dir=str(tmp_path / "out"),
                             controller=False, run_id="r", processes=(index, 2))
        lanes.append(session.client_for(session.model("m")).lane)
    assert [lane.capacity for lane in lanes] == [9, 9]   # the 9 slots keep the total
    assert [lane.slots.home for lane in lanes] == [range(0, 5), range(5, 9)]


def test_lane_never_exceeds_its_concurrency_across_pools():
    lanes = [ProviderLane("p", 3, slots=SlotPool("http://y/v1", 3)) for _ in range(2)]
    busy, peak, lock = [0], [0], threading.Lock()

    def request(lane):
        slot, _ = lane.acquire()
        with lock:
            busy[0] += 1
            peak[0] = max(peak[0], busy[0])
        time.sleep(0.02)
        with lock:
            busy[0] -= 1
        lane.release(slot, ok=True)

    threads = [threading.Thread(target=request, args=(lanes[i % 2],)) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == 3


def test_rate_limit_halves_once_per_round_and_success_climbs_back():
    notes = []
    lane = ProviderLane("p", 8, log=notes.append)
    held = [lane.acquire()[0] for _ in range(3)]       # three requests of the same round
    lane.throttled(429, None)
    lane.throttled(429, None)                          # the same round: no second halving
    assert lane.limit == 4
    lane.throttled(500, None)                          # not a rate limit
    assert lane.limit == 4
    for slot in held:
        lane.release(slot, ok=True)
    climbed = 4 + 1 / 4
    climbed += 1 / climbed
    climbed += 1 / climbed
    assert lane.limit == pytest.approx(climbed)        # additive increase: +1/limit per success
    lane.acquire()
    lane.throttled(503, None)                          # a new round: halved again
    assert lane.limit == pytest.approx(climbed / 2)
    assert notes == ["provider p is rate-limiting (HTTP 429): at most 4 requests at once now (was 8); "
                     "not counted against the model"]


def test_a_closed_lane_sends_nothing_more():
    lane = ProviderLane("p", 1)
    slot, _ = lane.acquire()
    failed = []
    waiting = threading.Thread(target=lambda: failed.append(pytest.raises(LaneClosed, lane.acquire)))
    waiting.start()
    time.sleep(0.05)
    lane.close()
    waiting.join(2)
    assert failed and not waiting.is_alive() and lane.in_flight == 1


def test_retry_after_pauses_every_new_request():
    lane = ProviderLane("p", 4)
    lane.throttled(429, 0.3)
    started = time.monotonic()
    slot, paused = lane.acquire()
    assert time.monotonic() - started >= 0.29 and paused >= 0.29


def test_ledger_books_the_worst_case_and_refuses_past_the_cap(tmp_path):
    ledger = CostLedger(str(tmp_path / "cost.json"), run_cap=0.01, provider_caps={"b": 0.0004},
                        spent_before={"a": 0.004})
    other = CostLedger(str(tmp_path / "cost.json"), run_cap=0.01, provider_caps={},
                       spent_before={"a": 0.004})   # another process of the run
    booked = ledger.reserve("a", 0.003)
    other.reserve("a", 0.002)
    with pytest.raises(CostCapReached, match=r"^cost cap \$0.01 reached$"):
        ledger.reserve("a", 0.002)                  # 0.004 before + 0.005 booked + 0.002 > 0.01
    ledger.settle("a", booked, 0.001)               # it cost less than its worst case
    assert ledger.reserve("a", 0.002) == 0.002
    with pytest.raises(CostCapReached, match=r"^cost cap \$0.0004 reached for provider b$"):
        ledger.reserve("b", 0.0005)                 # within the run's cap, past provider b's
    assert ledger.reserve("free", 0.0) == 0.0       # a free request is never refused
    assert other.spent() == pytest.approx(0.005)


def test_scheduled_client_records_cost_and_pause(loopback, tmp_path):
    loopback.script(default=Reply("Answer: 1"))
    model = ModelSpec("m", "loopback-model", Provider("p", loopback.base_url), price_input=100, price_output=100)
    ledger = CostLedger(str(tmp_path / "c.json"), run_cap=1.0, provider_caps={})
    lane = ProviderLane("p", 2)
    with ChatClient(loopback.base_url, model_id="loopback-model") as chat:
        client = ScheduledClient(chat, model, lane, ledger)
        lane.throttled(429, 0.2)
        started = time.monotonic()
        response = client.chat([{"role": "user", "content": "hi"}], max_tokens=8)
    # the pause counts from when the request asked for its turn (after booking its cost)
    assert 0.1 < response.waits_s <= 0.21 and time.monotonic() - started >= 0.19
    assert ledger.spent() == pytest.approx(model.cost(response.usage.prompt_tokens, response.usage.completion_tokens))
    assert ledger._read()["reserved"]["p"] == pytest.approx(0.0)


def test_prefetcher_asks_in_order_within_windows_and_never_past_an_exclusive_item():
    asked = []
    release = threading.Event()

    def entry(key, lane="p", exclusive=False):
        def ask(item):
            asked.append(item)
            release.wait(5)
            return item.upper()
        return Upcoming(key, lane, exclusive, lambda: (key, ask))

    items = [entry("a"), entry("b", lane=None), entry("c"), entry("d"), entry("e", exclusive=True), entry("f")]
    prefetcher = Prefetcher({"p": 2}, threads=1)
    assert prefetcher.advance(items) == 2            # a and c: the window is 2; b is never asked ahead
    assert prefetcher.take("b") is None
    item, future = prefetcher.take("a")
    release.set()
    assert (item, future.result(5)) == ("a", "A")
    assert prefetcher.advance(items[1:]) == 1        # d fits now; e is exclusive: nothing after it
    assert prefetcher.take("c")[1].result(5) == "C" and prefetcher.take("d")[1].result(5) == "D"
    assert prefetcher.advance(items[5:]) == 1         # once e ran, f is next
    prefetcher.stop()
    assert prefetcher.advance([entry("g")]) == 0
    assert asked[:3] == ["a", "c", "d"]


def test_stop_cancels_what_has_not_started():
    gate = threading.Event()
    started = []

    def slow(item):
        started.append(item)
        gate.wait(5)

    prefetcher = Prefetcher({"p": 4}, threads=1)
    prefetcher.advance([Upcoming(k, "p", False, lambda k=k: (k, slow)) for k in "wxyz"])
    time.sleep(0.1)
    prefetcher.stop()
    gate.set()
    time.sleep(0.1)
    assert started == ["w"]                          # x, y, z were queued: never run
