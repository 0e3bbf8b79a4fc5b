"""Agent: pay a foreign invoice from the first account that can cover it, through a quote that expires (AG-payout).

A simulated bank (a Python handler). The invoice is in one currency and the user's accounts, in order
of preference, are in others. An account can pay when its available balance covers the invoice
converted at a fetched rate (invoice currency into the account's, rounded to the cent) plus a fixed
fee in the account's currency. The first account covers the converted amount but not the fee, so the
agent must go on to the second. The payment is made with a quote id; the bank rejects the first
payment because its quote expired, and a fresh quote has a slightly different rate, so the retry must
carry the new quote id and the amount recomputed at the new rate. Traps: paying from the first account
(fee ignored), retrying with the stale amount or the stale quote, and a payment attempt from an account
that cannot cover it.
"""

from __future__ import annotations

import random
from decimal import Decimal

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import tier_of

FAMILY = "AG-payout"
FEE_CENTS = 1500

TOOLS = [
    function_tool(
        "get_balance",
        "An account's currency, available balance and status.",
        {"account": {"type": "string"}},
        ["account"],
    ),
    function_tool(
        "get_rate",
        "A quote: how many units of `quote` one unit of `base` buys, with a quote id.",
        {
            "base": {"type": "string", "description": "ISO currency code"},
            "quote": {"type": "string", "description": "ISO currency code"},
        },
        ["base", "quote"],
    ),
    function_tool(
        "pay_invoice",
        "Pay an invoice from an account, converting at a quote.",
        {
            "invoice": {"type": "string"},
            "from_account": {"type": "string"},
            "amount_cents": {"type": "integer", "description": "in the account's currency, minor units"},
            "quote_id": {"type": "string"},
        },
        ["invoice", "from_account", "amount_cents", "quote_id"],
    ),
]


def _convert(amount_cents: int, rate_e4: int) -> int:
    """Cents times a 4-decimal rate, rounded half up, in integers."""
    return (amount_cents * rate_e4 * 2 + 10000) // 20000


def _quote_id(state: dict, base: str, quote: str) -> str:
    return f"Q-{state['seed_id']}-{base}{quote}-{state['generation']}"


def handler(name: str, arguments: dict, state: dict) -> dict:
    accounts = state["accounts"]
    if name == "get_balance":
        account = accounts.get(str(arguments.get("account", "")).strip().upper())
        if account is None:
            return {"error": f"no account {arguments.get('account')!r}"}
        return {
            "result": {
                "currency": account["currency"],
                "available": f"{account['cents'] / 100:.2f}",
                "status": "active",
            }
        }
    if name == "get_rate":
        base, quote = (str(arguments.get(k, "")).strip().upper() for k in ("base", "quote"))
        rates = state["rates"][state["generation"] - 1]
        if f"{base}/{quote}" in rates:
            rate = Decimal(rates[f"{base}/{quote}"]) / 10000
        elif f"{quote}/{base}" in rates:
            rate = (1 / (Decimal(rates[f"{quote}/{base}"]) / 10000)).quantize(Decimal("0.0001"))
        else:
            return {"error": f"no rate for {base}/{quote}"}
        return {"result": {"base": base, "quote": quote, "rate": str(rate), "quote_id": _quote_id(state, base, quote)}}
    account = accounts.get(str(arguments.get("from_account", "")).strip().upper())
    if account is None:
        return {"error": f"no account {arguments.get('from_account')!r}"}
    quote_id = str(arguments.get("quote_id", "")).strip()
    if quote_id != _quote_id(state, state["invoice_currency"], account["currency"]):
        return {
            "error": f"quote {quote_id!r} is not a current {state['invoice_currency']}->{account['currency']} quote"
        }
    if state["generation"] == 1:
        state["generation"] = 2
        return {"error": f"quote {quote_id} expired; request a new quote and resend"}
    amount = arguments.get("amount_cents")
    if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
        return {"error": "amount_cents must be a positive whole number"}
    if amount + FEE_CENTS > account["cents"]:
        return {"error": "insufficient funds for the amount and the fee"}
    account["cents"] -= amount + FEE_CENTS
    state.setdefault("paid", []).append({"account": account["id"], "amount_cents": amount})
    return {"result": f"paid {arguments.get('invoice')}: {amount / 100:.2f} {account['currency']} plus fee"}


def _world(rng: random.Random) -> dict:
    inv_cur = rng.choice(["CHF", "GBP", "SEK"])
    curs = rng.sample([c for c in ["EUR", "USD", "NOK", "DKK", "PLN"] if c != inv_cur], 3)
    amount = rng.randint(180000, 950000)
    ids = [f"{c}-{rng.choice(['OPS', 'MAIN', 'RES', 'PAY'])}{rng.randint(1, 9)}" for c in curs]
    per_eur = {"CHF": 0.94, "GBP": 0.85, "SEK": 11.4, "EUR": 1.0, "USD": 1.08, "NOK": 11.6, "DKK": 7.46, "PLN": 4.3}
    rates1 = {f"{inv_cur}/{c}": round(per_eur[c] / per_eur[inv_cur] * rng.uniform(0.97, 1.03) * 10000) for c in curs}
    while True:
        rates2 = {k: v + rng.choice([-1, 1]) * rng.randint(11, 60) for k, v in rates1.items()}
        if all(_convert(amount, rates1[k]) != _convert(amount, rates2[k]) for k in rates1):
            break
    need1 = [_convert(amount, rates1[f"{inv_cur}/{c}"]) for c in curs]
    need2 = [_convert(amount, rates2[f"{inv_cur}/{c}"]) for c in curs]
    short = max(need1[0], need2[0]) + rng.randint(100, FEE_CENTS - 100)  # covers the amount, not the fee
    accounts = {
        ids[0]: {"id": ids[0], "currency": curs[0], "cents": short},
        ids[1]: {
            "id": ids[1],
            "currency": curs[1],
            "cents": max(need1[1], need2[1]) + FEE_CENTS + rng.randint(5000, 90000),
        },
        ids[2]: {"id": ids[2], "currency": curs[2], "cents": need2[2] * 3},
    }
    return {
        "invoice_currency": inv_cur,
        "amount": amount,
        "ids": ids,
        "curs": curs,
        "accounts": accounts,
        "rates": [rates1, rates2],
        "need1": need1,
        "need2": need2,
    }


SOLVER = """
import json
from decimal import Decimal, ROUND_HALF_UP
AMOUNT, ACCOUNTS, ORDER, RATES, FEE = {amount!r}, {accounts!r}, {order!r}, {rates!r}, Decimal("15.00")
INVOICE, QUOTES = {invoice!r}, {quotes!r}
# replay the policy with decimals: the first account whose balance covers the converted invoice plus the fee,
# checked at the quote it would pay with (the fresh one, after the first quote expires)
def convert(rate):
    return (Decimal(AMOUNT) * Decimal(rate)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
for account in ORDER:
    balance, currency = Decimal(ACCOUNTS[account][0]), ACCOUNTS[account][1]
    first, fresh = convert(RATES[currency][0]), convert(RATES[currency][1])
    if balance >= max(first, fresh) + FEE:
        break
calls = [{{"name": "pay_invoice", "arguments": {{"invoice": INVOICE, "from_account": account,
                                                "amount_cents": int(fresh * 100), "quote_id": QUOTES[currency]}}}}]
print(json.dumps({{"calls": calls, "values": {{"Paid from:": account, "Amount:": str(fresh)}}}}))
"""


def _case(number: int, rng: random.Random) -> dict:
    w = _world(rng)
    inv, cur_inv, ids, curs = f"INV-{rng.randint(10000, 99999)}", w["invoice_currency"], w["ids"], w["curs"]
    seed_id = rng.randint(1000, 9999)
    q = lambda gen, c: f"Q-{seed_id}-{cur_inv}{c}-{gen}"  # noqa: E731
    pay1 = {"invoice": inv, "from_account": ids[1], "amount_cents": w["need1"][1], "quote_id": q(1, curs[1])}
    pay2 = {"invoice": inv, "from_account": ids[1], "amount_cents": w["need2"][1], "quote_id": q(2, curs[1])}
    amount_text = f"{w['amount'] / 100:,.2f} {cur_inv}"
    prompt = (
        f"Pay invoice {inv} for {amount_text} through the bank tools. Pay from the first of these accounts, "
        f"in this order, that can cover it: {ids[0]}, {ids[1]}, {ids[2]}. An account can cover it when its "
        f"available balance is at least the invoice amount converted into the account's currency plus the "
        f"bank's fixed fee of 15.00 in the account's currency. Convert with the rate get_rate gives from "
        f"{cur_inv} into the account's currency, rounded half up to the cent, and pay with that quote's id. "
        "Check before you pay: make no payment attempt from an account that cannot cover it.\n\n"
        "Finish with exactly two lines:\nPaid from: <account>\nAmount: <the amount paid, in the account's "
        "currency>"
    )
    bal = lambda a: tool_turn(("get_balance", {"account": a}))  # noqa: E731
    rate = lambda c: tool_turn(("get_rate", {"base": cur_inv, "quote": c}))  # noqa: E731
    answer = f"Paid from: {ids[1]}\nAmount: {w['need2'][1] / 100:,.2f} {curs[1]}"
    script = [
        bal(ids[0]),
        rate(curs[0]),
        bal(ids[1]),
        rate(curs[1]),
        tool_turn(("pay_invoice", pay1)),
        rate(curs[1]),
        tool_turn(("pay_invoice", pay2)),
    ]
    stale_amount = {**pay2, "amount_cents": w["need1"][1]}
    first_pay = {"invoice": inv, "from_account": ids[0], "amount_cents": w["need1"][0], "quote_id": q(1, curs[0])}
    hardness = {"steps": 9, "search": 3, "traps": 3}
    accounts = {a: (f"{v['cents'] / 100:.2f}", v["currency"]) for a, v in w["accounts"].items()}
    rates = {c: [str(Decimal(w["rates"][g][f"{cur_inv}/{c}"]) / 10000) for g in (0, 1)] for c in curs}
    return {
        "id": f"{FAMILY}-{number:02d}",
        "family": FAMILY,
        "category": "agent",
        "difficulty": tier_of(hardness),
        "hardness": hardness,
        "title": "Pay a foreign invoice from the first account that covers it; the quote expires",
        "prompt": prompt,
        "tools": TOOLS,
        "max_tokens": 8192,
        "simulation": {
            "handler": handler,
            "max_turns": 14,
            "state": {
                "accounts": w["accounts"],
                "rates": w["rates"],
                "generation": 1,
                "seed_id": seed_id,
                "invoice_currency": cur_inv,
            },
        },
        "grader": {
            "type": "trace",
            "calls": [
                {"name": "pay_invoice", "arguments": pay1, "optional": True},
                {"name": "pay_invoice", "arguments": pay2},
            ],
            "limit_to_required": ["pay_invoice"],
            "repeats": True,
            "state": {"paid": [{"account": ids[1], "amount_cents": w["need2"][1]}]},
            "answer": {
                "values": {"Paid from:": ids[1], "Amount:": w["need2"][1] / 100},
                "decoys": [ids[0], ids[2], f"{w['need1'][1] / 100:.2f}"],
            },
        },
        "notes": (
            "Nine dependent steps: balance and rate of the first account (it covers the converted invoice but "
            "not the 15.00 fee), balance and rate of the second, a payment the bank rejects (quote expired), "
            "a fresh quote at a different rate, the amount recomputed, the payment. Traps: paying from the "
            "first account, resending the stale amount or quote id, a rate taken the wrong way round."
        ),
        "verify": {
            "solver": SOLVER.format(
                amount=f"{w['amount'] / 100:.2f}",
                accounts=accounts,
                order=ids,
                rates=rates,
                invoice=inv,
                quotes={c: q(2, c) for c in curs},
            ),
            "reference": [*script, f"The first quote expired, so I re-quoted.\n\n{answer}"],
            "wrong": [
                ["I'm sorry, I can't make payments."],
                [
                    bal(ids[0]),
                    rate(curs[0]),
                    tool_turn(("pay_invoice", first_pay)),
                    tool_turn(("pay_invoice", {**first_pay, "quote_id": q(2, curs[0])})),
                    f"Paid from: {ids[0]}\nAmount: {w['need1'][0] / 100:.2f}",
                ],
                [
                    *script[:6],
                    tool_turn(("pay_invoice", stale_amount)),
                    f"Paid from: {ids[1]}\nAmount: {w['need1'][1] / 100:.2f}",
                ],
                [
                    *script[:5],
                    tool_turn(("pay_invoice", pay1)),
                    f"Paid from: {ids[1]}\nAmount: {w['need1'][1] / 100:.2f}",
                ],
                [*script, answer.replace("\nAmount:", " (or " + ids[2] + ")\nAmount:")],
                [*script, f"Paid from: {ids[1]}\nAmount: {w['need1'][1] / 100:.2f}"],
            ],
        },
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
