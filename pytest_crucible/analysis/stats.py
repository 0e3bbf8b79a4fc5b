"""The statistics of one run and of two runs compared. Standard library only.

The unit is the case, not the row: repeats of one case are correlated (a model that cannot do a case
fails it every time), so counting them as independent trials makes an interval too narrow. Following
Miller, "Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations" (2024):

- a pass rate's standard error is clustered by case (his section 2.2, `clustered_se`);
- two models are compared on the same cases through the per-case differences (section 4,
  `paired_difference`), which removes the variance of case difficulty both runs share;
- the drop a comparison can detect at its n comes from the variance of those differences (section 5,
  `min_detectable_drop`).

The paired test is exact: a one-sided sign test on the cases whose rates differ (`sign_test_p`). With
one answer per case that is the exact McNemar test on the discordant pairs.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from math import comb

Z95 = statistics.NormalDist().inv_cdf(0.975)
DETECTION_POWER = 0.8  # the power `min_detectable_drop` is stated at
# every bootstrap of the package (speed ratios, pairwise ratings): a 95% interval's ends rest on the 50
# outermost draws on each side; cheap next to the requests behind them
BOOTSTRAP_ROUNDS = 2000
BOOTSTRAP_SEED = 12  # fixed: the same two runs always give the same interval


def _ci(lo: float, hi: float, floor: float, ceiling: float) -> list[float]:
    return [round(max(floor, lo), 4), round(min(ceiling, hi), 4)]


# -- one run: rates and their intervals ------------------------------------------------------------


def wilson_interval(passed: float, n: float, z: float = Z95) -> list[float] | None:
    """95% Wilson score interval of passed / n: honest for small n and for rates near 0 or 1. `n` may
    be an effective sample size (a float), as `clustered_interval` passes."""
    if n <= 0:
        return None
    p = passed / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return _ci(centre - half, centre + half, 0.0, 1.0)


def clustered_se(clusters: Sequence[Sequence[float]]) -> float | None:
    """Standard error of the mean of all values, clustered (Miller's eq. for SE_clustered):

        SE^2 = (1/N^2) * sum over clusters c of (sum over values i in c of (x_i - mean))^2

    which is the independent-trials SE^2 plus the within-cluster cross terms; positive correlation
    inside a cluster (a case's repeats agreeing) widens it. None without values."""
    n = sum(len(c) for c in clusters)
    if n == 0:
        return None
    mean = sum(sum(c) for c in clusters) / n
    return math.sqrt(sum((sum(c) - len(c) * mean) ** 2 for c in clusters)) / n


def clustered_interval(counts: Sequence[tuple[int, int]]) -> list[float] | None:
    """95% interval of a pass rate from (passed, scored) per case, the case being the unit.

    It is the Wilson interval at the effective sample size N / deff, where the design effect deff is
    the clustered variance over the independent-trials variance. With one answer per case deff is
    exactly 1 (the plain Wilson interval); with repeats the interval's width follows the clustered SE.
    deff is kept between 1 and N / cases: repeats never count as more than independent answers nor
    as fewer than one answer per case (and a rate of 0 or 1, which shows no correlation, counts cases)."""
    counts = [(p, n) for p, n in counts if n > 0]
    total = sum(n for _, n in counts)
    if total == 0:
        return None
    passed = sum(p for p, _ in counts)
    rate = passed / total
    clusters = len(counts)
    if 0 < rate < 1:
        # (sum over a case's answers of (x - rate))^2 = (p - n * rate)^2: no need to expand the values
        clustered = sum((p - n * rate) ** 2 for p, n in counts) / total ** 2
        deff = clustered / (rate * (1 - rate) / total)
        effective = min(total, max(clusters, total / deff)) if deff > 0 else total
    else:
        effective = clusters
    return wilson_interval(rate * effective, effective)


def mean_interval(values: Sequence[float]) -> list[float] | None:
    """95% normal interval of the mean of per-case values in [0, 1] (the unit is the case)."""
    if len(values) < 2:
        return None
    mean = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return _ci(mean - half, mean + half, 0.0, 1.0)


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Unbiased estimate of the chance that at least one of k answers passes, from n answers of which c
    passed (Chen et al. 2021): 1 - C(n-c, k) / C(n, k). None when n < k."""
    if k < 1 or n < k:
        return None
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float | None:
    """Unbiased estimate of the chance that all of k answers pass (pass^k, Yao et al. 2024):
    C(c, k) / C(n, k). None when n < k."""
    if k < 1 or n < k:
        return None
    return comb(c, k) / comb(n, k)


# -- two runs: the paired comparison ---------------------------------------------------------------


def sign_test_p(worse: int, better: int) -> float:
    """One-sided exact p-value that the new side is worse: P(X >= worse) for X ~ Binomial(worse + better,
    1/2), over the cases whose outcome differs. Computed in exact integers, so 10 of 10 gives 2**-10."""
    n = worse + better
    if worse <= 0:
        return 1.0
    if worse > n // 2:  # the upper tail is the shorter sum
        tail, term = 1, 1  # comb(n, n)
        for k in range(n, worse, -1):
            term = term * k // (n - k + 1)  # comb(n, k - 1)
            tail += term
    else:
        below, term = 1, 1  # comb(n, 0)
        for k in range(1, worse):
            term = term * (n - k + 1) // k  # comb(n, k)
            below += term
        tail = (1 << n) - below
    return tail / (1 << n)


def paired_difference(diffs: Sequence[float]) -> tuple[float | None, list[float] | None]:
    """(mean of per-case differences new - base, its 95% interval). The standard error is that of the
    differences (Miller section 4), so what both runs share about a case cancels out."""
    if not diffs:
        return None, None
    mean = statistics.fmean(diffs)
    if len(diffs) < 2:
        return mean, None
    half = Z95 * statistics.stdev(diffs) / math.sqrt(len(diffs))
    return mean, _ci(mean - half, mean + half, -1.0, 1.0)


def min_detectable_drop(n: int, second_moment: float, alpha: float, power: float = DETECTION_POWER) -> float | None:
    """The smallest drop in pass rate that a one-sided test at `alpha` detects with `power`, with n
    paired cases whose differences have the observed mean square `second_moment` (with one answer per
    case: the share of cases that flipped either way).

    Connor's sample size for the paired (McNemar) design, solved for the drop d:
        sqrt(n) * d = z_alpha * sqrt(psi) + z_power * sqrt(psi - d^2),   psi = max(second_moment, d)
    (a drop of d makes at least a share d of the cases differ). A normal approximation: a guide to what
    this many cases can show, not a test. None when even a drop to zero would not be detected."""
    if n <= 0:
        return None
    z_alpha = -statistics.NormalDist().inv_cdf(alpha)  # not inv_cdf(1 - alpha): 1 - 1e-30 == 1.0
    z_power = statistics.NormalDist().inv_cdf(power)

    def short(d: float) -> float:
        psi = max(second_moment, d)
        return math.sqrt(n) * d - z_alpha * math.sqrt(psi) - z_power * math.sqrt(max(0.0, psi - d * d))

    if short(1.0) < 0:
        return None
    lo, hi = 1e-9, 1.0  # short(lo) < 0: the right side dominates for a tiny drop
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if short(mid) >= 0 else (mid, hi)
    return round(hi, 4)


# -- speed: ratio of medians with a bootstrap interval ---------------------------------------------


def _empirical(ordered: Sequence[float], u: float) -> float:
    """The empirical distribution's quantile function: ordered[ceil(n u) - 1]."""
    n = len(ordered)
    return ordered[min(n - 1, max(0, math.ceil(n * u) - 1))]


def _bootstrap_median(ordered: Sequence[float], rng: random.Random) -> float:
    """The median of one bootstrap resample of `ordered`, drawn in O(1).

    A resample is n values F^-1(U_i) with U_i uniform and F^-1 the empirical quantile function, which
    is monotone; so its m-th smallest value is F^-1(U_(m)), and the m-th order statistic of n uniforms
    is Beta(m, n - m + 1). The next one up is U_(m) + (1 - U_(m)) * Beta(1, n - m)."""
    n = len(ordered)
    m = (n + 1) // 2
    low = rng.betavariate(m, n - m + 1)
    if n % 2:
        return _empirical(ordered, low)
    high = low + (1 - low) * rng.betavariate(1, n - m)
    return (_empirical(ordered, low) + _empirical(ordered, high)) / 2


def median_ratio(base: Sequence[float], new: Sequence[float], *, rounds: int = BOOTSTRAP_ROUNDS,
                 seed: int = BOOTSTRAP_SEED) -> tuple[float | None, list[float] | None]:
    """(median(new) / median(base), its 95% percentile-bootstrap interval). Each run is resampled on
    its own, with a fixed seed so a report is reproducible; the two medians are taken over the same
    cases, so the ratio does not mix prompt lengths. Resampling the runs apart ignores that a case slow
    in one run is slow in the other, which only widens the interval."""
    base, new = sorted(base), sorted(new)
    if not base or not new:
        return None, None
    centre = statistics.median(base)
    if centre <= 0:
        return None, None
    ratio = statistics.median(new) / centre
    rng = random.Random(seed)
    draws = []
    for _ in range(rounds):
        below = _bootstrap_median(base, rng)
        if below > 0:
            draws.append(_bootstrap_median(new, rng) / below)
    draws.sort()
    if not draws:
        return ratio, None
    lo = draws[int(0.025 * (len(draws) - 1))]
    hi = draws[math.ceil(0.975 * (len(draws) - 1))]
    return ratio, [round(lo, 4), round(hi, 4)]
