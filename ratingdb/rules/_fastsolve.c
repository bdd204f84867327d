/* The performances R_h of a tournament, compiled: ratingdb.rules.solver's
 * _solve_small_py step for step, in C (the table precision's integers are in
 * _fastdwz.c).
 *
 * solve_many's rows with few games in all (WO 2026 3.6, classic 4.8: each player's R_h
 * against fixed opponents) iterate the bracketing Newton method of solver.solve_one. The
 * Python version spends most of its time on the per-game lists and sums between two numpy
 * calls; here the differences, the bracket and the stop rule are C, each W_e and
 * slope the correctly rounded sum of its games' values (math.fsum, called on them), and P and its density still come from the very functions the Python
 * version calls: P as scipy's own C function behind scipy.special.ndtr or expit (the
 * capsule scipy.special.cython_special exports), the density's exponential as numpy's
 * own float64 loop of numpy.exp (double_loop, read from the ufunc object as numpy's
 * C-API documents it); solver._twin takes each only where it gives the ufunc's values to
 * the bit, else the ufunc itself is called on an array. Every value is the same IEEE operation on the same operands (built with
 * -ffp-contract=off: no fused multiply-add), so the roots, traces and W_e agree with the
 * Python version to the last bit (tests/test_fastsolve.py); the stop rule's rare slow
 * case (an iterate near a half) calls solver._rounds_alike itself.
 *
 * newton_group (below solve_small): solver.solve's damped Newton method for a
 * group of newcomers who play each other (classic 4.7.4, WO 2026 3.4.4.1), on the
 * potential or on the squared residuals (extreme rows, classic 4.7.2.1.2; games in one
 * row only), W_e correctly rounded (math.fsum), the Jacobian summed in numpy's bincount
 * order, P and its density
 * from the same functions, the Newton direction and the dot products from numpy's own
 * loops of linalg.solve (LAPACK's gesv) and matmul (BLAS's ddot), read from the ufunc
 * objects like exp: every step, trace state and settled root is the Python method's to
 * the bit (tests/test_fast_group.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* numpy's pairwise summation of a contiguous float64 array (ndarray.sum), as the group
 * method's potential and merit add in Python (np.sum) */
static double pairwise(const double *a, Py_ssize_t n)
{
    if (n < 8) {
        double res = -0.0;
        for (Py_ssize_t i = 0; i < n; i++)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        double r0 = a[0], r1 = a[1], r2 = a[2], r3 = a[3];
        double r4 = a[4], r5 = a[5], r6 = a[6], r7 = a[7];
        Py_ssize_t i = 8, end = n - n % 8;
        for (; i < end; i += 8) {
            r0 += a[i];
            r1 += a[i + 1];
            r2 += a[i + 2];
            r3 += a[i + 3];
            r4 += a[i + 4];
            r5 += a[i + 5];
            r6 += a[i + 6];
            r7 += a[i + 7];
        }
        double total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));
        for (; i < n; i++)
            total += a[i];
        return total;
    }
    Py_ssize_t half = n / 2;
    half -= half % 8;
    return pairwise(a, half) + pairwise(a + half, n - half);
}

/* *out = math.fsum(a[0..n)): the correctly rounded sum, the float precision's one sum
 * (ratingdb/rules/solver.py, row_sums); -1 with an exception on error */
static int exact_sum(const double *a, Py_ssize_t n, double *out)
{
    static PyObject *fsum = NULL;
    if (fsum == NULL) {
        PyObject *math = PyImport_ImportModule("math");
        if (math == NULL)
            return -1;
        fsum = PyObject_GetAttrString(math, "fsum");
        Py_DECREF(math);
        if (fsum == NULL)
            return -1;
    }
    PyObject *values = PyList_New(n);
    if (values == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyFloat_FromDouble(a[i]);
        if (v == NULL) {
            Py_DECREF(values);
            return -1;
        }
        PyList_SET_ITEM(values, i, v);
    }
    PyObject *total = PyObject_CallOneArg(fsum, values);
    Py_DECREF(values);
    if (total == NULL)
        return -1;
    *out = PyFloat_AsDouble(total);
    Py_DECREF(total);
    return 0;
}

typedef struct {
    int normal;          /* the normal distribution, else the logistic curve */
    double sigma;        /* normal: z = (x - o) / sigma */
    double factor;       /* logistic: (x - o) * factor */
    double norm;         /* normal: the density's sum / norm is the slope */
    PyObject *cdf;       /* scipy.special.ndtr or expit, or the capsule of its C function */
    PyObject *exp;       /* numpy.exp */
    PyObject *frombuffer;/* numpy.frombuffer */
    PyObject *slow_alike;/* solver._rounds_alike */
    const double *opp;   /* every row's opponents, one after the other */
    const Py_ssize_t *first;
    const Py_ssize_t *len;
} Ctx;

/* the signature of scipy.special.cython_special's C functions of one double (their
 * capsules in __pyx_capi__): the very function scipy's ufunc calls for each element */
static const char SCALAR[] = "double (double, int __pyx_skip_dispatch)";

/* numpy's ufunc loop of one float64 to one float64 (the PyUFuncObject's functions[k] and
 * data[k]), as double_loop finds it */
typedef void (*LoopFn)(char **args, const Py_ssize_t *dims, const Py_ssize_t *steps, void *data);
typedef struct {
    LoopFn fn;
    void *data;
    int nargs; /* 2: a function of one float64 (exp); 3: numpy's solve1 or matmul */
} Loop;
static const char LOOP[] = "ratingdb.rules._fastsolve.loop";

/* dst[0..n) = f(src[0..n)) for a capsule of SCALAR or LOOP; -1 with a Python error. The
 * floating-point status flags a numpy loop raises are put back as they were (numpy clears
 * and reads them around its own calls). */
static int capsule_values(PyObject *capsule, const double *src, double *dst, Py_ssize_t n)
{
    const char *name = PyCapsule_GetName(capsule);
    if (name != NULL && strcmp(name, LOOP) == 0) {
        Loop *loop = (Loop *)PyCapsule_GetPointer(capsule, LOOP);
        if (loop == NULL)
            return -1;
        if (loop->nargs != 2) {
            PyErr_SetString(PyExc_ValueError, "not the loop of a function of one float64");
            return -1;
        }
        fexcept_t flags;
        fegetexceptflag(&flags, FE_ALL_EXCEPT);
        char *args[2] = {(char *)src, (char *)dst};
        Py_ssize_t dims[1] = {n}, steps[2] = {8, 8};
        if (n > 0)
            loop->fn(args, dims, steps, loop->data);
        fesetexceptflag(&flags, FE_ALL_EXCEPT);
        return PyErr_Occurred() ? -1 : 0;
    }
    double (*fn)(double, int) = (double (*)(double, int))PyCapsule_GetPointer(capsule, SCALAR);
    if (fn == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++)
        dst[i] = fn(src[i], 0);
    return PyErr_Occurred() ? -1 : 0;
}

/* ufunc(values) as a new reference to a float64 array (or to a bytearray of doubles,
 * where ufunc is a capsule of SCALAR or LOOP: the function applied here); *view its
 * values */
static PyObject *apply(const Ctx *c, PyObject *ufunc, PyObject *bytes, Py_buffer *view)
{
    if (PyCapsule_CheckExact(ufunc)) {
        Py_ssize_t n = PyByteArray_GET_SIZE(bytes) / 8;
        PyObject *out = PyByteArray_FromStringAndSize(NULL, n * 8);
        if (out == NULL)
            return NULL;
        const double *src = (const double *)PyByteArray_AS_STRING(bytes);
        double *dst = (double *)PyByteArray_AS_STRING(out);
        if (capsule_values(ufunc, src, dst, n) < 0
            || PyObject_GetBuffer(out, view, PyBUF_SIMPLE) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        return out;
    }
    PyObject *arr = PyObject_CallOneArg(c->frombuffer, bytes);
    if (arr == NULL)
        return NULL;
    PyObject *out = PyObject_CallOneArg(ufunc, arr);
    Py_DECREF(arr);
    if (out == NULL)
        return NULL;
    if (PyObject_GetBuffer(out, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    if (view->itemsize != 8 || view->len != PyByteArray_GET_SIZE(bytes) || view->format == NULL
        || strcmp(view->format, "d") != 0) {
        PyBuffer_Release(view);
        Py_DECREF(out);
        PyErr_SetString(PyExc_TypeError, "P must give one float64 per game");
        return NULL;
    }
    return out;
}

/* solver._expected_rows for the rows idx[0..count) at xs: W_e and the slope of each */
static int expected_rows(const Ctx *c, const Py_ssize_t *idx, Py_ssize_t count,
                         const double *xs, double *we, double *slope)
{
    Py_ssize_t games = 0;
    for (Py_ssize_t k = 0; k < count; k++)
        games += c->len[idx[k]];
    if (games == 0) { /* no row without games reaches here (solve_many) */
        for (Py_ssize_t k = 0; k < count; k++) {
            we[k] = 0.0;
            slope[k] = c->normal ? 0.0 / c->norm : c->factor * 0.0;
        }
        return 0;
    }
    PyObject *zb = PyByteArray_FromStringAndSize(NULL, games * 8);
    if (zb == NULL)
        return -1;
    double *z = (double *)PyByteArray_AS_STRING(zb);
    Py_ssize_t at = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        const double *row = c->opp + c->first[idx[k]];
        double x = xs[k];
        for (Py_ssize_t j = 0; j < c->len[idx[k]]; j++)
            z[at++] = c->normal ? (x - row[j]) / c->sigma : (x - row[j]) * c->factor;
    }
    int rc = -1;
    Py_buffer pv = {0}, dv = {0};
    PyObject *density_bytes = NULL, *density = NULL;
    PyObject *cdf = apply(c, c->cdf, zb, &pv);
    if (cdf == NULL)
        goto done;
    const double *p = (const double *)pv.buf;
    const double *d;
    double *own = NULL;
    if (c->normal) {
        density_bytes = PyByteArray_FromStringAndSize(NULL, games * 8);
        if (density_bytes == NULL)
            goto done;
        double *e = (double *)PyByteArray_AS_STRING(density_bytes);
        for (Py_ssize_t i = 0; i < games; i++)
            e[i] = -0.5 * z[i] * z[i];
        density = apply(c, c->exp, density_bytes, &dv);
        if (density == NULL)
            goto done;
        d = (const double *)dv.buf;
    } else {
        own = malloc(games * sizeof(double));
        if (own == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < games; i++)
            own[i] = p[i] * (1 - p[i]);
        d = own;
    }
    at = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        Py_ssize_t n = c->len[idx[k]];
        double total;
        if (exact_sum(p + at, n, &we[k]) < 0 || exact_sum(d + at, n, &total) < 0) {
            free(own);
            goto done;
        }
        slope[k] = c->normal ? total / c->norm : c->factor * total;
        at += n;
    }
    free(own);
    rc = 0;
done:
    if (dv.obj != NULL)
        PyBuffer_Release(&dv);
    if (pv.obj != NULL)
        PyBuffer_Release(&pv);
    Py_XDECREF(density);
    Py_XDECREF(density_bytes);
    Py_XDECREF(cdf);
    Py_DECREF(zb);
    return rc;
}

/* solver._rounds_alike: the usual case here, an iterate near a half in Python; -1 on error */
static int rounds_alike(const Ctx *c, double a, double b)
{
    if (!(isfinite(a) && isfinite(b)))
        return 0;
    if (a >= 0 && b >= 0 && fabs(fmod(a, 1.0) - 0.5) > 1e-5 && fabs(fmod(b, 1.0) - 0.5) > 1e-5)
        return floor(a + 0.5) == floor(b + 0.5);
    PyObject *res = PyObject_CallFunction(c->slow_alike, "dd", a, b);
    if (res == NULL)
        return -1;
    int alike = PyObject_IsTrue(res);
    Py_DECREF(res);
    return alike;
}

/* solver._settled of one value: rounding.float_half_up(v, places) where the exact
 * product v * 10^places fits (|v| * 10^places < 2^53: every rating), else the Python
 * function itself. v = m * 2^e exactly; the product m * 10^places (< 2^83) is exact in
 * 128-bit integers, halved away from zero at the binary point, and the quotient of two
 * exact doubles is correctly rounded, as Python's int / int is. -1 on a Python error. */
static int settle(PyObject *half_up, int places, double v, double *out)
{
    if (!isfinite(v)) {
        *out = v;
        return 0;
    }
    double scale = 1.0;
    for (int i = 0; i < places; i++)
        scale *= 10.0; /* exact up to 10^22 */
    double a = fabs(v);
    if (places >= 0 && places <= 15 && a * scale < 9007199254740992.0 /* 2^53 */) {
        int e;
        double frac = frexp(a, &e); /* a = frac * 2^e, 0.5 <= frac < 1 */
        __int128 m = (__int128)ldexp(frac, 53);  /* a = m * 2^(e - 53), m exact */
        __int128 pow10 = 1;
        for (int i = 0; i < places; i++)
            pow10 *= 10;
        __int128 num = m * pow10;
        int shift = 53 - e;
        __int128 q;
        if (a == 0.0)
            q = 0;
        else if (shift <= 0)
            q = num << -shift;
        else if (shift >= 120)
            q = 0; /* below 2^-67: rounds to zero at any places <= 15 */
        else
            q = (num + ((__int128)1 << (shift - 1))) >> shift; /* floor(x + 1/2) */
        double r = (double)q / scale;
        *out = v < 0 || (v == 0.0 && signbit(v)) ? -r : r;
        return 0;
    }
    PyObject *res = PyObject_CallFunction(half_up, "di", v, places);
    if (res == NULL)
        return -1;
    *out = PyFloat_AsDouble(res);
    Py_DECREF(res);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

/* v[0..n) as a list of floats */
static PyObject *float_list(const double *v, Py_ssize_t n)
{
    PyObject *l = PyList_New(n);
    if (l == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *f = PyFloat_FromDouble(v[i]);
        if (f == NULL) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, i, f);
    }
    return l;
}

static int append_float(PyObject *list, double v)
{
    PyObject *f = PyFloat_FromDouble(v);
    if (f == NULL)
        return -1;
    int rc = PyList_Append(list, f);
    Py_DECREF(f);
    return rc;
}

/* seq[r] as a double; -1 with the Python error set */
static int item_double(PyObject *seq, Py_ssize_t r, double *out)
{
    PyObject *item = PySequence_GetItem(seq, r);
    if (item == NULL)
        return -1;
    *out = PyFloat_AsDouble(item);
    Py_DECREF(item);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

static void release_rows(PyObject *rows, PyObject **row_tuples)
{
    if (row_tuples != NULL) {
        for (Py_ssize_t r = 0; r < PyTuple_GET_SIZE(rows); r++)
            Py_XDECREF(row_tuples[r]);
        free(row_tuples);
    }
    Py_DECREF(rows);
}

static const char solve_small_doc[] =
    "solve_small(rows, w, starts, normal, sigma, factor, norm, cdf, exp, frombuffer,\n"
    "            rounds_alike, tolerance, max_bisect, max_jump, polish_steps, polish_reach,\n"
    "            float_half_up, places)\n"
    "--\n\n"
    "solver._solve_small_py's iteration for the rows (lists of opponent ratings) with\n"
    "w[k] points, started at starts[k]: for each row None (no end within max_bisect\n"
    "steps) or (steps, root settled to places decimals, trace, W_e at every state after\n"
    "the start).";

static PyObject *solve_small(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *rows, *w_seq, *start_seq;
    Ctx c;
    double tolerance, max_jump, polish_reach;
    Py_ssize_t max_bisect, polish_steps;
    PyObject *half_up;
    int places;
    if (!PyArg_ParseTuple(args, "OOOpdddOOOOdndndOi", &rows, &w_seq, &start_seq, &c.normal,
                          &c.sigma, &c.factor, &c.norm, &c.cdf, &c.exp, &c.frombuffer,
                          &c.slow_alike, &tolerance, &max_bisect, &max_jump, &polish_steps,
                          &polish_reach, &half_up, &places))
        return NULL;
    /* tuples: nothing an element's __float__ or a row's __iter__ runs can change them */
    PyObject *rows_fast = PySequence_Tuple(rows);
    if (rows_fast == NULL)
        return NULL;
    Py_ssize_t R = PyTuple_GET_SIZE(rows_fast);
    PyObject *result = NULL, *traces = NULL, *expected = NULL;
    double *mem = NULL;
    Py_ssize_t *ints = NULL;
    PyObject **row_tuples = calloc((size_t)R + 1, sizeof(PyObject *));
    if (row_tuples == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t r = 0; r < R; r++) {
        row_tuples[r] = PySequence_Tuple(PyTuple_GET_ITEM(rows_fast, r));
        if (row_tuples[r] == NULL)
            goto fail;
        total += PyTuple_GET_SIZE(row_tuples[r]);
    }
    /* one allocation for every array */
    size_t doubles = (size_t)total + 14 * (size_t)R + 1;
    mem = calloc(doubles, sizeof(double));
    ints = calloc(5 * (size_t)R + 1, sizeof(Py_ssize_t));
    if (mem == NULL || ints == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    double *opp = mem, *x = opp + total, *fx = x + R, *slope = fx + R, *lo = slope + R;
    double *hi = lo + R, *reach = hi + R, *w = reach + R, *news = w + R, *we = news + R;
    double *slopes = we + R, *px = slopes + R, *pwe = px + R, *pwe2 = pwe + R;
    double *sl2 = pwe2 + R;
    Py_ssize_t *first = ints, *len = first + R, *active = len + R, *still = active + R;
    Py_ssize_t *finished = still + R;
    Py_ssize_t at = 0;
    for (Py_ssize_t r = 0; r < R; r++) {
        PyObject *row = row_tuples[r];
        first[r] = at;
        len[r] = PyTuple_GET_SIZE(row);
        for (Py_ssize_t j = 0; j < len[r]; j++) {
            double v = PyFloat_AsDouble(PyTuple_GET_ITEM(row, j));
            if (v == -1.0 && PyErr_Occurred())
                goto fail;
            opp[at++] = v;
        }
        if (item_double(w_seq, r, &w[r]) < 0 || item_double(start_seq, r, &x[r]) < 0)
            goto fail;
        lo[r] = -INFINITY;
        hi[r] = INFINITY;
        reach[r] = 1000.0;
        active[r] = r;
    }
    c.opp = opp;
    c.first = first;
    c.len = len;
    result = PyList_New(R);
    traces = PyList_New(R);
    expected = PyList_New(R);
    if (result == NULL || traces == NULL || expected == NULL)
        goto fail;
    for (Py_ssize_t r = 0; r < R; r++) {
        Py_INCREF(Py_None);
        PyList_SET_ITEM(result, r, Py_None);
        PyObject *t = PyList_New(1), *e = PyList_New(0), *s = float_list(&x[r], 1);
        if (t == NULL || e == NULL || s == NULL) {
            Py_XDECREF(t);
            Py_XDECREF(e);
            Py_XDECREF(s);
            goto fail;
        }
        PyList_SET_ITEM(t, 0, s);
        PyList_SET_ITEM(traces, r, t);
        PyList_SET_ITEM(expected, r, e);
    }
    if (expected_rows(&c, active, R, x, we, slope) < 0)
        goto fail;
    for (Py_ssize_t r = 0; r < R; r++)
        fx[r] = we[r] - w[r];
    Py_ssize_t count = R;
    for (Py_ssize_t step = 1; step <= max_bisect && count > 0; step++) {
        for (Py_ssize_t k = 0; k < count; k++) {
            Py_ssize_t r = active[k];
            double xr = x[r], f = fx[r], s = slope[r];
            if (f < 0)
                lo[r] = xr;
            else
                hi[r] = xr;
            double low = lo[r], high = hi[r];
            double nw = s != 0 ? xr - f / s : NAN;
            if (!(low < nw && nw < high) || fabs(nw - xr) > max_jump) {
                if (isinf(high)) {
                    nw = low + reach[r];
                    reach[r] = 2 * reach[r];
                } else if (isinf(low)) {
                    nw = high - reach[r];
                    reach[r] = 2 * reach[r];
                } else {
                    nw = (low + high) / 2;
                }
            }
            news[k] = nw;
        }
        if (expected_rows(&c, active, count, news, we, slopes) < 0)
            goto fail;
        Py_ssize_t n_finished = 0, n_still = 0;
        for (Py_ssize_t k = 0; k < count; k++) {
            Py_ssize_t r = active[k];
            double nw = news[k], f_new = we[k] - w[r];
            PyObject *state = float_list(&nw, 1);
            if (state == NULL)
                goto fail;
            int bad = PyList_Append(PyList_GET_ITEM(traces, r), state);
            Py_DECREF(state);
            if (bad < 0 || append_float(PyList_GET_ITEM(expected, r), we[k]) < 0)
                goto fail;
            int done = 0;
            if (fabs(f_new) <= tolerance) {
                done = rounds_alike(&c, nw, x[r]);
                if (done < 0)
                    goto fail;
            }
            int narrow = hi[r] - lo[r] < 1e-9;
            x[r] = nw;
            fx[r] = f_new;
            slope[r] = slopes[k];
            if (done || narrow) {
                px[n_finished] = nw;
                pwe[n_finished] = we[k];
                news[n_finished] = slopes[k]; /* news[k] is read; k >= n_finished */
                finished[n_finished++] = r;
            } else {
                still[n_still++] = r;
            }
        }
        if (n_finished) {
            /* solver._polish_small: px, pwe and news (the slopes) of the finished rows */
            Py_ssize_t *live = active; /* active is rebuilt from still below */
            double *lx = slopes;       /* the live rows' iterates, in live order */
            Py_ssize_t n_live = n_finished;
            double *root = x;          /* x of a finished row is not read again */
            for (Py_ssize_t k = 0; k < n_finished; k++) {
                live[k] = k;
                root[finished[k]] = px[k];
            }
            for (Py_ssize_t polish = 0; polish < polish_steps && n_live > 0; polish++) {
                if (polish) {
                    Py_ssize_t *rows_of_live = still + n_still; /* scratch after still */
                    for (Py_ssize_t k = 0; k < n_live; k++) {
                        rows_of_live[k] = finished[live[k]];
                        lx[k] = root[finished[live[k]]];
                    }
                    if (expected_rows(&c, rows_of_live, n_live, lx, pwe2, sl2) < 0)
                        goto fail;
                    for (Py_ssize_t k = 0; k < n_live; k++) {
                        pwe[live[k]] = pwe2[k];
                        news[live[k]] = sl2[k];
                    }
                }
                Py_ssize_t moving = 0;
                for (Py_ssize_t k = 0; k < n_live; k++) {
                    Py_ssize_t f = live[k], r = finished[f];
                    double sl = news[f];
                    double change = sl != 0 ? (w[r] - pwe[f]) / sl : NAN;
                    if (isfinite(change) && fabs(change) <= polish_reach) {
                        root[r] = root[r] + change;
                        live[moving++] = f;
                    }
                }
                n_live = moving;
            }
            for (Py_ssize_t k = 0; k < n_finished; k++) {
                Py_ssize_t r = finished[k];
                double settled;
                if (settle(half_up, places, root[r], &settled) < 0)
                    goto fail;
                PyObject *item = Py_BuildValue("(ndOO)", step, settled,
                                               PyList_GET_ITEM(traces, r),
                                               PyList_GET_ITEM(expected, r));
                if (item == NULL)
                    goto fail;
                PyList_SetItem(result, r, item); /* steals; drops the None */
            }
        }
        for (Py_ssize_t k = 0; k < n_still; k++)
            active[k] = still[k];
        count = n_still;
    }
    Py_DECREF(traces);
    Py_DECREF(expected);
    release_rows(rows_fast, row_tuples);
    free(mem);
    free(ints);
    return result;
fail:
    Py_XDECREF(result);
    Py_XDECREF(traces);
    Py_XDECREF(expected);
    release_rows(rows_fast, row_tuples);
    free(mem);
    free(ints);
    return NULL;
}

static PyObject *settled(PyObject *self, PyObject *args)
{
    (void)self;
    double v, out;
    int places;
    PyObject *half_up;
    if (!PyArg_ParseTuple(args, "diO", &v, &places, &half_up))
        return NULL;
    if (settle(half_up, places, v, &out) < 0)
        return NULL;
    return PyFloat_FromDouble(out);
}

/* -- a group of unknowns that play each other (solver.solve's Newton method) -------------- */

/* f(x) of solver._System for a group without extreme rows: W - W_e per row, each W_e
 * summed as np.bincount sums (the fixed games in order, the linked games in order, the
 * two sums added). P comes from the ufunc the Python version calls. */
typedef struct {
    Py_ssize_t m, nf, nl, ne;
    const Py_ssize_t *fk, *lk, *lj; /* the rows of the fixed and the linked games */
    const double *fo;                /* the fixed games' opponents */
    const double *w;                 /* the points of each row */
    double *own_weight;              /* w - (linked games) / 2: the potential's slope */
    PyObject *logaddexp;             /* numpy.logaddexp (the logistic curve's integral) */
    /* rows with an extreme result (classic 4.7.2.1.2): value = mean of the opponents'
     * current values + sign * extreme; their linked games (ek, ej) and constant sum */
    const int *sign;                 /* 0: an equation W = W_e; +1 "high", -1 "low" */
    const Py_ssize_t *ek, *ej;
    const double *fixed_sum, *count; /* sum of the constant opponents; max(games, 1) */
    double extreme;
    int any_extreme;
    const Loop *solve; /* numpy.linalg's solve1: what np.linalg.solve(jac, -f) runs */
    const Loop *dot;   /* numpy's matmul: what np.dot and @ run for two vectors */
    Ctx c;
} Group;

/* a . b of two float64 vectors of length m as numpy's dot computes it (its matmul loop
 * for a 1 x m times m x 1 product: the BLAS ddot numpy calls) */
static double gufunc_dot(const Group *g, const double *a, const double *b, Py_ssize_t m)
{
    double out = 0.0;
    char *args[3] = {(char *)a, (char *)b, (char *)&out};
    Py_ssize_t dims[4] = {1, 1, m, 1};
    Py_ssize_t steps[9] = {0, 0, 0, 0, 8, 8, 0, 0, 0};
    fexcept_t flags;
    fegetexceptflag(&flags, FE_ALL_EXCEPT);
    g->dot->fn(args, dims, steps, g->dot->data);
    fesetexceptflag(&flags, FE_ALL_EXCEPT);
    return out;
}

/* x = a^-1 b (a row-major m x m) as np.linalg.solve computes it (numpy's solve1 loop:
 * LAPACK's gesv); 1 where numpy raises LinAlgError (the loop flags a singular matrix as
 * an invalid operation, which np.linalg.solve turns into the error), else 0 */
static int gufunc_solve(const Group *g, const double *a, const double *b, double *x,
                        Py_ssize_t m)
{
    char *args[3] = {(char *)a, (char *)b, (char *)x};
    Py_ssize_t dims[2] = {1, m};
    Py_ssize_t steps[7] = {0, 0, 0, m * 8, 8, 8, 8};
    fexcept_t flags;
    fegetexceptflag(&flags, FE_ALL_EXCEPT);
    feclearexcept(FE_ALL_EXCEPT);
    g->solve->fn(args, dims, steps, g->solve->data);
    int singular = fetestexcept(FE_INVALID) != 0;
    fesetexceptflag(&flags, FE_ALL_EXCEPT);
    return singular;
}

/* the differences x[k] - o of every fixed game, then x[k] - x[j] of every linked game */
static void differences(const Group *g, const double *x, double *d)
{
    for (Py_ssize_t i = 0; i < g->nf; i++)
        d[i] = x[g->fk[i]] - g->fo[i];
    for (Py_ssize_t i = 0; i < g->nl; i++)
        d[g->nf + i] = x[g->lk[i]] - x[g->lj[i]];
}

/* ufunc(values[0..n)) into out (Curve.p, Curve.density's exponential): -1 on error */
static int apply_into(const Ctx *c, PyObject *ufunc, const double *values, Py_ssize_t n,
                      double *out)
{
    if (n == 0)
        return 0;
    PyObject *bytes = PyByteArray_FromStringAndSize((const char *)values, n * 8);
    if (bytes == NULL)
        return -1;
    Py_buffer view = {0};
    PyObject *res = apply(c, ufunc, bytes, &view);
    Py_DECREF(bytes);
    if (res == NULL)
        return -1;
    memcpy(out, view.buf, n * 8);
    PyBuffer_Release(&view);
    Py_DECREF(res);
    return 0;
}

/* Curve.p of the differences d[0..n): ndtr(d / sigma) or expit(d * scale) */
static int curve_p(const Group *g, const double *d, Py_ssize_t n, double *scratch, double *out)
{
    for (Py_ssize_t i = 0; i < n; i++)
        scratch[i] = g->c.normal ? d[i] / g->c.sigma : d[i] * g->c.factor;
    return apply_into(&g->c, g->c.cdf, scratch, n, out);
}

/* Curve.density: exp(-0.5 z z) / (sigma sqrt(2 pi)), or scale p (1 - p) */
static int curve_density(const Group *g, const double *d, Py_ssize_t n, double *scratch,
                         double *out)
{
    if (g->c.normal) {
        for (Py_ssize_t i = 0; i < n; i++) {
            double z = d[i] / g->c.sigma;
            scratch[i] = -0.5 * z * z;
        }
        if (apply_into(&g->c, g->c.exp, scratch, n, out) < 0)
            return -1;
        for (Py_ssize_t i = 0; i < n; i++)
            out[i] = out[i] / g->c.norm;
        return 0;
    }
    if (curve_p(g, d, n, scratch, out) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++)
        out[i] = g->c.factor * out[i] * (1 - out[i]);
    return 0;
}

/* Curve.integral: d Phi(d / sigma) + sigma phi(d / sigma), or logaddexp(0, s d) / s */
static int curve_integral(const Group *g, const double *d, Py_ssize_t n, double *scratch,
                          double *out)
{
    if (n == 0)
        return 0;
    if (g->c.normal) {
        double *cdf = scratch + n;
        for (Py_ssize_t i = 0; i < n; i++)
            scratch[i] = d[i] / g->c.sigma;
        if (apply_into(&g->c, g->c.cdf, scratch, n, cdf) < 0)
            return -1;
        for (Py_ssize_t i = 0; i < n; i++)
            scratch[i] = -0.5 * scratch[i] * scratch[i];
        if (apply_into(&g->c, g->c.exp, scratch, n, out) < 0)
            return -1;
        double root = sqrt(2 * M_PI);
        for (Py_ssize_t i = 0; i < n; i++)
            out[i] = d[i] * cdf[i] + g->c.sigma * (out[i] / root);
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        scratch[i] = d[i] * g->c.factor;
    PyObject *bytes = PyByteArray_FromStringAndSize((const char *)scratch, n * 8);
    if (bytes == NULL)
        return -1;
    PyObject *arr = PyObject_CallOneArg(g->c.frombuffer, bytes);
    Py_DECREF(bytes);
    if (arr == NULL)
        return -1;
    PyObject *zero = PyFloat_FromDouble(0.0);
    PyObject *res = zero == NULL ? NULL
                                 : PyObject_CallFunctionObjArgs(g->logaddexp, zero, arr, NULL);
    Py_XDECREF(zero);
    Py_DECREF(arr);
    if (res == NULL)
        return -1;
    Py_buffer view = {0};
    int rc = PyObject_GetBuffer(res, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT);
    if (rc == 0 && (view.itemsize != 8 || view.len != n * 8 || view.format == NULL
                    || strcmp(view.format, "d") != 0)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "logaddexp must give one float64 per game");
        rc = -1;
    }
    if (rc == 0) {
        const double *v = (const double *)view.buf;
        for (Py_ssize_t i = 0; i < n; i++)
            out[i] = v[i] / g->c.factor;
        PyBuffer_Release(&view);
    }
    Py_DECREF(res);
    return rc;
}

/* _System.residual: f[k] = w[k] - W_e of row k, the correctly rounded sum of the P of its
 * fixed and linked games (exact_sum) */
static int residual(const Group *g, const double *x, double *work, double *f)
{
    Py_ssize_t n = g->nf + g->nl;
    double *d = work, *p = work + n, *scratch = work + 2 * n, *linked = work + 3 * n;
    differences(g, x, d);
    if (curve_p(g, d, n, scratch, p) < 0)
        return -1;
    for (Py_ssize_t k = 0; k < g->m; k++) { /* the row's games into scratch, then summed */
        Py_ssize_t count = 0;
        for (Py_ssize_t i = 0; i < g->nf; i++)
            if (g->fk[i] == k)
                scratch[count++] = p[i];
        for (Py_ssize_t i = 0; i < g->nl; i++)
            if (g->lk[i] == k)
                scratch[count++] = p[g->nf + i];
        double we;
        if (exact_sum(scratch, count, &we) < 0)
            return -1;
        f[k] = g->w[k] - we;
    }
    if (g->any_extreme) { /* mean of the opponents' values -+ the extreme difference */
        for (Py_ssize_t k = 0; k < g->m; k++)
            linked[k] = 0.0;
        for (Py_ssize_t i = 0; i < g->ne; i++)
            linked[g->ek[i]] += x[g->ej[i]];
        for (Py_ssize_t k = 0; k < g->m; k++)
            if (g->sign[k] != 0) {
                double mean = (g->fixed_sum[k] + linked[k]) / g->count[k];
                f[k] = (mean + g->sign[k] * g->extreme) - x[k];
            }
    }
    return 0;
}

/* _System.jacobian (row-major m x m): the linked densities at (k, j), minus every
 * density of row k on the diagonal */
static int jacobian(const Group *g, const double *x, double *work, double *jac)
{
    Py_ssize_t n = g->nf + g->nl, m = g->m;
    double *d = work, *dens = work + n, *scratch = work + 2 * n, *diag = work + 3 * n;
    double *linked = diag + m;
    differences(g, x, d);
    if (curve_density(g, d, n, scratch, dens) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < m * m; i++)
        jac[i] = 0.0;
    for (Py_ssize_t k = 0; k < m; k++)
        diag[k] = linked[k] = 0.0;
    for (Py_ssize_t i = 0; i < g->nf; i++)
        diag[g->fk[i]] += dens[i];
    for (Py_ssize_t i = 0; i < g->nl; i++) {
        linked[g->lk[i]] += dens[g->nf + i];
        jac[g->lk[i] * m + g->lj[i]] += dens[g->nf + i];
    }
    for (Py_ssize_t k = 0; k < m; k++)
        jac[k * m + k] -= diag[k] + linked[k];
    if (g->any_extreme) { /* an extreme row: 1/n per linked game, -1 on the diagonal */
        for (Py_ssize_t k = 0; k < m; k++)
            if (g->sign[k] != 0)
                for (Py_ssize_t j = 0; j < m; j++)
                    jac[k * m + j] = 0.0;
        for (Py_ssize_t i = 0; i < g->ne; i++)
            jac[g->ek[i] * m + g->ej[i]] += 1.0 / g->count[g->ek[i]];
        for (Py_ssize_t k = 0; k < m; k++)
            if (g->sign[k] != 0)
                jac[k * m + k] -= 1.0;
    }
    return 0;
}

/* _System.potential: own_weight . x - sum Psi(fixed differences) - sum Psi(linked) / 2 */
static int potential(const Group *g, const double *x, double *work, double *value)
{
    Py_ssize_t n = g->nf + g->nl;
    double *d = work, *psi = work + n, *scratch = work + 2 * n; /* scratch: 2 n */
    differences(g, x, d);
    double v = gufunc_dot(g, g->own_weight, x, g->m);
    if (curve_integral(g, d, g->nf, scratch, psi) < 0)
        return -1;
    v -= pairwise(psi, g->nf);
    if (curve_integral(g, d + g->nf, g->nl, scratch, psi) < 0)
        return -1;
    v -= 0.5 * pairwise(psi, g->nl);
    *value = v;
    return 0;
}

/* 1 if every |f| <= its limit (_System.holds: 1e-7 points for an extreme row) */
static int holds(const Group *g, const double *f, double tolerance)
{
    for (Py_ssize_t k = 0; k < g->m; k++)
        if (!(fabs(f[k]) <= (g->sign[k] != 0 ? 1e-7 : tolerance)))
            return 0;
    return 1;
}

/* _System.merit: sum ((f / scale)^2), 400 rating points for an extreme row, its games
 * for the others, summed as numpy sums (scratch: m doubles) */
static double merit(const Group *g, const double *f, double *scratch)
{
    for (Py_ssize_t k = 0; k < g->m; k++) {
        double r = f[k] / (g->sign[k] != 0 ? 400.0 : g->count[k]);
        scratch[k] = r * r;
    }
    return pairwise(scratch, g->m);
}

/* a tuple of Python ints as Py_ssize_t, each in [0, bound) */
static int index_items(PyObject *seq, Py_ssize_t *out, Py_ssize_t bound)
{
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t v = PyNumber_AsSsize_t(PyTuple_GET_ITEM(seq, i), PyExc_OverflowError);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (v < 0 || v >= bound) {
            PyErr_SetString(PyExc_IndexError, "a linked position outside the group");
            return -1;
        }
        out[i] = v;
    }
    return 0;
}

static const char newton_group_doc[] =
    "newton_group(fixed, linked, w, start, sign, extreme, potential, normal, sigma, factor,\n"
    "             norm, cdf, exp, logaddexp, solve, dot, frombuffer, rounds_alike, tolerance,\n"
    "             max_newton, max_step, polish_steps, polish_reach, float_half_up, places)\n"
    "--\n\n"
    "solver._newton, then solver._polished, for a group of rows: row k has the constant\n"
    "opponents fixed[k] (a tuple of floats), the positions linked[k] (a tuple of ints),\n"
    "w[k] points and sign[k] 0 (W = W_e), +1 or -1 (the extreme rule: the opponents' mean\n"
    "+- extreme). potential: the line search on the potential (no extreme row, every linked\n"
    "game in both rows), else on the squared residuals. (values settled to places\n"
    "decimals, steps, trace), or None where the Python method leaves Newton (a singular\n"
    "Jacobian, no progress, max_newton steps): the caller solves that group in Python.";

static PyObject *newton_group(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *fixed_seq, *linked_seq, *w_seq, *start_seq, *sign_seq, *half_up;
    Group g;
    double tolerance, max_step, polish_reach;
    Py_ssize_t max_newton, polish_steps;
    int places, use_potential;
    memset(&g, 0, sizeof g);
    PyObject *solve_capsule, *dot_capsule;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!dppdddOOOOOOOdndndOi", &PyTuple_Type, &fixed_seq,
                          &PyTuple_Type, &linked_seq, &PyTuple_Type, &w_seq, &PyTuple_Type,
                          &start_seq, &PyTuple_Type, &sign_seq, &g.extreme, &use_potential,
                          &g.c.normal, &g.c.sigma, &g.c.factor, &g.c.norm, &g.c.cdf, &g.c.exp,
                          &g.logaddexp, &solve_capsule, &dot_capsule, &g.c.frombuffer,
                          &g.c.slow_alike, &tolerance, &max_newton, &max_step, &polish_steps,
                          &polish_reach, &half_up, &places))
        return NULL;
    g.solve = (const Loop *)PyCapsule_GetPointer(solve_capsule, LOOP);
    g.dot = g.solve == NULL ? NULL : (const Loop *)PyCapsule_GetPointer(dot_capsule, LOOP);
    if (g.dot == NULL)
        return NULL;
    if (g.solve->nargs != 3 || g.dot->nargs != 3) {
        PyErr_SetString(PyExc_ValueError, "solve and dot need loops of two float64 operands");
        return NULL;
    }
    Py_ssize_t m = PyTuple_GET_SIZE(fixed_seq);
    if (m < 1 || PyTuple_GET_SIZE(linked_seq) != m || PyTuple_GET_SIZE(w_seq) != m
        || PyTuple_GET_SIZE(start_seq) != m || PyTuple_GET_SIZE(sign_seq) != m) {
        PyErr_SetString(PyExc_ValueError,
                        "fixed, linked, w, start and sign need one item per row");
        return NULL;
    }
    g.m = m;
    Py_ssize_t games_f = 0, games_l = 0;
    for (Py_ssize_t k = 0; k < m; k++) {
        PyObject *fk = PyTuple_GET_ITEM(fixed_seq, k), *lk = PyTuple_GET_ITEM(linked_seq, k);
        if (!PyTuple_Check(fk) || !PyTuple_Check(lk)) {
            PyErr_SetString(PyExc_TypeError, "each row's games must be tuples");
            return NULL;
        }
        games_f += PyTuple_GET_SIZE(fk);
        games_l += PyTuple_GET_SIZE(lk);
    }
    /* upper bounds: every game in the P sums (n) and every linked game an extreme row's */
    Py_ssize_t n = games_f + games_l;
    /* doubles: fo, then m each: w, own, x, f, cand, f_new, delta, fixed_sum, count,
     * scratch; jac (m^2); work (4 n + 2 m: residual, jacobian, potential) */
    size_t doubles = (size_t)games_f + 10 * (size_t)m + (size_t)m * m + 4 * (size_t)n
                     + 2 * (size_t)m + 8;
    double *mem = malloc(doubles * sizeof(double));
    Py_ssize_t *ints = malloc(((size_t)games_f + 4 * (size_t)games_l + 1) * sizeof(Py_ssize_t));
    int *sign = malloc((size_t)m * sizeof(int));
    PyObject *trace = NULL, *result = NULL;
    if (mem == NULL || ints == NULL || sign == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    double *fo = mem, *w = fo + games_f, *own = w + m, *x = own + m, *f = x + m;
    double *cand = f + m, *f_new = cand + m, *delta = f_new + m, *fixed_sum = delta + m;
    double *count = fixed_sum + m, *scratch = count + m, *jac = scratch + m;
    double *work = jac + m * m;
    Py_ssize_t *fk = ints, *lk = fk + games_f, *lj = lk + games_l, *ek = lj + games_l;
    Py_ssize_t *ej = ek + games_l;
    Py_ssize_t at_f = 0, at_l = 0, at_e = 0;
    for (Py_ssize_t k = 0; k < m; k++) {
        PyObject *row = PyTuple_GET_ITEM(fixed_seq, k), *links = PyTuple_GET_ITEM(linked_seq, k);
        long sk = PyLong_AsLong(PyTuple_GET_ITEM(sign_seq, k));
        if (sk == -1 && PyErr_Occurred())
            goto done;
        if (sk < -1 || sk > 1) {
            PyErr_SetString(PyExc_ValueError, "a sign is -1, 0 or 1");
            goto done;
        }
        sign[k] = (int)sk;
        g.any_extreme |= sk != 0;
        Py_ssize_t nfix = PyTuple_GET_SIZE(row), nlink = PyTuple_GET_SIZE(links);
        count[k] = (double)(nfix + nlink > 1 ? nfix + nlink : 1);
        fixed_sum[k] = 0.0;
        for (Py_ssize_t i = 0; i < nfix; i++) {
            double v = PyFloat_AsDouble(PyTuple_GET_ITEM(row, i));
            if (v == -1.0 && PyErr_Occurred())
                goto done;
            if (sk != 0) { /* the extreme rule's mean: Python's sum, in order */
                fixed_sum[k] += v;
            } else {
                fk[at_f] = k;
                fo[at_f++] = v;
            }
        }
        Py_ssize_t *into = sk != 0 ? ej + at_e : lj + at_l;
        if (index_items(links, into, m) < 0)
            goto done;
        for (Py_ssize_t i = 0; i < nlink; i++) {
            if (sk != 0)
                ek[at_e++] = k;
            else
                lk[at_l++] = k;
        }
        w[k] = sk != 0 ? 0.0 : PyFloat_AsDouble(PyTuple_GET_ITEM(w_seq, k));
        if (PyErr_Occurred())
            goto done;
        x[k] = PyFloat_AsDouble(PyTuple_GET_ITEM(start_seq, k));
        if (PyErr_Occurred())
            goto done;
        own[k] = w[k] - (double)(sk != 0 ? 0 : nlink) / 2;
    }
    g.nf = at_f, g.nl = at_l, g.ne = at_e;
    g.fk = fk, g.lk = lk, g.lj = lj, g.fo = fo, g.w = w, g.own_weight = own;
    g.sign = sign, g.ek = ek, g.ej = ej, g.fixed_sum = fixed_sum, g.count = count;
    trace = PyList_New(0);
    if (trace == NULL)
        goto done;
    PyObject *state = float_list(x, m);
    if (state == NULL || PyList_Append(trace, state) < 0) {
        Py_XDECREF(state);
        goto done;
    }
    Py_DECREF(state);
    if (residual(&g, x, work, f) < 0)
        goto done;
    int found = holds(&g, f, tolerance);
    for (Py_ssize_t step = 0; !found && step < max_newton; step++) {
        if (jacobian(&g, x, work, jac) < 0)
            goto done;
        for (Py_ssize_t k = 0; k < m; k++)
            scratch[k] = -f[k];
        if (gufunc_solve(&g, jac, scratch, delta, m))
            goto not_here; /* numpy would try lstsq: Python takes the group */
        double largest = 0.0;
        for (Py_ssize_t k = 0; k < m; k++) {
            if (!isfinite(delta[k]))
                goto not_here;
            if (fabs(delta[k]) > largest)
                largest = fabs(delta[k]);
        }
        if (largest > max_step)
            for (Py_ssize_t k = 0; k < m; k++)
                delta[k] *= max_step / largest;
        double t = 1.0, value, slope = 0.0;
        if (use_potential) { /* ascent on the concave potential G, grad G = f */
            if (potential(&g, x, work, &value) < 0)
                goto done;
            slope = gufunc_dot(&g, f, delta, m);
        } else {
            value = merit(&g, f, scratch);
            slope = -2.0 * merit(&g, f, scratch);
        }
        int accepted = 0;
        while (t > 1e-10) {
            for (Py_ssize_t k = 0; k < m; k++)
                cand[k] = x[k] + t * delta[k];
            if (residual(&g, cand, work, f_new) < 0)
                goto done;
            if (holds(&g, f_new, tolerance)) {
                accepted = 1;
                break;
            }
            if (use_potential) {
                double at;
                if (potential(&g, cand, work, &at) < 0)
                    goto done;
                if (at >= value + 1e-4 * t * slope) {
                    accepted = 1;
                    break;
                }
            } else if (merit(&g, f_new, scratch) <= value + 1e-4 * t * slope) {
                accepted = 1;
                break;
            }
            t /= 2;
        }
        if (!accepted)
            goto not_here;
        int stable = 1;
        for (Py_ssize_t k = 0; k < m && stable; k++) {
            int alike = rounds_alike(&g.c, x[k], cand[k]);
            if (alike < 0)
                goto done;
            stable = alike;
        }
        memcpy(x, cand, m * sizeof(double));
        memcpy(f, f_new, m * sizeof(double));
        state = float_list(x, m);
        if (state == NULL || PyList_Append(trace, state) < 0) {
            Py_XDECREF(state);
            goto done;
        }
        Py_DECREF(state);
        found = holds(&g, f, tolerance) && stable;
    }
    if (!found)
        goto not_here;
    for (Py_ssize_t polish = 0; polish < polish_steps; polish++) { /* solver._polished */
        if (jacobian(&g, x, work, jac) < 0 || residual(&g, x, work, f) < 0)
            goto done;
        for (Py_ssize_t k = 0; k < m; k++)
            scratch[k] = -f[k];
        if (gufunc_solve(&g, jac, scratch, delta, m))
            break;
        int near = 1;
        for (Py_ssize_t k = 0; k < m; k++)
            if (!(isfinite(delta[k]) && fabs(delta[k]) <= polish_reach))
                near = 0;
        if (!near)
            break;
        for (Py_ssize_t k = 0; k < m; k++)
            x[k] = x[k] + delta[k];
    }
    for (Py_ssize_t k = 0; k < m; k++)
        if (settle(half_up, places, x[k], &x[k]) < 0)
            goto done;
    PyObject *values = float_list(x, m);
    if (values == NULL)
        goto done;
    result = Py_BuildValue("(NnO)", values, PyList_GET_SIZE(trace) - 1, trace);
    goto done;
not_here:
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(trace);
    free(mem);
    free(ints);
    free(sign);
    return result;
}

static PyObject *scalar_values(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *capsule;
    Py_buffer values;
    if (!PyArg_ParseTuple(args, "Oy*", &capsule, &values))
        return NULL;
    if (!PyCapsule_CheckExact(capsule) || values.len % 8 != 0) {
        PyErr_SetString(PyExc_ValueError, "a capsule and whole float64s are needed");
        PyBuffer_Release(&values);
        return NULL;
    }
    Py_ssize_t n = values.len / 8;
    PyObject *out = PyBytes_FromStringAndSize(NULL, values.len);
    double *src = malloc(values.len > 0 ? values.len : 1);
    if (out != NULL && src != NULL) {
        memcpy(src, values.buf, values.len); /* aligned */
        if (capsule_values(capsule, src, (double *)PyBytes_AS_STRING(out), n) < 0)
            Py_CLEAR(out);
    } else if (src == NULL) {
        Py_CLEAR(out);
        PyErr_NoMemory();
    }
    free(src);
    PyBuffer_Release(&values);
    return out;
}

/* numpy's PyUFuncObject as its C-API documents it, up to the fields read here */
typedef struct {
    PyObject_HEAD
    int nin, nout, nargs;
    int identity;
    LoopFn *functions;
    void *const *data;
    int ntypes;
    int reserved1;
    const char *name;
    const char *types;
} UfuncHead;

enum { NPY_DOUBLE_NUM = 12 }; /* numpy's type number of float64 */

static void free_loop(PyObject *capsule)
{
    PyMem_Free(PyCapsule_GetPointer(capsule, LOOP));
}

static PyObject *double_loop(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *ufunc, *ufunc_type;
    if (!PyArg_ParseTuple(args, "OO!", &ufunc, &PyType_Type, &ufunc_type))
        return NULL;
    if (!PyObject_TypeCheck(ufunc, (PyTypeObject *)ufunc_type)) {
        PyErr_SetString(PyExc_ValueError, "not a numpy ufunc");
        return NULL;
    }
    const UfuncHead *u = (const UfuncHead *)ufunc;
    int nargs = u->nargs;
    if (u->nout != 1 || (nargs != 2 && nargs != 3) || u->nin + u->nout != nargs
        || u->ntypes <= 0 || u->ntypes > 256 || u->functions == NULL || u->types == NULL) {
        PyErr_SetString(PyExc_ValueError, "not a ufunc of one or two operands and one result");
        return NULL;
    }
    for (int k = 0; k < u->ntypes; k++) { /* numpy takes the first loop that fits */
        int all_double = u->functions[k] != NULL;
        for (int a = 0; a < nargs; a++)
            all_double &= u->types[nargs * k + a] == NPY_DOUBLE_NUM;
        if (all_double) {
            Loop *loop = PyMem_Malloc(sizeof(Loop));
            if (loop == NULL)
                return PyErr_NoMemory();
            loop->fn = u->functions[k];
            loop->data = u->data == NULL ? NULL : u->data[k];
            loop->nargs = nargs;
            PyObject *capsule = PyCapsule_New(loop, LOOP, free_loop);
            if (capsule == NULL)
                PyMem_Free(loop);
            return capsule;
        }
    }
    PyErr_SetString(PyExc_ValueError, "the ufunc has no float64 loop");
    return NULL;
}

static PyObject *solve_and_dot(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *solve_capsule, *dot_capsule;
    Py_buffer a, b;
    if (!PyArg_ParseTuple(args, "OOy*y*", &solve_capsule, &dot_capsule, &a, &b))
        return NULL;
    Group g;
    memset(&g, 0, sizeof g);
    PyObject *result = NULL;
    double *mem = NULL;
    Py_ssize_t m = b.len / 8;
    g.solve = (const Loop *)PyCapsule_GetPointer(solve_capsule, LOOP);
    g.dot = g.solve == NULL ? NULL : (const Loop *)PyCapsule_GetPointer(dot_capsule, LOOP);
    if (g.dot == NULL)
        goto done;
    if (g.solve->nargs != 3 || g.dot->nargs != 3 || m < 1 || b.len % 8 != 0
        || a.len != m * m * 8) {
        PyErr_SetString(PyExc_ValueError, "an m x m matrix, m values and two loops are needed");
        goto done;
    }
    mem = malloc((size_t)(m * m + 2 * m) * sizeof(double));
    if (mem == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(mem, a.buf, a.len);
    memcpy(mem + m * m, b.buf, b.len);
    double *x = mem + m * m + m;
    if (gufunc_solve(&g, mem, mem + m * m, x, m)) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    result = Py_BuildValue("(y#d)", (const char *)x, (Py_ssize_t)(m * 8),
                           gufunc_dot(&g, mem + m * m, x, m));
done:
    free(mem);
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    return result;
}

static PyMethodDef methods[] = {
    {"solve_and_dot", solve_and_dot, METH_VARARGS,
     "solve_and_dot(solve, dot, a, b) -> (x, b . x) with x = a^-1 b (a: m x m float64s\n"
     "row by row, b: m float64s; x as bytes) through the loops newton_group calls, or None\n"
     "where numpy's solve would raise LinAlgError."},
    {"scalar_values", scalar_values, METH_VARARGS,
     "scalar_values(capsule, data) -> the capsule's C function (a double of a double, as\n"
     "scipy.special.cython_special exports it, or a loop of double_loop) applied to each\n"
     "float64 of data, as bytes."},
    {"double_loop", double_loop, METH_VARARGS,
     "double_loop(ufunc, numpy.ufunc) -> a capsule of the ufunc's float64 loop (the one\n"
     "numpy runs for a float64 array), for apply and scalar_values; ValueError if the\n"
     "ufunc has none."},
    {"solve_small", solve_small, METH_VARARGS, solve_small_doc},
    {"newton_group", newton_group, METH_VARARGS, newton_group_doc},
    {"settled", settled, METH_VARARGS,
     "settled(value, places, float_half_up) -> rounding.float_half_up(value, places), as\n"
     "solve_small settles its roots (the tests compare the two)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastsolve",
    "The performances R_h of a tournament, compiled (ratingdb/rules/_fastsolve.c).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fastsolve(void) { return PyModule_Create(&module); }
