/* The DWZ core's passes over the players in C.
 *
 * WO 2026 Anhang 2.1 and the classic Anhang 2.1 allow the hand calculation with the
 * printed tables: P(D) in thousandths (hundredths) read for an integer D, D(p) read for p
 * rounded half-up; W_e, W - W_e, K (E) and R_n are then exact integers or ratios of them
 * (ratingdb/rules/dwz/arithmetic.py, TableArithmetic). In float precision the classic
 * versions (dwz-2014, dwz-2016: most of a replayed history) take P from the normal
 * distribution and R_n from the exact binary value of W - W_e. The functions compute what
 * the Python evaluation computes there, value for value:
 *
 * - rated_games: ratingdb.rules.dwz.groups.rated_games, the rated games of a tournament;
 * - table_alone: ratingdb.rules.dwz.iteration._finish_alone, the iteration of one player
 *   against constant opponents (a performance R_h, a classic Teiliteration), with its
 *   states, W_e and corrections;
 * - table_performances: the R_h of many players at once (WO 2026 3.6 / Anhang 1.1.4 with
 *   the fictitious draw of 3.6.2; classic 4.8 with the extreme rule of 4.7.2.1.2), each
 *   from its opponents' ratings as the caller sees them, the start value computed here;
 * - table_established: the established players' pass (WO 2026 3.5, classic 4.9): W_e
 *   and the P(D) of every game, K (2026 Anhang 1.3) or E (classic 4.9.2), R_n (WO 3.5.2,
 *   classic 4.9.1), the classic R_p (4.7.6) and the rounded mean of the opponents;
 * - float_established: the same pass of the classic versions in float precision, P from
 *   the very function the Python version calls (scipy's ndtr, or its C function), W_e
 *   its correctly rounded sum (math.fsum, called on the games' P).
 *
 * Every product and sum is checked (__builtin_*_overflow); a row whose numbers leave 64
 * bits, or anything unusual in its input, is answered None and the caller computes that
 * row in Python, so a value is either the Python version's or not given at all
 * (tests/test_fast_dwz.py compares them). WO 2014's braking supplement (an exponential to
 * 40 digits) stays Python's: where it applies, E comes from the Python function the
 * classic coefficient tuple ends with (without one, the row is answered None).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <math.h>
#include <string.h>

#define MUL(a, b, r) __builtin_mul_overflow((a), (b), (r))
#define ADD(a, b, r) __builtin_add_overflow((a), (b), (r))

/* div_half_up of ratingdb/rules/rounding.py (den > 0): halves away from zero */
static inline long long div_half_up_ll(long long num, long long den)
{
    if (num >= 0)
        return (2 * num + den) / (2 * den);
    return -((-2 * num + den) / (2 * den));
}

/* div_half_up with its products checked: 0 where 2 num + den or 2 den would leave 64 bits */
static inline int half_up(long long num, long long den, long long *out)
{
    long long twice, twice_den, top;
    if (den <= 0 || MUL(num, 2, &twice) || twice == LLONG_MIN || MUL(den, 2, &twice_den) ||
        ADD(twice >= 0 ? twice : -twice, den, &top))
        return 0;
    *out = div_half_up_ll(num, den);
    return 1;
}

/* x^e with its products checked */
static inline int power(long long x, long long e, long long *out)
{
    long long r = 1;
    for (long long k = 0; k < e; k++)
        if (MUL(r, x, &r))
            return 0;
    *out = r;
    return 1;
}

/* The classic E of 4.9.2 and what R_n and R_p need (change_factor, rating_floor) */
typedef struct {
    long long exponent, escale, j[3], emin, emax, eindex, change, floor;
} ClassicE;

/* E = E0 fB rounded half-up with E0 = (R_o / escale)^exponent + J and fB = fn / fd (1
 * but for WO 2014's youth with W >= W_e), e_min <= E <= min(e_max, e_index_factor
 * max(index, 1)) (coefficient.development_coefficient without SBr); age 0 youth, 1 junior,
 * 2 adult */
static inline int classic_e(const ClassicE *c, long long rating, long long index, int age,
                            long long fn, long long fd, long long *e)
{
    long long own, scale, offset, top, cap, value;
    if (c->exponent < 0 || c->exponent > 63 || !power(rating, c->exponent, &own) ||
        !power(c->escale, c->exponent, &scale) || MUL(c->j[age], scale, &offset) ||
        ADD(own, offset, &top) || MUL(c->eindex, index < 1 ? 1 : index, &cap) ||
        MUL(top, fn, &top) || MUL(scale, fd, &scale) || !half_up(top, scale, &value))
        return 0;
    cap = cap < c->emax ? cap : c->emax;
    value = value < cap ? value : cap;
    *e = value > c->emin ? value : c->emin;
    return 1;
}

static PyObject *long_list(const long long *v, Py_ssize_t n)
{
    PyObject *list = PyList_New(n);
    if (list == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyLong_FromLongLong(v[i]);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

#define FITS(x) ((x) > -(1LL << 40) && (x) < (1LL << 40))

/* An int object's value within +-2^40 into *out: 1; beyond that, or not an int: 0 (the
 * caller answers NotImplemented or None and Python computes it); an error: -1. */
static int fitting(PyObject *obj, long long *out)
{
    if (!PyLong_Check(obj))
        return 0;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow || !FITS(v))
        return 0;
    *out = v;
    return 1;
}

/* The printed tables: P(D) for D >= 0 (``size`` values, every larger D reads ``scale``)
 * and D(p) for p = 0 .. scale, and the iteration's rules. */
typedef struct {
    const long long *tab, *dtab;
    Py_ssize_t size;
    long long scale, half;
    Py_ssize_t max_steps;
    long long span;
    int highest;
} Table;

/* the step cap beyond which the iteration's memory is not taken (the rules' parameters
 * allow 10,000) */
#define MAX_STEPS (1 << 24)

/* every entry of a printed table within 0 .. top (P(D) in units) or -top .. top (D(p)):
 * its sums over a million games and its steps stay far inside 64 bits */
static int table_values(const long long *values, Py_ssize_t n, long long top)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (values[i] < (top == (1LL << 30) ? -top : 0) || values[i] > top)
            return 0;
    return 1;
}

/* P(D) of one game in units (TableArithmetic.expected, one term) */
static long long p_of(const Table *t, long long d)
{
    if (d >= 0)
        return d < t->size ? t->tab[d] : t->scale;
    return t->scale - (-d < t->size ? t->tab[-d] : t->scale);
}

/* the tables from two buffers; 0 (and the caller answers NotImplemented) where they are
 * no printed tables of the rules: a unit beyond 2^20 keeps every product below 2^63 */
static int table_from(Table *t, Py_buffer *better, Py_buffer *inverse, long long scale)
{
    t->tab = (const long long *)better->buf;
    t->dtab = (const long long *)inverse->buf;
    t->size = better->len / (Py_ssize_t)sizeof(long long);
    t->scale = scale;
    t->half = scale / 2;
    if (scale < 2 || scale > (1LL << 20) ||
        inverse->len / (Py_ssize_t)sizeof(long long) != scale + 1 || t->max_steps < 0 ||
        t->max_steps > MAX_STEPS)
        return 0;
    return table_values(t->tab, t->size, scale) && table_values(t->dtab, scale + 1, 1LL << 30);
}

/* The start value R_p = R_c + D(W/n) (TableArithmetic.start_value) of n opponents with
 * the sum ``total`` (n >= 1, 0 <= w2 <= 2n, |total| < 2^60) */
static long long start_of(const Table *t, long long total, Py_ssize_t n, long long w2)
{
    long long p = div_half_up_ll(t->half * w2, n);
    return div_half_up_ll(total, n) + t->dtab[p < 0 ? 0 : p > t->scale ? t->scale : p];
}

/* _finish_alone from ``start``: the iteration against opp[0 .. n) (values within 2^40,
 * 1 <= n < 2^20, 0 <= w2 <= 2n). ``mem`` holds 3 max_steps + 1 values: the states, W_e
 * and corrections. 1 and *end, *steps where it settles; 0 where _finish_alone returns
 * None (a cycle wider than the span, the step cap). */
static int iterate(const Table *t, const long long *opp, Py_ssize_t n, long long w2,
                   long long start, int has_extreme, long long extreme, long long *mem,
                   long long *end, Py_ssize_t *steps)
{
    long long *states = mem, *expected = mem + t->max_steps + 1;
    long long *corrections = expected + t->max_steps;
    long long own = start;
    Py_ssize_t count = 1; /* states held */
    states[0] = start;
    for (Py_ssize_t step = 1; step <= t->max_steps; step++) {
        long long we = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            we += p_of(t, own - opp[i]);
        long long value, corr;
        if (!has_extreme) {
            long long p = div_half_up_ll(t->half * n + t->half * w2 - we, n);
            corr = t->dtab[p < 0 ? 0 : p > t->scale ? t->scale : p];
            value = own + corr;
        } else {
            value = extreme;
            corr = value - own;
        }
        states[count] = value;
        expected[step - 1] = we;
        corrections[step - 1] = corr;
        count++;
        *end = value;
        int finished = value == own;
        if (!finished) {
            Py_ssize_t first = -1;
            for (Py_ssize_t k = 0; k < count - 1; k++)
                if (states[k] == value) {
                    first = k;
                    break;
                }
            if (first >= 0) { /* a cycle: states[first .. count - 2] */
                long long lo = states[first], hi = states[first], total = 0;
                for (Py_ssize_t k = first; k < count - 1; k++) {
                    lo = states[k] < lo ? states[k] : lo;
                    hi = states[k] > hi ? states[k] : hi;
                    total += states[k];
                }
                if (hi - lo > t->span)
                    return 0;
                *end = t->highest ? hi : div_half_up_ll(total, count - 1 - first);
                finished = 1;
            }
        }
        if (finished) {
            *steps = step;
            return 1;
        }
        own = value;
    }
    return 0; /* the step cap */
}

/* -- one player alone ------------------------------------------------------------------ */

static const char table_alone_doc[] =
    "table_alone(better, inverse, scale, fixed, w2, start, extreme, max_steps, cycle_span,\n"
    "            highest) -> (value, states, expected, corrections) | None\n"
    "\n"
    "ratingdb.rules.dwz.iteration._finish_alone from the start value, in C: the table\n"
    "iteration of one player against the constant ratings ``fixed`` (WO 2026 Anhang 1.1.2-\n"
    "1.1.4, classic 4.7.2.1.3, 4.8), integers throughout. ``better``/``inverse``: the\n"
    "printed tables P(D) for D >= 0 and D(p) as C-contiguous int64 buffers (numpy arrays);\n"
    "``extreme``: the fixed value of a 0 %/100 % result (classic 4.7.2.1.2) or None. None\n"
    "where the Python version returns None (a cycle wider than ``cycle_span``, the step\n"
    "cap) and NotImplemented where a value lies beyond +-2^40 (the caller then runs the\n"
    "Python version).";

static PyObject *table_alone(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer better, inverse;
    long long scale = 0, w2 = 0, start = 0, extreme = 0;
    PyObject *scale_obj, *w2_obj, *start_obj, *fixed_obj, *extreme_obj;
    Table t;
    if (!PyArg_ParseTuple(args, "y*y*OOOOOnLp", &better, &inverse, &scale_obj, &fixed_obj,
                          &w2_obj, &start_obj, &extreme_obj, &t.max_steps, &t.span,
                          &t.highest))
        return NULL;
    PyObject *result = NULL, *fixed = NULL;
    long long *opp = NULL, *mem = NULL;
    int has_extreme = extreme_obj != Py_None;
    int fits[4] = {1, 1, 1, 1};
    fits[0] = fitting(scale_obj, &scale);
    fits[1] = fits[0] < 0 ? -1 : fitting(w2_obj, &w2);
    fits[2] = fits[1] < 0 ? -1 : fitting(start_obj, &start);
    if (has_extreme)
        fits[3] = fits[2] < 0 ? -1 : fitting(extreme_obj, &extreme);
    if (fits[0] < 0 || fits[1] < 0 || fits[2] < 0 || fits[3] < 0)
        goto done;
    /* the printed tables have a unit of 100 or 1000: a scale beyond 2^20 (or a negative
     * score) is no table of the rules, and its products could leave 64 bits */
    if (!(fits[0] && fits[1] && fits[2] && fits[3]) ||
        !table_from(&t, &better, &inverse, scale) || w2 < 0) {
        result = Py_NewRef(Py_NotImplemented);
        goto done;
    }
    fixed = PySequence_Fast(fixed_obj, "fixed must be a sequence");
    if (fixed == NULL)
        goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fixed);
    if (n == 0 || n >= (1 << 20) || w2 > 2 * (long long)n) {
        result = Py_NewRef(Py_NotImplemented);
        goto done;
    }
    opp = PyMem_Malloc(sizeof(long long) * (size_t)n);
    mem = PyMem_Malloc(sizeof(long long) * (size_t)(3 * t.max_steps + 1));
    if (opp == NULL || mem == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fixed, i);
        int found = PyLong_CheckExact(item) ? fitting(item, &opp[i]) : 0;
        if (found < 0)
            goto done;
        if (!found) {
            result = Py_NewRef(Py_NotImplemented);
            goto done;
        }
    }
    long long end;
    Py_ssize_t steps;
    if (!iterate(&t, opp, n, w2, start, has_extreme, extreme, mem, &end, &steps)) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    const long long *expected = mem + t.max_steps + 1, *corrections = expected + t.max_steps;
    PyObject *s = long_list(mem, steps + 1), *e = long_list(expected, steps),
             *c = long_list(corrections, steps);
    if (s != NULL && e != NULL && c != NULL)
        result = Py_BuildValue("(LNNN)", end, s, e, c);
    else {
        Py_XDECREF(s);
        Py_XDECREF(e);
        Py_XDECREF(c);
    }
done:
    PyMem_Free(opp);
    PyMem_Free(mem);
    Py_XDECREF(fixed);
    PyBuffer_Release(&better);
    PyBuffer_Release(&inverse);
    return result;
}

/* -- the ratings each player's opponents are seen at -------------------------------------- */

/* ``seen_of``: per position of the tournament the rating a game against that player
 * counts with (an int within 2^40) or anything else (None: such a game makes its row
 * Python's). values[j] and usable[j]. */
typedef struct {
    Py_ssize_t m;
    long long *values;
    char *usable;
    PyObject *objects; /* the list (a fast sequence) */
} Seen;

static int seen_from(PyObject *seen_of, Seen *s)
{
    s->values = NULL;
    s->usable = NULL;
    s->objects = PySequence_Fast(seen_of, "seen_of must be a sequence");
    if (s->objects == NULL)
        return -1;
    s->m = PySequence_Fast_GET_SIZE(s->objects);
    s->values = PyMem_Malloc(sizeof(long long) * (size_t)(s->m + 1));
    s->usable = PyMem_Malloc((size_t)(s->m + 1));
    if (s->values == NULL || s->usable == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t j = 0; j < s->m; j++) {
        PyObject *item = PySequence_Fast_GET_ITEM(s->objects, j);
        int found = PyLong_CheckExact(item) ? fitting(item, &s->values[j]) : 0;
        if (found < 0)
            return -1;
        s->usable[j] = (char)found;
    }
    return 0;
}

static void seen_free(Seen *s)
{
    PyMem_Free(s->values);
    PyMem_Free(s->usable);
    Py_XDECREF(s->objects);
}

/* One row's counted games (a list of (opponent position, own half-points, game) tuples,
 * ratingdb.rules.dwz.groups.Adjacency): the opponents' ratings into opp (room for n + 1),
 * their sum and the half-points. 1: usable; 0: the row is Python's (an opponent without a
 * usable rating, points outside 0..2, no games, 2^20 games or more); -1: an error. */
static int gather(const Seen *s, PyObject *games, long long *opp, Py_ssize_t n,
                  long long *total, long long *w2)
{
    *total = 0;
    *w2 = 0;
    if (n == 0 || n >= (1 << 20))
        return 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *game = PyList_GET_ITEM(games, k);
        if (!PyTuple_CheckExact(game) || PyTuple_GET_SIZE(game) < 2)
            return 0;
        PyObject *j_obj = PyTuple_GET_ITEM(game, 0), *p_obj = PyTuple_GET_ITEM(game, 1);
        if (!PyLong_CheckExact(j_obj) || !PyLong_CheckExact(p_obj))
            return 0;
        Py_ssize_t j = PyLong_AsSsize_t(j_obj);
        long points = PyLong_AsLong(p_obj);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (j < 0 || j >= s->m || !s->usable[j] || points < 0 || points > 2)
            return 0;
        opp[k] = s->values[j];
        *total += opp[k]; /* n < 2^20 values within 2^40 */
        *w2 += points;
    }
    return 1;
}

/* the longest list of games among ``rows`` (each a list, else 0 is answered: the caller
 * gave no rows of games); -1 when a row is no list */
static Py_ssize_t longest(PyObject *rows, Py_ssize_t at)
{
    Py_ssize_t most = 0;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(rows); k++) {
        PyObject *row = PyList_GET_ITEM(rows, k);
        PyObject *games = at < 0 ? row : (PyTuple_Check(row) && PyTuple_GET_SIZE(row) > at
                                              ? PyTuple_GET_ITEM(row, at)
                                              : NULL);
        if (games == NULL || !PyList_Check(games)) {
            PyErr_SetString(PyExc_TypeError, "every row's games must be a list");
            return -1;
        }
        if (PyList_GET_SIZE(games) > most)
            most = PyList_GET_SIZE(games);
    }
    return most;
}

/* The rating each of a row's opponents is seen at (the objects of ``seen_of``), as a new
 * list; NULL with an error */
static PyObject *seen_list(const Seen *s, PyObject *games, Py_ssize_t n)
{
    PyObject *ratings = PyList_New(n);
    if (ratings == NULL)
        return NULL;
    for (Py_ssize_t g = 0; g < n; g++) {
        PyObject *j = PyTuple_GET_ITEM(PyList_GET_ITEM(games, g), 0);
        PyList_SET_ITEM(ratings, g,
                        Py_NewRef(PySequence_Fast_GET_ITEM(s->objects, PyLong_AsSsize_t(j))));
    }
    return ratings;
}

/* The P(D) of each game as points, as a new list; NULL with an error */
static PyObject *points_list(const double *points, Py_ssize_t n)
{
    PyObject *list = PyList_New(n);
    if (list == NULL)
        return NULL;
    for (Py_ssize_t g = 0; g < n; g++) {
        PyObject *value = PyFloat_FromDouble(points[g]);
        if (value == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, g, value);
    }
    return list;
}

/* -- the performances of many players ------------------------------------------------------ */

static const char table_performances_doc[] =
    "table_performances(better, inverse, scale, seen_of, rows, draw, extreme, max_steps,\n"
    "                   cycle_span, highest) -> list[int | None]\n"
    "\n"
    "The end value of the table iteration of each row (a list of counted games, (opponent\n"
    "position, half-points, game) tuples) against its opponents at ``seen_of[position]``:\n"
    "the value iterate_singles gives for the Iterant of those ratings from\n"
    "TableArithmetic.start_value. ``draw`` (WO 2026 3.6.2): at 100 % a fictitious draw\n"
    "against the rounded mean of the opponents is added first; ``extreme`` (classic\n"
    "4.7.2.1.2): the extreme difference, a 0 %/100 % result then takes R_c -/+ it, or None.\n"
    "None for a row the Python version must compute (it does not settle, or a number lies\n"
    "outside the range computed here).";

static PyObject *table_performances(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer better, inverse;
    long long scale;
    PyObject *seen_of, *rows, *extreme_obj;
    int draw;
    Table t;
    if (!PyArg_ParseTuple(args, "y*y*LOO!pOnLp", &better, &inverse, &scale, &seen_of,
                          &PyList_Type, &rows, &draw, &extreme_obj, &t.max_steps, &t.span,
                          &t.highest))
        return NULL;
    PyObject *result = NULL;
    long long *opp = NULL, *mem = NULL, extreme = 0;
    Seen s;
    int has_extreme = extreme_obj != Py_None;
    if (seen_from(seen_of, &s) < 0)
        goto done;
    Py_ssize_t most = longest(rows, -1);
    if (most < 0)
        goto done;
    Py_ssize_t count = PyList_GET_SIZE(rows);
    int usable = table_from(&t, &better, &inverse, scale);
    if (has_extreme) {
        int found = fitting(extreme_obj, &extreme);
        if (found < 0)
            goto done;
        usable = usable && found;
    }
    result = PyList_New(count);
    if (result == NULL)
        goto done;
    opp = PyMem_Malloc(sizeof(long long) * (size_t)(most + 2));
    mem = PyMem_Malloc(sizeof(long long) *
                       (size_t)(3 * (usable && t.max_steps > 0 ? t.max_steps : 0) + 1));
    if (opp == NULL || mem == NULL) {
        PyErr_NoMemory();
        Py_CLEAR(result);
        goto done;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *games = PyList_GET_ITEM(rows, k);
        Py_ssize_t n = PyList_GET_SIZE(games);
        long long total, w2, end;
        Py_ssize_t steps;
        PyObject *item = Py_None;
        if (usable && gather(&s, games, opp, n, &total, &w2) == 1) {
            if (draw && w2 == 2 * (long long)n) { /* 3.6.2: a draw against R_c */
                opp[n] = div_half_up_ll(total, n);
                total += opp[n];
                n++;
                w2++;
            }
            int fixed = has_extreme && (w2 == 0 || w2 == 2 * (long long)n);
            long long value = 0;
            if (fixed) /* TableArithmetic.extreme_value */
                value = div_half_up_ll(total, n) + (w2 != 0 ? extreme : -extreme);
            long long start = start_of(&t, total, n, w2);
            if ((!fixed || FITS(value)) &&
                iterate(&t, opp, n, w2, start, fixed, value, mem, &end, &steps)) {
                item = PyLong_FromLongLong(end);
                if (item == NULL) {
                    Py_CLEAR(result);
                    goto done;
                }
            }
        }
        if (item == Py_None)
            Py_INCREF(item);
        PyList_SET_ITEM(result, k, item);
    }
done:
    PyMem_Free(opp);
    PyMem_Free(mem);
    seen_free(&s);
    PyBuffer_Release(&better);
    PyBuffer_Release(&inverse);
    return result;
}

/* -- the established players ------------------------------------------------------------- */

/* The coefficient of a Rechenmodul: K of WO 2026 Anhang 1.3 (kind 0) or E of classic
 * 4.9.2 (kind 1), and what R_n needs. */
typedef struct {
    int kind;
    /* 2026: K_0 by row (young, adult, strong) and index column 1..11 */
    long long k0[3][11], young, adult, pivot, t, low, a1n, a1d, a2n, a2d, u, capn, capd;
    int change_first;
    long long floor;
    /* classic: E = (R_o / escale)^exponent + J, within e_min .. min(e_max, factor index);
     * WO 2014 (formula_2014): fB = R_o / acceleration within [amin_n / amin_d, 1] for a
     * youth with W >= W_e; SBr below ``braking`` with W < W_e: E from ``braking_e``
     * (Python's development_coefficient, its exponential to 40 digits; borrowed from the
     * coefficient tuple), or the row is Python's without it */
    ClassicE e;
    int formula_2014;
    long long braking, acceleration, amin_n, amin_d;
    PyObject *braking_e;
} Coef;

static int coef_from(PyObject *tuple, Coef *c)
{
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) < 1)
        goto wrong;
    Py_ssize_t size = PyTuple_GET_SIZE(tuple);
    long long v[48];
    if (size > 48)
        goto wrong;
    c->braking_e = NULL;
    if (size > 1 && PyCallable_Check(PyTuple_GET_ITEM(tuple, size - 1)))
        c->braking_e = PyTuple_GET_ITEM(tuple, --size); /* the classic E under SBr */
    for (Py_ssize_t k = 0; k < size; k++) {
        int found = fitting(PyTuple_GET_ITEM(tuple, k), &v[k]);
        if (found < 0)
            return -1;
        if (!found)
            goto wrong;
    }
    c->kind = (int)v[0];
    if (c->kind == 0 && size == 1 + 33 + 14 && c->braking_e == NULL) {
        for (int r = 0; r < 3; r++)
            for (int col = 0; col < 11; col++)
                c->k0[r][col] = v[1 + 11 * r + col];
        long long *p = v + 34;
        c->young = p[0], c->adult = p[1], c->pivot = p[2], c->t = p[3], c->low = p[4];
        c->a1n = p[5], c->a1d = p[6], c->a2n = p[7], c->a2d = p[8], c->u = p[9];
        c->capn = p[10], c->capd = p[11], c->change_first = p[12] != 0, c->floor = p[13];
        if (c->t > 0 && c->a1d > 0 && c->a2d > 0 && c->capd > 0 && c->low + c->u > 0)
            return 0;
    }
    else if (c->kind == 1 && size == 16) {
        long long *p = v + 1;
        ClassicE *e = &c->e;
        e->exponent = p[0], e->escale = p[1], e->j[0] = p[2], e->j[1] = p[3], e->j[2] = p[4];
        e->emin = p[5], e->emax = p[6], e->eindex = p[7], e->change = p[8], e->floor = p[9];
        c->formula_2014 = p[10] != 0, c->braking = p[11], c->acceleration = p[12];
        c->amin_n = p[13], c->amin_d = p[14];
        c->floor = e->floor;
        if (e->exponent >= 0 && e->escale > 0 && e->emin > 0 && c->acceleration > 0 &&
            c->amin_n > 0 && c->amin_d > 0)
            return 0;
    }
wrong:
    PyErr_SetString(PyExc_ValueError, "coef is no coefficient of table_established");
    return -1;
}

/* K of WO 2026 Anhang 1.3 as *kn / *kd (development.factor_ratio) and R_n of 3.5.2
 * (development.new_rating_exact) for W - W_e = num / unit */
static int rated_2026(const Coef *c, long long rating, long long index, int age, long long num,
                      long long unit, long long *kn, long long *kd, long long *rn)
{
    int row = age <= 1 ? (rating < c->young ? 0 : 2) : (rating < c->adult ? 1 : 2);
    long long column = index < 1 ? 0 : index > 11 ? 10 : index - 1;
    long long k0 = c->k0[row][column], top, den;
    if (num >= 0) { /* the bonus a */
        long long an = 0, ad = 1;
        if (age == 0) {
            if (rating < c->pivot)
                an = c->pivot - rating, ad = c->t;
        }
        else if (rating < c->low)
            an = age == 1 ? c->a1n : c->a2n, ad = age == 1 ? c->a1d : c->a2d;
        long long scaled;
        if (MUL(k0, ad, &scaled) || ADD(an, scaled, &top))
            return 0;
        den = ad;
    }
    else { /* the brake b */
        long long bn = 1, bd = 1;
        if (rating < c->low)
            bn = rating + c->u, bd = c->low + c->u;
        if (MUL(bn, k0, &top))
            return 0;
        den = bd;
    }
    long long tenths, left, right;
    if (MUL(top, 10, &top) || !half_up(top, den, &tenths) || MUL(tenths, c->capd, &left) ||
        MUL(c->capn, 10, &right))
        return 0;
    if (left > right)
        *kn = c->capn, *kd = c->capd;
    else
        *kn = tenths, *kd = 10;
    long long change, scale, value;
    if (MUL(num, *kn, &change) || MUL(unit, *kd, &scale))
        return 0;
    if (c->change_first) {
        long long rounded;
        if (!half_up(change, scale, &rounded) || ADD(rating, rounded, &value))
            return 0;
    }
    else {
        long long base, total;
        if (MUL(rating, scale, &base) || ADD(base, change, &total) ||
            !half_up(total, scale, &value))
            return 0;
    }
    *rn = value > c->floor ? value : c->floor;
    return 1;
}

/* rating + change num / (unit * divisor), rounded half-up (classic 4.9.1 with divisor
 * E + n, 4.7.6 with n) */
static int changed(long long rating, long long change, long long num, long long unit,
                   long long divisor, long long *out)
{
    long long den, base, moved, total;
    if (divisor <= 0 || MUL(unit, divisor, &den) || MUL(rating, den, &base) ||
        MUL(change, num, &moved) || ADD(base, moved, &total))
        return 0;
    return half_up(total, den, out);
}

/* E where WO 2014's braking supplement SBr applies: Python's (an exponential to 40
 * digits), from ``braking_e(rating, index, age, reached)``; 0 without it, or where it
 * fails or answers no positive integer (the row is then Python's, which fails there) */
static int braking_coefficient(const Coef *c, long long rating, long long index, int age,
                               int reached, long long *e)
{
    if (c->braking_e == NULL)
        return 0;
    PyObject *found = PyObject_CallFunction(c->braking_e, "LLiO", rating, index, age,
                                            reached ? Py_True : Py_False);
    long long value = found != NULL && PyLong_Check(found) ? PyLong_AsLongLong(found) : -1;
    Py_XDECREF(found);
    if (PyErr_Occurred())
        PyErr_Clear();
    if (value <= 0)
        return 0;
    *e = value;
    return 1;
}

/* E of classic 4.9.2 and WO 2014 (coefficient.development_coefficient); where WO 2014's
 * braking supplement SBr applies, :func:`braking_coefficient`'s */
static int coefficient_e(const Coef *c, long long rating, long long index, int age,
                         int reached, long long *e)
{
    long long fn = 1, fd = 1;
    if (c->formula_2014 && !reached && rating < c->braking)
        return braking_coefficient(c, rating, index, age, reached, e);
    if (c->formula_2014 && age == 0 && reached && c->amin_n < c->amin_d) {
        /* fB = min(max(R_o / pivot, acceleration_min), 1), acceleration_factor (a least
         * value of 1 or more makes it 1) */
        long long low, here;
        if (MUL(rating, c->amin_d, &here) || MUL(c->amin_n, c->acceleration, &low))
            return 0;
        if (here < low)
            fn = c->amin_n, fd = c->amin_d;
        else if (rating < c->acceleration)
            fn = rating, fd = c->acceleration;
    }
    return classic_e(&c->e, rating, index, age, fn, fd, e);
}

/* E, R_n of 4.9.1 (new_rating_exact) and R_p of 4.7.6 (success_value_exact) */
static int rated_classic(const Coef *c, long long rating, long long index, int age,
                         long long num, long long unit, Py_ssize_t n, long long *e,
                         long long *rn, long long *rp)
{
    if (!coefficient_e(c, rating, index, age, num >= 0, e) ||
        !changed(rating, c->e.change, num, unit, *e + n, rn) ||
        !changed(rating, c->e.change, num, unit, n, rp))
        return 0;
    *rn = *rn > c->e.floor ? *rn : c->e.floor;
    return 1;
}

static const char table_established_doc[] =
    "table_established(better, scale, coef, seen_of, rows) -> list[tuple | None]\n"
    "\n"
    "The established players' pass in table precision. Each row is (R_0, index, age, games)\n"
    "with age 0 youth, 1 junior, 2 adult and games the counted games ((opponent position,\n"
    "half-points, game) tuples, at least one), the opponents seen at ``seen_of[position]``.\n"
    "``coef``: (0, K_0 row by row (young, adult, strong; 11 columns each), k0_young_threshold,\n"
    "k0_adult_threshold, youth_bonus_pivot, t, low_rating_threshold, a1 and a2 and k_max as\n"
    "ratios, u, round_change_first, rating_floor) for WO 2026; (1, e_exponent,\n"
    "e_rating_scale, J youth, junior, adult, e_min, e_max, e_index_factor, change_factor,\n"
    "rating_floor, formula 2014 (0/1), braking threshold, acceleration pivot, acceleration\n"
    "minimum as a ratio[, E where the braking supplement applies: a callable (R_0, index,\n"
    "age, reached) -> E]) for the classic E. Each answer: (W_e in units, K or E as numerator and\n"
    "denominator, R_n, classic R_p or None, the opponents' rounded mean, the P(D) of each\n"
    "game as points, the opponents' ratings), or None for a row the Python version must\n"
    "compute.";

static PyObject *table_established(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer better;
    long long scale;
    PyObject *coef_obj, *seen_of, *rows;
    if (!PyArg_ParseTuple(args, "y*LOOO!", &better, &scale, &coef_obj, &seen_of, &PyList_Type,
                          &rows))
        return NULL;
    PyObject *result = NULL;
    long long *opp = NULL;
    double *points = NULL;
    Seen s = {0};
    Coef c = {0};
    Table t;
    if (coef_from(coef_obj, &c) < 0 || seen_from(seen_of, &s) < 0)
        goto done;
    Py_ssize_t most = longest(rows, 3);
    if (most < 0)
        goto done;
    t.tab = (const long long *)better.buf;
    t.size = better.len / (Py_ssize_t)sizeof(long long);
    t.scale = scale;
    t.half = scale / 2;
    int usable = scale >= 2 && scale <= (1LL << 20) && table_values(t.tab, t.size, scale);
    Py_ssize_t count = PyList_GET_SIZE(rows);
    result = PyList_New(count);
    opp = PyMem_Malloc(sizeof(long long) * (size_t)(most + 1));
    points = PyMem_Malloc(sizeof(double) * (size_t)(most + 1));
    if (result == NULL || opp == NULL || points == NULL) {
        if (result != NULL)
            PyErr_NoMemory();
        Py_CLEAR(result);
        goto done;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *row = PyList_GET_ITEM(rows, k), *item = NULL;
        PyObject *games = PyTuple_GET_ITEM(row, 3);
        Py_ssize_t n = PyList_GET_SIZE(games);
        long long rating = 0, index = 0, age = 0, total = 0, w2 = 0;
        int ok = usable && PyTuple_GET_SIZE(row) == 4;
        for (int f = 0; ok && f < 3; f++) {
            int found = fitting(PyTuple_GET_ITEM(row, f), f == 0 ? &rating : f == 1 ? &index : &age);
            if (found < 0) {
                Py_CLEAR(result);
                goto done;
            }
            ok = found;
        }
        ok = ok && age >= 0 && age <= 2;
        if (ok) {
            int got = gather(&s, games, opp, n, &total, &w2);
            if (got < 0) {
                Py_CLEAR(result);
                goto done;
            }
            ok = got;
        }
        if (ok) {
            long long we = 0;
            PyObject *probabilities, *ratings;
            for (Py_ssize_t g = 0; g < n; g++) {
                long long p = p_of(&t, rating - opp[g]);
                we += p;
                points[g] = (double)p / (double)scale;
            }
            probabilities = points_list(points, n);
            ratings = probabilities == NULL ? NULL : seen_list(&s, games, n);
            if (ratings == NULL) {
                Py_XDECREF(probabilities);
                Py_CLEAR(result);
                goto done;
            }
            long long num = t.half * w2 - we, kn, kd = 1, rn, rp = 0;
            int done_row = c.kind == 0
                               ? rated_2026(&c, rating, index, (int)age, num, scale, &kn, &kd, &rn)
                               : rated_classic(&c, rating, index, (int)age, num, scale, n, &kn,
                                               &rn, &rp);
            if (done_row) {
                PyObject *success = c.kind == 1 ? PyLong_FromLongLong(rp) : Py_NewRef(Py_None);
                if (success == NULL) {
                    Py_DECREF(probabilities);
                    Py_DECREF(ratings);
                }
                else /* "N" hands the three references over, also when it fails */
                    item = Py_BuildValue("(LLLLNLNN)", we, kn, kd, rn, success,
                                         div_half_up_ll(total, n), probabilities, ratings);
                if (item == NULL) {
                    Py_CLEAR(result);
                    goto done;
                }
            }
            else {
                Py_DECREF(probabilities);
                Py_DECREF(ratings);
            }
        }
        PyList_SET_ITEM(result, k, item != NULL ? item : Py_NewRef(Py_None));
    }
done:
    PyMem_Free(opp);
    PyMem_Free(points);
    seen_free(&s);
    PyBuffer_Release(&better);
    return result;
}

/* -- the established players in float precision (classic) ------------------------------- */

/* rating + change d / divisor rounded half-up, d taken with its exact binary value
 * (coefficient.new_rating_exact and success_value_exact with W - W_e = d.as_integer_ratio()):
 * d = m 2^-k, and for a total >= 0 (rating >= change, |d| <= divisor) the half-up rounding
 * is rating + floor((floor(change m / divisor) + 2^(k-1)) / 2^k). 0 where that does not
 * hold or 128-bit integers are missing (the row is Python's). */
static int float_change(long long rating, long long change, double d, long long divisor,
                        long long *out)
{
#ifdef __SIZEOF_INT128__
    if (divisor <= 0 || change < 0 || rating < change || !isfinite(d) ||
        fabs(d) > (double)divisor || rating >= (1LL << 40))
        return 0;
    int exp2;
    double f = frexp(d, &exp2);
    long long m = (long long)ldexp(f, 53); /* exact: |f| < 1 has 53 bits */
    int k = 53 - exp2;
    if (k < 1)
        return 0;
    __int128 scaled = (__int128)change * m, q = divisor;
    __int128 quot = scaled / q;
    if (scaled % q != 0 && scaled < 0)
        quot -= 1; /* floor */
    long long step = 0;
    if (k <= 120) {
        __int128 top = quot + ((__int128)1 << (k - 1)), unit = (__int128)1 << k;
        __int128 down = top / unit;
        if (top % unit != 0 && top < 0)
            down -= 1;
        step = (long long)down;
    } /* else |quot| < 2^(k-1): the floor is 0 */
    *out = rating + step;
    return 1;
#else
    (void)rating, (void)change, (void)d, (void)divisor, (void)out;
    return 0;
#endif
}

/* values[0..n) = cdf(values[0..n)): the ufunc called on a float64 array (numpy.frombuffer
 * of the values); -1 with a Python error */
static int cdf_values(PyObject *cdf, PyObject *frombuffer, double *values, Py_ssize_t n)
{
    if (n == 0)
        return 0;
    PyObject *bytes = PyByteArray_FromStringAndSize((const char *)values, n * 8);
    PyObject *array = bytes == NULL ? NULL : PyObject_CallOneArg(frombuffer, bytes);
    PyObject *out = array == NULL ? NULL : PyObject_CallOneArg(cdf, array);
    Py_XDECREF(bytes);
    Py_XDECREF(array);
    if (out == NULL)
        return -1;
    Py_buffer view;
    int result = -1;
    if (PyObject_GetBuffer(out, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) == 0) {
        if (view.itemsize == 8 && view.len == n * 8 && view.format != NULL &&
            strcmp(view.format, "d") == 0) {
            memcpy(values, view.buf, (size_t)n * 8);
            result = 0;
        }
        else
            PyErr_SetString(PyExc_TypeError, "P must give one float64 per game");
        PyBuffer_Release(&view);
    }
    Py_DECREF(out);
    return result;
}

/* math.fsum, the float precision's one sum (W_e: the correctly rounded sum of the games'
 * P, ratingdb/rules/dwz/arithmetic.py), looked up once */
static PyObject *exact_sum(void)
{
    static PyObject *fsum = NULL;
    if (fsum == NULL) {
        PyObject *math = PyImport_ImportModule("math");
        if (math == NULL)
            return NULL;
        fsum = PyObject_GetAttrString(math, "fsum");
        Py_DECREF(math);
    }
    return fsum;
}

static const char float_established_doc[] =
    "float_established(cdf, frombuffer, sigma, coef, seen_of, rows) -> list[tuple | None]\n"
    "\n"
    "The established players' pass of the classic versions in float precision with the\n"
    "normal distribution (classic 4.9, WO 2014): each row (R_0, index, age, games) as in\n"
    "table_established, P(D) = cdf((R_0 - opponent) / sigma) (scipy.special.ndtr), W_e\n"
    "their correctly rounded sum (math.fsum), E of 4.9.2 or WO 2014\n"
    "(where the braking supplement SBr applies: the E of ``coef``'s last item, a callable\n"
    "(R_0, index, age, reached) -> E, or None without it), R_n and R_p from the exact\n"
    "binary value of W - W_e. ``coef`` as table_established's classic one. Each answer:\n"
    "(W_e, E, 1, R_n,\n"
    "R_p, the opponents' rounded mean, the P(D) of each game, the opponents' ratings), or\n"
    "None for a row the Python version must compute.";

static PyObject *float_established(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cdf, *frombuffer, *coef_obj, *seen_of, *rows;
    double sigma;
    if (!PyArg_ParseTuple(args, "OOdOOO!", &cdf, &frombuffer, &sigma, &coef_obj, &seen_of,
                          &PyList_Type, &rows))
        return NULL;
    PyObject *result = NULL, **seen_lists = NULL;
    long long *opp = NULL, *info = NULL;
    double *p = NULL;
    Seen s = {0};
    Coef c = {0};
    Py_ssize_t count = 0;
    if (coef_from(coef_obj, &c) < 0 || seen_from(seen_of, &s) < 0)
        goto done;
    if (c.kind != 1) {
        PyErr_SetString(PyExc_ValueError, "float_established takes the classic coefficient");
        goto done;
    }
    if (longest(rows, 3) < 0)
        goto done;
    count = PyList_GET_SIZE(rows);
    Py_ssize_t games_in_all = 0;
    for (Py_ssize_t k = 0; k < count; k++)
        games_in_all += PyList_GET_SIZE(PyTuple_GET_ITEM(PyList_GET_ITEM(rows, k), 3));
    /* per row: usable, first game, games, half-points, sum, rating, index, age */
    info = PyMem_Malloc(sizeof(long long) * (size_t)(8 * count + 1));
    opp = PyMem_Malloc(sizeof(long long) * (size_t)(games_in_all + 1));
    p = PyMem_Malloc(sizeof(double) * (size_t)(games_in_all + 1));
    seen_lists = PyMem_Calloc((size_t)count + 1, sizeof(PyObject *));
    if (info == NULL || opp == NULL || p == NULL || seen_lists == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t used = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *row = PyList_GET_ITEM(rows, k), *games = PyTuple_GET_ITEM(row, 3);
        long long *r = info + 8 * k, total = 0, w2 = 0;
        Py_ssize_t n = PyList_GET_SIZE(games);
        int ok = PyTuple_GET_SIZE(row) == 4 && isfinite(sigma) && sigma > 0;
        for (int f = 0; ok && f < 3; f++) {
            int found = fitting(PyTuple_GET_ITEM(row, f), &r[5 + f]);
            if (found < 0)
                goto done;
            ok = found;
        }
        ok = ok && r[7] >= 0 && r[7] <= 2;
        if (ok) {
            int got = gather(&s, games, opp + used, n, &total, &w2);
            if (got < 0)
                goto done;
            ok = got;
        }
        r[0] = ok, r[1] = used, r[2] = n, r[3] = w2, r[4] = total;
        if (!ok)
            continue;
        /* the ratings seen, taken now: the P function below may run Python code, after
         * which nothing of rows, games or seen_of is read */
        seen_lists[k] = seen_list(&s, games, n);
        if (seen_lists[k] == NULL)
            goto done;
        /* the differences as numpy takes them: float64(R_0) - float64(opponent), / sigma */
        for (Py_ssize_t g = 0; g < n; g++)
            p[used + g] = ((double)r[5] - (double)opp[used + g]) / sigma;
        used += n;
    }
    if (cdf_values(cdf, frombuffer, p, used) < 0)
        goto done;
    result = PyList_New(count);
    if (result == NULL)
        goto done;
    for (Py_ssize_t k = 0; k < count; k++) {
        const long long *r = info + 8 * k;
        PyObject *item = NULL;
        if (r[0]) {
            Py_ssize_t first = (Py_ssize_t)r[1], n = (Py_ssize_t)r[2];
            long long rating = r[5], index = r[6], e, rn, rp;
            int age = (int)r[7];
            PyObject *probabilities = points_list(p + first, n), *fsum = exact_sum();
            PyObject *total = probabilities == NULL || fsum == NULL
                                  ? NULL
                                  : PyObject_CallOneArg(fsum, probabilities);
            double we = total == NULL ? -1.0 : PyFloat_AsDouble(total); /* math.fsum(games) */
            Py_XDECREF(total);
            if (total == NULL || (we == -1.0 && PyErr_Occurred())) {
                Py_XDECREF(probabilities);
                Py_CLEAR(result);
                goto done;
            }
            double d = (double)r[3] / 2.0 - we; /* FloatArithmetic.difference */
            if (!(coefficient_e(&c, rating, index, age, d >= 0, &e) &&
                  float_change(rating, c.e.change, d, e + n, &rn) &&
                  float_change(rating, c.e.change, d, n, &rp)))
                Py_CLEAR(probabilities); /* the row is Python's */
            if (probabilities != NULL) {
                PyObject *ratings = seen_lists[k];
                seen_lists[k] = NULL; /* handed over to the answer */
                rn = rn > c.floor ? rn : c.floor;
                item = Py_BuildValue("(dLiLLLNN)", we, e, 1, rn, rp,
                                     div_half_up_ll(r[4], n), probabilities, ratings);
                if (item == NULL) {
                    Py_CLEAR(result);
                    goto done;
                }
            }
        }
        PyList_SET_ITEM(result, k, item != NULL ? item : Py_NewRef(Py_None));
    }
done:
    if (seen_lists != NULL)
        for (Py_ssize_t k = 0; k < count; k++)
            Py_XDECREF(seen_lists[k]);
    PyMem_Free(seen_lists);
    PyMem_Free(info);
    PyMem_Free(opp);
    PyMem_Free(p);
    seen_free(&s);
    return result;
}

/* -- the rated games of a tournament ------------------------------------------------------ */

static const char rated_games_doc[] =
    "rated_games(games, position, results, computers, players) -> (adjacency, struck)\n"
    "\n"
    "ratingdb.rules.dwz.groups.rated_games in C: per player position the rated games\n"
    "(opponent position, own half-points, game position) of ``games`` (objects with white,\n"
    "black and result), forfeits (``results[result]`` None, WO 2.2.5.2, 4.1.4) and the\n"
    "games of the positions in ``computers`` struck; ``struck``: the positions of each\n"
    "player's struck games, for the players who have any, None when a player plays\n"
    "himself. KeyError for an unknown player or result, as the Python version raises.";

static PyObject *rated_games(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *games, *position, *results, *computers;
    Py_ssize_t m;
    if (!PyArg_ParseTuple(args, "OO!O!On", &games, &PyDict_Type, &position, &PyDict_Type,
                          &results, &computers, &m))
        return NULL;
    static PyObject *white_name, *black_name, *result_name;
    if (white_name == NULL)
        white_name = PyUnicode_InternFromString("white");
    if (black_name == NULL)
        black_name = PyUnicode_InternFromString("black");
    if (result_name == NULL)
        result_name = PyUnicode_InternFromString("result");
    if (white_name == NULL || black_name == NULL || result_name == NULL)
        return NULL;
    PyObject *seq = PySequence_Fast(games, "games must be a sequence");
    if (seq == NULL)
        return NULL;
    PyObject *adjacency = PyList_New(m), *struck = PyDict_New(), *answer = NULL;
    int any_computer = PyObject_IsTrue(computers), self_play = 0;
    if (adjacency == NULL || struck == NULL || any_computer < 0)
        goto done;
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *own = PyList_New(0);
        if (own == NULL)
            goto done;
        PyList_SET_ITEM(adjacency, i, own);
    }
    for (Py_ssize_t g = 0; g < PySequence_Fast_GET_SIZE(seq); g++) {
        PyObject *game = PySequence_Fast_GET_ITEM(seq, g);
        PyObject *names[3] = {result_name, white_name, black_name}, *values[3] = {0};
        Py_ssize_t at[2] = {0, 0};
        /* the attributes first (they may run Python code), then the look-ups, whose
         * borrowed answers are used before anything else runs */
        PyObject *points = NULL, *objects[2] = {NULL, NULL};
        int failed = 0;
        Py_INCREF(game); /* held while its attributes run */
        for (int f = 0; f < 3 && !failed; f++) {
            values[f] = PyObject_GetAttr(game, names[f]);
            failed = values[f] == NULL;
        }
        Py_DECREF(game);
        for (int f = 0; f < 3 && !failed; f++) {
            PyObject *found = f == 0 ? PyDict_GetItemWithError(results, values[f])
                                     : PyDict_GetItemWithError(position, values[f]);
            if (found == NULL) {
                if (!PyErr_Occurred())
                    PyErr_SetObject(PyExc_KeyError, values[f]);
                failed = 1;
            }
            else if (f == 0)
                points = found;
            else {
                objects[f - 1] = found;
                at[f - 1] = PyLong_AsSsize_t(found);
                if (at[f - 1] == -1 && PyErr_Occurred())
                    failed = 1;
                else if (at[f - 1] < 0 || at[f - 1] >= m) {
                    PyErr_SetString(PyExc_IndexError, "a position beyond the players");
                    failed = 1;
                }
            }
        }
        for (int f = 0; f < 3; f++)
            Py_XDECREF(values[f]);
        if (failed)
            goto done;
        Py_ssize_t white = at[0], black = at[1];
        self_play = self_play || white == black;
        int struck_off = points == Py_None;
        if (!struck_off && any_computer) {
            for (int side = 0; side < 2 && !struck_off; side++) {
                PyObject *key = PyLong_FromSsize_t(at[side]);
                int in = key == NULL ? -1 : PySequence_Contains(computers, key);
                Py_XDECREF(key);
                if (in < 0)
                    goto done;
                struck_off = in;
            }
        }
        if (struck_off) {
            for (int side = 0; side < (black != white ? 2 : 1); side++) {
                PyObject *player = objects[side], *index = PyLong_FromSsize_t(g);
                PyObject *held = PyDict_GetItemWithError(struck, player);
                int added = -1;
                if (index != NULL && held != NULL)
                    added = PyList_Append(held, index);
                else if (index != NULL && !PyErr_Occurred()) {
                    PyObject *fresh = PyList_New(1);
                    if (fresh != NULL) {
                        PyList_SET_ITEM(fresh, 0, Py_NewRef(index));
                        added = PyDict_SetItem(struck, player, fresh);
                        Py_DECREF(fresh);
                    }
                }
                Py_XDECREF(index);
                if (added < 0)
                    goto done;
            }
            continue;
        }
        if (!PyTuple_Check(points) || PyTuple_GET_SIZE(points) != 2) {
            PyErr_SetString(PyExc_TypeError, "a result's points must be a pair");
            goto done;
        }
        PyObject *index = PyLong_FromSsize_t(g);
        if (index == NULL)
            goto done;
        PyObject *for_white = PyTuple_Pack(3, objects[1], PyTuple_GET_ITEM(points, 0), index);
        PyObject *for_black = PyTuple_Pack(3, objects[0], PyTuple_GET_ITEM(points, 1), index);
        Py_DECREF(index);
        /* tuples of ints can be in no reference cycle: the collector need not scan them
         * (it would untrack them itself at its next pass, _PyTuple_MaybeUntrack) */
        if (for_white != NULL && PyLong_CheckExact(PyTuple_GET_ITEM(points, 0)))
            PyObject_GC_UnTrack(for_white);
        if (for_black != NULL && PyLong_CheckExact(PyTuple_GET_ITEM(points, 1)))
            PyObject_GC_UnTrack(for_black);
        int appended = for_white != NULL && for_black != NULL &&
                       PyList_Append(PyList_GET_ITEM(adjacency, white), for_white) == 0 &&
                       PyList_Append(PyList_GET_ITEM(adjacency, black), for_black) == 0;
        Py_XDECREF(for_white);
        Py_XDECREF(for_black);
        if (!appended)
            goto done;
    }
    answer = Py_BuildValue("(OO)", adjacency, self_play ? Py_None : struck);
done:
    Py_XDECREF(struck);
    Py_XDECREF(adjacency);
    Py_DECREF(seq);
    return answer;
}

static PyMethodDef methods[] = {
    {"table_alone", table_alone, METH_VARARGS, table_alone_doc},
    {"table_performances", table_performances, METH_VARARGS, table_performances_doc},
    {"table_established", table_established, METH_VARARGS, table_established_doc},
    {"rated_games", rated_games, METH_VARARGS, rated_games_doc},
    {"float_established", float_established, METH_VARARGS, float_established_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastdwz",
    "The DWZ core's passes over the players in C (ratingdb/rules/_fastdwz.c).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fastdwz(void) { return PyModule_Create(&module); }
