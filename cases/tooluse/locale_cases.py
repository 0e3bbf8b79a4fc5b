"""Tool use: a European invoice's numbers and dates read in its locale and sent in the schema's forms (TU-locale).

The bookkeeping tool takes amounts as JSON numbers with a decimal point and dates as ISO strings. The user pastes
a supplier invoice written the way its country writes: German (1.234,56 and 03.04.2025), French (1 234,56 with a
space between thousands, and 03/04/2025) or Dutch (EUR 1.234,56, a whole amount as 2.400,- and 03-04-2025). Every
date has a day of at most 12, so a month-first reading gives another valid date, and one amount is a round number of
thousands, whose separator a careless reading takes for a decimal point. The call carries the invoice number, both
dates and the net, VAT and gross amounts. Traps: a date read month-first, 1.234,56 read as 1.23456 (or the whole
thousands as 2.4), amounts sent as strings. Each solver reads the numbers by stripping every separator and placing
the decimal point from the count of digits after the last comma, and the dates by strptime with the locale's format.
"""

from __future__ import annotations

import datetime as dt
import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-locale"
REFUSAL = "I'm sorry, but I can't help with that request."
SUPPLIERS = ["Holzbau Richter GmbH", "Atelier Moreau SARL", "Van Dijk Installatietechniek B.V."]
ISO = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "ISO 8601 date, YYYY-MM-DD"}
MONEY = {"type": "number", "description": "in euros, a JSON number with a decimal point (1234.5)"}
TOOLS = [function_tool("record_invoice", "Book a supplier invoice in the ledger.",
                       {"supplier": {"type": "string"}, "invoice_number": {"type": "string"},
                        "invoice_date": ISO, "due_date": ISO, "net_amount": MONEY, "vat_amount": MONEY,
                        "gross_amount": MONEY}, ["supplier", "invoice_number", "invoice_date", "due_date",
                                                 "net_amount", "vat_amount", "gross_amount"]),
         function_tool("pay_invoice", "Pay a booked invoice now.", {"invoice_number": {"type": "string"}},
                       ["invoice_number"])]

SOLVER = r'''
import json, re, datetime
prompt = PROMPT
doc = prompt.split("---")[1]
fmt = {".": "%d.%m.%Y", "/": "%d/%m/%Y", "-": "%d-%m-%Y"}
def date(label):
    text = re.search(label + r"[^\d]*(\d\d[./-]\d\d[./-]\d{4})", doc).group(1)
    return datetime.datetime.strptime(text, fmt[text[2]]).date().isoformat()
def amount(label):
    text = re.search(label + r".*?(\d[\d. \u202f]*(?:,(?:\d\d|-))?)\s*(?:EUR|€)?\s*$", doc, re.M).group(1).strip()
    whole, _, cents = text.partition(",")
    digits = re.sub(r"\D", "", whole)
    return int(digits) + (0 if cents in ("", "-") else int(cents) / 100)
number = re.search(r"(?:Rechnungsnummer|Facture n°|Factuurnummer)\s*:?\s*(\S+)", doc).group(1)
supplier = doc.strip().splitlines()[0].strip()
net, vat, gross = amount(r"(?:Nettobetrag|Total HT|Subtotaal)"), amount(r"(?:MwSt|TVA|BTW)"), \
    amount(r"(?:Gesamtbetrag|Total TTC|Totaal)")
assert round(net + vat, 2) == round(gross, 2)
args = {"supplier": supplier, "invoice_number": number,
        "invoice_date": date(r"(?:Rechnungsdatum|Date de facture|Factuurdatum)"),
        "due_date": date(r"(?:Zahlbar bis|Échéance|Vervaldatum)"),
        "net_amount": round(net, 2), "vat_amount": round(vat, 2), "gross_amount": round(gross, 2)}
print(json.dumps({"calls": [{"name": "record_invoice", "arguments": args}]}))
'''


def _german(cents: int) -> str:
    return f"{cents // 100:,}".replace(",", ".") + f",{cents % 100:02d}"


def _french(cents: int) -> str:
    return f"{cents // 100:,}".replace(",", "\u202f") + f",{cents % 100:02d}"


def _dutch(cents: int) -> str:
    whole = f"{cents // 100:,}".replace(",", ".")
    return whole + (",-" if cents % 100 == 0 else f",{cents % 100:02d}")


def _day_first_date(rng: random.Random, start: dt.date) -> dt.date:
    """A date after `start` whose day is at most 12 and differs from its month (a month-first reading is valid
    and different)."""
    while True:
        d = start + dt.timedelta(days=rng.randint(1, 40))
        if d.day <= 12 and d.day != d.month:
            return d


def _case(number: int, rng: random.Random) -> dict:
    year = rng.choice([2025, 2026])
    issued = _day_first_date(rng, dt.date(year, rng.randint(1, 9), 1))
    due = _day_first_date(rng, issued + dt.timedelta(days=10))
    rate = {1: 19, 2: 20, 3: 21}[number]
    if number == 3:  # a whole gross amount written 2.400,- (its thousands dot is no decimal point)
        gross = rng.randint(2, 9) * 1000 * 100
        net = gross * 100 // (100 + rate)
        vat = gross - net
    else:
        net = rng.randint(1_000, 9_999) * 100 + rng.randint(1, 99)
        vat = round(net * rate / 100)
        gross = net + vat
    supplier = SUPPLIERS[number - 1]
    ref = f"{rng.choice(['RE', 'F', 'FA'])}-{year}-{rng.randint(1000, 9999)}"
    if number == 1:
        fmt_date, money = (lambda d: d.strftime("%d.%m.%Y")), (lambda c: f"{_german(c)} EUR")
        labels = ("Rechnungsnummer:", "Rechnungsdatum:", "Zahlbar bis:", "Nettobetrag:", f"MwSt {rate} %:",
                  "Gesamtbetrag:")
    elif number == 2:
        fmt_date, money = (lambda d: d.strftime("%d/%m/%Y")), (lambda c: f"{_french(c)} €")
        labels = ("Facture n°", "Date de facture :", "Échéance :", "Total HT :", f"TVA {rate} % :", "Total TTC :")
    else:
        fmt_date, money = (lambda d: d.strftime("%d-%m-%Y")), (lambda c: f"€ {_dutch(c)}")
        labels = ("Factuurnummer:", "Factuurdatum:", "Vervaldatum:", "Subtotaal:", f"BTW {rate}%:", "Totaal:")
    doc = "\n".join([supplier, f"{labels[0]} {ref}", f"{labels[1]} {fmt_date(issued)}", f"{labels[2]} {fmt_date(due)}",
                     "", f"{labels[3]} {money(net)}", f"{labels[4]} {money(vat)}", f"{labels[5]} {money(gross)}"])
    prompt = ("Please book this supplier invoice in the ledger (don't pay it yet). The ledger wants amounts as plain "
              "numbers with a decimal point and dates as YYYY-MM-DD.\n---\n" + doc + "\n---")
    args = {"supplier": supplier, "invoice_number": ref, "invoice_date": issued.isoformat(),
            "due_date": due.isoformat(), "net_amount": net / 100, "vat_amount": vat / 100, "gross_amount": gross / 100}
    send = lambda a: tool_turn(("record_invoice", a))  # noqa: E731
    month_first = lambda d: dt.date(d.year, d.day, d.month).isoformat()  # noqa: E731
    thousands = lambda c: (c // 100) / 1000 if c % 100 == 0 else float(f"{c // 100 / 1000}{c % 100:02d}")  # noqa: E731
    wrong = [REFUSAL, f"Booked invoice {ref} from {supplier}: {gross / 100:.2f} EUR.",
             send({**args, "invoice_date": month_first(issued), "due_date": month_first(due)}),
             send({**args, "due_date": month_first(due)}),
             send({**args, "net_amount": thousands(net), "gross_amount": thousands(gross)}),
             send({**args, **{k: f"{args[k]:.2f}" for k in ("net_amount", "vat_amount", "gross_amount")}}),
             tool_turn(("record_invoice", args), ("pay_invoice", {"invoice_number": ref}))]
    if number == 3:
        wrong.append(send({**args, "gross_amount": gross / 100 / 1000}))
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # read two day-first dates and three locale numbers, write them in the schema's forms
        **ruled(3, 4, 2),
        "title": "A European invoice's amounts and day-first dates booked as JSON numbers and ISO dates",
        "notes": ({1: "German", 2: "French (narrow spaces between thousands)", 3: "Dutch (a whole total written ,-)"}
                  [number] + " invoice: both dates have a day of at most 12 (month-first is another valid date) and "
                  "the amounts carry thousands separators with a decimal comma. Arguments are compared exactly; "
                  "amounts must be numbers."),
        "prompt": prompt, "tools": TOOLS, "max_tokens": 2048,
        "grader": {"type": "tool_calls", "calls": [{"name": "record_invoice", "arguments": args}],
                   "allow_extra": False, "arguments_match": "exact", "forbidden": ["pay_invoice"]},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": send(args), "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
