"""An independent implementation of memgate's noise test and change-point
method, written from their description in memgate(1) (REGRESSIONS AND
HISTORY), not from the C code (plugin/core/noise.c): tests/noise/run holds
the two to each other on generated series.

mann_whitney(x, y): the one-sided exact Mann-Whitney p-value that y lies
above x; step(x): the single best split of a series by the pooled-variance
two-sample t statistic, and whether it reaches the threshold.
"""
import math
from fractions import Fraction

EXACT_MAX = 40          # pooled counts up to which the distribution is exact
STEP_MIN_POINTS = 5
STEP_THRESHOLD = 5.0


def midranks(pooled):
    """Twice the mean rank (1-based) of each value of `pooled` (an integer)."""
    order = sorted(pooled)
    first, last = {}, {}
    for r, v in enumerate(order, 1):
        first.setdefault(v, r)
        last[v] = r
    return [first[v] + last[v] for v in pooled]


def mann_whitney(x, y):
    """P(rank sum of y >= observed) over every way of taking len(y) of the
    pooled values as y, each way equally likely (exact below EXACT_MAX
    pooled values, else the tie-corrected normal approximation with a
    continuity correction of 1/2)."""
    m, n = len(x), len(y)
    if not m or not n:
        return 1.0
    pooled = list(x) + list(y)
    ranks = midranks(pooled)
    observed = sum(ranks[m:])      # twice y's rank sum
    big_n = m + n
    if big_n <= EXACT_MAX:
        # ways[k][s]: how many k-subsets of the values seen so far have rank sum s
        ways = [dict() for _ in range(n + 1)]
        ways[0][0] = 1
        for r in ranks:
            for k in range(min(n, big_n) - 1, -1, -1):
                for s, w in list(ways[k].items()):
                    ways[k + 1][s + r] = ways[k + 1].get(s + r, 0) + w
        total = sum(ways[n].values())
        hit = sum(w for s, w in ways[n].items() if s >= observed)
        assert total == math.comb(big_n, n)
        return float(Fraction(hit, total))
    u = observed / 2.0 - n * (n + 1) / 2.0
    counts = {}
    for v in pooled:
        counts[v] = counts.get(v, 0) + 1
    ties = sum(float(t) ** 3 - t for t in counts.values())
    var = m * n / 12.0 * ((big_n + 1) - ties / (big_n * (big_n - 1)))
    if var <= 0:
        return 1.0
    z = (u - m * n / 2.0 - 0.5) / math.sqrt(var)
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def _mean_ss(seg):
    total = 0.0
    for v in seg:
        total += v
    mean = total / len(seg)
    ss = 0.0
    for v in seg:
        ss += (v - mean) * (v - mean)
    return mean, ss


def step(x):
    """(found, at, t, mean before, mean after): the split `at` (the first
    point after the step, before >= 2 points, after >= 1) with the largest
    t, the earliest of equal ones; found when t >= STEP_THRESHOLD."""
    n = len(x)
    if n < STEP_MIN_POINTS:
        return (False, 0, 0.0, 0.0, 0.0)
    best = None
    for at in range(2, n):
        mb, ssb = _mean_ss(x[:at])
        ma, ssa = _mean_ss(x[at:])
        s2 = (ssb + ssa) / (n - 2)
        diff = abs(ma - mb)
        if s2 > 0:
            t = diff / math.sqrt(s2 * (1.0 / at + 1.0 / (n - at)))
        else:
            t = math.inf if diff > 0 else 0.0
        if best is None or t > best[2]:
            best = (False, at, t, mb, ma)
    return (best[2] >= STEP_THRESHOLD,) + best[1:]
