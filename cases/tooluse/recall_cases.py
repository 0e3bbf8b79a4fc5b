"""Tool use: a call that reuses an id given earlier in the conversation, not a later one that looks alike (TU-recall).

A shop's support chat over several messages. The user names an order early on; later messages bring other
numbers in the same format: the partner's order for the same item on the same account, a ticket number the
assistant gave, a refund reference, or the user's own correction of a mistyped number. The last message asks to
cancel "mine" (or the order of one item) without repeating any number, and gives the reason in words that map to
one value of the tool's reason enum. The right call carries the id the conversation settled on for that order: the
earlier one, or its correction, never the latest number seen. Traps: the partner's order (the most recent order
number), the ticket or refund reference, the mistyped number, the wrong reason, both orders cancelled. Each solver
reads the messages back with its own patterns and follows who owns which number.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-recall"
REFUSAL = "I'm sorry, but I can't help with that request."
ITEMS = ["standing desk", "office chair", "desk lamp", "bookshelf", "monitor arm", "filing cabinet"]
REASONS = {"delivery_too_slow": ["it's taking far too long", "I can't wait that long for it"],
           "no_longer_needed": ["I don't need it any more", "we found one second-hand in the meantime"],
           "ordered_by_mistake": ["I ordered it by mistake", "I clicked buy twice by accident, it was never meant"]}
TOOLS = [function_tool("cancel_order", "Cancel an order that has not shipped.",
                       {"order_id": {"type": "string", "pattern": r"^\d{6}$", "description": "six digits, no #"},
                        "reason": {"type": "string", "enum": list(REASONS),
                                   "description": "delivery_too_slow: the customer will not wait for it; "
                                                  "no_longer_needed: the customer does not want it any more; "
                                                  "ordered_by_mistake: the order was never intended"}},
                       ["order_id", "reason"]),
         function_tool("create_return", "Start a return for a delivered order.",
                       {"order_id": {"type": "string"}}, ["order_id"])]

SOLVER = r'''
import json, re
messages = MESSAGES
users = [m["content"].lower() for m in messages if m["role"] == "user"]
mine, partner = {}, {}
for text in users[:-1]:
    owned = r"my (?:order|purchase) for (?:a|an|the) ([a-z ]+?),? (?:is |number )?#(\d{6})"
    for item, number in re.findall(owned, text):
        mine[item] = number
    for wrong, right in re.findall(r"#(\d{6}) was a typo, the right number is #(\d{6})", text):
        mine = {k: (right if v == wrong else v) for k, v in mine.items()}
    for item, number in re.findall(r"my partner's (?:order )?for (?:a|an|the) ([a-z ]+?) is #(\d{6})", text):
        partner[item] = number
last = users[-1]
item = next((i for i in mine if i in last), None)
order = mine[item] if item else next(iter(mine.values()))
if item is None:
    assert len(mine) == 1
reasons = {"delivery_too_slow": ["too long", "can't wait"], "no_longer_needed": ["don't need", "second-hand"],
           "ordered_by_mistake": ["by mistake", "by accident"]}
reason = next(r for r, words in reasons.items() if any(w in last for w in words))
print(json.dumps({"calls": [{"name": "cancel_order", "arguments": {"order_id": order, "reason": reason}}]}))
'''


def an(item: str) -> str:
    return f"{'an' if item[0] in 'aeiou' else 'a'} {item}"


def _ids(rng: random.Random, count: int) -> list[str]:
    base = rng.randint(300_000, 800_000)
    return [str(n) for n in rng.sample(range(base, base + 4_000), count)]


def _case(number: int, rng: random.Random) -> dict:
    mine, partner, other, ticket = _ids(rng, 4)
    item, second = rng.sample(ITEMS, 2)
    reason = rng.choice(list(REASONS))
    said = rng.choice(REASONS[reason])
    user, bot = (lambda t: {"role": "user", "content": t}), (lambda t: {"role": "assistant", "content": t})
    if number == 1:  # the partner's order for the same item comes later; cancel mine
        target, decoys = mine, [partner, ticket]
        messages = [
            user(f"Hi! My order for {an(item)}, number #{mine}, still hasn't shipped. Any news?"),
            bot(f"Order #{mine} ({item}) is still in the warehouse queue. I've opened ticket #{ticket} to chase it."),
            user(f"Thanks. By the way my partner's order for {an(item)} is #{partner}, placed on the same account. "
                 "Please leave that one alone, it's a gift for her sister."),
            bot(f"Understood, I won't touch order #{partner}."),
            user(f"OK, please cancel mine, {said}.")]
    elif number == 2:  # the first number was mistyped and corrected; a refund reference comes last
        target, decoys = other, [mine, ticket]
        messages = [
            user(f"Hello, my order for {an(item)} is #{mine} and I'd like to know where it is."),
            bot(f"I can't find an order #{mine} on your account. Could you check the number?"),
            user(f"Sorry! #{mine} was a typo, the right number is #{other}."),
            bot(f"Thanks, order #{other} ({item}) is confirmed and waiting for stock."),
            user(f"Also, did my refund for the returned {second} come through? The reference was #{ticket}."),
            bot(f"Yes, refund #{ticket} was paid out on Monday."),
            user(f"Great. Then cancel my {item} order please, {said}.")]
    else:  # two orders of the user's own, and the partner's order for the same item as the one to cancel
        target, decoys = other, [partner, mine]
        messages = [
            user(f"Hi, two questions. My order for {an(item)} is #{mine} and my purchase for {an(second)} number "
                 f"#{other}. Are they on their way?"),
            bot(f"Order #{mine} ({item}) ships tomorrow; order #{other} ({second}) is delayed by about two weeks."),
            user(f"Hm. And my partner's order for {an(second)} is #{partner}, is that one delayed too?"),
            bot(f"Yes, order #{partner} is waiting for the same delivery."),
            user(f"Then please cancel my {second} order, {said}. Leave everything else as it is.")]
    args = {"order_id": target, "reason": reason}
    send = lambda a: tool_turn(("cancel_order", a))  # noqa: E731
    other_reason = next(r for r in REASONS if r != reason)
    wrong = [REFUSAL, "Which order would you like me to cancel? Please give me the order number.",
             *[send({**args, "order_id": d}) for d in decoys], send({**args, "order_id": f"#{target}"}),
             send({**args, "reason": other_reason}),
             tool_turn(("cancel_order", args), ("cancel_order", {**args, "order_id": decoys[0]})),
             tool_turn(("create_return", {"order_id": target}))]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # find which number the conversation settled on for the order meant, and map the reason to the enum
        **ruled(2, 4, 2),
        "title": "Cancel the order the conversation named earlier, past later numbers that look alike",
        "notes": {1: "The partner's order for the same item is the latest order number; the ticket number is in the "
                     "same six-digit format.",
                  2: "The first order number was a typo that the user corrected; a refund reference comes last.",
                  3: "Two of the user's own orders, then the partner's order for the same item as the one to "
                     "cancel."}[number] + " The last message repeats no number; the reason is said in words.",
        "messages": messages, "tools": TOOLS, "max_tokens": 2048,
        "grader": {"type": "tool_calls", "calls": [{"name": "cancel_order", "arguments": args}], "allow_extra": False,
                   "arguments_match": "exact", "forbidden": ["create_return"]},
        "verify": {"solver": SOLVER.replace("MESSAGES", repr(messages), 1), "reference": send(args), "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
