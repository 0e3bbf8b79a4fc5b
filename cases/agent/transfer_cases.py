"""Agent: a stock transfer between warehouses where a failed step must be compensated by releasing what was
reserved (family AG-transfer).

A simulated inventory system (a Python handler). The user wants a quantity of one SKU moved to a destination
warehouse, sourced from the first warehouse in a stated order that can do it: stock is reserved at the source,
then a transport is booked for that reservation, then the transfer is created from both. Booking can fail (the
carrier has no capacity on that lane); then the reservation must be released (it would otherwise hold the stock
for days) before the next source is tried. Siblings: the first source's lane is closed (one release); the first
source is short of stock (no reservation there; a partial reservation is refused) and the second's lane is
closed; the first two lanes are closed (two releases). The state must end with no reservation held and one
transfer from the right source. Traps: a reservation left held after the failed booking, the short source reserved
anyway, stock adjusted directly (forbidden), the first source reported, the kept reservation counted as released.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-transfer"
SITES = ["WH-AMS", "WH-ROT", "WH-ANT", "WH-DUI", "WH-LIL", "WH-CGN"]
SKUS = ["PAL-CHAIR-BLK", "DESK-160-OAK", "LAMP-LED-02", "SHELF-90-WHT"]
WH = {"type": "string"}

TOOLS = [
    function_tool("get_stock", "Units of a SKU available (not reserved) at a warehouse.",
                  {"warehouse": WH, "sku": {"type": "string"}}, ["warehouse", "sku"]),
    function_tool("reserve_stock", "Hold units of a SKU at a warehouse; returns a reservation id.",
                  {"warehouse": WH, "sku": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1}},
                  ["warehouse", "sku", "quantity"]),
    function_tool("release_reservation", "Release a held reservation, returning its units to stock.",
                  {"reservation_id": {"type": "string"}}, ["reservation_id"]),
    function_tool("book_transport", "Book a truck for a reservation's units to a destination warehouse.",
                  {"reservation_id": {"type": "string"}, "destination": WH}, ["reservation_id", "destination"]),
    function_tool("create_transfer", "Create the transfer from a reservation and its booked transport.",
                  {"reservation_id": {"type": "string"}, "transport_id": {"type": "string"}},
                  ["reservation_id", "transport_id"]),
    function_tool("adjust_stock", "Correct a warehouse's stock count directly (inventory audits only).",
                  {"warehouse": WH, "sku": {"type": "string"}, "delta": {"type": "integer"}},
                  ["warehouse", "sku", "delta"]),
]


def _code(value) -> str:
    return " ".join(str(value or "").split()).upper()


def handler(name: str, arguments: dict, state: dict) -> dict:
    answer = _handle(name, arguments, state)
    state["held"] = sorted(rid for rid, r in state["reservations"].items() if r["status"] == "held")
    return answer


def _handle(name: str, arguments: dict, state: dict) -> dict:
    res = state["reservations"]
    if name in ("get_stock", "reserve_stock", "adjust_stock"):
        wh, sku = _code(arguments.get("warehouse")), _code(arguments.get("sku"))
        if wh not in state["stock"]:
            return {"error": f"unknown warehouse {arguments.get('warehouse')!r}"}
        if sku != state["sku"]:
            return {"error": f"no SKU {arguments.get('sku')!r} at {wh}"}
        held = sum(r["quantity"] for r in res.values() if r["warehouse"] == wh and r["status"] == "held")
        free = state["stock"][wh] - held
        if name == "get_stock":
            return {"result": {"warehouse": wh, "sku": sku, "available": free}}
        if name == "adjust_stock":
            state["adjusted"] = True
            return {"result": "stock corrected"}
        qty = arguments.get("quantity")
        if not isinstance(qty, int) or qty > free:
            return {"error": f"cannot reserve {qty} units: only {free} available at {wh}"}
        rid = state["rsv_ids"][len(res)]
        res[rid] = {"warehouse": wh, "quantity": qty, "status": "held"}
        return {"result": {"reservation_id": rid, "warehouse": wh, "quantity": qty, "status": "held",
                           "note": "held until released or used by a transfer"}}
    rid = _code(arguments.get("reservation_id"))
    if rid not in res:
        return {"error": f"no reservation {arguments.get('reservation_id')!r}"}
    r = res[rid]
    if name == "release_reservation":
        if r["status"] != "held":
            return {"error": f"{rid} is {r['status']}, not held"}
        r["status"] = "released"
        return {"result": f"{rid} released; {r['quantity']} units back in stock at {r['warehouse']}"}
    if name == "book_transport":
        dest = _code(arguments.get("destination"))
        if r["status"] != "held":
            return {"error": f"{rid} is {r['status']}"}
        if dest != state["dest"]:
            return {"error": f"destination {arguments.get('destination')!r} is not the one this request needs"}
        if r["warehouse"] in state["closed"]:
            return {"error": f"no carrier capacity from {r['warehouse']} to {dest} for the next 10 days"}
        tid = state["trp_ids"][len(state["transports"])]
        state["transports"][tid] = rid
        return {"result": {"transport_id": tid, "reservation_id": rid, "from": r["warehouse"], "to": dest}}
    tid = _code(arguments.get("transport_id"))
    if state["transports"].get(tid) != rid or r["status"] != "held":
        return {"error": "the transport does not belong to a held reservation"}
    if state["transfer"] is not None:
        return {"error": "a transfer for this request already exists"}
    r["status"] = "used"
    state["transfer"] = {"id": state["xfer_id"], "source": r["warehouse"], "quantity": r["quantity"]}
    return {"result": {"transfer_id": state["xfer_id"], "from": r["warehouse"], "to": state["dest"],
                       "quantity": r["quantity"]}}


SOLVER = """
import json
ORDER, STOCK, CLOSED, QTY, RSV, XFER = {order!r}, {stock!r}, {closed!r}, {qty!r}, {rsv!r}, {xfer!r}
# run the stated policy over the sources: skip a short one, reserve, release when the lane is closed
used, released = 0, []
for wh in ORDER:
    if STOCK[wh] < QTY:
        continue
    rid = RSV[used]
    used += 1
    if wh in CLOSED:
        released.append(rid)
        continue
    print(json.dumps({{"values": {{"Transfer:": XFER, "Source:": wh, "Released:": len(released)}},
                      "state": {{"held": [], "transfer": {{"id": XFER, "source": wh, "quantity": QTY}}}}}}))
    break
"""


def _case(number: int, rng: random.Random) -> dict:
    order = rng.sample(SITES, 4)
    dest, sources = order[0], order[1:]
    sku, qty = rng.choice(SKUS), rng.randint(8, 40) * 10
    stock = {wh: qty + rng.randint(1, 30) * 10 for wh in sources}
    stock[dest] = rng.randint(0, 50)
    if number == 1:
        closed = [sources[0]]
    elif number == 2:
        stock[sources[0]] = qty - rng.randint(1, 4) * 10
        closed = [sources[1]]
    else:
        closed = sources[:2]
    base = rng.randint(10000, 99000)
    rsv = [f"RSV-{base + 3 * i + rng.randint(0, 2)}" for i in range(4)]
    trp = [f"TRP-{rng.randint(100000, 999999)}" for _ in range(3)]
    xfer = f"XFR-{rng.randint(1000, 9999)}"
    final = next(wh for wh in sources if stock[wh] >= qty and wh not in closed)
    prompt = (f"Move {qty} units of {sku} to {dest}. Source them from {sources[0]}, {sources[1]} or {sources[2]}, in "
              "that order of preference, all from one warehouse (no split). For a source: reserve the units there, "
              "book transport for that reservation, then create the transfer. If transport can't be booked from a "
              "source, release its reservation before you try the next source: no reservation may stay held.\n\n"
              "Finish with exactly three lines:\nTransfer: <transfer id>\nSource: <warehouse>\n"
              "Released: <how many reservations you released>")
    get = lambda wh: tool_turn(("get_stock", {"warehouse": wh, "sku": sku}))  # noqa: E731
    walk, required, released, n = [], [], [], 0
    for wh in sources:
        walk.append(get(wh))
        if stock[wh] < qty:
            continue
        rid = rsv[n]
        n += 1
        reserve = {"warehouse": wh, "sku": sku, "quantity": qty}
        book = {"reservation_id": rid, "destination": dest}
        walk += [tool_turn(("reserve_stock", reserve)), tool_turn(("book_transport", book))]
        required += [{"name": "reserve_stock", "arguments": reserve}, {"name": "book_transport", "arguments": book}]
        if wh in closed:
            walk.append(tool_turn(("release_reservation", {"reservation_id": rid})))
            required.append({"name": "release_reservation", "arguments": {"reservation_id": rid}})
            released.append(rid)
            continue
        walk.append(tool_turn(("create_transfer", {"reservation_id": rid, "transport_id": trp[0]})))
        required.append({"name": "create_transfer", "arguments": {"reservation_id": rid, "transport_id": trp[0]}})
        break
    kept = rsv[n - 1]
    answer = f"Transfer: {xfer}\nSource: {final}\nReleased: {len(released)}"
    no_release = [t for t in walk if "release_reservation" not in str(t)]
    wrong = [
        ["I'm sorry, I can't move stock between warehouses."],
        [*no_release, f"Transfer: {xfer}\nSource: {final}\nReleased: 0"],
        [*no_release, answer],
        [*walk, f"Transfer: {xfer}\nSource: {sources[0]}\nReleased: {len(released)}"],
        [*walk, f"Transfer: {xfer}\nSource: {final}\nReleased: {len(released) + 1}"],
        [*walk, f"Transfer: {kept}\nSource: {final}\nReleased: {len(released)}"],
        [*walk, tool_turn(("adjust_stock", {"warehouse": dest, "sku": sku, "delta": qty})), answer],
        [*walk[:3], f"Transport from {sources[0]} could not be booked; the transfer failed."],
    ]
    if number == 2:  # the short source reserved for what it has
        short = {"warehouse": sources[0], "sku": sku, "quantity": stock[sources[0]]}
        wrong.append([get(sources[0]), tool_turn(("reserve_stock", short)), *walk[1:], answer])
    steps = len(required) + 1 + (number == 2)  # the calls that must be made, the short source's check, the report
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # per source: stock, reserve, book; on a failed booking the release; then the transfer and the report
        **ruled(steps, 3, 3),
        "title": "A warehouse transfer whose failed transport booking must be compensated by a release",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 8192,
        "simulation": {"handler": handler, "max_turns": 20,
                       "state": {"stock": stock, "sku": sku, "dest": dest, "closed": closed, "reservations": {},
                                 "rsv_ids": rsv, "trp_ids": trp, "xfer_id": xfer, "transports": {},
                                 "transfer": None, "adjusted": False, "held": []}},
        "grader": {"type": "trace", "calls": required, "order": "strict", "forbidden": ["adjust_stock"],
                   "limit_to_required": ["release_reservation", "create_transfer"],
                   "state": {"held": [], "transfer": {"id": xfer, "source": final, "quantity": qty}},
                   "answer": {"values": {"Transfer:": xfer, "Source:": final, "Released:": len(released)},
                              "decoys": [*sorted({*sources} - {final}), kept, trp[0]]}},
        "notes": (f"{qty} units to {dest}; {', '.join(closed)} {'has' if len(closed) == 1 else 'have'} no carrier "
                  f"capacity{'; ' + sources[0] + ' is short of stock' if number == 2 else ''}. Each failed booking "
                  "must be followed by the release of its reservation before the next source is tried; the state "
                  "must end with one transfer from the right source and no reservation held. Traps: the held "
                  "reservation left behind, the short source reserved for what it has, a direct stock adjustment, the "
                  "first source reported, the kept reservation counted as released. Why a strong 30B model fails "
                  "(siblings 2 and 3): after a failed booking it moves on to the next source and leaves the "
                  "reservation held, or reserves what a short source has; the state check sees both."),
        "verify": {"solver": SOLVER.format(order=sources, stock=stock, closed=closed, qty=qty, rsv=rsv,
                                           xfer=xfer),
                   "reference": [*walk, f"The transfer is booked.\n\n{answer}"], "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
