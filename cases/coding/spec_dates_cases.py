"""Coding, spec-heavy functions over calendar rules: business days, billing dates, working minutes.

Each family takes the suite seed: the seed picks the rule variant the prompt states (weekend days,
how a zero offset rolls, office hours) and the hidden test data. The expected values in the tests are
computed here by a deliberately different method from the reference solution that `crucible cases
verify` runs in the sandbox (sorted business-day lists and bisection here, day-by-day stepping there;
minute-granular day scans here, a cumulative-minutes function there), so a mistake in either shows.
"""

from __future__ import annotations

import bisect
import calendar
import random
from datetime import date, datetime, timedelta

from pytest_crucible import STANDARD_LIBRARY_ONLY, family_rng, flow, row_tests
from pytest_crucible.suite.tiers import ruled

# Hardness (steps, search, traps): one step per rule the hidden rows probe (they interact on each date); no
# input size rules out a plain day-by-day method (search 1); traps: the wrong solutions, each breaking one rule.
# bizdays: observed holidays without cascade, start not counted, negative offsets, the zero-offset convention,
# the seeded weekend; billing: anchor days 29-31, month ends, weekend moves inside the month, December
# rollover, the 2100 leap rule, steps of 2-6 months; workmins: half-open sessions, the short day's cut,
# weekends, reversed ranges with a sign, seeded hours.
BIZDAYS, BILLING, WORKMINS = ruled(5, 1, 5), ruled(6, 1, 5), ruled(5, 1, 4)


REPLY = "Reply with the complete function in a single ```python code block."
DATE_ONLY = "Dates are strings in the form YYYY-MM-DD and the function returns dates in that form."


def _iso(d: date) -> str:
    return d.isoformat()


# ----------------------------------------------------------------------------------- business days

_WEEKENDS = {
    "sat-sun": ("Saturday and Sunday", (5, 6)),
    "fri-sat": ("Friday and Saturday", (4, 5)),
}
_ZERO_RULES = {
    "following": "the first business day after `start`",
    "preceding": "the last business day before `start`",
    "modified-following": ("the first business day after `start`, unless that day lies in a later "
                           "calendar month than `start`; then the last business day before `start`"),
}


def _off_days(holidays: list[date], weekend: tuple[int, int]) -> set[date]:
    """Holidays plus observed days: a holiday on the first weekend day moves to the day before the
    weekend, one on the second weekend day to the day after it (no further cascading)."""
    first, second = weekend
    off = set()
    for h in holidays:
        if h.weekday() == first:
            off.add(h - timedelta(days=1))
        elif h.weekday() == second:
            off.add(h + timedelta(days=1))
        else:
            off.add(h)
    return off


def _business_days_list(holidays: list[date], weekend: tuple[int, int], lo: date, hi: date) -> list[date]:
    off = _off_days(holidays, weekend)
    out, d = [], lo
    while d <= hi:
        if d.weekday() not in weekend and d not in off:
            out.append(d)
        d += timedelta(days=1)
    return out


def _expected_business_day(days: list[date], start: date, n: int, zero_rule: str) -> date:
    if n > 0:
        return days[bisect.bisect_right(days, start) + n - 1]
    if n < 0:
        return days[bisect.bisect_left(days, start) + n]
    i = bisect.bisect_left(days, start)
    if i < len(days) and days[i] == start:
        return start
    after, before = days[i], days[i - 1]
    if zero_rule == "following":
        return after
    if zero_rule == "preceding":
        return before
    return after if (after.year, after.month) == (start.year, start.month) else before


_BIZ_SOLUTION = '''
from datetime import date, timedelta

WEEKEND = {weekend}
ZERO_RULE = {zero_rule!r}

def add_business_days(start, n, holidays):
    first, second = WEEKEND
    off = set()
    for text in holidays:
        h = date.fromisoformat(text)
        if h.weekday() == first:
            off.add(h - timedelta(days=1))
        elif h.weekday() == second:
            off.add(h + timedelta(days=1))
        else:
            off.add(h)

    def working(d):
        return d.weekday() not in WEEKEND and d not in off

    def step(d, direction, count):
        while count:
            d += timedelta(days=direction)
            if working(d):
                count -= 1
        return d

    day = date.fromisoformat(start)
    if n:
        return step(day, 1 if n > 0 else -1, abs(n)).isoformat()
    if working(day):
        return start
    after, before = step(day, 1, 1), step(day, -1, 1)
    if ZERO_RULE == "following":
        return after.isoformat()
    if ZERO_RULE == "preceding":
        return before.isoformat()
    return (after if after.month == day.month else before).isoformat()
'''


def _biz_wrongs(solution: str, zero_rule: str) -> list[str]:
    no_observance = solution.replace(
        "        if h.weekday() == first:\n            off.add(h - timedelta(days=1))\n"
        "        elif h.weekday() == second:\n            off.add(h + timedelta(days=1))\n"
        "        else:\n            off.add(h)\n", "        off.add(h)\n")
    counts_start = solution.replace(
        "        while count:\n            d += timedelta(days=direction)\n            if working(d):\n"
        "                count -= 1\n        return d\n",
        "        while True:\n            if working(d):\n                count -= 1\n"
        "                if count == 0:\n                    return d\n            d += timedelta(days=direction)\n")
    cascading = solution.replace(
        "        if h.weekday() == first:\n            off.add(h - timedelta(days=1))\n"
        "        elif h.weekday() == second:\n            off.add(h + timedelta(days=1))\n"
        "        else:\n            off.add(h)\n",
        "        if h.weekday() == first:\n            d = h - timedelta(days=1)\n"
        "            while d in off:\n                d -= timedelta(days=1)\n            off.add(d)\n"
        "        elif h.weekday() == second:\n            d = h + timedelta(days=1)\n"
        "            while d in off:\n                d += timedelta(days=1)\n            off.add(d)\n"
        "        elif h in off:\n            d = h + timedelta(days=1)\n"
        "            while d in off or d.weekday() in WEEKEND:\n                d += timedelta(days=1)\n"
        "            off.add(d)\n        else:\n            off.add(h)\n")
    forward_only = solution.replace("return step(day, 1 if n > 0 else -1, abs(n)).isoformat()",
                                    "return step(day, 1, abs(n)).isoformat()")
    wrongs = [no_observance, counts_start, cascading, forward_only]
    if zero_rule == "modified-following":
        wrongs.append(solution.replace('ZERO_RULE = \'modified-following\'', 'ZERO_RULE = \'following\''))
    else:
        wrongs.append(solution.replace("    if working(day):\n        return start\n", "    return start\n"))
    for w in wrongs:
        assert w != solution
    return wrongs


def _business_days_case(rng: random.Random, number: int, weekend_key: str, zero_rule: str) -> dict:
    weekend_words, weekend = _WEEKENDS[weekend_key]
    year = rng.randrange(2027, 2036)
    month = rng.randrange(1, 11)
    lo = date(year, month, 1)
    window = [lo + timedelta(days=i) for i in range(75)]
    by_weekday = {wd: [d for d in window if d.weekday() == wd] for wd in range(7)}
    first, second = weekend
    before_weekend = (first - 1) % 7
    holidays: list[date] = []
    # traps every seed has: a holiday on each weekend day, and a weekend holiday whose observed day
    # is already a holiday (it must not move again)
    holidays.append(rng.choice(by_weekday[first][:4]))
    holidays.append(rng.choice(by_weekday[second][4:7]))
    clash = rng.choice(by_weekday[first][7:])
    holidays += [clash, clash - timedelta(days=1)]
    # ordinary holidays on workdays, never on the days the traps below probe: where the two weekend
    # holidays are observed, and the workdays on either side of the clash that a cascade would take
    after_clash = clash + timedelta(days=2)   # the workday after the clash's weekend
    protected = {holidays[0] - timedelta(days=1), holidays[1] + timedelta(days=1), clash - timedelta(days=2),
                 after_clash}
    workdays = [d for d in window if d.weekday() not in weekend and d not in protected]
    holidays += rng.sample(workdays, 4)
    month_ends = [d for d in window if (d + timedelta(days=1)).day == 1]
    # a month that ends in off days, so rolling a zero offset forward crosses into the next month
    end = month_ends[0]
    holidays.append(end if end.weekday() not in weekend else end - timedelta(days=2))
    holidays.append(rng.choice(holidays))  # a duplicate
    holiday_text = [_iso(h) for h in holidays]
    rng.shuffle(holiday_text)
    days = _business_days_list(holidays, weekend, lo - timedelta(days=40), lo + timedelta(days=140))
    off = _off_days(holidays, weekend)

    starts = [rng.choice(window) for _ in range(24)]
    starts += [d for d in window if d in off or d.weekday() in weekend][:10]
    starts += [end, end - timedelta(days=1), end + timedelta(days=1)]
    rows = []
    for start in starts:
        for n in sorted({0, rng.choice([1, 2, 3]), -rng.choice([1, 2, 3]), rng.randrange(-15, 16)}):
            rows.append(((_iso(start), n), _iso(_expected_business_day(days, start, n, zero_rule))))
    # steps onto, from and over the two observed days of the weekend holidays, and next to the clash
    for observed in (holidays[0] - timedelta(days=1), holidays[1] + timedelta(days=1)):
        for start, n in ((observed - timedelta(days=1), 1), (observed, 0), (observed + timedelta(days=1), -1)):
            rows.append(((_iso(start), n), _iso(_expected_business_day(days, start, n, zero_rule))))
    for start, n in ((clash - timedelta(days=3), 1), (clash - timedelta(days=3), 2), (after_clash - timedelta(days=1), 1),
                     (after_clash + timedelta(days=1), -1)):
        rows.append(((_iso(start), n), _iso(_expected_business_day(days, start, n, zero_rule))))
    rng.shuffle(rows)
    prompt = f"""Write a Python function `add_business_days(start, n, holidays)` that moves a date by a number of
business days. {DATE_ONLY} `holidays` is a list of dates in any order; it may contain duplicates
and dates that fall on weekends.

Rules:
1. The weekend is {weekend_words}. A business day is a day that is not a weekend day, not a
   holiday and not an observed holiday.
2. A holiday that falls on the first weekend day ({calendar.day_name[first]}) is observed on the
   day before it ({calendar.day_name[before_weekend]}); a holiday on the second weekend day
   ({calendar.day_name[second]}) is observed on the day after it
   ({calendar.day_name[(second + 1) % 7]}). An observed day is never moved again, even if it is
   a holiday itself.
3. For n > 0 return the n-th business day after `start`; for n < 0 the |n|-th business day
   before `start`. `start` itself is never counted.
4. For n == 0 return `start` if it is a business day; otherwise return {_ZERO_RULES[zero_rule]}.

Example: with the weekend {weekend_words} and no holidays, moving a {calendar.day_name[before_weekend]}
by 1 business day gives the {calendar.day_name[(second + 1) % 7]} after the weekend.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    solution = _BIZ_SOLUTION.format(weekend=weekend, zero_rule=zero_rule).lstrip()
    return {
        "id": f"CO-spec-bizdays-{number:02d}",
        "family": "CO-spec-bizdays",
        **BIZDAYS,
        "max_tokens": 16384 if BIZDAYS["difficulty"] == "hard" else 8192,
        "title": f"Business days with observed holidays ({weekend_words} weekend, {zero_rule} for n = 0)",
        "prompt": flow(prompt),
        "grader": {"type": "code", "entry_point": "add_business_days",
                   "tests": row_tests("add_business_days", rows, suffix=(holiday_text,))},
        "verify": {"solution": solution, "wrong": _biz_wrongs(solution, zero_rule)},
        "notes": ("Four interacting rules, each probed by about 150 hidden rows: observed holidays "
                  "(with a Friday/Saturday-style clash that must not cascade), start never counted, "
                  "negative offsets, and a zero offset that rolls by a stated convention across a "
                  "month end placed on off days. The weekend and the convention are re-rolled per "
                  "seed, so a memorised Monday-Friday implementation fails. Models typically get "
                  "three of the four rules right and slip on one (cascading observance, counting "
                  "the start day, or plain following instead of modified following)."),
    }


# ----------------------------------------------------------------------------------- billing dates

def _last_day(year: int, month: int) -> int:
    first_next = date(year + month // 12, month % 12 + 1, 1)
    return (first_next - timedelta(days=1)).day


def _expected_billing(start: date, count: int, months: int) -> list[str]:
    anchor_is_end = start.day == _last_day(start.year, start.month)
    out = []
    for k in range(count):
        index = start.year * 12 + (start.month - 1) + k * months
        year, month = divmod(index, 12)
        month += 1
        last = _last_day(year, month)
        d = date(year, month, last if anchor_is_end else min(start.day, last))
        if d.weekday() >= 5:
            later = d + timedelta(days=7 - d.weekday())
            d = later if later.month == d.month else d - timedelta(days=d.weekday() - 4)
        out.append(_iso(d))
    return out


_BILLING_SOLUTION = '''
import calendar
from datetime import date, timedelta

def billing_dates(start, count, months):
    first = date.fromisoformat(start)
    month_end = first.day == calendar.monthrange(first.year, first.month)[1]
    result = []
    for k in range(count):
        year, month0 = divmod(first.month - 1 + k * months, 12)
        year += first.year
        month = month0 + 1
        days_in_month = calendar.monthrange(year, month)[1]
        day = days_in_month if month_end else min(first.day, days_in_month)
        bill = date(year, month, day)
        if bill.weekday() == 5:
            moved = bill + timedelta(days=2)
            bill = moved if moved.month == month else bill - timedelta(days=1)
        elif bill.weekday() == 6:
            moved = bill + timedelta(days=1)
            bill = moved if moved.month == month else bill - timedelta(days=2)
        result.append(bill.isoformat())
    return result
'''.lstrip()

_BILLING_WRONGS = [
    # drift: each bill from the previous one, so a short month pulls every later date down
    '''
import calendar
from datetime import date, timedelta

def billing_dates(start, count, months):
    current = date.fromisoformat(start)
    month_end = current.day == calendar.monthrange(current.year, current.month)[1]
    result = []
    for k in range(count):
        bill = current
        if bill.weekday() == 5:
            moved = bill + timedelta(days=2)
            bill = moved if moved.month == bill.month else bill - timedelta(days=1)
        elif bill.weekday() == 6:
            moved = bill + timedelta(days=1)
            bill = moved if moved.month == bill.month else bill - timedelta(days=2)
        result.append(bill.isoformat())
        year, month0 = divmod(current.month - 1 + months, 12)
        year += current.year
        days_in_month = calendar.monthrange(year, month0 + 1)[1]
        day = days_in_month if month_end else min(current.day, days_in_month)
        current = date(year, month0 + 1, day)
    return result
''',
    # no end-of-month anchoring: April 30 bills on May 30
    _BILLING_SOLUTION.replace("day = days_in_month if month_end else min(first.day, days_in_month)",
                              "day = min(first.day, days_in_month)"),
    # weekend moves always forward, even into the next month
    _BILLING_SOLUTION.replace("bill = moved if moved.month == month else bill - timedelta(days=1)",
                              "bill = moved").replace(
        "bill = moved if moved.month == month else bill - timedelta(days=2)", "bill = moved"),
    # month arithmetic that breaks in December
    _BILLING_SOLUTION.replace(
        "        year, month0 = divmod(first.month - 1 + k * months, 12)\n        year += first.year\n"
        "        month = month0 + 1\n",
        "        month = first.month + k * months\n        year = first.year + month // 12\n"
        "        month = month % 12 or 12\n"),
    # leap years by the four-year rule only (2100 is not a leap year)
    _BILLING_SOLUTION.replace("import calendar\n", "").replace(
        "def billing_dates(start, count, months):\n",
        "def _days(year, month):\n    if month == 2:\n        return 29 if year % 4 == 0 else 28\n"
        "    return 30 if month in (4, 6, 9, 11) else 31\n\n\n"
        "def billing_dates(start, count, months):\n").replace(
        "calendar.monthrange(first.year, first.month)[1]", "_days(first.year, first.month)").replace(
        "calendar.monthrange(year, month)[1]", "_days(year, month)"),
]


def _billing_case(rng: random.Random) -> dict:
    rows = []
    starts = []
    for year in rng.sample(range(2026, 2040), 3) + [2099, 2100]:
        for month in rng.sample(range(1, 13), 3):
            last = _last_day(year, month)
            starts.append(date(year, month, rng.choice([d for d in (last, last - 1, 29, 30, 31) if d <= last])))
    starts += [date(2100, 1, 31), date(2099, 11, 29), date(2032, 2, 29), date(2031, 2, 28), date(2032, 2, 28)]
    starts += [date(rng.randrange(2026, 2040), rng.randrange(1, 13), rng.randrange(1, 29)) for _ in range(6)]
    for start in starts:
        months = rng.choice([1, 1, 2, 3, 6])
        count = rng.randrange(5, 15)
        rows.append(((_iso(start), count, months), _expected_billing(start, count, months)))
    # monthly steps through a short month: an anchor of 29-31 (drift shows in the month after),
    # and a month-end start in a 30-day month
    year = rng.randrange(2027, 2040)
    for start in (date(year, 1, 31), date(year, 1, 30), date(year, 5, 31), date(year, 4, 30), date(year, 11, 29),
                  date(2100, 1, 29)):
        rows.append(((_iso(start), 5, 1), _expected_billing(start, 5, 1)))
    rng.shuffle(rows)
    example = date(2026, 1, 31)
    prompt = f"""Write a Python function `billing_dates(start, count, months)` that returns the first `count` billing
dates of a subscription that starts on `start` and bills every `months` months (bill 0 falls in the
start month). {DATE_ONLY} It returns a list of `count` date strings.

Rules:
1. The anchor day is the start date's day of the month. Bill k (k = 0, 1, ...) falls in the month
   that is k * months months after the start month, on the anchor day, or on the last day of that
   month if the month is too short. A short month never changes the anchor for later bills.
2. If the start date is the last day of its month, every bill falls on the last day of its month.
3. A bill that falls on a Saturday or Sunday moves to the following Monday, unless that Monday is
   in the next month; then it moves to the preceding Friday instead. This move never affects the
   anchor or later bills.
4. Use the Gregorian calendar (2100 is not a leap year, 2000 was).

Example: billing_dates("{_iso(example)}", 3, 1) == {_expected_billing(example, 3, 1)!r}

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    return {
        "id": "CO-spec-billing-01",
        "family": "CO-spec-billing",
        **BILLING,
        "max_tokens": 16384 if BILLING["difficulty"] == "hard" else 8192,
        "title": "Monthly billing dates: clipped anchors, end-of-month anchoring, weekend moves",
        "prompt": flow(prompt),
        "grader": {"type": "code", "entry_point": "billing_dates",
                   "tests": row_tests("billing_dates", rows)},
        "verify": {"solution": _BILLING_SOLUTION, "wrong": [w.lstrip() for w in _BILLING_WRONGS]},
        "notes": ("Every hidden start date sits on a trap: day 29-31 anchors crossing February "
                  "(drift from the previous bill is the common bug), month-end anchors (April 30 "
                  "must bill on May 31), weekend moves that would cross into the next month, "
                  "December rollover with 2-, 3- and 6-month steps, and the years 2099-2100 where "
                  "the four-year leap rule is wrong. Each of the five wrong solutions keeps all "
                  "rules but one; the start dates and steps are re-rolled per seed."),
    }


# ----------------------------------------------------------------------------------- working minutes

def _office_variant(rng: random.Random) -> list[tuple[int, int]]:
    """Two office sessions per working day, in minutes after midnight."""
    start = rng.choice([7 * 60 + 30, 8 * 60, 8 * 60 + 30, 9 * 60])
    lunch = rng.choice([11 * 60 + 45, 12 * 60, 12 * 60 + 30])
    back = lunch + rng.choice([30, 45, 60])
    end = rng.choice([16 * 60 + 30, 17 * 60, 17 * 60 + 15, 17 * 60 + 30])
    return [(start, lunch), (back, end)]


def _hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _expected_minutes(a: datetime, b: datetime, sessions, short_day: int, short_end: int) -> int:
    """One day at a time, each session clipped to the part of the day in range (the reference
    subtracts two values of a cumulative function instead)."""
    if b < a:
        return -_expected_minutes(b, a, sessions, short_day, short_end)
    total = 0
    day = a.date()
    while day <= b.date():
        if day.weekday() < 5:
            lo = a.hour * 60 + a.minute if day == a.date() else 0
            hi = b.hour * 60 + b.minute if day == b.date() else 24 * 60
            for s, e in sessions:
                if day.weekday() == short_day:
                    e = min(e, short_end)
                total += max(0, min(hi, e) - max(lo, s))
        day += timedelta(days=1)
    return total


_MINUTES_SOLUTION = '''
from datetime import datetime, timedelta

SESSIONS = {sessions!r}
SHORT_DAY, SHORT_END = {short_day!r}, {short_end!r}
EPOCH = datetime(2000, 1, 3)  # a Monday


def _day_minutes(weekday):
    if weekday >= 5:
        return []
    if weekday == SHORT_DAY:
        return [(s, min(e, SHORT_END)) for s, e in SESSIONS if s < SHORT_END]
    return SESSIONS


def _worked_before(moment):
    """Working minutes from EPOCH up to (not including) `moment`."""
    days = (moment.date() - EPOCH.date()).days
    weeks, rest = divmod(days, 7)
    per_week = sum(e - s for wd in range(7) for s, e in _day_minutes(wd))
    total = weeks * per_week + sum(e - s for wd in range(rest) for s, e in _day_minutes(wd))
    now = moment.hour * 60 + moment.minute
    for s, e in _day_minutes(moment.weekday()):
        total += max(0, min(e, now) - s)
    return total


def working_minutes(start, end):
    a = datetime.strptime(start, "%Y-%m-%d %H:%M")
    b = datetime.strptime(end, "%Y-%m-%d %H:%M")
    return _worked_before(b) - _worked_before(a)
'''


def _minutes_case(rng: random.Random) -> dict:
    sessions = _office_variant(rng)
    short_day = rng.choice([0, 4])
    short_end = rng.choice([13 * 60, 14 * 60, 15 * 60 + 30])
    (s1, e1), (s2, e2) = sessions
    base = datetime(rng.randrange(2026, 2034), rng.randrange(1, 13), rng.randrange(1, 20))

    def moment(day_offset: int, minute: int) -> datetime:
        return base + timedelta(days=day_offset, minutes=minute)

    interesting = [s1, e1, s2, e2, short_end, s1 - 1, e1 - 1, e1 + 1, s2 - 1, e2 + 1, 0, 23 * 60 + 59]
    pairs = []
    for _ in range(26):
        a = moment(rng.randrange(0, 14), rng.choice(interesting + [rng.randrange(0, 1440)]))
        b = a + timedelta(days=rng.choice([0, 0, 1, 2, 5, 9]), minutes=rng.randrange(-600, 900))
        pairs.append((a, b))
    # reversed ranges over working time, and whole weeks (every session, the short day, lunch)
    for _ in range(3):
        a = moment(rng.randrange(3, 14), rng.choice([s1 + 30, s2 + 20, e2 - 5]))
        pairs.append((a, a - timedelta(days=rng.randrange(1, 4), minutes=rng.randrange(0, 300))))
    week_start = moment(rng.randrange(0, 7), rng.randrange(0, 1440))
    pairs.append((week_start, week_start + timedelta(days=7)))
    pairs.append((week_start + timedelta(days=14), week_start))
    same_day = moment(rng.randrange(0, 5), s1 + 10)
    pairs.append((same_day, same_day))
    pairs.append((same_day.replace(hour=e1 // 60, minute=e1 % 60), same_day.replace(hour=s2 // 60, minute=s2 % 60)))
    rows = []
    for a, b in pairs:
        fmt = "%Y-%m-%d %H:%M"
        rows.append(((a.strftime(fmt), b.strftime(fmt)),
                     _expected_minutes(a, b, sessions, short_day, short_end)))
    rng.shuffle(rows)
    weekday_name = calendar.day_name[short_day]
    prompt = f"""Write a Python function `working_minutes(start, end)` that counts the working minutes between two
moments. Moments are strings "YYYY-MM-DD HH:MM" (24-hour clock, no time zones).

Rules:
1. Monday to Friday, the office is open {_hhmm(s1)}-{_hhmm(e1)} and {_hhmm(s2)}-{_hhmm(e2)}; on
   {weekday_name}s it closes for the day at {_hhmm(short_end)} (sessions are cut at that time).
   It is closed on Saturdays and Sundays. There are no holidays.
2. A session "{_hhmm(s1)}-{_hhmm(e1)}" contains the minutes that start at {_hhmm(s1)} up to the
   one that starts at {_hhmm(e1 - 1)}: the end time is not part of it.
3. Count the minutes that start at or after `start` and before `end` and lie in a session. If `end`
   is earlier than `start`, return the negative of working_minutes(end, start).

Example: from {_hhmm(s1)} to {_hhmm(s1 + 45)} on a Tuesday is 45 minutes.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    solution = _MINUTES_SOLUTION.format(sessions=sessions, short_day=short_day, short_end=short_end).lstrip()
    wrongs = [
        # the session end counted as open (inclusive end)
        solution.replace("total += max(0, min(e, now) - s)", "total += max(0, min(e + 1, now) - s)"),
        # the short day ignored
        solution.replace("    if weekday == SHORT_DAY:\n", "    if False:\n"),
        # reversed moments give zero instead of a negative count
        solution.replace("    return _worked_before(b) - _worked_before(a)",
                         "    return max(0, _worked_before(b) - _worked_before(a))"),
        # the lunch break counted as working time
        solution.replace(f"SESSIONS = {sessions!r}", f"SESSIONS = {[(s1, e2)]!r}"),
    ]
    return {
        "id": "CO-spec-workmins-01",
        "family": "CO-spec-workmins",
        **WORKMINS,
        "max_tokens": 16384 if WORKMINS["difficulty"] == "hard" else 8192,
        "title": "Working minutes between two moments: split sessions, a short day, reversed ranges",
        "prompt": flow(prompt),
        "grader": {"type": "code", "entry_point": "working_minutes",
                   "tests": row_tests("working_minutes", rows)},
        "verify": {"solution": solution, "wrong": wrongs},
        "notes": ("The office hours, the short day and its closing time are re-rolled per seed, so no "
                  "remembered 9-to-5 code fits. Hidden rows start and end exactly on session "
                  "boundaries, one minute either side, across weekends and up to two weeks apart, "
                  "and reversed; the half-open session rule, the cut of the short day (which may "
                  "remove the afternoon session entirely) and the sign of reversed ranges are each "
                  "the single slip of one wrong solution."),
    }


# ----------------------------------------------------------------------------------- the families

def cases(seed):
    rng = family_rng("CO-spec-bizdays", seed)
    weekend_keys = list(_WEEKENDS)
    rng.shuffle(weekend_keys)
    zero_rules = rng.sample(list(_ZERO_RULES), 2)
    if "modified-following" not in zero_rules:
        zero_rules[rng.randrange(2)] = "modified-following"
    out = [_business_days_case(rng, i + 1, weekend_keys[i], zero_rules[i]) for i in range(2)]
    out.append(_billing_case(family_rng("CO-spec-billing", seed)))
    out.append(_minutes_case(family_rng("CO-spec-workmins", seed)))
    return out
