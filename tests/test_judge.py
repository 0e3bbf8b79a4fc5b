"""The judge: canary first, verdicts against gold points, cached, on the row; skipped without a judge;
a judge that answers nonsense turns every judged item into an error. A scripted judge on the loopback
server stands in for a judge model (it looks the candidate up in a table of verdicts)."""

from __future__ import annotations

import json
import textwrap

import pytest
from builtin_suite import builtin_cases
from loopback import LoopbackServer, Reply
from scripted_judge import scripted_judge

from pytest_crucible.apps.cli import main as crucible
from pytest_crucible.client.chat import ChatClient
from pytest_crucible.client.response import Response
from pytest_crucible.engine.config import ModelSpec, Provider
from pytest_crucible.engine.item_kinds import RunSettings
from pytest_crucible.engine.item_runner import run_case
from pytest_crucible.grading import check_spec, get_grader, grade
from pytest_crucible.grading.extract import clean_answer
from pytest_crucible.grading.judge import screen
from pytest_crucible.grading.judge_model import Judge, JudgeError, parse_verdict
from pytest_crucible.results.store import read_rows
from pytest_crucible.suite.case import build_case, load_cases

QUESTION = "In two sentences: why does a bicycle tyre pumped up on a cold morning seem softer by evening?"
SPEC = {"type": "judge", "rubric": "explanation",
        "gold": "It does not: a tyre warmed by the afternoon sun holds air at a higher pressure, so it is "
                "harder by evening; it seems softer only if air leaked out.",
        "points": [{"text": "warmer air in a sealed tyre means higher pressure", "any": ["pressure"]},
                   {"text": "so a softer tyre means air has leaked out", "any": ["leak", "leaked", "leaking"]}],
        "forbidden": ["contracts"]}
RIGHT = ("Warming raises the pressure of the air sealed in the tyre, so heat alone would make it firmer; "
         "if it is softer by evening, air has leaked out.")
NEAR_MISS = "The pressure drops because warm air weighs less, and no air has leaked out."  # passes the screen
SCREENED = "The rubber contracts in the heat."                                              # fails the screen
JUDGE_ID = "judge-model"


def case_of(spec=SPEC):
    return build_case({"id": "PR-test", "category": "prose", "difficulty": "medium", "prompt": QUESTION,
                       "grader": spec}, __file__)


@pytest.fixture
def judge_endpoint():
    with LoopbackServer(models=[JUDGE_ID]) as server:
        yield server


def make_judge(server, tmp_path, cache=True):
    model = ModelSpec("judge", JUDGE_ID, Provider("loop", server.base_url), price_input=1.0, price_output=2.0)
    client = ChatClient(server.base_url, model_id=JUDGE_ID, max_retries=0, timeout=10)
    return Judge(model, lambda: client, cache_dir=tmp_path / "cache" if cache else None), client


def judged_row(loopback, judge, answer):
    loopback.script(default=answer)
    model = ModelSpec("m1", "loopback-model", Provider("loop", loopback.base_url))
    with ChatClient(loopback.base_url, model_id="loopback-model", max_retries=0, timeout=10) as client:
        return run_case(case_of(), model, client, settings=RunSettings(judge=judge))


def test_the_judge_passes_the_right_answer_and_fails_a_near_miss_with_its_reasons(loopback, judge_endpoint, tmp_path):
    judge_endpoint.script(handler=scripted_judge({RIGHT}))
    judge, client = make_judge(judge_endpoint, tmp_path)
    with client:
        right = judged_row(loopback, judge, RIGHT)
        wrong = judged_row(loopback, judge, NEAR_MISS)
        screened = judged_row(loopback, judge, SCREENED)
    assert right.outcome == "passed" and right.judge["verdict"] == "pass" and right.judge["points"] == [True, True]
    assert right.judge["cost_usd"] == pytest.approx((400 * 1.0 + 30 * 2.0) / 1e6) and not right.judge["cached"]
    assert right.judge["model"] == "judge" and right.judge["tokens"] == {"prompt": 400, "completion": 30}
    assert wrong.outcome == "failed" and wrong.reason == "judge judge: the reason given is wrong"
    assert wrong.judge["verdict"] == "fail"
    assert screened.outcome == "failed" and screened.reason == "says 'contracts', which the reference rules out"
    assert screened.judge is None
    # six canary questions, then one per answer that passed the screen
    assert judge_endpoint.chat_count == 6 + 2
    assert [v["expected"] == v["verdict"] for v in judge.canary_verdicts] == [True] * 6


def test_verdicts_are_cached_on_disk_by_judge_case_and_answer(loopback, judge_endpoint, tmp_path):
    judge_endpoint.script(handler=scripted_judge({RIGHT}))
    first, client = make_judge(judge_endpoint, tmp_path)
    with client:
        judged_row(loopback, first, RIGHT)
    asked = judge_endpoint.chat_count
    again, client = make_judge(judge_endpoint, tmp_path)  # a new process would start like this
    with client:
        row = judged_row(loopback, again, "  " + RIGHT.replace(" ", "  "))  # the same answer, other blanks
        other = judged_row(loopback, again, NEAR_MISS)
    assert row.outcome == "passed" and row.judge["cached"] and row.judge["cost_usd"] == 0.0
    assert other.outcome == "failed" and not other.judge["cached"]
    assert judge_endpoint.chat_count == asked + 1  # canary and the known answer from the cache


@pytest.mark.parametrize("judge_reply, why", [
    ("banana", "holds no verdict"),                                           # nonsense
    (json.dumps({"verdict": "pass", "reasons": "fine"}), "passed a known-wrong answer"),   # passes everything
    (json.dumps({"verdict": "fail", "reasons": "no"}), "failed a known-right answer"),     # fails everything
])
def test_a_judge_that_fails_its_canary_makes_every_judged_item_an_error(loopback, judge_endpoint, tmp_path,
                                                                         judge_reply, why):
    judge_endpoint.script(default=judge_reply)
    judge, client = make_judge(judge_endpoint, tmp_path, cache=False)
    with client:
        rows = [judged_row(loopback, judge, answer) for answer in (RIGHT, NEAR_MISS, SCREENED, RIGHT)]
    assert [r.outcome for r in rows] == ["error"] * 4  # the screen's failure too: the judge grades nothing
    assert all(r.reason.startswith("judge judge failed its canary, so no judged item is graded: ") and why in r.reason
               for r in rows)
    assert judge_endpoint.chat_count <= 6  # the canary ran once, not once per item


def test_a_cut_off_reply_is_never_shown_to_the_judge_and_a_failed_canary_errors_it_too(judge_endpoint, tmp_path):
    cut = Response(content="Warming raises the pressure", finish_reason="length", max_tokens=8)
    judge_endpoint.script(handler=scripted_judge({RIGHT}))
    judge, client = make_judge(judge_endpoint, tmp_path, cache=False)
    with client:
        result = grade(case_of(), cut, judge=judge)
    assert not result.passed and result.reason == "TRUNCATED at 8 tokens"
    assert judge_endpoint.chat_count == 6  # the canary only
    judge_endpoint.script(default="banana")
    judge, client = make_judge(judge_endpoint, tmp_path, cache=False)
    with client, pytest.raises(JudgeError, match="failed its canary"):
        grade(case_of(), cut, judge=judge)


def test_parse_verdict_reads_json_in_fences_and_lets_the_points_decide():
    assert parse_verdict('```json\n{"verdict": "PASS", "reasons": "ok", "points": [true, true]}\n```', 2) == \
        (True, "ok", [True, True])
    assert parse_verdict('<think>hmm</think>{"verdict": "pass", "points": [true, false], "reasons": "x"}', 2) == \
        (False, "point 2 missing; x", [True, False])
    assert parse_verdict('{"verdict": "fail", "reasons": "wrong", "points": [true]}', 2) == (False, "wrong", None)
    with pytest.raises(JudgeError, match="holds no verdict"):
        parse_verdict('{"verdict": "maybe"}', 1)


def test_the_screen_fails_what_a_program_can_see_and_needs_a_judge_for_the_rest():
    case = case_of({**SPEC, "max_words": 30})
    assert grade(case, Response(content="")).reason == "empty response"
    assert grade(case, Response(content="I cannot help with that.")).reason == "a refusal"
    assert grade(case, Response(content="Tyres are made of rubber.")).reason == \
        "off-task: makes 0 of 2 points (misses point 1: warmer air in a sealed tyre means higher pressure)"
    assert grade(case, Response(content=QUESTION)).reason == "repeats the prompt instead of answering it"
    assert grade(case, Response(content="Yes. No. It depends on the pressure.")).reason == \
        "a hedge: says both yes and no"
    assert grade(case, Response(content="pressure " * 31)).reason == "31 words, at most 30"
    with pytest.raises(JudgeError, match="no judge was given"):
        grade(case, Response(content=RIGHT))
    cut = grade(case, Response(content="Warming raises the pressure", finish_reason="length", max_tokens=8))
    assert not cut.passed and cut.reason.startswith("TRUNCATED")  # a cut reply never reaches a judge


@pytest.mark.parametrize("spec, field", [
    ({**SPEC, "rubric": "vibes"}, "rubric"),
    ({**SPEC, "gold": " "}, "gold"),
    ({**SPEC, "points": []}, "points"),
    ({**SPEC, "points": [{"text": "x", "any": []}]}, "points[0].any"),
    ({**SPEC, "points": [{"text": "x", "keywords": ["y"]}]}, "points[0]"),
    ({**SPEC, "max_words": 0}, "max_words"),
    ({**SPEC, "style": "strict"}, "style"),
])
def test_bad_judge_specs_name_the_field(spec, field):
    assert field in [f for f, _ in check_spec(spec)]


# ---- through the plugin --------------------------------------------------------------------------------

CASES = textwrap.dedent(f"""\
    def cases():
        grader = {SPEC!r}
        return [{{"id": f"PR{{i}}", "category": "prose", "difficulty": "medium", "prompt": f"({{i}}) {QUESTION}",
                  "grader": grader}} for i in range(3)]
    """)


def plugin_project(pytester, loopback, judge_reply):
    def handler(body):
        if body["model"] == JUDGE_ID:
            return judge_reply(body) if callable(judge_reply) else Reply(judge_reply)
        return Reply(RIGHT)
    loopback.script(handler=handler)
    pytester.makefile(".yaml", models=textwrap.dedent(f"""\
        providers:
          loop: {{base_url: "{loopback.base_url}", max_retries: 0, timeout: 20}}
        models:
          - {{name: m1, provider: loop, model_id: loopback-model}}
          - {{name: judge, provider: loop, model_id: {JUDGE_ID}, price: {{input: 1.0, output: 2.0}}}}
        """))
    (pytester.path / "prose").mkdir()
    (pytester.path / "prose" / "why_cases.py").write_text(CASES)


def run(pytester, *args):
    return pytester.runpytest("-p", "no:cacheprovider", "--models", "m1", "--crucible-no-builtin-cases", "prose", *args)


def test_through_the_plugin_judged_items_pass_are_skipped_without_a_judge_or_error(pytester, loopback, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_CACHE_DIR", str(pytester.path / "cache"))
    plugin_project(pytester, loopback, scripted_judge({RIGHT}))
    run(pytester).assert_outcomes(skipped=3)
    assert loopback.chat_count == 0  # skipped before anything is asked
    rows = read_rows(pytester.path / "crucible-results" / "latest")
    assert {r["reason"] for r in rows} == {"judged case: needs a judge model (--crucible-judge MODEL)"}

    result = run(pytester, "--crucible-judge=judge")
    result.assert_outcomes(passed=3)
    run_dir = pytester.path / "crucible-results" / "latest"
    rows = read_rows(run_dir)
    assert all(r["judge"]["verdict"] == "pass" and r["judge"]["model"] == "judge" for r in rows)
    report = json.loads((run_dir / "report.json").read_text())
    assert report["models"]["m1"]["categories"]["prose"]["passed"] == 3
    assert report["models"]["m1"]["judge_cost_usd"] == pytest.approx(sum(r["judge"]["cost_usd"] for r in rows))
    assert report["models"]["m1"]["judge_cost_usd"] == pytest.approx(3 * (400 * 1.0 + 30 * 2.0) / 1e6)
    assert report["meta"]["judge"] == "judge"


def test_through_the_plugin_a_nonsense_judge_errors_every_judged_item(pytester, loopback, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_CACHE_DIR", str(pytester.path / "cache"))
    plugin_project(pytester, loopback, "The weather is lovely today.")
    result = run(pytester, "--crucible-judge=judge")
    result.assert_outcomes(errors=3)
    assert "passed" not in result.parseoutcomes()
    result.stdout.fnmatch_lines(["*judge judge failed its canary*holds no verdict*"])
    report = json.loads((pytester.path / "crucible-results" / "latest" / "report.json").read_text())
    assert report["models"]["m1"]["total"]["passed"] == 0 and report["models"]["m1"]["total"]["errors"] == 3


@pytest.mark.parametrize("seed", [None, 1, 2, 3])
def test_the_builtin_judged_cases_screens_pass_their_reference_and_paraphrases_however_dressed(seed):
    judged = [c for c in load_cases(None, seed) if c.grader.get("type") == "judge"]
    assert len(judged) >= 20
    dressed = [lambda r: f"**{r}**", lambda r: f"Sure, here is the answer.\n\n{r}", lambda r: f"{r}\n\nHope this helps.",
               lambda r: f"## Answer\n\n- {r}", lambda r: f"<think>Let me think about the cause.</think>{r}"]
    refused = {}
    for case in judged:
        assert len(case.verify["accepted"]) >= 3, case.id
        for answer in [case.verify["reference"], *case.verify["accepted"]]:
            for dress in dressed:
                reason = screen(case.grader, clean_answer(dress(answer)), case.messages[-1]["content"])
                if reason:
                    refused[case.id] = reason
    assert refused == {}


def verify_with_judge(loopback, tmp_path, monkeypatch, handler, capsys):
    monkeypatch.setenv("CRUCIBLE_CACHE_DIR", str(tmp_path / "cache"))
    tmp_path.mkdir(exist_ok=True)
    config = tmp_path / "models.yaml"
    config.write_text(f'providers:\n  loop: {{base_url: "{loopback.base_url}", max_retries: 0, timeout: 20}}\n'
                      f"models:\n  - {{name: judge, provider: loop, model_id: {JUDGE_ID}}}\n")
    loopback.script(handler=handler)
    code = crucible(["cases", "verify", "--categories", "prose", "--judge", "judge", "--config", str(config)])
    return code, capsys.readouterr().out


def test_cases_verify_with_a_judge_wants_each_reference_passed_and_each_near_miss_failed(loopback, tmp_path,
                                                                                        monkeypatch, capsys):
    prose = [c for c in builtin_cases() if c.category == "prose"]
    references = {clean_answer(a) for c in prose for a in [c.verify["reference"], *c.verify["accepted"]]}
    judged = sum(len(c.verify["accepted"]) + 2 for c in prose)  # the reference, its paraphrases and the near miss
    assert judged == sum(len(get_grader("judge").judged_replies(c)) for c in prose)
    code, out = verify_with_judge(loopback, tmp_path, monkeypatch, scripted_judge(references), capsys)
    assert code == 0, out
    assert f"{len(prose)} cases checked, 0 with problems" in out and f"{judged} answers judged" in out
    assert loopback.chat_count == 6 + judged  # the canary, each reference, each paraphrase and each near miss

    lenient = scripted_judge(references | {clean_answer(c.verify["wrong"][-1]) for c in prose})
    strict = scripted_judge({clean_answer(c.verify["reference"]) for c in prose})  # fails every paraphrase
    code, out = verify_with_judge(loopback, tmp_path / "strict", monkeypatch, strict, capsys)
    assert code == 1 and out.count("judge judge failed verify.accepted[0]") == len(prose)
    code, out = verify_with_judge(loopback, tmp_path / "lenient", monkeypatch, lenient, capsys)
    assert code == 1 and out.count("judge judge passed verify.wrong[3]: all points made") == len(prose)


def test_cases_verify_with_a_judge_that_fails_its_canary_says_so_once(loopback, tmp_path, monkeypatch, capsys):
    code, out = verify_with_judge(loopback, tmp_path, monkeypatch, lambda body: Reply("no idea"), capsys)
    assert code == 1 and out.count("failed its canary") == 1 and loopback.chat_count == 1
