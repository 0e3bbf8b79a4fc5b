"""Tool use: a refund call made, escalated, or withheld, by preconditions the prompt's policy states (TU-guard).

The support policy: a return is refundable when it was delivered at most 30 days ago; final-sale items are never
refunded; a refund above 500.00 EUR goes to a supervisor (escalate) instead of being paid. The user gives today's
date, the order (delivery date, items with category and price) and which items come back. The reply must work out
the days since delivery and the refundable amount, then make exactly the call the policy allows, or none, saying
why. Siblings: delivered 31 days ago (no call: the answer must give the count of days); exactly 30 days ago with a
final-sale item among the returns (refund the rest, in cents); a refund above the limit (escalate). Traps: the
31st day counted as within 30, the 30th day refused, the final-sale item refunded, the whole order refunded, a
refund paid where it must be escalated. Each solver counts the days one at a time and re-reads the items.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-guard"
REFUSAL = "I'm sorry, but I can't help with that request."
LIMIT_CENTS = 50_000
GOODS = [("jacket", "clothing"), ("hiking boots", "shoes"), ("rain trousers", "clothing"), ("tent", "camping"),
         ("sleeping bag", "camping"), ("head torch", "accessories"), ("wool socks", "clothing"),
         ("trail runners", "shoes"), ("backpack", "camping"), ("gloves", "accessories")]

TOOLS = [
    function_tool("refund_order", "Refund part or all of an order to the customer's card.",
                  {"order_id": {"type": "string"}, "amount_cents": {"type": "integer", "minimum": 1}},
                  ["order_id", "amount_cents"]),
    function_tool("escalate_to_supervisor", "Hand a refund to a supervisor for approval.",
                  {"order_id": {"type": "string"}, "amount_cents": {"type": "integer", "minimum": 1}},
                  ["order_id", "amount_cents"]),
    function_tool("issue_store_credit", "Give the customer store credit.",
                  {"order_id": {"type": "string"}, "amount_cents": {"type": "integer", "minimum": 1}},
                  ["order_id", "amount_cents"]),
]

SOLVER = r'''
import json, re
from datetime import date, timedelta
prompt = PROMPT
today = date.fromisoformat(re.search(r"Today is (\d{4}-\d{2}-\d{2})", prompt).group(1))
delivered = date.fromisoformat(re.search(r"delivered on (\d{4}-\d{2}-\d{2})", prompt).group(1))
order = re.search(r"Order (\S+?)[,:]", prompt).group(1)
days, d = 0, delivered
while d < today:
    d += timedelta(days=1)
    days += 1
back = re.search(r"sending back (.+?)\.", prompt).group(1)
total = 0
for name, category, price in re.findall(r"^- ([\w ]+) \(([\w -]+)\): ([\d.]+) EUR", prompt, re.M):
    if name in back and category != "final sale":
        total += int(price.replace(".", ""))
if days > 30:
    print(json.dumps({"answer": [f"{days} days"]}))
else:
    tool = "escalate_to_supervisor" if total > 50000 else "refund_order"
    print(json.dumps({"calls": [{"name": tool, "arguments": {"order_id": order, "amount_cents": total}}]}))
'''


def _case(number: int, rng: random.Random) -> dict:
    today = date(2026, rng.randint(3, 11), rng.randint(1, 28))
    age = {1: 31, 2: 30, 3: rng.randint(5, 20)}[number]
    delivered = today - timedelta(days=age)
    order = f"WO-{rng.randint(100000, 999999)}"
    goods = rng.sample(GOODS, 4)
    high = number == 3
    items = []
    for i, (name, category) in enumerate(goods):
        cents = rng.randint(18_000, 32_000) if high else rng.randint(2_500, 14_000)
        items.append({"name": name, "category": "final sale" if i == 1 else category, "cents": cents})
    back = items[:3] if number != 1 else items[::2]
    refundable = sum(i["cents"] for i in back if i["category"] != "final sale")
    if high and refundable <= LIMIT_CENTS:
        back = items
        refundable = sum(i["cents"] for i in back if i["category"] != "final sale")
    lines = [f"- {i['name']} ({i['category']}): {i['cents'] // 100}.{i['cents'] % 100:02d} EUR" for i in items]
    names = [i["name"] for i in back]
    said = ", ".join(f"the {n}" for n in names[:-1]) + f" and the {names[-1]}"
    prompt = (
        "You handle returns for an outdoor shop. Policy: a return is refunded when the order was delivered at most "
        "30 days ago; items marked final sale are never refunded; a refund above 500.00 EUR is not paid by you but "
        "escalated to a supervisor with its amount. If the policy allows no refund, make no call and tell the "
        "customer why, with the number of days since delivery.\n\n"
        f"Today is {today.isoformat()}. Order {order}, delivered on {delivered.isoformat()}:\n" + "\n".join(lines)
        + f"\n\nThe customer writes: \"I'm sending back {said}. Please refund me.\""
    )
    whole = sum(i["cents"] for i in items)
    with_final = sum(i["cents"] for i in back)
    call = lambda tool, cents: tool_turn((tool, {"order_id": order, "amount_cents": cents}))  # noqa: E731
    if number == 1:
        grader = {"type": "tool_calls", "expect_no_call": True,
                  "answer": {"all": [[f"{age} days", "thirty-one days"]]}}
        reference = (f"I'm sorry: order {order} was delivered on {delivered.isoformat()}, {age} days ago, and our "
                     "policy refunds returns only up to 30 days after delivery, so I can't refund it.")
        wrong = [REFUSAL, call("refund_order", refundable), call("issue_store_credit", refundable),
                 "Your order is past the return window, so no refund is possible.",
                 f"Order {order} was delivered 30 days ago, within the window; refunded."]
        hardness = ruled(2, 1, 2)
    else:
        tool = "escalate_to_supervisor" if high else "refund_order"
        grader = {"type": "tool_calls", "calls": [{"name": tool, "arguments": {"order_id": order,
                                                                              "amount_cents": refundable}}],
                  "allow_extra": False, "forbidden": ["issue_store_credit"]}
        reference = call(tool, refundable)
        wrong = [REFUSAL, f"Order {order} is outside the return window, so I can't refund it.",
                 call(tool, with_final), call(tool, whole), call(tool, refundable // 100),
                 call("refund_order" if high else "escalate_to_supervisor", refundable),
                 tool_turn((tool, {"order_id": order, "amount_cents": refundable}),
                           ("issue_store_credit", {"order_id": order, "amount_cents": with_final - refundable}))]
        hardness = ruled(4, 1, 3)
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # days since delivery against the window, the refundable sum (final sale out), the limit, then the call or
        # none: 2 steps when the window already fails, 4 otherwise
        **hardness,
        "title": "A refund made, escalated or withheld by the policy's preconditions",
        "notes": {1: "Delivered 31 days ago: no call, and the answer gives the 31 days (30 is a miscount).",
                  2: "Delivered exactly 30 days ago (at most 30: refundable) with a final-sale item among the returns: "
                     "refund the rest in cents.",
                  3: "Within the window, but the refundable sum is above 500.00 EUR: escalate it, do not pay it."}[
                      number],
        "prompt": prompt, "tools": TOOLS, "max_tokens": 2048,
        "grader": grader,
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": reference, "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
