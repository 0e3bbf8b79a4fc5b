"""The statistics module against values worked out by hand."""

from __future__ import annotations

import math
import random
import statistics
from math import comb

import pytest

from pytest_crucible.analysis import stats


def test_sign_test_is_exact_mcnemar():
    assert stats.sign_test_p(10, 0) == 2 ** -10
    assert stats.sign_test_p(3, 1) == 5 / 16          # (C(4,3) + C(4,4)) / 2^4
    assert stats.sign_test_p(2, 0) == 0.25
    assert stats.sign_test_p(0, 7) == 1.0
    assert stats.sign_test_p(0, 0) == 1.0
    for worse, better in [(1, 9), (5, 5), (6, 4), (30, 70), (70, 30), (1, 0)]:
        n = worse + better
        assert stats.sign_test_p(worse, better) == pytest.approx(
            sum(comb(n, k) for k in range(worse, n + 1)) / 2 ** n, rel=1e-12)


def test_sign_test_on_thousands_of_discordant_cases_is_fast_and_tiny():
    assert stats.sign_test_p(3000, 0) == 0.0  # 2^-3000 underflows: the test must not overflow instead
    assert 0 < stats.sign_test_p(2600, 2400) < 0.01


def test_paired_difference_by_hand():
    diffs = [-1.0] * 10 + [0.0] * 90
    mean, ci = stats.paired_difference(diffs)
    sd = math.sqrt((10 * 0.81 + 90 * 0.01) / 99)
    assert mean == pytest.approx(-0.1)
    assert ci == [round(-0.1 - 1.959964 * sd / 10, 4), round(-0.1 + 1.959964 * sd / 10, 4)]
    assert ci == [-0.1591, -0.0409]
    assert stats.paired_difference([]) == (None, None)
    assert stats.paired_difference([0.5]) == (0.5, None)


def test_min_detectable_drop_solves_connors_equation():
    z_a, z_b = statistics.NormalDist().inv_cdf(0.95), statistics.NormalDist().inv_cdf(0.8)
    drop = stats.min_detectable_drop(100, 0.0, 0.05)
    assert drop == pytest.approx(0.0605, abs=1e-4)
    # with no flips observed, psi is the drop itself
    assert 10 * drop == pytest.approx(z_a * math.sqrt(drop) + z_b * math.sqrt(drop - drop ** 2), abs=1e-3)
    noisy = stats.min_detectable_drop(100, 0.2, 0.05)  # 20% of cases flip one way or the other
    assert 10 * noisy == pytest.approx(z_a * math.sqrt(0.2) + z_b * math.sqrt(0.2 - noisy ** 2), abs=1e-3)
    assert noisy > drop
    assert stats.min_detectable_drop(1000, 0.0, 0.05) < drop < stats.min_detectable_drop(30, 0.0, 0.05)
    assert stats.min_detectable_drop(2, 0.0, 0.05) is None  # two cases cannot show anything
    assert stats.min_detectable_drop(0, 0.0, 0.05) is None


def test_pass_at_k_and_pass_hat_k_by_hand():
    # 5 answers, 2 right: P(some of 2 draws right) = 1 - C(3,2)/C(5,2) = 7/10; P(both right) = 1/10
    assert stats.pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert stats.pass_hat_k(5, 2, 2) == pytest.approx(0.1)
    assert stats.pass_at_k(10, 3, 1) == pytest.approx(0.3) == stats.pass_hat_k(10, 3, 1)
    assert stats.pass_at_k(4, 4, 3) == 1.0 == stats.pass_hat_k(4, 4, 3)
    assert stats.pass_at_k(3, 0, 2) == 0.0 == stats.pass_hat_k(3, 0, 2)
    assert stats.pass_at_k(4, 1, 4) == 1.0  # 4 draws of 4 answers: the right one is always among them
    assert stats.pass_at_k(2, 1, 3) is None and stats.pass_hat_k(2, 1, 3) is None
    # Chen et al.'s product form of the same estimator
    for n, c, k in [(10, 3, 4), (20, 7, 5), (8, 1, 2)]:
        product = 1 - math.prod(1 - k / i for i in range(n - c + 1, n + 1))
        assert stats.pass_at_k(n, c, k) == pytest.approx(product)


def test_clustered_se_worked_example():
    # 2 cases x 2 answers that agree within each case: rate 1/2, deviations +-1/2
    # independent SE^2 = 4 * (1/4) / 16 = 1/16; cross terms add 2 * (1/4 + 1/4) / 16 = 1/16
    assert stats.clustered_se([[1, 1], [0, 0]]) == pytest.approx(math.sqrt(1 / 8))
    assert stats.clustered_se([[1], [1], [0], [0]]) == pytest.approx(1 / 4)
    # answers that disagree within each case cancel: the rate is known exactly from these cases
    assert stats.clustered_se([[1, 0], [1, 0]]) == 0.0
    assert stats.clustered_se([]) is None


def test_clustered_variance_grows_with_the_intra_case_correlation():
    """Miller: clustered SE^2 / independent SE^2 = 1 + (K - 1) * rho for K answers per case."""
    def ratio(cases):
        values = [v for c in cases for v in c]
        iid = statistics.pvariance(values) / len(values)
        return stats.clustered_se(cases) ** 2 / iid

    # rho worked by hand: within-case products of deviations (+-1/2) over pairs, divided by the variance
    uncorrelated = [[1, 1], [0, 0], [1, 0], [0, 1]]        # products +1/4 +1/4 -1/4 -1/4: rho = 0
    assert ratio(uncorrelated) == pytest.approx(1.0)
    some = [[1, 1, 1], [0, 0, 0], [1, 1, 0], [0, 0, 1]]     # products sum to 1, 12 ordered pairs x 1/4: rho = 1/3
    assert ratio(some) == pytest.approx(1 + 2 * (1 / 3))
    full = [[1, 1, 1], [0, 0, 0], [1, 1, 1], [0, 0, 0]]     # rho = 1
    assert ratio(full) == pytest.approx(3.0)
    # the interval of the rate widens in the same order, and equals Wilson at the effective n = N / deff
    widths = []
    for cases in ([[1, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 0]], some, full):
        lo, hi = stats.clustered_interval([(sum(c), len(c)) for c in cases])
        widths.append(hi - lo)
    assert widths[0] < widths[1] < widths[2]
    assert stats.clustered_interval([(sum(c), len(c)) for c in some]) == stats.wilson_interval(0.5 * 7.2, 7.2)
    assert stats.clustered_interval([(sum(c), len(c)) for c in full]) == stats.wilson_interval(2, 4)


def test_clustered_interval_is_wilson_with_one_answer_per_case():
    counts = [(1, 1)] * 7 + [(0, 1)] * 3
    assert stats.clustered_interval(counts) == stats.wilson_interval(7, 10)
    # all right with repeats: no correlation can be seen, so the cases are the sample size
    assert stats.clustered_interval([(4, 4)] * 5) == stats.wilson_interval(5, 5)
    assert stats.clustered_interval([(0, 0)]) is None


def test_median_ratio_matches_a_plain_bootstrap():
    rng = random.Random(4)
    base = [rng.expovariate(10) for _ in range(9)]
    new = [1.5 * rng.expovariate(10) for _ in range(12)]
    ratio, ci = stats.median_ratio(base, new, rounds=20000)
    assert ratio == statistics.median(new) / statistics.median(base)
    plain = sorted(statistics.median(rng.choices(new, k=len(new))) / statistics.median(rng.choices(base, k=len(base)))
                   for _ in range(20000))
    assert ci[0] == pytest.approx(plain[500], rel=0.05)
    assert ci[1] == pytest.approx(plain[19500], rel=0.05)


def test_median_ratio_by_hand_and_reproducible():
    ratio, ci = stats.median_ratio([1.0, 2.0, 3.0], [2.0, 4.0, 6.0])
    assert ratio == 2.0
    assert ci[0] <= 2.0 <= ci[1]
    assert stats.median_ratio([1.0, 2.0, 3.0], [2.0, 4.0, 6.0]) == (ratio, ci)  # fixed seed
    assert stats.median_ratio([0.3] * 50, [0.45] * 50) == (pytest.approx(1.5), [1.5, 1.5])
    assert stats.median_ratio([], [1.0]) == (None, None)
