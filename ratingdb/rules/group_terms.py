"""The terms of a first-rating group's equations W_k = W_e,k(R) (the Gesamtiteration,
classic DWZ 4.7.4; WO 2026 3.4.4.1): their residuals W - W_e, the Jacobian and the
potential whose gradient they are, for :class:`ratingdb.rules.solver._System`.

A group has ``m`` unknowns. Row k's games against constant ratings are
``fixed[fixed_start[k]:fixed_start[k + 1]]``, its games against other unknowns
``linked[linked_start[k]:linked_start[k + 1]]`` (positions); a row under the extreme rule
(classic 4.7.2.1.2: 0 % or 100 %) has no games here but the positions it averages,
``averaged[averaged_start[k]:averaged_start[k + 1]]``, and its sign (+1 / -1).

The numbers (docs/rules-dwz2026.md, "Float precision"): P(D) is scipy's ``ndtr`` (or the
logistic ``expit``) through scipy's documented Cython interface, W_e of a row the
correctly rounded sum of its games' P (``math.fsum``), the fixed games first; the
densities of the Jacobian use the C library's ``exp``. The Jacobian and the potential
only steer Newton's method: the root is where every W = W_e.

This module is compiled by Cython (``setup.py``; its annotations are Cython's
pure-Python mode) and is not importable uncompiled (``tests/test_compiled.py``).
"""

from __future__ import annotations

import math

import cython
import numpy as np
from cython.cimports.libc.math import exp, log1p, sqrt
from cython.cimports.scipy.special.cython_special import expit, ndtr


@cython.cfunc
@cython.locals(z=cython.double)
def _p(d: cython.double, normal: cython.bint, sigma: cython.double, factor: cython.double
       ) -> cython.double:  # fmt: skip
    if normal:
        z = d / sigma
        return ndtr(z)
    return expit(d * factor)


@cython.cfunc
@cython.locals(z=cython.double, p=cython.double)
def _density(d: cython.double, normal: cython.bint, sigma: cython.double,
             factor: cython.double) -> cython.double:  # fmt: skip
    if normal:
        z = d / sigma
        return exp(-0.5 * z * z) / (sigma * sqrt(2 * math.pi))
    p = expit(d * factor)
    return factor * p * (1 - p)


@cython.cfunc
@cython.locals(z=cython.double, y=cython.double)
def _integral(d: cython.double, normal: cython.bint, sigma: cython.double,
              factor: cython.double) -> cython.double:  # fmt: skip
    """Psi(d) with Psi' = P: d Phi(d/sigma) + sigma phi(d/sigma) (normal), ln(1 + e^(s d)) / s
    (logistic, s = ``factor``)."""
    if normal:
        z = d / sigma
        return d * ndtr(z) + sigma * (exp(-0.5 * z * z) / sqrt(2 * math.pi))
    y = d * factor
    if y > 0:
        return (y + log1p(exp(-y))) / factor
    return log1p(exp(y)) / factor


@cython.locals(m=cython.Py_ssize_t, k=cython.Py_ssize_t, g=cython.Py_ssize_t,
               first=cython.Py_ssize_t, last=cython.Py_ssize_t, own=cython.double,
               total=cython.double, normal=cython.bint)  # fmt: skip
def residuals(
    x: cython.double[::1],
    w: cython.double[::1],
    fixed: cython.double[::1],
    fixed_start: cython.long[::1],
    linked: cython.long[::1],
    linked_start: cython.long[::1],
    averaged: cython.long[::1],
    averaged_start: cython.long[::1],
    sign: cython.double[::1],
    base: cython.double[::1],
    n: cython.double[::1],
    extreme: cython.double,
    kind: str,
    sigma: cython.double,
    factor: cython.double,
) -> np.ndarray:
    """W - W_e of every row at ``x``; of a row under the extreme rule (``sign`` != 0) its
    value R_c + / - ``extreme`` minus x, R_c the mean of ``base`` (the constant
    opponents' sum) and the averaged positions' values over ``n`` games."""
    normal = kind == "normal"
    m = x.shape[0]
    out = np.empty(m)
    f: cython.double[::1] = out
    for k in range(m):
        own = x[k]
        if sign[k] != 0:
            total = 0.0
            for g in range(averaged_start[k], averaged_start[k + 1]):
                total += x[averaged[g]]
            f[k] = ((base[k] + total) / n[k] + sign[k] * extreme) - own
            continue
        first, last = fixed_start[k], fixed_start[k + 1]
        values: list[float] = []
        for g in range(first, last):
            values.append(_p(own - fixed[g], normal, sigma, factor))
        for g in range(linked_start[k], linked_start[k + 1]):
            values.append(_p(own - x[linked[g]], normal, sigma, factor))
        f[k] = w[k] - math.fsum(values)
    return out


@cython.locals(m=cython.Py_ssize_t, k=cython.Py_ssize_t, g=cython.Py_ssize_t,
               j=cython.Py_ssize_t, own=cython.double, diagonal=cython.double,
               linked_sum=cython.double, d=cython.double, normal=cython.bint)  # fmt: skip
def jacobian(
    x: cython.double[::1],
    fixed: cython.double[::1],
    fixed_start: cython.long[::1],
    linked: cython.long[::1],
    linked_start: cython.long[::1],
    averaged: cython.long[::1],
    averaged_start: cython.long[::1],
    sign: cython.double[::1],
    n: cython.double[::1],
    kind: str,
    sigma: cython.double,
    factor: cython.double,
) -> np.ndarray:
    """The derivatives of :func:`residuals` by the values: row k, column j."""
    normal = kind == "normal"
    m = x.shape[0]
    out = np.zeros((m, m))
    jac: cython.double[:, ::1] = out
    for k in range(m):
        if sign[k] != 0:
            for g in range(averaged_start[k], averaged_start[k + 1]):
                jac[k, averaged[g]] += 1.0 / n[k]
            jac[k, k] -= 1.0
            continue
        own = x[k]
        diagonal = 0.0
        for g in range(fixed_start[k], fixed_start[k + 1]):
            diagonal += _density(own - fixed[g], normal, sigma, factor)
        linked_sum = 0.0
        for g in range(linked_start[k], linked_start[k + 1]):
            j = linked[g]
            d = _density(own - x[j], normal, sigma, factor)
            linked_sum += d
            jac[k, j] += d
        jac[k, k] -= diagonal + linked_sum
    return out


@cython.locals(m=cython.Py_ssize_t, k=cython.Py_ssize_t, g=cython.Py_ssize_t,
               own=cython.double, value=cython.double, pairs=cython.double,
               o=cython.double, normal=cython.bint)  # fmt: skip
def potential(
    x: cython.double[::1],
    own_weight: cython.double[::1],
    fixed: cython.double[::1],
    fixed_start: cython.long[::1],
    linked: cython.long[::1],
    linked_start: cython.long[::1],
    kind: str,
    sigma: cython.double,
    factor: cython.double,
) -> float:
    """G(x) = sum (W_k - L_k / 2) x_k - sum Psi(x_k - o) - 1/2 sum Psi(x_k - x_j) over the
    games (the linked ones in both directions), Psi' = P, so dG/dx_k = W_k - W_e,k; a
    constant opponent at -infinity (P = 1) contributes -x_k. For a group without rows
    under the extreme rule."""
    normal = kind == "normal"
    m = x.shape[0]
    value = 0.0
    pairs = 0.0
    for k in range(m):
        own = x[k]
        value += own_weight[k] * own
        for g in range(fixed_start[k], fixed_start[k + 1]):
            o = fixed[g]
            if o == -math.inf:
                value -= own
            else:
                value -= _integral(own - o, normal, sigma, factor)
        for g in range(linked_start[k], linked_start[k + 1]):
            pairs += _integral(own - x[linked[g]], normal, sigma, factor)
    return value - 0.5 * pairs
