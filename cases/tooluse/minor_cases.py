"""Tool use: payout amounts in each currency's own minor unit, whose exponent differs by currency (family TU-minor).

The payout tool takes the amount as an integer in the currency's minor unit, as ISO 4217 defines it, and says no
more: the reply has to know that the yen, won, Chilean peso and Icelandic krona have no minor unit (exponent 0),
that the dollar, euro and pound have cents (2), and that the Kuwaiti and Bahraini dinar, the Omani rial, the
Jordanian dinar and the Tunisian dinar have thousandths (3). The user lists five payouts in mixed notations: a yen
amount written with ".00", a dinar amount with one decimal ("12.5 KWD" is 12500 fils), a round dollar amount, a
symbol before or a code after the number. Each payout is one call, all in one reply. Traps: every amount times 100
(the cents habit), the yen's ".00" turned into 100 times the amount, a three-decimal amount rounded to cents, the
amount as a float. Each solver reads the lines with its own table of exponents and scales a decimal.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-minor"
REFUSAL = "I'm sorry, but I can't help with that request."
EXPONENT = {"JPY": 0, "KRW": 0, "CLP": 0, "ISK": 0, "USD": 2, "EUR": 2, "GBP": 2, "CHF": 2,
            "KWD": 3, "BHD": 3, "OMR": 3, "JOD": 3, "TND": 3}
SYMBOL = {"JPY": "¥", "USD": "$", "EUR": "€", "GBP": "£", "KRW": "₩"}
PAYEES = ["Aoki Design", "Han River Studio", "Valparaiso Imports", "Reykjavik Tours", "Gulf Translation Co.",
          "Manama Print", "Muscat Logistics", "Amman Dev House", "Tunis Audio", "Brooklyn Copy",
          "Lyon Patterns", "Leeds Photo", "Basel Fonts"]
GROUPS = [["JPY", "KRW", "CLP", "ISK"], ["USD", "EUR", "GBP", "CHF"], ["KWD", "BHD", "OMR", "JOD", "TND"]]
TOOLS = [function_tool("create_payout", "Pay a contractor.",
                       {"payee_id": {"type": "string"},
                        "amount_minor": {"type": "integer", "minimum": 1,
                                         "description": "the amount in the currency's minor unit (ISO 4217)"},
                        "currency": {"type": "string", "enum": list(EXPONENT)}},
                       ["payee_id", "amount_minor", "currency"]),
         function_tool("convert_currency", "Convert an amount between currencies.",
                       {"amount": {"type": "number"}, "from": {"type": "string"}, "to": {"type": "string"}},
                       ["amount", "from", "to"])]

SOLVER = r'''
import json, re
from decimal import Decimal
prompt = PROMPT
digits_after = {"JPY": 0, "KRW": 0, "CLP": 0, "ISK": 0, "USD": 2, "EUR": 2, "GBP": 2, "CHF": 2,
                "KWD": 3, "BHD": 3, "OMR": 3, "JOD": 3, "TND": 3}
symbols = {"¥": "JPY", "$": "USD", "€": "EUR", "£": "GBP", "₩": "KRW"}
calls = []
for payee, amount in re.findall(r"^- .+? \((P-\d+)\): (.+)$", prompt, re.M):
    m = re.fullmatch(r"([¥$€£₩])\s?([\d,]+(?:\.\d+)?)", amount.strip())
    if m:
        code, number = symbols[m.group(1)], m.group(2)
    else:
        number, code = re.fullmatch(r"([\d,]+(?:\.\d+)?) ([A-Z]{3})", amount.strip()).groups()
    value = Decimal(number.replace(",", "")) * (10 ** digits_after[code])
    assert value == value.to_integral_value()
    calls.append({"name": "create_payout", "arguments": {"payee_id": payee, "amount_minor": int(value),
                                                         "currency": code}})
print(json.dumps({"calls": calls}))
'''


def _render(rng: random.Random, code: str, minor: int, style: str) -> str:
    exp = EXPONENT[code]
    whole, frac = divmod(minor, 10 ** exp)
    if style == "dotzero":  # a zero-exponent amount written with .00
        number = f"{whole:,}.00"
    elif style == "short" and exp == 3 and frac % 100 == 0:  # 12.5 KWD
        number = f"{whole:,}.{frac // 100}"
    elif exp:
        number = f"{whole:,}" if frac == 0 and style == "round" else f"{whole:,}.{frac:0{exp}d}"
    else:
        number = f"{whole:,}"
    if code in SYMBOL and rng.random() < 0.6:
        return f"{SYMBOL[code]}{number}"
    return f"{number} {code}"


def _case(number: int, rng: random.Random) -> dict:
    zero, two, three = (rng.sample(g, k) for g, k in zip(GROUPS, [2, 1, 2]))
    codes = [*zero, *two, *three]
    plan = []
    for i, code in enumerate(codes):
        exp = EXPONENT[code]
        if exp == 0:
            minor = rng.randint(8, 900) * 1000
            style = "dotzero" if i == 0 else "plain"
        elif exp == 2:
            minor = rng.randint(150, 4000) * 100
            style = "round"
        else:
            style = "short" if i == 3 else "plain"
            minor = rng.randint(20, 900) * 1000 + (rng.randint(1, 9) * 100 if style == "short" else rng.randint(1, 999))
        plan.append((code, minor, style))
    rng.shuffle(plan)
    payees = rng.sample(PAYEES, 5)
    ids = [f"P-{rng.randint(1000, 9999)}" for _ in payees]
    lines = [f"- {p} ({i}): {_render(rng, c, m, s)}" for p, i, (c, m, s) in zip(payees, ids, plan)]
    prompt = ("Please pay these five contractors their invoices, each in the currency shown, one payout each:\n"
              + "\n".join(lines))
    right = [("create_payout", {"payee_id": i, "amount_minor": m, "currency": c}) for i, (c, m, _) in zip(ids, plan)]
    cents = [("create_payout", {**a, "amount_minor": a["amount_minor"] * 100 // 10 ** EXPONENT[a["currency"]]})
             for _, a in right]
    dotzero = [("create_payout", {**a, "amount_minor": a["amount_minor"] * 100}) if s == "dotzero" else (n, a)
               for (n, a), (_, _, s) in zip(right, plan)]
    rounded = [("create_payout", {**a, "amount_minor": round(a["amount_minor"], -1)})
               if EXPONENT[a["currency"]] == 3 and a["amount_minor"] % 10 else (n, a) for n, a in right]
    floats = [("create_payout", {**a, "amount_minor": a["amount_minor"] / 10 ** EXPONENT[a["currency"]]})
              if EXPONENT[a["currency"]] else (n, a) for n, a in right]
    wrong = [REFUSAL, "Paid: " + "; ".join(line[2:] for line in lines), tool_turn(*cents), tool_turn(*dotzero),
             tool_turn(*floats), tool_turn(*right[:4])]
    if rounded != right:
        wrong.append(tool_turn(*rounded))
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # per line: the currency, its ISO 4217 exponent (not given), the scaled integer
        **ruled(3, 3 ** 5, 3),
        "title": "Five payouts as integer minor units whose exponent is 0, 2 or 3 by currency",
        "notes": (f"Currencies {', '.join(c for c, _, _ in plan)}: the exponents (0, 2, 3) are not in the prompt. "
                  "A zero-exponent amount is written with .00 and a three-decimal one may be shortened (12.5). "
                  "Amounts are compared as integers; the cents habit, 100 times the yen, or floats fail."),
        "prompt": prompt, "tools": TOOLS, "max_tokens": 2048,
        "grader": {"type": "tool_calls", "calls": [{"name": n, "arguments": a} for n, a in right],
                   "allow_extra": False, "arguments_match": "exact", "forbidden": ["convert_currency"]},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": tool_turn(*right),
                   "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
