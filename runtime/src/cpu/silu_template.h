/* The vector SiLU loop of activation.c, once per ISA: the including file defines
 *   TARGET (the function attribute), VEC, LANES, SET1(c), ADD, SUB, MUL, DIV, MIN, MAX,
 *   FMADD(a, b, c) (a * b + c), FNMADD(a, b, c) (c - a * b), ROUND(v) (to nearest),
 *   SCALE_POW2(e, k) (e * 2^k for integral k in [-126, 127]), LOAD(p), STORE(p, v),
 *   NAME,
 * and the constants and silu_scalar of activation.c. Values past the last whole vector
 * go through silu_scalar. */
TARGET static void NAME(float *v, int64_t count) {
  int64_t i = 0;
  for (; i + LANES <= count; i += LANES) {
    VEC x = LOAD(v + i);
    VEC t = MAX(MIN(SUB(SET1(0.0f), x), SET1(kHigh)), SET1(kLow));
    VEC k = ROUND(MUL(t, SET1(kLog2e)));
    VEC r = FNMADD(k, SET1(kLn2High), t);
    r = FNMADD(k, SET1(kLn2Low), r);
    VEC p = FMADD(SET1(kP0), r, SET1(kP1));
    p = FMADD(p, r, SET1(kP2));
    p = FMADD(p, r, SET1(kP3));
    p = FMADD(p, r, SET1(kP4));
    p = FMADD(p, r, SET1(kP5));
    VEC e = ADD(FMADD(p, MUL(r, r), r), SET1(1.0f));
    e = SCALE_POW2(e, k);
    STORE(v + i, DIV(x, ADD(e, SET1(1.0f))));
  }
  for (; i < count; ++i)
    v[i] = silu_scalar(v[i]);
}
