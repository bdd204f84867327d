/* The output columns of a snapshot row as COPY text, in C.
 *
 * output_text(o, cache, size) gives what ratingdb.db.snapshot_text.output_text gives for the
 * SnapshotOutput o, character for character, or None where it would have to guess: a
 * text column with a character COPY escapes or that is not ASCII, residual games created
 * (a JSON object), an expected_games value that is neither None nor a finite float, a
 * value of a type it does not know. The caller makes those lines in Python
 * (tests/test_snapshot_text.py compares the two on random outputs).
 *
 * Every value is formatted as the f-string of the Python version formats it: format(x, ""),
 * which is str(x) for an int (its decimal digits, written here) and repr(x) for a float
 * (Python's repr); a flag is "t" or "f" by its truth value; None is \N. Floats, those of
 * expected_games as json.dumps writes them (their repr): a decimal of at most 3 places (all
 * the rules give) from its thousandths (put_thousandths), any other looked up first in
 * `cache` (float -> text, the dict ratingdb/db/snapshot_json.py keeps for the same purpose;
 * cleared when it holds `size` entries, its FLOAT_CACHE_SIZE; zeros never go in: 0.0 and
 * -0.0 are equal keys with other texts).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <string.h>

#include "../_slots.h"

/* a growing ASCII buffer */
typedef struct {
    char *data;
    Py_ssize_t len, cap;
    char small[512];
} Buffer;

/* an empty buffer in its own small array */
static void buffer_start(Buffer *b) {
    b->data = b->small;
    b->len = 0;
    b->cap = (Py_ssize_t)sizeof(b->small);
}

/* its memory, if it grew out of the small array */
static void buffer_release(Buffer *b) {
    if (b->data != b->small)
        PyMem_Free(b->data);
}

static int grow(Buffer *b, Py_ssize_t extra) {
    Py_ssize_t need = b->len + extra;
    if (need <= b->cap)
        return 0;
    Py_ssize_t cap = b->cap * 2 > need ? b->cap * 2 : need;
    char *data;
    if (b->data == b->small) {
        data = PyMem_Malloc(cap);
        if (data != NULL)
            memcpy(data, b->small, b->len);
    } else {
        data = PyMem_Realloc(b->data, cap);
    }
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

static int put(Buffer *b, const char *s, Py_ssize_t n) {
    if (grow(b, n) < 0)
        return -1;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
}

/* 1: appended; 0: not plain ASCII (the caller answers None); -1: error */
static int put_ascii(Buffer *b, PyObject *text) {
    if (!PyUnicode_IS_ASCII(text))
        return 0;
    return put(b, (const char *)PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)) < 0 ? -1 : 1;
}

/* an int's decimal digits (str(int)) */
static int put_int(Buffer *b, long long v) {
    char digits[24];
    int n = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        digits[sizeof(digits) - 1 - n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u > 0);
    if (v < 0)
        digits[sizeof(digits) - 1 - n++] = '-';
    return put(b, digits + sizeof(digits) - n, n) < 0 ? -1 : 1;
}

/* repr of a float that is a decimal of at most 3 places (n thousandths, 0 < |v| < 1e9):
 * its digits, the trailing zeros of the fraction dropped but one ("13.0", "0.473",
 * "-2.5"). 1: written; 0: not such a float. Such a float is the double nearest to n/1000;
 * repr gives the shortest digits that read back as the same double, and no other decimal
 * of at most 3 places is that near (doubles below 1e9 lie less than 1e-6 apart), so those
 * are n's digits. The rules' values (k, scores, W_e, the P(D) of each game) are all such
 * floats: no dictionary, no repr. */
static int put_thousandths(Buffer *b, double v) {
    double a = fabs(v);
    if (!(a >= 0.001 && a < 1e9))
        return 0;
    long long n = llround(a * 1000.0);
    if ((double)n / 1000.0 != a)
        return 0;
    char text[32];
    int len = 0;
    if (v < 0)
        text[len++] = '-';
    long long whole = n / 1000, part = n % 1000;
    char digits[24];
    int k = 0;
    do {
        digits[k++] = (char)('0' + whole % 10);
        whole /= 10;
    } while (whole > 0);
    while (k > 0)
        text[len++] = digits[--k];
    text[len++] = '.';
    text[len++] = (char)('0' + part / 100);
    if (part % 100 != 0) {
        text[len++] = (char)('0' + part / 10 % 10);
        if (part % 10 != 0)
            text[len++] = (char)('0' + part % 10);
    }
    return put(b, text, len) < 0 ? -1 : 1;
}

/* a finite float's repr: a decimal of at most 3 places directly (put_thousandths), any
 * other looked up in `cache` first (zeros are never cached) */
static int put_float(Buffer *b, PyObject *x, PyObject *cache, Py_ssize_t size) {
    double v = PyFloat_AS_DOUBLE(x);
    int direct = put_thousandths(b, v);
    if (direct != 0)
        return direct;
    PyObject *text = v == 0.0 ? NULL : PyDict_GetItemWithError(cache, x);
    if (text != NULL) {
        Py_INCREF(text);
    } else {
        if (PyErr_Occurred())
            return -1;
        text = PyObject_Repr(x);
        if (text == NULL)
            return -1;
        if (v != 0.0) {
            if (PyDict_GET_SIZE(cache) >= size)
                PyDict_Clear(cache);
            if (PyDict_SetItem(cache, x, text) < 0) {
                Py_DECREF(text);
                return -1;
            }
        }
    }
    int done = put_ascii(b, text);
    Py_DECREF(text);
    return done;
}

/* an int column or \N; a bool or anything else is Python's turn */
static int put_plain_int(Buffer *b, PyObject *value) {
    if (value == Py_None)
        return put(b, "\\N", 2) < 0 ? -1 : 1;
    if (!PyLong_CheckExact(value))
        return 0;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow)
        return 0;
    if (v == -1 && PyErr_Occurred())
        return -1;
    return put_int(b, v);
}

/* a number column: \N or format(value, ""), which is str() of an int and repr() of a
 * float (an int beyond 64 bits, NaN, an infinity, a Decimal, a Fraction: Python's turn) */
static int put_number(Buffer *b, PyObject *value, PyObject *cache, Py_ssize_t size) {
    if (value == Py_None || PyLong_CheckExact(value))
        return put_plain_int(b, value);
    if (PyFloat_CheckExact(value) && isfinite(PyFloat_AS_DOUBLE(value)))
        return put_float(b, value, cache, size);
    return 0;
}

/* a text column: \N, or the text when COPY would escape nothing in it */
static int put_text(Buffer *b, PyObject *value) {
    if (value == Py_None)
        return put(b, "\\N", 2) < 0 ? -1 : 1;
    if (!PyUnicode_CheckExact(value) || !PyUnicode_IS_ASCII(value))
        return 0;
    const char *s = (const char *)PyUnicode_DATA(value);
    Py_ssize_t n = PyUnicode_GET_LENGTH(value);
    for (Py_ssize_t i = 0; i < n; i++)
        if (s[i] == '\\' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
            return 0;
    return put(b, s, n) < 0 ? -1 : 1;
}

/* a flag column: \N, t or f */
static int put_flag(Buffer *b, PyObject *value) {
    if (value == Py_None)
        return put(b, "\\N", 2) < 0 ? -1 : 1;
    int truth = PyObject_IsTrue(value);
    if (truth < 0)
        return -1;
    return put(b, truth ? "t" : "f", 1) < 0 ? -1 : 1;
}

/* expected_games: [] or the JSON list of None and finite floats */
static int put_floats(Buffer *b, PyObject *values, PyObject *cache, Py_ssize_t size) {
    if (!PyList_CheckExact(values))
        return 0;
    Py_ssize_t n = PyList_GET_SIZE(values);
    if (put(b, "[", 1) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyList_GET_ITEM(values, i);
        if (i > 0 && put(b, ",", 1) < 0)
            return -1;
        if (x == Py_None) {
            if (put(b, "null", 4) < 0)
                return -1;
            continue;
        }
        /* NaN, Infinity: as json.dumps writes them, in Python */
        if (!PyFloat_CheckExact(x) || !isfinite(PyFloat_AS_DOUBLE(x)))
            return 0;
        int done = put_float(b, x, cache, size);
        if (done <= 0)
            return done;
    }
    return put(b, "]", 1) < 0 ? -1 : 1;
}

/* PLAIN: a number column the Python version writes without a NULL (W and n) */
enum { TEXT, NUMBER, PLAIN, FLAG, RESIDUAL, FLOATS };

static const struct {
    const char *name;
    int kind;
} COLUMNS[] = {
    {"group", TEXT},          {"age_class", TEXT},
    {"rating_old", NUMBER},   {"index_old", NUMBER},
    {"k", NUMBER},            {"opponents_avg", NUMBER},
    {"score", PLAIN},         {"games", PLAIN},
    {"expected", NUMBER},     {"performance", NUMBER},
    {"exceptional", FLAG},    {"start_value", NUMBER},
    {"iteration_value", NUMBER}, {"rating_new", NUMBER},
    {"index_new", NUMBER},    {"stored", FLAG},
    {"new_residual_games", RESIDUAL}, {"expected_games", FLOATS},
};
#define NCOLUMNS ((int)(sizeof(COLUMNS) / sizeof(COLUMNS[0])))

static PyObject *NAMES[NCOLUMNS];

/* The offsets of the columns' slots in objects of LAYOUT_TYPE (SnapshotOutput, a slots
 * dataclass), given once by set_layout from ratingdb/records.py's layout (which checks
 * each is an object slot of the class): a value is read from its slot, not looked up by
 * name (the lookups took a third of a typical line's time). Objects of any other class,
 * and every object before set_layout or without it, are read by name. */
static PyTypeObject *LAYOUT_TYPE = NULL;
static Py_ssize_t OFFSETS[NCOLUMNS];

PyDoc_STRVAR(set_layout_doc,
             "set_layout(cls, offsets): read the columns of objects of `cls` at `offsets`, the\n"
             "offsets of its slots named by COLUMNS, in that order.");

static PyObject *set_layout(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *cls, *offsets;
    if (!PyArg_ParseTuple(args, "O!O!:set_layout", &PyType_Type, &cls, &PyTuple_Type, &offsets))
        return NULL;
    PyTypeObject *type = (PyTypeObject *)cls;
    if (PyTuple_GET_SIZE(offsets) != NCOLUMNS) {
        PyErr_SetString(PyExc_ValueError, "set_layout: one offset a column");
        return NULL;
    }
    Py_ssize_t found[NCOLUMNS];
    if (read_offsets(type, offsets, found, NCOLUMNS, "set_layout") < 0)
        return NULL;
    memcpy(OFFSETS, found, sizeof(OFFSETS));
    Py_INCREF(type);
    Py_XSETREF(LAYOUT_TYPE, type);
    Py_RETURN_NONE;
}

/* a new reference to column c's value of o (NULL with an error: unset, or not there) */
static PyObject *column(PyObject *o, int c) {
    if (Py_TYPE(o) == LAYOUT_TYPE) {
        PyObject *value = *(PyObject **)((char *)o + OFFSETS[c]);
        if (value != NULL) {
            Py_INCREF(value);
            return value;
        }
    }
    return PyObject_GetAttr(o, NAMES[c]); /* raises what an unset slot raises */
}

PyDoc_STRVAR(output_text_doc,
             "output_text(o, cache, size) -> str | None: the output columns of one snapshot as\n"
             "ratingdb.db.snapshot_text.output_text writes them, or None (Python's turn).");

static PyObject *output_text(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *o, *cache;
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "OO!n:output_text", &o, &PyDict_Type, &cache, &size))
        return NULL;
    Buffer b;
    buffer_start(&b);
    int done = 1;
    for (int c = 0; c < NCOLUMNS && done > 0; c++) {
        PyObject *value = column(o, c);
        if (value == NULL) {
            done = -1;
            break;
        }
        if (c > 0 && put(&b, "\t", 1) < 0) {
            Py_DECREF(value);
            done = -1;
            break;
        }
        switch (COLUMNS[c].kind) {
        case TEXT:
            done = put_text(&b, value);
            break;
        case NUMBER:
            done = put_number(&b, value, cache, size);
            break;
        case PLAIN:
            done = value == Py_None ? 0 : put_number(&b, value, cache, size);
            break;
        case FLAG:
            done = put_flag(&b, value);
            break;
        case RESIDUAL: /* only none created: written in C */
            done = PyList_CheckExact(value) && PyList_GET_SIZE(value) == 0
                       ? (put(&b, "[]", 2) < 0 ? -1 : 1)
                       : 0;
            break;
        default:
            done = put_floats(&b, value, cache, size);
        }
        Py_DECREF(value);
    }
    PyObject *line = NULL;
    if (done > 0 && put(&b, "\n", 1) == 0)
        line = PyUnicode_FromStringAndSize(b.data, b.len); /* ASCII: one byte a character */
    buffer_release(&b);
    if (line != NULL)
        return line;
    if (done < 0 || PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}


/* The identity and input columns of a snapshot (ratingdb.db.snapshot_text.INPUT_COLUMNS)
 * and its encoded output, as snapshot_line writes them: 1 appended, 0 Python's turn (a
 * value it would have to guess at: held residual games, an output not encoded yet, a
 * Rechenmodul not in modul_ids, a text to escape, a number that is not a plain int or
 * None), -1 an error. */
enum { S_TOURNAMENT, S_PARTICIPANT, S_PLAYER, S_INPUT, S_ENCODED, I_RATING, I_INDEX,
       I_SOURCE, I_MEMBER, I_BIRTH, I_RESIDUAL, I_MODUL, NATTRS };
static const char *ATTR_NAMES[NATTRS] = {
    "tournament_id", "participant_id", "player_id", "input", "encoded", "rating", "index",
    "rating_source", "member", "birth_year", "residual", "rechenmodul",
};
static PyObject *ATTRS[NATTRS];

static int put_snapshot(Buffer *b, PyObject *s, PyObject *modul_ids) {
    PyObject *v[NATTRS] = {NULL};
    int done = 1;
    for (int a = 0; a < I_RATING && done > 0; a++)
        if ((v[a] = PyObject_GetAttr(s, ATTRS[a])) == NULL)
            done = -1;
    for (int a = I_RATING; a < NATTRS && done > 0; a++)
        if ((v[a] = PyObject_GetAttr(v[S_INPUT], ATTRS[a])) == NULL)
            done = -1;
    Py_ssize_t start = b->len;
    PyObject *modul = NULL;
    if (done > 0) {
        modul = PyDict_GetItemWithError(modul_ids, v[I_MODUL]); /* borrowed */
        if (modul == NULL)
            done = PyErr_Occurred() ? -1 : 0; /* not there: Python raises the KeyError */
    }
    if (done > 0 && !(PyUnicode_CheckExact(v[S_ENCODED]) && PyUnicode_GET_LENGTH(v[S_ENCODED]) > 0))
        done = 0; /* the output not encoded: Python encodes it */
    if (done > 0 && !(PyTuple_CheckExact(v[I_RESIDUAL]) && PyTuple_GET_SIZE(v[I_RESIDUAL]) == 0))
        done = 0; /* residual games held: Python writes their JSON */
    PyObject *ints[] = {v[S_TOURNAMENT], v[S_PARTICIPANT], v[S_PLAYER], modul, v[I_RATING],
                        v[I_INDEX]};
    for (int k = 0; k < 6 && done > 0; k++) {
        if (k > 0 && put(b, "\t", 1) < 0)
            done = -1;
        else
            done = put_plain_int(b, ints[k]);
    }
    if (done > 0)
        done = put(b, "\t", 1) < 0 ? -1 : put_text(b, v[I_SOURCE]);
    if (done > 0)
        done = put(b, "\t", 1) < 0 ? -1 : put_flag(b, v[I_MEMBER]);
    if (done > 0)
        done = put(b, "\t", 1) < 0 ? -1 : put_plain_int(b, v[I_BIRTH]);
    if (done > 0)
        done = put(b, "\t[]\t", 4) < 0 ? -1 : put_ascii(b, v[S_ENCODED]);
    for (int a = 0; a < NATTRS; a++)
        Py_XDECREF(v[a]);
    if (done <= 0)
        b->len = start; /* nothing of a row left half-written */
    return done;
}

PyDoc_STRVAR(snapshot_lines_doc,
             "snapshot_lines(snapshots, modul_ids, line) -> str: the lines of\n"
             "ratingdb.db.snapshot_text.snapshot_line for a list of snapshots, one after the\n"
             "other; line(s) makes each line this leaves to Python.");

static PyObject *snapshot_lines(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *snapshots, *modul_ids, *line;
    if (!PyArg_ParseTuple(args, "O!O!O:snapshot_lines", &PyList_Type, &snapshots, &PyDict_Type,
                          &modul_ids, &line))
        return NULL;
    Buffer b;
    buffer_start(&b);
    int failed = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(snapshots) && !failed; i++) {
        PyObject *s = PyList_GET_ITEM(snapshots, i);
        Py_INCREF(s);
        int done = put_snapshot(&b, s, modul_ids);
        if (done == 0) { /* Python's line */
            PyObject *text = PyObject_CallOneArg(line, s);
            if (text == NULL || !PyUnicode_Check(text)) {
                if (text != NULL)
                    PyErr_SetString(PyExc_TypeError, "snapshot_lines: a line is not a str");
                failed = 1;
            } else {
                Py_ssize_t n;
                const char *utf8 = PyUnicode_AsUTF8AndSize(text, &n);
                failed = utf8 == NULL || put(&b, utf8, n) < 0;
            }
            Py_XDECREF(text);
        } else if (done < 0) {
            failed = 1;
        }
        Py_DECREF(s);
    }
    PyObject *out = failed ? NULL : PyUnicode_DecodeUTF8(b.data, b.len, NULL);
    buffer_release(&b);
    return out;
}

static PyMethodDef methods[] = {
    {"output_text", output_text, METH_VARARGS, output_text_doc},
    {"set_layout", set_layout, METH_VARARGS, set_layout_doc},
    {"snapshot_lines", snapshot_lines, METH_VARARGS, snapshot_lines_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fasttext",
    "A snapshot's output columns as COPY text, in C (ratingdb/db/_fasttext.c).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fasttext(void) {
    PyObject *names = PyTuple_New(NCOLUMNS);
    if (names == NULL)
        return NULL;
    for (int c = 0; c < NCOLUMNS; c++) {
        NAMES[c] = PyUnicode_InternFromString(COLUMNS[c].name);
        if (NAMES[c] == NULL) {
            Py_DECREF(names);
            return NULL;
        }
        Py_INCREF(NAMES[c]);
        PyTuple_SET_ITEM(names, c, NAMES[c]);
    }
    for (int a = 0; a < NATTRS; a++)
        if ((ATTRS[a] = PyUnicode_InternFromString(ATTR_NAMES[a])) == NULL) {
            Py_DECREF(names);
            return NULL;
        }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL || PyModule_AddObject(m, "COLUMNS", names) < 0) {
        Py_XDECREF(m);
        Py_DECREF(names);
        return NULL;
    }
    return m;
}
