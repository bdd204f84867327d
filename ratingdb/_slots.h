/* The slot offsets of a slots dataclass as the C extensions that read or write slots
 * directly take them (ratingdb/_records.c, ratingdb/db/_fasttext.c; ratingdb/records.py's
 * layout finds them from the class's member descriptors). One check for both: a bad offset
 * would read or write outside the object. */
#ifndef RATINGDB_SLOTS_H
#define RATINGDB_SLOTS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* the offsets of the tuple `offsets` into `at` (at most `most`), each inside an object of
 * `type`: their number, or -1 with ValueError (its message starting with `what`) */
static Py_ssize_t read_offsets(PyTypeObject *type, PyObject *offsets, Py_ssize_t *at,
                               Py_ssize_t most, const char *what) {
    Py_ssize_t n = PyTuple_GET_SIZE(offsets);
    if (n > most) {
        PyErr_Format(PyExc_ValueError, "%s: at most %zd fields", what, most);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        at[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(offsets, i));
        if (at[i] == -1 && PyErr_Occurred())
            return -1;
        if (at[i] < (Py_ssize_t)sizeof(PyObject) ||
            at[i] > type->tp_basicsize - (Py_ssize_t)sizeof(PyObject *)) {
            PyErr_Format(PyExc_ValueError, "%s: an offset outside the object", what);
            return -1;
        }
    }
    return n;
}

#endif
