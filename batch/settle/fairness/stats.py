"""The few distributions the fairness tests need, in the standard library: the normal's and the
chi-square's upper tails, and Holm's correction for many tests at once (which tests it rejects,
each test's threshold and each test's adjusted p-value).

>>> round(normal_two_sided(1.959963985), 6)
0.05
>>> round(chi2_sf(3.841458821, 1), 6), round(chi2_sf(51.0, 51), 4)
(0.05, 0.4737)
>>> holm([0.001, 0.04, 0.03, 0.2], 0.05)
[True, False, False, False]
>>> holm_thresholds([0.001, 0.04, 0.03, 0.2], 0.05)
[0.0125, 0.025, 0.016666666666666666, 0.05]
>>> [round(p, 3) for p in holm_adjusted([0.001, 0.04, 0.03, 0.2])]
[0.004, 0.09, 0.09, 0.2]
"""

from __future__ import annotations

import math


def normal_two_sided(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z."""
    return math.erfc(abs(z) / math.sqrt(2))


def _lower_series(a: float, x: float) -> float:
    """The regularized lower incomplete gamma P(a, x) by its series (x < a + 1)."""
    term = total = 1.0 / a
    n = a
    for _ in range(10_000):
        n += 1
        term *= x / n
        total += term
        if abs(term) < abs(total) * 1e-16:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    """The regularized upper incomplete gamma Q(a, x) by its continued fraction (x >= a + 1; Lentz)."""
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-16:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom."""
    if x <= 0:
        return 1.0
    a, half = df / 2, x / 2
    return 1 - _lower_series(a, half) if half < a + 1 else _upper_fraction(a, half)


def holm(p_values: list[float], level: float) -> list[bool]:
    """Which tests Holm's step-down procedure rejects at family-wise ``level``: the k-th smallest
    p-value is compared with ``level / (m - k)``, stopping at the first that is not below it."""
    m = len(p_values)
    rejected = [False] * m
    for k, i in enumerate(sorted(range(m), key=lambda j: p_values[j])):
        if p_values[i] > level / (m - k):
            break
        rejected[i] = True
    return rejected


def holm_thresholds(p_values: list[float], level: float) -> list[float]:
    """Each test's threshold in Holm's procedure: ``level / (m - k)`` for the k-th smallest p-value
    (k from 0; ties in the order given). A test is rejected when its p-value and every smaller
    one are at or below their thresholds."""
    m = len(p_values)
    out = [0.0] * m
    for k, i in enumerate(sorted(range(m), key=lambda j: p_values[j])):
        out[i] = level / (m - k)
    return out


def holm_adjusted(p_values: list[float]) -> list[float]:
    """Holm's adjusted p-values: the smallest family-wise level at which each test is rejected
    (``(m - k) * p`` for the k-th smallest, never below an earlier one's, at most 1). A test is
    rejected at ``level`` exactly when its adjusted p-value is at most ``level``."""
    m = len(p_values)
    out = [1.0] * m
    running = 0.0
    for k, i in enumerate(sorted(range(m), key=lambda j: p_values[j])):
        running = max(running, min(1.0, (m - k) * p_values[i]))
        out[i] = running
    return out
