"""CO-spec-recur: dates of a recurrence rule (a stated subset of iCalendar's RRULE).

Seeded rules and starts come from the seed; the expected dates come from a day-by-day scan that decides
for each calendar day whether it belongs to a chosen period and passes every rule part (a day's
ordinal within its month read off its day number), then applies the set positions per period. The
reference builds each period's dates directly (nth weekday by arithmetic, negative month days from
the month's length).
"""

import calendar
from datetime import date, timedelta

from pytest_crucible import code_case, family_rng, mutate, row_tests

FAMILY = "CO-spec-recur"

# Hardness (README "How tiers are assigned", coding): periods counted from the start's period (Monday
# weeks), INTERVAL, defaults taken from the start, BYMONTH as filter or month list, BYMONTHDAY with
# negative days and skipped invalid dates, BYDAY with month-relative ordinals, the intersection of
# month days and weekdays, BYSETPOS per period before the start is applied, COUNT against UNTIL
# (inclusive): 10 steps, no search. Traps: the wrong solutions.
HARDNESS = {"steps": 10, "search": 1, "traps": 5}

PROMPT = """
Write a Python function `occurrences(start: str, rule: str) -> list[str]` returning, in order, the dates
(ISO `YYYY-MM-DD`) on which a recurring event happens. `start` is an ISO date; `rule` is a
`;`-separated list of `NAME=VALUE` parts (lists inside a value are `,`-separated):

- `FREQ` (always given): `DAILY`, `WEEKLY`, `MONTHLY` or `YEARLY`. It cuts time into periods: days,
  weeks running Monday to Sunday, calendar months, calendar years.
- `INTERVAL=n` (default 1): only every n-th period counts, counting from the period that contains
  `start` (that one included).
- `BYMONTH`: month numbers 1-12. `BYMONTHDAY`: days of the month, where -1 is the last day, -2 the one
  before, and so on. `BYDAY`: weekdays `MO TU WE TH FR SA SU`, each optionally prefixed by an ordinal
  within the month: `2TU` is the month's second Tuesday, `-1FR` its last Friday.
- `BYSETPOS`: positions (1 = first, -1 = last) picked from each period's candidate dates.
- `COUNT=n` (stop after n dates) or `UNTIL=YYYY-MM-DD` (no date after it; the date itself may occur).
  Exactly one of the two is given.

The candidate dates of one counted period:
- DAILY: the day itself, if it passes every BYMONTH, BYMONTHDAY and BYDAY given (BYDAY has no ordinals
  here).
- WEEKLY: the days of the week with a weekday listed in BYDAY (no ordinals), or without BYDAY the
  day with start's weekday; then only those in a BYMONTH month, if BYMONTH is given.
- MONTHLY: nothing if BYMONTH is given and the month is not in it. Otherwise the month's days listed by
  BYMONTHDAY and/or matching BYDAY (when both are given, the days that satisfy both); with neither,
  the day with start's day number. Days that do not exist in the month (the 31st of April, -30 in
  February) are skipped, never moved.
- YEARLY: each month listed in BYMONTH (default: start's month) is treated as in MONTHLY, and the
  candidates of the whole year together form the period's set.

Then BYSETPOS, if given, keeps only the candidates at those positions of the period's sorted set (a
position beyond the set is ignored). Dates before `start` are then dropped (BYSETPOS is applied
before that), and COUNT or UNTIL ends the list. A rule with COUNT always has that many dates within 100
years.

Examples:

    occurrences("2024-01-31", "FREQ=MONTHLY;COUNT=3") == ["2024-01-31", "2024-03-31", "2024-05-31"]
    occurrences("2024-05-01", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=2") == ["2024-05-31", "2024-06-28"]
    occurrences("2024-03-06", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR;UNTIL=2024-03-25") == [
        "2024-03-08", "2024-03-18", "2024-03-22"]
"""

SOLUTION = '''
import calendar
from datetime import date, timedelta
from itertools import count as counter

DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]


def occurrences(start, rule):
    s = date.fromisoformat(start)
    parts = dict(part.split("=") for part in rule.split(";"))
    ints = lambda name: [int(x) for x in parts[name].split(",")] if name in parts else None
    freq, interval = parts["FREQ"], int(parts.get("INTERVAL", 1))
    limit = int(parts["COUNT"]) if "COUNT" in parts else None
    until = date.fromisoformat(parts["UNTIL"]) if "UNTIL" in parts else None
    months, month_days, positions = ints("BYMONTH"), ints("BYMONTHDAY"), ints("BYSETPOS")
    weekdays = None
    if "BYDAY" in parts:
        weekdays = [(int(x[:-2]) if x[:-2] else None, DAYS.index(x[-2:])) for x in parts["BYDAY"].split(",")]
    out = []
    for k in counter(0):
        first, found = _period(freq, s, k * interval, months, month_days, weekdays)
        if until is not None and first > until or first.year > s.year + 101:
            return out
        found = sorted(set(found))
        if positions:
            found = sorted({found[p - 1 if p > 0 else p] for p in positions
                            if -len(found) <= (p - 1 if p > 0 else p) < len(found)})
        for d in found:
            if d < s:
                continue
            if until is not None and d > until:
                return out
            out.append(d.isoformat())
            if limit is not None and len(out) == limit:
                return out


def _add_months(y, m, k):
    m0 = y * 12 + m - 1 + k
    return m0 // 12, m0 % 12 + 1


def _month(y, m, s, month_days, weekdays):
    last = calendar.monthrange(y, m)[1]
    chosen = None
    if month_days:
        chosen = {d if d > 0 else last + 1 + d for d in month_days}
        chosen = {d for d in chosen if 1 <= d <= last}
    if weekdays:
        matching = set()
        for n, wd in weekdays:
            first = 1 + (wd - date(y, m, 1).weekday()) % 7
            days = list(range(first, last + 1, 7))
            if n is None:
                matching.update(days)
            elif -len(days) <= (n - 1 if n > 0 else n) < len(days):
                matching.add(days[n - 1 if n > 0 else n])
        chosen = matching if chosen is None else chosen & matching
    if chosen is None:
        chosen = {s.day} if s.day <= last else set()
    return [date(y, m, d) for d in chosen]


def _period(freq, s, k, months, month_days, weekdays):
    """(first day of the k-th period from start's, its candidate dates)"""
    if freq == "DAILY":
        d = s + timedelta(days=k)
        last = calendar.monthrange(d.year, d.month)[1]
        ok = ((not months or d.month in months)
              and (not month_days or any(d.day == (x if x > 0 else last + 1 + x) for x in month_days))
              and (not weekdays or any(d.weekday() == wd for _, wd in weekdays)))
        return d, [d] if ok else []
    if freq == "WEEKLY":
        monday = s - timedelta(days=s.weekday()) + timedelta(weeks=k)
        offsets = [wd for _, wd in weekdays] if weekdays else [s.weekday()]
        days = [monday + timedelta(days=wd) for wd in offsets]
        return monday, [d for d in days if not months or d.month in months]
    if freq == "MONTHLY":
        y, m = _add_months(s.year, s.month, k)
        if months and m not in months:
            return date(y, m, 1), []
        return date(y, m, 1), _month(y, m, s, month_days, weekdays)
    y = s.year + k
    found = []
    for m in months or [s.month]:
        found += _month(y, m, s, month_days, weekdays)
    return date(y, 1, 1), found
'''

WRONG = [
    # a missing day clipped to the month's end instead of skipped
    mutate(SOLUTION, ("        chosen = {s.day} if s.day <= last else set()", "        chosen = {min(s.day, last)}")),
    # weeks counted in 7-day blocks from the start instead of Monday-to-Sunday weeks
    mutate(SOLUTION, ("        monday = s - timedelta(days=s.weekday()) + timedelta(weeks=k)",
                      "        monday = s + timedelta(weeks=k)"),
           ("        days = [monday + timedelta(days=wd) for wd in offsets]",
            "        days = [monday + timedelta(days=(wd - s.weekday()) % 7) for wd in offsets]")),
    # BYSETPOS applied after the dates before the start are dropped
    mutate(SOLUTION, ('''        found = sorted(set(found))
        if positions:''', '''        found = sorted(d for d in set(found) if d >= s)
        if positions:''')),
    # month days and weekdays combined as a union
    mutate(SOLUTION, ("        chosen = matching if chosen is None else chosen & matching",
                      "        chosen = matching if chosen is None else chosen | matching")),
    # UNTIL taken as exclusive
    mutate(SOLUTION, ("            if until is not None and d > until:",
                      "            if until is not None and d >= until:")),
]

_DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]


def _ordinals(d: date):
    last = calendar.monthrange(d.year, d.month)[1]
    return (d.day - 1) // 7 + 1, -((last - d.day) // 7 + 1)


def _scan(start: str, rule: str) -> list[str] | None:
    """Every day from the first period's first day on: in a counted period, and a candidate? None for a
    COUNT rule that does not reach its count within 4 years (the generator draws another)."""
    s = date.fromisoformat(start)
    parts = dict(p.split("=") for p in rule.split(";"))
    freq, interval = parts["FREQ"], int(parts.get("INTERVAL", 1))
    months = {int(x) for x in parts["BYMONTH"].split(",")} if "BYMONTH" in parts else None
    mdays = [int(x) for x in parts["BYMONTHDAY"].split(",")] if "BYMONTHDAY" in parts else None
    bydays = None
    if "BYDAY" in parts:
        bydays = [(int(x[:-2]) if x[:-2] else None, _DAYS.index(x[-2:])) for x in parts["BYDAY"].split(",")]
    positions = [int(x) for x in parts["BYSETPOS"].split(",")] if "BYSETPOS" in parts else None
    limit = int(parts["COUNT"]) if "COUNT" in parts else None
    until = date.fromisoformat(parts["UNTIL"]) if "UNTIL" in parts else None

    def period_of(d):
        if freq == "DAILY":
            return (d - s).days
        if freq == "WEEKLY":
            return ((d - timedelta(days=d.weekday())) - (s - timedelta(days=s.weekday()))).days // 7
        if freq == "MONTHLY":
            return (d.year - s.year) * 12 + d.month - s.month
        return d.year - s.year

    def day_ok(d):
        last = calendar.monthrange(d.year, d.month)[1]
        by_md = mdays is None or any(d.day == (x if x > 0 else last + 1 + x) for x in mdays)
        by_wd = bydays is None or any(d.weekday() == wd and (n is None or n in _ordinals(d)) for n, wd in bydays)
        if freq == "WEEKLY":
            return (months is None or d.month in months) and (d.weekday() == s.weekday() if bydays is None else by_wd)
        if freq == "DAILY":
            return (months is None or d.month in months) and by_md and by_wd
        if freq == "MONTHLY" and months is not None and d.month not in months:
            return False
        if freq == "YEARLY" and d.month not in (months or {s.month}):
            return False
        if mdays is None and bydays is None:
            return d.day == s.day
        return by_md and by_wd

    first = {"DAILY": s, "WEEKLY": s - timedelta(days=s.weekday()), "MONTHLY": s.replace(day=1),
             "YEARLY": s.replace(month=1, day=1)}[freq]
    out, d, group, current = [], first, [], 0
    while True:
        p = period_of(d)
        if p != current:
            chosen = group
            if positions:
                chosen = [group[i - 1 if i > 0 else i] for i in sorted(set(positions), key=lambda i: i)
                          if -len(group) <= (i - 1 if i > 0 else i) < len(group)]
                chosen = sorted(set(chosen))
            for c in chosen:
                if c >= s and (until is None or c <= until):
                    out.append(c.isoformat())
                    if limit is not None and len(out) == limit:
                        return out
            group, current = [], p
            if until is not None and d > until:
                return out
            if (d - s).days > 366 * 4:
                return None
        if p % interval == 0 and day_ok(d):
            group.append(d)
        d += timedelta(days=1)


def _rule(rng):
    freq = rng.choice(["DAILY", "WEEKLY", "WEEKLY", "MONTHLY", "MONTHLY", "MONTHLY", "YEARLY", "YEARLY"])
    parts = [f"FREQ={freq}"]
    if rng.random() < 0.5:
        parts.append(f"INTERVAL={rng.randrange(2, 4)}")
    if freq in ("DAILY", "WEEKLY") and rng.random() < 0.3 or freq == "YEARLY" and rng.random() < 0.7 \
            or freq == "MONTHLY" and rng.random() < 0.2:
        parts.append("BYMONTH=" + ",".join(map(str, sorted(rng.sample(range(1, 13), rng.randrange(1, 4))))))
    if freq in ("DAILY", "MONTHLY", "YEARLY") and rng.random() < 0.45:
        days = rng.sample([1, 2, 13, 15, 28, 29, 30, 31, -1, -2, -3, -30], rng.randrange(1, 4))
        parts.append("BYMONTHDAY=" + ",".join(map(str, days)))
    if rng.random() < 0.55:
        items = []
        for wd in rng.sample(_DAYS, rng.randrange(1, 4)):
            if freq in ("MONTHLY", "YEARLY") and rng.random() < 0.5:
                wd = str(rng.choice([1, 2, 3, 4, 5, -1, -2])) + wd
            items.append(wd)
        parts.append("BYDAY=" + ",".join(items))
    if freq in ("MONTHLY", "YEARLY") and rng.random() < 0.35:
        parts.append("BYSETPOS=" + ",".join(map(str, rng.sample([1, 2, -1, -2, 3], rng.randrange(1, 3)))))
    if rng.random() < 0.5:
        parts.append(f"COUNT={rng.randrange(1, 9)}")
    else:
        parts.append("UNTIL=END")
    rng.shuffle(parts)
    return ";".join(parts)


def cases(seed):
    rng = family_rng(FAMILY, seed)
    rows = []
    fixed = [("2024-01-31", "FREQ=MONTHLY;COUNT=3"),
             ("2024-05-01", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=2"),
             ("2024-03-06", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR;UNTIL=2024-03-25"),
             ("2024-02-29", "FREQ=YEARLY;COUNT=2"),
             ("2023-01-15", "FREQ=MONTHLY;BYMONTHDAY=-1,1;BYDAY=-1SU,SA;COUNT=4"),
             ("2024-06-20", "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1;COUNT=2"),
             ("2024-01-01", "FREQ=DAILY;BYMONTHDAY=-1;BYDAY=SA,SU;UNTIL=2024-12-31"),
             ("2024-12-30", "FREQ=WEEKLY;BYMONTH=1;COUNT=3"),
             ("2024-01-01", "FREQ=WEEKLY;BYDAY=MO;UNTIL=2024-01-15")]
    for start, rule in fixed:
        rows.append(((start, rule), _scan(start, rule)))
    while len(rows) < 50:
        start = date(rng.randrange(2019, 2027), rng.randrange(1, 13), 1)
        start += timedelta(days=rng.randrange(0, 31))
        rule = _rule(rng)
        if "UNTIL=END" in rule:
            rule = rule.replace("END", (start + timedelta(days=rng.randrange(0, 600))).isoformat())
        got = _scan(start.isoformat(), rule)
        if got is not None:
            rows.append(((start.isoformat(), rule), got))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Dates of a recurrence rule (an RRULE subset)",
        prompt=PROMPT, entry_point="occurrences", tests=row_tests("occurrences", rows),
        solution=SOLUTION, wrong=WRONG,
        notes="""Ten interacting rules on one date stream, none of which a quick reply gets right by
        default: Monday weeks (not 7-day blocks from the start) under INTERVAL, missing days skipped
        (Jan 31 monthly has no February date), ordinals within the month, BYMONTHDAY and BYDAY
        intersected, BYSETPOS taken per period before dates before the start are dropped (the last
        weekday of the start's month is found even when the month began earlier), UNTIL inclusive,
        YEARLY as monthly expansion over BYMONTH. Each wrong solution breaks one of these and passes
        the prompt's examples or most rows.""",
    )]

