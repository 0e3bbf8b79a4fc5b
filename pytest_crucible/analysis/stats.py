"""The statistics of one run and of two runs compared. Standard library only.

The unit is the family, not the row: repeats of one case are correlated (a model that cannot do a case
fails it every time), and so are a family's siblings (one template with new numbers: a model that cannot
do the template fails all of them), so counting them as independent trials makes an interval too narrow.
A case outside any family is a family of its own; repeats nest inside their case's family. Following
Miller, "Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations" (2024):

- a pass rate's standard error is clustered by family (his section 2.2, `clustered_se`), and reported as
  the effective number of independent problems n_eff = n / design effect (`effective_n`);
- two models are compared on the same cases through the per-case differences summed per family
  (section 4, `paired_difference`), which removes the variance of case difficulty both runs share;
- the drop a comparison can detect at its n_eff comes from the variance of those differences (section 5,
  `min_detectable_drop`).

The paired test is exact: a one-sided sign test on the families whose summed difference is not zero
(`sign_test_p`). With one answer per case and no families that is the exact McNemar test on the
discordant pairs.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from math import comb

Z95 = statistics.NormalDist().inv_cdf(0.975)
DETECTION_POWER = 0.8  # the power `min_detectable_drop` is stated at
DEFAULT_ALPHA = 0.05  # the gate's one-sided significance level unless set
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


def perfectly_correlated_n(sizes: Sequence[int]) -> float | None:
    """Kish's effective n of a mean over clusters whose values all agree (rho = 1): N^2 / sum of m^2,
    the number of clusters when they are of one size. The fewest independent values they can be worth."""
    sizes = [m for m in sizes if m > 0]
    if not sizes:
        return None
    return sum(sizes) ** 2 / sum(m * m for m in sizes)


def effective_n(counts: Sequence[tuple[int, int]]) -> float | None:
    """The effective number of independent answers behind a pass rate, from (passed, scored) per
    cluster (a family: its cases and their repeats): n_eff = N / deff, where the design effect deff is
    the clustered variance (`clustered_se` squared) over the independent-trials variance p(1-p)/N. For
    m siblings per family with intra-family correlation rho, deff = 1 + (m - 1) * rho.

    n_eff is kept between the rho = 1 value (`perfectly_correlated_n`: the number of families when they
    are of one size) and N (negative correlation never counts as more than independent answers). A rate
    of 0 or 1, or a single family, shows no correlation: then the rho = 1 value, the cautious one."""
    counts = [(p, n) for p, n in counts if n > 0]
    floor = perfectly_correlated_n([n for _, n in counts])
    if floor is None:
        return None
    total = sum(n for _, n in counts)
    rate = sum(p for p, _ in counts) / total
    if len(counts) < 2 or not 0 < rate < 1:
        return floor
    # (sum over a family's answers of (x - rate))^2 = (p - n * rate)^2: no need to expand the values
    clustered = sum((p - n * rate) ** 2 for p, n in counts) / total ** 2
    deff = clustered / (rate * (1 - rate) / total)
    return min(float(total), max(floor, total / deff)) if deff > 0 else float(total)


def clustered_interval(counts: Sequence[tuple[int, int]]) -> list[float] | None:
    """95% interval of a pass rate from (passed, scored) per cluster (a family, or a case): the Wilson
    interval at the effective sample size (`effective_n`). With one answer per cluster it is exactly the
    plain Wilson interval; with siblings or repeats its width follows the clustered SE."""
    effective = effective_n(counts)
    if effective is None:
        return None
    passed, total = sum(p for p, n in counts if n > 0), sum(n for _, n in counts if n > 0)
    return wilson_interval(passed / total * effective, effective)


def grouped(values: Sequence[float], labels: Sequence[str] | None) -> list[list[float]]:
    """The values split by label (a family), in first-seen order; without labels each is its own."""
    if labels is None:
        return [[v] for v in values]
    groups: dict[str, list[float]] = {}
    for value, label in zip(values, labels, strict=True):
        groups.setdefault(label, []).append(value)
    return list(groups.values())


def clustered_mean(clusters: Sequence[Sequence[float]]) -> tuple[float | None, float | None]:
    """(mean of all values, its clustered standard error): sqrt(G / (G - 1) * sum over clusters of
    (cluster sum - size * mean)^2) / N, with the small-sample factor G / (G - 1) (CR1) that makes it the
    usual s / sqrt(N) with one value per cluster. The SE is None under two clusters."""
    values = [v for c in clusters for v in c]
    if not values:
        return None, None
    mean = statistics.fmean(values)
    filled = [c for c in clusters if c]
    g = len(filled)
    if g < 2:
        return mean, None
    spread = sum((sum(c) - len(c) * mean) ** 2 for c in filled)
    return mean, math.sqrt(g / (g - 1) * spread) / len(values)


def mean_interval(values: Sequence[float], families: Sequence[str] | None = None) -> list[float] | None:
    """95% normal interval of the mean of per-case values in [0, 1], clustered by `families` (one label
    per value; without them each case is its own)."""
    mean, se = clustered_mean(grouped(values, families))
    if mean is None or se is None:
        return None
    return _ci(mean - Z95 * se, mean + Z95 * se, 0.0, 1.0)


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


def family_signs(diffs: Sequence[float], families: Sequence[str] | None = None) -> tuple[int, int]:
    """(families worse, families better): the sign of each family's summed difference new - base, what
    the sign test counts. Without families each case is its own."""
    sums = [sum(c) for c in grouped(diffs, families)]
    return sum(1 for d in sums if d < 0), sum(1 for d in sums if d > 0)


def paired_difference(diffs: Sequence[float],
                      families: Sequence[str] | None = None) -> tuple[float | None, list[float] | None]:
    """(mean of per-case differences new - base, its 95% interval). The standard error is that of the
    differences (Miller section 4), so what both runs share about a case cancels out, clustered by
    family (`clustered_mean`): without families it is the plain s / sqrt(n) of the differences."""
    mean, se = clustered_mean(grouped(diffs, families))
    if mean is None or se is None:
        return mean, None
    half = Z95 * se
    return mean, _ci(mean - half, mean + half, -1.0, 1.0)


def paired_effective_n(diffs: Sequence[float], families: Sequence[str] | None = None) -> float:
    """The effective number of independent pairs: N / deff, deff = sum over families of (summed
    difference)^2 / sum over cases of difference^2 (the clustered over the independent variance of the
    mean difference where it is zero, as the test assumes). Kept between the rho = 1 value
    (`perfectly_correlated_n`) and N; with no case differing, the rho = 1 value."""
    clusters = grouped(diffs, families)
    floor = perfectly_correlated_n([len(c) for c in clusters]) or 0.0
    squares = sum(d * d for d in diffs)
    summed = sum(sum(c) ** 2 for c in clusters)
    if squares == 0:
        return floor
    return min(float(len(diffs)), max(floor, len(diffs) * squares / summed)) if summed > 0 else float(len(diffs))


def min_detectable_drop(n: float, second_moment: float, alpha: float,
                        power: float = DETECTION_POWER) -> float | None:
    """The smallest drop in pass rate that a one-sided test at `alpha` detects with `power`, with n
    independent paired cases (an effective n: `paired_effective_n`) whose differences have the mean
    square `second_moment` (with one answer per case: the share of cases that flipped either way).

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


def detectable_drop(rate: float | None, n_eff: float | None, alpha: float = DEFAULT_ALPHA) -> float | None:
    """The drop from `rate` a paired comparison with a later run detects at 80% power, before that run
    exists: `min_detectable_drop` at n_eff with psi = 2 p (1 - p), the share of cases two runs at this
    rate would differ on if their answers agreed no more than chance. Runs that agree more (they share
    the cases' difficulty) detect smaller drops, so this is the cautious figure."""
    if rate is None or not n_eff:
        return None
    return min_detectable_drop(n_eff, 2 * rate * (1 - rate), alpha)


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
