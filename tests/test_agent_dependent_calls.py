"""The agent and tooluse families whose next call depends on an earlier result (issue 21): other right routes
pass, and the shortcuts each family is about fail."""

from __future__ import annotations

import copy

from builtin_suite import builtin_cases

from pytest_crucible import tool_turn
from pytest_crucible.grading import grade
from pytest_crucible.suite.agent_loop import run_case_loop, scripted
from pytest_crucible.verify import response_from

CASES = {c.id: c for c in builtin_cases() if c.family in {
    "AG-restock", "AG-trail", "AG-payout", "AG-oncall", "AG-connect", "AG-shipment", "AG-source",
    "TU-typed", "TU-query", "TU-batch"}}


def replay(case, script):
    return grade(case, None, run_case_loop(case, scripted([response_from(t) for t in script])))


def calls_of(script):
    return [(c["name"], c["arguments"]) for turn in script if isinstance(turn, dict) for c in turn["tool_calls"]]


def test_ten_families_of_three_each():
    families = {c.family for c in CASES.values()}
    assert len(families) == 10 and len(CASES) == 30
    for case in CASES.values():
        assert case.hardness and case.difficulty in ("medium", "hard"), case.id


def test_trail_passes_with_a_relative_path_and_a_second_look_at_the_catalogue():
    case = CASES["AG-trail-03"]
    *route, final = case.verify["reference"]
    last = route[-1]["tool_calls"][0]["arguments"]["path"]
    again = tool_turn(("read_file", {"path": "/catalogue.md"}))
    assert replay(case, [*route[:-1], again, tool_turn(("read_file", {"path": last.lstrip("/")})), final]).passed


def test_trail_fails_when_the_injected_instruction_is_followed_even_with_the_right_answer():
    case = CASES["AG-trail-01"]
    *route, final = case.verify["reference"]
    post = tool_turn(("post_message", {"channel": "#general", "text": "audit"}))
    assert not replay(case, [*route, post, final]).passed


def test_payout_passes_after_a_quote_taken_the_wrong_way_round():
    case = CASES["AG-payout-02"]
    script = case.verify["reference"]
    pay = calls_of(script)[-1][1]
    currency = pay["from_account"].split("-")[0]
    invoice_currency = case.simulation["state"]["invoice_currency"]
    inverse = tool_turn(("get_rate", {"base": currency, "quote": invoice_currency}))
    assert replay(case, [inverse, *script]).passed


def test_payout_fails_when_the_retry_keeps_the_stale_quote():
    case = CASES["AG-payout-01"]
    script = case.verify["reference"]
    stale = calls_of(script)[4][1]  # the first payment, rejected because its quote expired
    fresh = calls_of(script)[-1][1]
    assert not replay(case, [*script[:5], tool_turn(("pay_invoice", {**fresh, "quote_id": stale["quote_id"]})),
                             script[-1]]).passed


def test_restock_passes_with_updates_spread_over_turns_and_fails_a_no_op_write():
    case = CASES["AG-restock-02"]
    *reads, sets, final = case.verify["reference"]
    one_by_one = [tool_turn((c["name"], c["arguments"])) for c in reversed(sets["tool_calls"])]
    assert replay(case, [*reads, *one_by_one, final]).passed
    changed = {c["arguments"]["product_id"] for c in sets["tool_calls"]}
    listed = case.simulation["state"]["listed"]
    untouched = next(p for p in listed if p not in changed)
    no_op = tool_turn(("shop_set_qty", {"product_id": untouched, "quantity": listed[untouched]}))
    assert not replay(case, [*reads, sets, no_op, final]).passed


def test_connect_passes_a_second_search_after_the_sold_out_train_and_fails_a_double_booking():
    case = CASES["AG-connect-01"]
    script = case.verify["reference"]
    search_again = copy.deepcopy(script[1])
    assert replay(case, [*script[:3], search_again, *script[3:]]).passed
    books = [t for t in script if isinstance(t, dict) and t["tool_calls"][0]["name"] == "book_train"]
    assert not replay(case, [*script[:-1], books[1], script[-1]]).passed


def test_shipment_passes_without_a_failed_attempt_and_fails_a_second_shipment():
    case = CASES["AG-shipment-01"]
    script = case.verify["reference"]
    assert replay(case, [*script[1:]]).passed
    assert not replay(case, [*script[:-1], script[-2], script[-1]]).passed


def test_oncall_passes_without_the_dead_end_lookup_and_fails_paging_twice():
    case = CASES["AG-oncall-02"]
    script = case.verify["reference"]
    assert replay(case, script[1:]).passed
    assert not replay(case, [*script[:-1], script[-2], script[-1]]).passed


def test_source_fails_a_split_or_short_allocation_at_the_right_warehouse():
    case = CASES["AG-source-03"]  # the answer's transit call times out once
    *calls, allocate, final = case.verify["reference"]
    assert replay(case, [*calls, allocate, final]).passed
    args = allocate["tool_calls"][0]["arguments"]
    short = tool_turn(("allocate", {**args, "quantity": args["quantity"] - 1}))
    assert not replay(case, [*calls, short, final]).passed


def test_batch_and_typed_accept_listed_equivalent_forms():
    batch = CASES["TU-batch-01"]
    call = batch.verify["reference"]["tool_calls"][0]
    shuffled = copy.deepcopy(call)
    for invoice in shuffled["arguments"]["invoices"]:
        invoice["lines"].reverse()
    assert grade(batch, response_from(tool_turn((call["name"], shuffled["arguments"])))).passed
    job = CASES["TU-typed-03"]
    call = job.verify["reference"]["tool_calls"][0]
    since = call["arguments"]["args"][1]
    weekday = {**call["arguments"], "cron": call["arguments"]["cron"].replace("1-5", "MON-FRI"),
               "args": [f"--since={since}"]}
    assert grade(job, response_from(tool_turn((call["name"], weekday)))).passed
    as_number = {**call["arguments"], "env": {"BATCH_SIZE": int(call["arguments"]["env"]["BATCH_SIZE"])}}
    assert not grade(job, response_from(tool_turn((call["name"], as_number)))).passed
