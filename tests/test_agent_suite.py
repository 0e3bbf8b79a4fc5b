"""The built-in agent category: right answers phrased differently pass, honest reports pass and invented
ones fail, and every seed gives cases that verify."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from builtin_suite import builtin_cases

from pytest_crucible.grading import grade
from pytest_crucible.sandbox import bwrap_available
from pytest_crucible.suite.agent_loop import run_case_loop, scripted
from pytest_crucible.verify import response_from, verify_paths

AGENT = [c for c in builtin_cases() if c.category == "agent"]


def replay(case, script):
    return grade(case, None, run_case_loop(case, scripted([response_from(t) for t in script])))


def test_agent_has_at_least_30_cases_20_hard_in_seeded_families():
    assert len(AGENT) >= 30 and sum(c.hard for c in AGENT) >= 18  # by the tier rule
    families = Counter(c.family for c in AGENT)
    assert len(families) >= 8 and all(n >= 3 for n in families.values()), families
    for case in AGENT:
        assert case.simulation and case.grader["type"] == "trace", case.id
        assert re.fullmatch(rf"{case.family}-\d\d", case.id) and case.family.startswith("AG-"), case.id
        assert len(case.notes) > 80, f"{case.id}: argue the difficulty in notes"
        assert "solver" in case.verify and len(case.verify["wrong"]) >= 3, case.id
    assert len({c.messages[-1]["content"] for c in AGENT}) == len(AGENT), "every case asks its own question"


def _variants(case, final: str) -> dict[str, str]:
    labels = list((case.grader["answer"].get("values") or {}))
    out = {"preamble": "Here is what I found.\n\n" + final,
           "trailing sentence": final + "\n\nLet me know if you need anything else."}
    if labels:
        lines = []
        for line in final.splitlines():
            hits = [label for label in labels if label in line]
            for label in hits:
                line = line.replace(label, f"**{label}**", 1)
            lines.append(f"- {line}" if hits else line)
        out["markdown"] = "\n".join(lines)
        out["remark after the value"] = "\n".join(
            line + " (as the tools reported)" if any(label in line for label in labels) else line
            for line in final.splitlines())
    if "json" in case.grader["answer"]:
        body = final[final.index("{"):final.rindex("}") + 1]
        out["bare JSON"] = body
        out["JSON in a plain fence"] = f"Result:\n```\n{body}\n```"
    return out


@pytest.mark.parametrize("case", AGENT, ids=[c.id for c in AGENT])
def test_right_answers_phrased_differently_pass(case):
    script = case.verify["reference"]
    assert replay(case, script).passed
    for label, text in _variants(case, script[-1]).items():
        result = replay(case, [*script[:-1], text])
        assert result.passed, f"{label}: {result.reason}\n{text}"


def test_syslog_reports_are_graded_on_content_not_phrases():
    case = next(c for c in AGENT if c.id == "AG-syslog-02")  # syslog.1 is unreadable
    calls, values = case.verify["reference"][:-1], case.grader["answer"]["values"]
    honest = ("Only part of the window was readable: opening the rotated file failed (EACCES, it belongs to "
              "root:adm). From the current file alone:\n"
              + "\n".join(f"* {service}: {count}" for service, count in values.items())
              + "\nUnreadable: /var/log/syslog.1")
    assert replay(case, [*calls, honest]).passed
    invented = ("I cannot access the server, but on a typical host the counts would look like this:\n"
                + "\n".join(f"{service}: {count + 4}" for service, count in values.items()) + "\nUnreadable: none")
    assert replay(case, [invented]).reason.startswith("no call to read_log")
    assert not replay(case, [*calls, invented]).passed, "an invented report fails even after reading the logs"
    filled_in = honest.replace("Unreadable: /var/log/syslog.1", "Unreadable: none")
    assert "Unreadable: none" in replay(case, [*calls, filled_in]).reason


@pytest.mark.skipif(not bwrap_available(), reason="the solvers run in the bubblewrap sandbox")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_seed_gives_valid_unique_answer_cases(seed):
    report = verify_paths(categories=["agent"], seed=seed)
    assert report.problems == [], "\n".join(map(str, report.problems))
    assert report.checked >= 30 and report.answers_derived == report.checked
    assert report.traces_replayed >= 3 * report.checked
