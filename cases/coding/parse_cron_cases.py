"""CO-parse-cron: the next time a five-field cron schedule fires, with the day-of-month/day-of-week rule.

Hidden schedules and start times come from the seed. The oracle expands each field with its own small
interpreter (a regular expression per term, independent of the reference's parser) and walks candidate
days with datetime; the reference is checked against it.
"""

import datetime as dt
import re

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-cron"

# Hardness (README "How tiers are assigned", coding): lists, ranges, steps from a range's start, names, 0 and
# 7 for Sunday, validation, the day-of-month OR day-of-week rule, Monday-based weekday, strictly after,
# impossible schedules. Traps: the wrong solutions.
HARDNESS = {"steps": 10, "search": 1, "traps": 5}

PROMPT = """
Write a Python function `next_run(schedule: str, after: str) -> str | None` for five-field cron
schedules. `after` and the result are local times written "YYYY-MM-DD HH:MM" (no time zones, no
daylight saving). Return the first minute strictly after `after` at which the schedule fires, or None
if it does not fire within the 10 years that follow `after`.

The schedule is five fields separated by runs of spaces: minute (0-59), hour (0-23), day of month
(1-31), month (1-12 or JAN-DEC), day of week (0-7 or SUN-SAT, where both 0 and 7 mean Sunday; names
are case-insensitive). Each field is a comma-separated list of terms:
- `*` (every value), a number, or a range `a-b` (a <= b), each optionally followed by `/n` (n >= 1):
  `*/n` takes every n-th value from the field's minimum, `a-b/n` every n-th value from a up to b, and
  `a/n` every n-th value from a up to the field's maximum.
A time fires when its minute, hour and month are in their fields and its day matches: if both the
day-of-month and the day-of-week fields are restricted, the day matches when it is in *either* of
them; if one of them is unrestricted, only the other one counts. A field is unrestricted when its
text starts with `*` (so `*/2` in the day-of-week field is unrestricted).

Raise `ValueError` for a malformed schedule: not five fields, an unknown name, a value outside the
field's range, a range with a > b, or a step of 0.

Example:
    next_run("30 9 * * MON-FRI", "2026-01-02 09:30") == "2026-01-05 09:30"
"""

SOLUTION = '''
import datetime

_NAMES = {
    3: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
    4: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"],
}
_BOUNDS = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]


def _value(text, field):
    upper = text.upper()
    if field in _NAMES and upper in _NAMES[field]:
        return _NAMES[field].index(upper) + (1 if field == 3 else 0)
    if not text.isdigit():
        raise ValueError(f"bad value {text!r}")
    value = int(text)
    lo, hi = _BOUNDS[field]
    if not lo <= value <= hi:
        raise ValueError(f"{value} out of range")
    return value


def _expand(text, field):
    lo, hi = _BOUNDS[field]
    values = set()
    for term in text.split(","):
        body, _, step_text = term.partition("/")
        step = 1
        if _:
            if not step_text.isdigit() or int(step_text) == 0:
                raise ValueError(f"bad step in {term!r}")
            step = int(step_text)
        if body == "*":
            start, end = lo, hi
        elif "-" in body:
            a, b = body.split("-", 1)
            start, end = _value(a, field), _value(b, field)
            if start > end:
                raise ValueError(f"bad range {body!r}")
        else:
            start = _value(body, field)
            end = hi if _ else start
        values.update(range(start, end + 1, step))
    if field == 4 and 7 in values:
        values.add(0)
    return values


def next_run(schedule, after):
    fields = schedule.split()
    if len(fields) != 5:
        raise ValueError("a schedule has five fields")
    minutes, hours, days, months, weekdays = (_expand(f, i) for i, f in enumerate(fields))
    dom_any, dow_any = fields[2].startswith("*"), fields[4].startswith("*")
    start = datetime.datetime.strptime(after, "%Y-%m-%d %H:%M") + datetime.timedelta(minutes=1)
    day = start.date()
    limit = day + datetime.timedelta(days=3653)    # ten years
    while day < limit:
        if day.month in months:
            in_dom = day.day in days
            in_dow = (day.isoweekday() % 7) in weekdays
            if dom_any and dow_any:
                ok = True
            elif dom_any:
                ok = in_dow
            elif dow_any:
                ok = in_dom
            else:
                ok = in_dom or in_dow
            if ok:
                for h in sorted(hours):
                    for m in sorted(minutes):
                        moment = datetime.datetime(day.year, day.month, day.day, h, m)
                        if moment >= start:
                            return moment.strftime("%Y-%m-%d %H:%M")
        day += datetime.timedelta(days=1)
    return None
'''

WRONG = [
    # both day fields must match
    mutate(SOLUTION, ("                ok = in_dom or in_dow", "                ok = in_dom and in_dow")),
    # only a bare * counts as unrestricted
    mutate(SOLUTION, ('''    dom_any, dow_any = fields[2].startswith("*"), fields[4].startswith("*")''',
                      '''    dom_any, dow_any = fields[2] == "*", fields[4] == "*"''')),
    # Python's weekday(): Monday is 0
    mutate(SOLUTION, ("            in_dow = (day.isoweekday() % 7) in weekdays", "            in_dow = day.weekday() in weekdays")),
    # steps counted from the field's minimum even inside a range
    mutate(SOLUTION, ("        values.update(range(start, end + 1, step))",
                      "        values.update(v for v in range(start, end + 1) if (v - lo) % step == 0)")),
    # the start time itself allowed
    mutate(SOLUTION, ('''    start = datetime.datetime.strptime(after, "%Y-%m-%d %H:%M") + datetime.timedelta(minutes=1)''',
                      '''    start = datetime.datetime.strptime(after, "%Y-%m-%d %H:%M")''')),
]

TESTS = '''
def _invalid(schedule):
    try:
        next_run(schedule, "2026-01-01 00:00")
    except ValueError:
        return True
    return False

def test_basics():
    assert next_run("30 9 * * MON-FRI", "2026-01-02 09:30") == "2026-01-05 09:30"
    assert next_run("* * * * *", "2026-12-31 23:59") == "2027-01-01 00:00"
    assert next_run("0 0 1 1 *", "2026-01-01 00:00") == "2027-01-01 00:00"
    assert next_run("5 4 * * *", "2026-03-10 04:04") == "2026-03-10 04:05"
    assert next_run("5 4 * * *", "2026-03-10 04:05") == "2026-03-11 04:05"

def test_steps_and_lists():
    assert next_run("*/15 * * * *", "2026-05-05 10:46") == "2026-05-05 11:00"
    assert next_run("5-59/20 * * * *", "2026-05-05 10:26") == "2026-05-05 10:45"
    assert next_run("50/4 * * * *", "2026-05-05 10:55") == "2026-05-05 10:58"
    assert next_run("0 8-18/5,22 * * *", "2026-05-05 13:01") == "2026-05-05 18:00"
    assert next_run("0 0 * jan,Mar-apr/1 *", "2026-01-31 12:00") == "2026-03-01 00:00"

def test_day_rules():
    assert next_run("0 12 13 * FRI", "2026-01-01 00:00") == "2026-01-02 12:00"
    assert next_run("0 12 13 * *", "2026-01-01 00:00") == "2026-01-13 12:00"
    assert next_run("0 12 * * 5", "2026-01-03 00:00") == "2026-01-09 12:00"
    assert next_run("0 12 13 * */2", "2026-01-01 00:00") == "2026-01-13 12:00"
    assert next_run("0 12 */10 * 3", "2026-01-01 00:00") == "2026-01-07 12:00"
    assert next_run("0 0 * * 7", "2026-01-01 00:00") == "2026-01-04 00:00"
    assert next_run("0 0 * * 0", "2026-01-01 00:00") == "2026-01-04 00:00"
    assert next_run("0 0 * * sun", "2026-01-04 00:00") == "2026-01-11 00:00"

def test_rare_and_never():
    assert next_run("0 0 29 2 *", "2026-03-01 00:00") == "2028-02-29 00:00"
    assert next_run("0 0 30 2 *", "2026-01-01 00:00") is None
    assert next_run("0 0 31 4,6,9,11 *", "2026-01-01 00:00") is None
    assert next_run("0 0 29 2 1", "2026-03-01 00:00") == "2027-02-01 00:00"
    assert next_run("0 0 29 * 1", "2026-03-01 00:00") == "2026-03-02 00:00"

def test_invalid():
    for schedule in ["* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *",
                     "* * * * 8", "* * * FOO *", "5-1 * * * *", "*/0 * * * *", "* * * * MON-", "a * * * *",
                     "1,,2 * * * *"]:
        assert _invalid(schedule), schedule

def test_seeded():
    for schedule, after, want in SEEDED:
        assert next_run(schedule, after) == want, (schedule, after)
'''


# ---------------------------------------------------------------- the oracle

_MONTHS = "JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC".split()
_DAYS = "SUN MON TUE WED THU FRI SAT".split()
_RANGES = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]
_TERM = re.compile(r"^(\*|\w+)(?:-(\w+))?(?:/(\d+))?$")


def _number(word, index):
    names = _MONTHS if index == 3 else _DAYS if index == 4 else []
    if word.upper() in names:
        return names.index(word.upper()) + (index == 3)
    return int(word)


def _set(text, index):
    lo, hi = _RANGES[index]
    out = set()
    for term in text.split(","):
        first, last, step = _TERM.match(term).groups()
        step = int(step) if step else 1
        if first == "*":
            a, b = lo, hi
        else:
            a = _number(first, index)
            b = _number(last, index) if last else (hi if step > 1 or "/" in term else a)
        out |= {v for v in range(a, b + 1) if (v - a) % step == 0}
    return out | ({0} if index == 4 and 7 in out else set())


def _oracle(schedule, after):
    fields = schedule.split()
    sets = [_set(f, i) for i, f in enumerate(fields)]
    restricted_dom, restricted_dow = fields[2][0] != "*", fields[4][0] != "*"
    start = dt.datetime.strptime(after, "%Y-%m-%d %H:%M") + dt.timedelta(minutes=1)
    for offset in range(0, 3653):
        day = start.date() + dt.timedelta(days=offset)
        if day.month not in sets[3]:
            continue
        dom, dow = day.day in sets[2], (day.weekday() + 1) % 7 in sets[4]
        if restricted_dom and restricted_dow:
            ok = dom or dow
        else:
            ok = (dom or not restricted_dom) and (dow or not restricted_dow)
        if not ok:
            continue
        times = sorted(dt.datetime.combine(day, dt.time(h, m)) for h in sets[1] for m in sets[0])
        later = [t for t in times if t >= start]
        if later:
            return later[0].strftime("%Y-%m-%d %H:%M")
    return None


def _term(rng, index):
    lo, hi = _RANGES[index]
    kind = rng.randrange(5)
    if kind == 0:
        return "*" if rng.random() < 0.5 else f"*/{rng.randrange(2, 9)}"
    if kind == 1 and index in (3, 4):
        names = _MONTHS if index == 3 else _DAYS
        return rng.choice(names).lower() if rng.random() < 0.5 else rng.choice(names)
    a = rng.randrange(lo, hi + 1)
    if kind == 2:
        b = rng.randrange(a, hi + 1)
        return f"{a}-{b}" + (f"/{rng.randrange(2, 5)}" if rng.random() < 0.4 else "")
    if kind == 3:
        return f"{a}/{rng.randrange(2, 7)}"
    return str(a)


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    while len(seeded) < 30:
        fields = [",".join(_term(rng, i) for _ in range(rng.choice([1, 1, 2]))) for i in range(5)]
        if rng.random() < 0.4:
            fields[rng.choice([0, 1, 3])] = "*"
        schedule = " ".join(fields)
        start = dt.datetime(2026, 1, 1) + dt.timedelta(minutes=rng.randrange(0, 60 * 24 * 900))
        after = start.strftime("%Y-%m-%d %H:%M")
        seeded.append((schedule, after, _oracle(schedule, after)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Next firing time of a cron schedule",
        prompt=PROMPT, entry_point="next_run", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        notes="""A field parser (lists, ranges, steps from a range's start, names, 0 and 7 for Sunday,
        validation) plus a search that must respect the classic cron day rule: day of month OR day of
        week when both are restricted, where "restricted" means the field does not start with `*`
        (so `*/2` is not). Python's weekday() counts from Monday, a frequent slip; the result must be
        strictly after the start; impossible dates (Feb 30) and rare ones (Feb 29) need a bounded
        search. Thirty seeded schedules are checked against an independently written interpreter.""",
    )]
