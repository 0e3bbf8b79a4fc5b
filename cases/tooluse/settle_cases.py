"""Tool use: settle a group's shared expenses through the user, in cents, by a stated split rule (family TU-settle).

The user pastes a trip's expense list: who paid, the amount, and who shares it (a subset of the four travellers,
in a stated order). The rule: an expense is split equally among the people it lists; the cents that do not divide
go one each to the people listed first on that line. Everyone settles with the user: a person whose share of the
costs is more than they paid is asked for the difference (request_money), a person who paid more than their share
is sent the difference (send_money), in integer cents, one call per person, all in one reply. So each call's
amount is the sum of several split shares minus what that person paid. The generator draws lists where at least
three lines leave cents over, and where each shortcut changes some amount: cents dropped (floor shares), each
share rounded to the cent, every expense split among all four, what the others paid ignored. Each solver hands
out each line's cents one at a time round the listed people (a simulation, not a division) and nets per person.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-settle"
REFUSAL = "I'm sorry, but I can't help with that request."
PEOPLE = ["Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana"]
WHAT = ["Groceries", "Ferry tickets", "Dinner at the harbour", "Museum passes", "Fuel", "Boat hire", "Bakery",
        "Wine tasting", "Parking", "Bike rental", "Taxi from the station", "Pharmacy"]
TOOLS = [function_tool("request_money", "Ask a friend to pay you an amount.",
                       {"person": {"type": "string"}, "amount_cents": {"type": "integer", "minimum": 1}},
                       ["person", "amount_cents"]),
         function_tool("send_money", "Pay a friend an amount.",
                       {"person": {"type": "string"}, "amount_cents": {"type": "integer", "minimum": 1}},
                       ["person", "amount_cents"])]

SOLVER = r'''
import json, re
prompt = PROMPT
me = re.search(r"I'm (\w+)", prompt).group(1)
net = {}
for payer, amount, shared in re.findall(r"^\| [^|]+ \| (\w+) \| ([\d.]+) \| ([\w, ]+) \|$", prompt, re.M):
    euros, cents = amount.split(".")
    left = int(euros) * 100 + int(cents)
    people = [p.strip() for p in shared.split(",")]
    share = dict.fromkeys(people, 0)
    i = 0
    while left:  # hand the amount out a cent at a time round the listed people
        share[people[i % len(people)]] += 1
        left -= 1
        i += 1
    for p, s in share.items():
        net[p] = net.get(p, 0) - s
    net[payer] = net.get(payer, 0) + sum(share.values())
calls = []
for person, balance in net.items():
    if person == me or balance == 0:
        continue
    calls.append({"name": "send_money" if balance > 0 else "request_money",
                  "arguments": {"person": person, "amount_cents": abs(balance)}})
print(json.dumps({"calls": calls}))
'''


def _split(amount: int, people: list[str], mode: str) -> dict[str, int]:
    base, extra = divmod(amount, len(people))
    if mode == "floor":
        return dict.fromkeys(people, base)
    if mode == "round":
        return dict.fromkeys(people, (2 * amount + len(people)) // (2 * len(people)))
    return {p: base + (i < extra) for i, p in enumerate(people)}


def _calls(me: str, group: list[str], lines: list[tuple], mode: str = "right", everyone: bool = False,
           ignore_paid: bool = False) -> list[tuple[str, dict]]:
    net = dict.fromkeys(group, 0)
    for _, payer, amount, shared in lines:
        shares = _split(amount, group if everyone else shared, mode)
        for p, s in shares.items():
            net[p] -= s
        if not ignore_paid or payer == me:
            net[payer] += amount
    return [("send_money" if b > 0 else "request_money", {"person": p, "amount_cents": abs(b)})
            for p, b in net.items() if p != me and b != 0]


def _draw(rng: random.Random) -> tuple | None:
    group = rng.sample(PEOPLE, 4)
    me = group[0]
    lines = []
    for what in rng.sample(WHAT, 6):
        shared = rng.sample(group, rng.choice([2, 3, 3, 4]))
        payer = rng.choice([me, me, *group[1:]])
        lines.append((what, payer, rng.randint(1200, 24000), shared))
    if sum(a % len(s) != 0 for _, _, a, s in lines) < 3 or sum(p != me for _, p, _, _ in lines) < 2:
        return None
    right = _calls(me, group, lines)
    traps = [_calls(me, group, lines, "floor"), _calls(me, group, lines, "round"),
             _calls(me, group, lines, everyone=True), _calls(me, group, lines, ignore_paid=True)]
    if len(right) != 3 or any(sorted(map(str, t)) == sorted(map(str, right)) for t in traps):
        return None
    return group, me, lines, right, traps


def _case(number: int, rng: random.Random) -> dict:
    drawn = None
    while drawn is None:
        drawn = _draw(rng)
    group, me, lines, right, traps = drawn
    table = ["| What | Paid by | Amount (EUR) | Shared by |", "|---|---|---|---|"]
    table += [f"| {w} | {p} | {a // 100}.{a % 100:02d} | {', '.join(s)} |" for w, p, a, s in lines]
    prompt = (f"I'm {me}. Settle our trip's shared costs with {', '.join(group[1:-1])} and {group[-1]} through me: "
              "ask each person who owes money for what they owe, and pay each person who is owed what they are owed. "
              "Each expense is split equally among the people it lists; cents that don't divide go one each to the "
              "people listed first on that line. A person's balance is what they paid minus their shares. Amounts "
              "in cents.\n\n" + "\n".join(table))
    flipped = [("request_money" if n == "send_money" else "send_money", a) for n, a in right]
    wrong = [REFUSAL, "Balances: " + ", ".join(f"{a['person']} {a['amount_cents']}" for _, a in right),
             *[tool_turn(*t) for t in traps], tool_turn(*flipped), tool_turn(*right[:2]),
             tool_turn(*[(n, {**a, "amount_cents": a["amount_cents"] / 100}) for n, a in right])]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # six splits with the leftover-cent rule, three sums of shares, three nets against what was paid, the sign
        # picks the tool: one slip in any line's cents changes an amount
        **ruled(8, 1, 4),
        "title": "Three settlement calls in cents from six shared expenses split by a leftover-cent rule",
        "notes": ("Six expenses over subsets of four people, at least three leaving cents over; each person's amount "
                  "nets several shares against what they paid. Drawn so that dropping the cents, rounding each share, "
                  "splitting among all four, or ignoring what the others paid changes an amount. Why a strong 30B "
                  "model fails: eighteen cent-exact shares and three signed sums in one reply, where models round "
                  "shares to the cent or forget the others' payments."),
        "prompt": prompt, "tools": TOOLS, "max_tokens": 16384,
        "grader": {"type": "tool_calls", "calls": [{"name": n, "arguments": a} for n, a in right],
                   "allow_extra": False, "arguments_match": "exact"},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": tool_turn(*right),
                   "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
