"""Agent: pay the approved vendor invoices through a payments API whose errors say how to retry (AG-idempotent).

A simulated payments API (a Python handler). list_due_payouts gives the prompt's payment run (each sibling its
own): five invoices (one on hold) by vendor name; find_vendor gives the account id (one vendor changed bank: its
closed account is listed first). Every create_transfer carries an idempotency key the caller chooses. One transfer
answers a gateway timeout that says the transfer may or may not exist: the only safe retry reuses the same key,
which replays the transfer if it was made (siblings 1 and 3) or makes it now (sibling 2); a new key pays twice.
Another transfer is rate limited with a retry-after in seconds: retried before wait() has let that time pass, it is
refused again. A key reused for a different transfer is refused. The report names each paid invoice's transfer id,
which for the timed-out one is known only from the retry's answer. Traps: a fresh key on retry (a double payment),
the timed-out invoice reported as failed, paying the invoice on hold or to the closed account, amounts in units
instead of cents.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-idempotent"
VENDORS = ["Halvorsen Print", "Cobalt Courier", "Marigold Catering", "Ironbark Security", "Lumen Cleaning",
           "Petrel IT Services", "Saffron Events", "Tidewater Freight"]
RETRY_AFTER = {1: 30, 2: 45, 3: 20}

TOOLS = [
    function_tool("list_due_payouts", "A payment run's vendor invoices due for payment: invoice, vendor, amount "
                  "in EUR, status (approved or on hold).",
                  {"run": {"type": "string", "description": "the payment run id, e.g. PR-1234"}}, ["run"]),
    function_tool("find_vendor", "Vendor accounts whose name contains the text: vendor id, name, IBAN ending, "
                  "status (active or closed).", {"name": {"type": "string"}}, ["name"]),
    function_tool("create_transfer", "Send a bank transfer to a vendor. Requests with an idempotency key already "
                  "used return the original transfer instead of creating another.",
                  {"vendor_id": {"type": "string"}, "amount_cents": {"type": "integer", "minimum": 1},
                   "reference": {"type": "string", "description": "the invoice number"},
                   "idempotency_key": {"type": "string", "minLength": 1}},
                  ["vendor_id", "amount_cents", "reference", "idempotency_key"]),
    function_tool("wait", "Pause before the next request.", {"seconds": {"type": "integer", "minimum": 1}},
                  ["seconds"]),
]


def _create(state: dict, key: str, params: dict) -> dict:
    vendor = params["vendor_id"]
    paid = state["paid"].setdefault(vendor, [])
    tid = state["ids"][vendor] + ("" if not paid else f"-{len(paid) + 1}")
    paid.append(params["amount_cents"])
    state["created"][key] = tid
    return {"transfer_id": tid, "status": "created", "amount_cents": params["amount_cents"]}


def handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "list_due_payouts":
        if str(arguments.get("run", "")).strip().upper() != state["run"]:
            return {"error": f"no payment run {arguments.get('run')!r}"}
        return {"result": state["payouts"]}
    if name == "find_vendor":
        text = " ".join(str(arguments.get("name", "")).lower().split())
        return {"result": [v for v in state["vendors"] if len(text) >= 3 and text in v["name"].lower()]}
    if name == "wait":
        seconds = arguments.get("seconds")
        if not isinstance(seconds, int) or isinstance(seconds, bool) or seconds < 1:
            return {"error": "seconds must be a whole number, 1 or more"}
        state["clock"] += seconds
        return {"result": f"waited {seconds} s"}
    vendor = str(arguments.get("vendor_id", "")).strip().upper()
    if vendor in state["closed"]:
        return {"error": f"vendor account {vendor} is closed"}
    if vendor not in state["ids"]:
        return {"error": f"no vendor {arguments.get('vendor_id')!r}"}
    amount, key = arguments.get("amount_cents"), str(arguments.get("idempotency_key", "")).strip()
    if not isinstance(amount, int) or isinstance(amount, bool) or amount < 1 or not key:
        return {"error": "amount_cents must be a positive whole number and idempotency_key must be given"}
    params = {"vendor_id": vendor, "amount_cents": amount, "reference": str(arguments.get("reference", "")).strip()}
    if key in state["keys"] and state["keys"][key] != params:
        return {"error": f"idempotency key {key!r} was already used for a different transfer"}
    state["keys"][key] = params
    if key in state["created"]:
        return {"result": {"transfer_id": state["created"][key], "status": "created", "replayed": True}}
    fault = state["faults"].get(vendor)
    if fault == "rate":
        ready = state["ready"].setdefault(vendor, state["clock"] + state["retry_after"])
        if state["clock"] < ready:
            return {"error": f"429 too many requests: retry after {ready - state['clock']} seconds"}
    if fault in ("timeout", "timeout_applied") and vendor not in state["timed_out"]:
        state["timed_out"].append(vendor)
        if fault == "timeout_applied":
            _create(state, key, params)
        return {"error": "504 gateway timeout: the transfer may or may not have been created. Retry with the same "
                         "idempotency_key to find out; a new key may pay twice."}
    return {"result": _create(state, key, params)}


def _world(number: int, rng: random.Random) -> dict:
    names = rng.sample(VENDORS, 5)
    vendor_ids = [f"V-{n}" for n in rng.sample(range(100, 1000), 6)]
    rows = []
    for name, vid in zip(names, vendor_ids):
        cents = rng.randint(40_000, 2_500_000)
        rows.append({"invoice": f"INV-{rng.randint(10000, 99999)}", "vendor_id": vid,
                     "vendor": name, "amount_eur": f"{cents // 100:,}.{cents % 100:02d}", "cents": cents,
                     "status": "approved"})
    hold, timeout, rate = rng.sample(range(5), 3)
    rows[hold]["status"] = "on hold"
    faults = {rows[timeout]["vendor_id"]: "timeout" if number == 2 else "timeout_applied",
              rows[rate]["vendor_id"]: "rate"}
    ids = {r["vendor_id"]: f"TR-{rng.randint(10**6, 10**7 - 1)}" for r in rows}
    vendors = [{"vendor_id": r["vendor_id"], "name": r["vendor"], "iban_ending": f"{rng.randint(0, 9999):04d}",
                "status": "active"} for r in rows]
    moved = rng.choice([i for i in range(5) if i != hold])  # this vendor changed bank: its old account comes first
    closed = {"vendor_id": vendor_ids[5], "name": rows[moved]["vendor"], "iban_ending": f"{rng.randint(0, 9999):04d}",
              "status": "closed"}
    vendors.insert(moved, closed)
    return {"rows": rows, "hold": hold, "timeout": timeout, "rate": rate, "faults": faults, "ids": ids,
            "vendors": vendors, "closed": closed["vendor_id"], "moved": moved}


SOLVER = """
import json
from decimal import Decimal
ROWS, IDS, VENDORS = {rows!r}, {ids!r}, {vendors!r}
# every approved invoice paid once, to the vendor's active account, in cents read from the decimal amount; its
# transfer id is that account's
paid, values = {{}}, {{}}
for row in ROWS:
    if row["status"] != "approved":
        values["Skipped:"] = row["invoice"]
        continue
    [account] = [v["vendor_id"] for v in VENDORS if v["name"] == row["vendor"] and v["status"] == "active"]
    cents = int(Decimal(row["amount_eur"].replace(",", "")) * 100)
    paid[account] = [cents]
    values[row["invoice"] + ":"] = IDS[account]
print(json.dumps({{"values": values, "state": {{"paid": paid}}}}))
"""


def _case(number: int, rng: random.Random, run: str) -> dict:
    w = _world(number, rng)
    rows, ids = w["rows"], w["ids"]
    payable = [r for i, r in enumerate(rows) if i != w["hold"]]
    prompt = (
        f"Pay every approved vendor invoice due in payment run {run}, through the payments tools: one transfer per "
        "invoice, for its amount in cents, with the invoice number as the reference. Do not pay invoices on hold. "
        "Give every new transfer its own idempotency key (any unique string), and when you retry a transfer, reuse "
        "the key of that transfer. Follow what the API's errors say.\n\nFinish with one line per paid invoice, "
        "<invoice>: <transfer id>, and then one line: Skipped: <the invoice you did not pay>"
    )
    args = {r["vendor_id"]: {"vendor_id": r["vendor_id"], "amount_cents": r["cents"], "reference": r["invoice"],
                             "idempotency_key": f"pay-{r['invoice'].lower()}"} for r in payable}
    pay = lambda r, **change: tool_turn(("create_transfer", {**args[r["vendor_id"]], **change}))  # noqa: E731
    listing = tool_turn(("list_due_payouts", {"run": run}))
    find = lambda r: tool_turn(("find_vendor", {"name": r["vendor"]}))  # noqa: E731
    timeout_row, rate_row, hold_row = rows[w["timeout"]], rows[w["rate"]], rows[w["hold"]]
    wait = tool_turn(("wait", {"seconds": RETRY_AFTER[number]}))
    script = [listing]
    for r in payable:
        script += [find(r), pay(r)]
        if r is timeout_row:
            script.append(pay(r))
        if r is rate_row:
            script += [wait, pay(r)]
    lines = "\n".join(f"{r['invoice']}: {ids[r['vendor_id']]}" for r in payable)
    answer = f"{lines}\nSkipped: {hold_row['invoice']}"
    values = {f"{r['invoice']}:": ids[r["vendor_id"]] for r in payable} | {"Skipped:": hold_row["invoice"]}
    calls = [{"name": "create_transfer", "arguments": {k: v for k, v in a.items() if k != "idempotency_key"}}
             for a in args.values()]
    fresh = [s if s is not script[script.index(pay(timeout_row)) + 1] else pay(timeout_row, idempotency_key="retry-1")
             for s in script]
    gave_up = [s for i, s in enumerate(script) if not (i > 0 and s == script[i - 1] == pay(timeout_row))]
    failed_answer = answer.replace(f"{timeout_row['invoice']}: {ids[timeout_row['vendor_id']]}",
                                   f"{timeout_row['invoice']}: failed (timeout)")
    units = [s if not (s.get("tool_calls") and s["tool_calls"][0]["name"] == "create_transfer") else
             tool_turn(("create_transfer", {**s["tool_calls"][0]["arguments"],
                                            "amount_cents": s["tool_calls"][0]["arguments"]["amount_cents"] // 100}))
             for s in script]
    hold_pay = tool_turn(("create_transfer", {"vendor_id": hold_row["vendor_id"], "amount_cents": hold_row["cents"],
                                              "reference": hold_row["invoice"], "idempotency_key": "pay-hold"}))
    no_wait = [s for s in script if s is not wait]
    moved_row = rows[w["moved"]]
    at = script.index(pay(moved_row))
    closed_first = [*script[:at], pay(moved_row, vendor_id=w["closed"], idempotency_key="pay-old"), *script[at:]]
    swapped = payable[0]["invoice"], payable[1]["invoice"]
    steps = len(script)
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # the listing, a transfer per approved invoice, the same-key retry after the timeout, the wait and the
        # retry after the rate limit; traps: a new key on retry, the timeout reported as failed, the held invoice
        **ruled(steps, 1, 3),
        "title": "Pay approved invoices once each through timeouts and rate limits, reusing idempotency keys",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 8192,
        "simulation": {"handler": handler, "max_turns": 24,
                       "state": {"run": run,
                                 "payouts": [{k: v for k, v in r.items() if k not in ("cents", "vendor_id")}
                                             for r in rows], "ids": ids, "vendors": w["vendors"],
                                 "closed": [w["closed"]],
                                 "faults": w["faults"], "retry_after": RETRY_AFTER[number], "clock": 0, "ready": {},
                                 "keys": {}, "created": {}, "timed_out": [], "paid": {}}},
        "grader": {"type": "trace", "calls": calls, "repeats": True, "limit_to_required": ["create_transfer"],
                   "state": {"paid": {r["vendor_id"]: [r["cents"]] for r in payable}},
                   "answer": {"values": values, "decoys": ["failed"]}},
        "notes": (f"{len(payable)} transfers in cents from decimal amounts; {timeout_row['invoice']} times out "
                  + ("after the transfer was made (a same-key retry replays it and gives its id; a new key pays "
                     "twice)" if number != 2 else "before the transfer was made (a same-key retry makes it; a new "
                     "key breaks the retry rule)")
                  + f"; {rate_row['invoice']} is rate limited for {RETRY_AFTER[number]} s (retrying before wait() "
                    f"is refused again); {hold_row['invoice']} is on hold; {moved_row['vendor']}'s closed account is "
                    f"listed first. {steps} calls, each transfer after its vendor lookup, each retry after its error. "
                    "Why a strong 30B model fails: after a timeout models mint a new key or report a failure, and "
                    "after a 429 they retry at once; each is one slip among a dozen calls."),
        "verify": {"solver": SOLVER.format(rows=[{k: v for k, v in r.items() if k not in ("cents", "vendor_id")}
                                                 for r in rows], ids=ids, vendors=w["vendors"]),
                   "reference": [*script, f"All approved invoices are paid.\n\n{answer}"],
                   "wrong": [
                       ["I'm sorry, I can't send payments."],
                       [*fresh, answer],
                       [*gave_up, failed_answer],
                       [*script, hold_pay, answer],
                       [*units, answer],
                       [*no_wait, answer],
                       [*closed_first, answer],
                       [*script, answer.replace(f"{swapped[0]}:", "@@").replace(f"{swapped[1]}:", f"{swapped[0]}:")
                        .replace("@@", f"{swapped[1]}:")],
                   ]},
    }


def cases(seed: int) -> list[dict]:
    runs = random.Random(f"{FAMILY}:{seed}:runs").sample(range(1000, 10000), 3)  # one per sibling
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}"), f"PR-{runs[n - 1]}") for n in range(1, 4)]
