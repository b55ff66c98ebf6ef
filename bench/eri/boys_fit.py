#!/usr/bin/env python3
"""Coefficients of the register-only Boys F0 in cl/eri.cl (variant BOYS=2).

G(t) = F0(t) / (sqrt(pi)/2):
  t < 2        polynomial of degree 12 in t - 1 (Chebyshev interpolation);
  2 <= t < 36  v - exp(-t) Q(v), v = 1/sqrt(t), Q of degree 12 in v - mid,
               least squares weighted by exp(-t)/F0 (the relative error of F0
               per unit error of Q), so Q is exact where it matters;
  exp(r)       degree 9 on |r| <= ln2/2, relative least squares.
Needs mpmath (PyPI). Prints the OpenCL arrays and the worst relative error of
G in exact arithmetic. Usage: python3 bench/eri/boys_fit.py
"""
import mpmath as mp

mp.mp.dps = 30
SP = mp.sqrt(mp.pi) / 2
SPLIT, TMAX, M = mp.mpf(2), mp.mpf(36), 160


def f0(t):
    if t == 0:
        return mp.mpf(1)
    x = mp.sqrt(t)
    return SP * mp.erf(x) / x


def nodes(a, b):
    mid, h = (a + b) / 2, (b - a) / 2
    return mid, h, [mid + h * mp.cos(mp.pi * (k + 0.5) / M) for k in range(M)]


def lsq(a, b, deg, weight, value):
    """Monomial coefficients in (x - mid) minimizing sum (weight (p - value))^2."""
    mid, h, xs = nodes(a, b)
    A, y = mp.matrix(M, deg + 1), mp.matrix(M, 1)
    for i, x in enumerate(xs):
        w = weight(x)
        for j in range(deg + 1):
            A[i, j] = w * ((x - mid) / h) ** j
        y[i] = w * value(x)
    c, _ = mp.qr_solve(A, y)
    return mid, [c[j] / h ** j for j in range(deg + 1)]


def horner(c, x):
    r = c[-1]
    for v in reversed(c[:-1]):
        r = r * x + v
    return r


small_mid, small = lsq(0, SPLIT, 12, lambda t: 1 / f0(t), lambda t: f0(t) / SP)
tail = lambda v: mp.e ** (1 / v ** 2) * mp.erfc(1 / v) * v  # Q = e^t (v - G) at v
tail_mid, tail_c = lsq(1 / mp.sqrt(TMAX), 1 / mp.sqrt(SPLIT), 12,
                       lambda v: mp.e ** (-1 / v ** 2) / f0(1 / v ** 2), tail)
ln2h = mp.log(2) / 2
_, ex = lsq(-ln2h, ln2h, 9, lambda r: mp.e ** -r, lambda r: mp.e ** r)


def g(t):
    if t < SPLIT:
        return horner(small, t - small_mid)
    v = 1 / mp.sqrt(t)
    return v if t >= TMAX else v - mp.e ** -t * horner(tail_c, v - tail_mid)


worst = max(abs(g(t) * SP / f0(t) - 1) for t in (mp.mpf(k) / 100 for k in range(1, 4000)))
for name, c in (("boys_small", small), ("boys_tail", tail_c), ("boys_exp", ex)):
    print("__constant double %s[%d] = {%s};" % (name, len(c), ", ".join(float(v).hex() for v in c)))
print("#define BOYS_MID %s  /* small polynomial centre %s */" % (float(tail_mid).hex(), float(small_mid)))
print("/* worst relative error of F0 in exact arithmetic: %s */" % mp.nstr(worst, 3))
