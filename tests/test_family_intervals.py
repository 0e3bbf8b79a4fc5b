"""Intervals, the paired test and the detectable drop clustered by family (issue 21, item 3): siblings of
one template are not independent evidence, so a family counts once when they agree."""

from __future__ import annotations

import math

import pytest
from test_compare import row as compare_row
from test_compare import run
from test_report import row

from pytest_crucible.analysis import json_shapes, stats
from pytest_crucible.analysis.compare import compare_runs, render_text
from pytest_crucible.analysis.report import aggregate, render_markdown, render_terminal


def family_counts(families: list[list[int]]) -> list[tuple[int, int]]:
    return [(sum(f), len(f)) for f in families]


@pytest.mark.parametrize("m", [2, 3, 6])
def test_perfectly_correlated_siblings_give_the_design_effect_one_plus_m_minus_one_rho(m):
    # 8 families of m siblings that agree (rho = 1): 3 pass every sibling, 5 fail every one
    families = [[1] * m] * 3 + [[0] * m] * 5
    n = 8 * m
    values = [v for f in families for v in f]
    rate = sum(values) / n
    deff = stats.clustered_se(families) ** 2 / (rate * (1 - rate) / n)
    assert deff == pytest.approx(1 + (m - 1) * 1.0)
    assert stats.effective_n(family_counts(families)) == pytest.approx(8)   # n_eff = the number of families
    assert stats.clustered_interval(family_counts(families)) == stats.wilson_interval(3, 8)
    # the same answers counted as independent are m times as many, and the interval narrower
    lo, hi = stats.wilson_interval(3 * m, n)
    flo, fhi = stats.clustered_interval(family_counts(families))
    assert hi - lo < fhi - flo


def test_partly_correlated_siblings_follow_the_formula():
    # 4 families of 3: within-family products of deviations (+-1/2) sum to 1 over 12 ordered pairs x 1/4,
    # so rho = 1/3 and deff = 1 + 2 * 1/3 = 5/3: 12 answers are worth 7.2
    families = [[1, 1, 1], [0, 0, 0], [1, 1, 0], [0, 0, 1]]
    assert stats.effective_n(family_counts(families)) == pytest.approx(12 / (1 + 2 / 3))
    assert stats.clustered_interval(family_counts(families)) == stats.wilson_interval(0.5 * 7.2, 7.2)


def test_independent_singletons_have_design_effect_one():
    counts = [(1, 1)] * 13 + [(0, 1)] * 7
    assert stats.effective_n(counts) == 20
    assert stats.clustered_interval(counts) == stats.wilson_interval(13, 20)
    # repeats of singletons: family clustering is case clustering
    cases = [(2, 3), (0, 3), (3, 3), (1, 3)]
    # 4 cases x 3 answers, rate 1/2: case sums less 3/2 are 1/2, -3/2, 3/2, -1/2, deff 5/3 as by case
    assert stats.effective_n(cases) == pytest.approx(12 / (5 / 3))
    assert stats.paired_difference([-1.0, 0.0, 1.0, -1.0]) == stats.paired_difference([-1.0, 0.0, 1.0, -1.0],
                                                                                      ["a", "b", "c", "d"])


def test_hand_computed_family_interval():
    # families (passed, scored): A 3/3, B 0/3, C 1/2 and two singletons D 1/1, E 0/1; N 10, rate 1/2.
    # deviations of family sums from n * 1/2: 1.5, -1.5, 0, 0.5, -0.5; squares sum to 5, so the clustered
    # variance is 5/100 against 0.25/10 for independent answers: deff 2, n_eff 5 (rho = 1 would give
    # 100 / (9 + 9 + 4 + 1 + 1) = 4.17). Wilson at p = 1/2, n = 5: 1/2 +- 1.96 sqrt(0.05 + 1.96^2/100) / 1.768
    counts = [(3, 3), (0, 3), (1, 2), (1, 1), (0, 1)]
    assert stats.effective_n(counts) == pytest.approx(5.0)
    assert stats.perfectly_correlated_n([3, 3, 2, 1, 1]) == pytest.approx(100 / 24)
    assert stats.clustered_interval(counts) == [0.1704, 0.8296]
    # a rate of 0 or 1 shows no correlation: the rho = 1 value, the cautious one
    assert stats.effective_n([(3, 3), (2, 2), (1, 1)]) == pytest.approx(36 / 14)
    assert stats.effective_n([(2, 4)]) == 1.0  # one family is one problem however many answers


def test_paired_difference_sums_per_family():
    # 100 cases in 20 families of 5; the new side fails every sibling of 2 families
    diffs = [-1.0] * 10 + [0.0] * 90
    families = [f"F{i // 5}" for i in range(100)]
    mean, ci = stats.paired_difference(diffs, families)
    # family sums -5, -5 and 18 x 0, less 5 x mean: -4.5 twice and 0.5 18 times; CR1: SE^2 = 20/19 * 45 / 100^2
    se = math.sqrt(20 / 19 * 45) / 100
    assert mean == pytest.approx(-0.1)
    assert ci == [round(-0.1 - stats.Z95 * se, 4), round(-0.1 + stats.Z95 * se, 4)] == [-0.2349, 0.0349]
    assert stats.family_signs(diffs, families) == (2, 0)
    assert stats.paired_effective_n(diffs, families) == 20.0   # the flips came in whole families
    assert stats.paired_effective_n(diffs) == 100.0
    assert stats.min_detectable_drop(20.0, 0.1, 0.05) > stats.min_detectable_drop(100, 0.1, 0.05)


def family_run(wrong_families: set[int], source: str, family: bool = True):
    """100 cases, 20 families of 5 (or no family field: a run written before rows carried it)."""
    rows = []
    for i in range(100):
        r = compare_row(i, "failed" if i // 5 in wrong_families else "passed", category="math", difficulty="easy")
        if family:
            r["family"] = f"F{i // 5:02d}"
        rows.append(r)
    return run(rows, source)


def test_the_gate_counts_families_not_siblings():
    result = compare_runs(family_run(set(), "base"), family_run({3, 11}, "new"))
    total = result["total"]
    assert (total["n"], total["worse"], total["families"], total["families_worse"]) == (100, 10, 20, 2)
    assert total["n_eff"] == 20.0
    assert total["p_value"] == 0.25          # 2 families of 20 worse: not 2^-10 as for 10 independent cases
    assert total["ci95"] == [-0.2349, 0.0349]
    assert total["min_detectable_drop"] == stats.min_detectable_drop(20.0, 0.1, 0.05)
    assert result["gate"]["passed"]
    json_shapes.validate("compare", result)
    text = "\n".join(render_text(result))
    assert "n_eff" in text and "families" in text
    # rows without a family (older runs): each case its own, the test as before
    flat = compare_runs(family_run(set(), "base", family=False), family_run({3, 11}, "new", family=False))
    assert flat["total"]["p_value"] == 2 ** -10 and flat["total"]["n_eff"] == 100.0
    assert not flat["gate"]["passed"]


def test_a_gate_failure_names_the_families():
    result = compare_runs(family_run(set(), "base"), family_run(set(range(8)), "new"))
    assert result["total"]["p_value"] == 2 ** -8
    assert "40 cases worse, 0 better, in 8 of 20 families worse, 0 better, p = " in result["gate"]["reasons"][0]


FAMILY_ROWS = (
    # math: family MA-x of 3 siblings that agree, family MA-y of 3 that agree, two standalone cases
    [row("a", f"MA-x-{i}", "math", "hard", "passed", family="MA-x") for i in range(3)]
    + [row("a", f"MA-y-{i}", "math", "easy", "failed", "wrong", family="MA-y") for i in range(3)]
    + [row("a", "M1", "math", "easy", "passed"), row("a", "M2", "math", "easy", "failed", "wrong")]
    # reasoning: two siblings answered twice each, all four answers right: one family, one problem
    + [row("a", f"RE-z-{i}", "reasoning", "hard", "passed", family="RE-z", repeat=k) for i in range(2)
       for k in (1, 2)]
)


def test_report_carries_family_intervals_and_n_eff_per_model_and_category():
    report = aggregate(FAMILY_ROWS)
    json_shapes.validate("report", report)
    a = report["models"]["a"]
    math_ = a["categories"]["math"]
    # 8 answers, rate 1/2; family sums less n/2: 1.5, -1.5, 0.5, -0.5 -> squares 5, over 64, against 1/32
    # for independent answers: deff 2.5, n_eff 3.2 (rho = 1 would give 64 / 20 = 3.2: the siblings agree)
    assert (math_["n"], math_["families"], math_["n_eff"]) == (8, 4, 3.2)
    assert math_["ci95"] == stats.wilson_interval(0.5 * 3.2, 3.2)
    assert math_["ci95"] != stats.wilson_interval(4, 8)  # the interval over answers would be narrower
    reasoning = a["categories"]["reasoning"]
    assert (reasoning["n"], reasoning["families"], reasoning["n_eff"]) == (4, 1, 1.0)
    assert reasoning["ci95"] == stats.wilson_interval(1, 1)
    assert a["total"]["families"] == 5 and a["total"]["n"] == 12
    total_families = [(3, 3), (0, 3), (1, 1), (0, 1), (4, 4)]  # MA-x, MA-y, M1, M2, RE-z
    assert a["total"]["n_eff"] == round(stats.effective_n(total_families), 1)
    assert a["total"]["min_detectable_drop"] == stats.detectable_drop(8 / 12, stats.effective_n(total_families))
    # the repeats section's intervals are clustered the same way
    pass_at_1 = a["repeats"]["pass_at_k"]["1"]
    values = [1.0] * 3 + [0.0] * 3 + [1.0, 0.0] + [1.0] * 2          # per case, by family
    families = ["x"] * 3 + ["y"] * 3 + ["M1", "M2"] + ["z"] * 2
    assert pass_at_1["cases"] == 10
    assert pass_at_1["ci95"] == stats.mean_interval(values, families) != stats.mean_interval(values)
    text = render_markdown(report)
    assert "## Error bars" in text and "| a | math | 50.0% | " in text and "| 8 | 4 | 3.2 |" in text
    card = render_terminal(report)
    [line] = [line for line in card if line.startswith("  math ")]
    lo, hi = math_["ci95"]
    assert line.endswith(f"50% (4/8) [{lo:.0%}-{hi:.0%}] n_eff 3.2")


def test_rows_without_a_family_cluster_by_case():
    plain = [row("a", f"C{i}", "math", "easy", "passed" if i < 6 else "failed") for i in range(10)]
    tally = aggregate(plain)["models"]["a"]["categories"]["math"]
    assert (tally["families"], tally["n_eff"], tally["ci95"]) == (10, 10.0, stats.wilson_interval(6, 10))
