/* Objects of a slots dataclass made from tuples of their field values, in C.
 *
 * A full replay makes millions of small objects of plain dataclasses whose __init__ does
 * nothing but store its arguments (ratingdb/rules/model.py: GameInput; ratingdb/rules/
 * snapshots.py: SnapshotOutput): the games read from the database, the games of every task
 * its worker process rebuilds, the outputs the worker sends back. Calling the generated
 * __init__ costs 144 ns a game and 245 ns an output; storing the values into the slots
 * directly 34 and 58 ns. ratingdb/records.py checks that a class is such a class
 * (a dataclass with slots, every field in __init__, no __post_init__, no __new__ of its
 * own) and that each field is a slot; here only the slots' offsets are taken
 * (layout), the objects made (build) and their values read back as tuples (values: what
 * crosses to the worker process and back). tests/test_records.py compares them with the
 * objects __init__ makes and the tuples attrgetter gives.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include "_slots.h"

PyDoc_STRVAR(layout_doc,
             "layout(cls, names) -> tuple[int, ...]: the offsets of the slots `names` of the\n"
             "class `cls` (TypeError where one is not a writable object slot of it).");

static PyObject *layout(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *cls, *names;
    if (!PyArg_ParseTuple(args, "O!O!:layout", &PyType_Type, &cls, &PyTuple_Type, &names))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    PyObject *offsets = PyTuple_New(n);
    if (offsets == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        PyObject *descr = PyObject_GetAttr(cls, name);
        if (descr == NULL) {
            Py_DECREF(offsets);
            return NULL;
        }
        int usable = Py_IS_TYPE(descr, &PyMemberDescr_Type) &&
                     PyType_IsSubtype((PyTypeObject *)cls, PyDescr_TYPE(descr));
        PyMemberDef *member = usable ? ((PyMemberDescrObject *)descr)->d_member : NULL;
        if (member == NULL || member->type != T_OBJECT_EX || (member->flags & READONLY)) {
            PyErr_Format(PyExc_TypeError, "%R is not a slot of %R", name, cls);
            Py_DECREF(descr);
            Py_DECREF(offsets);
            return NULL;
        }
        PyObject *offset = PyLong_FromSsize_t(member->offset);
        Py_DECREF(descr);
        if (offset == NULL) {
            Py_DECREF(offsets);
            return NULL;
        }
        PyTuple_SET_ITEM(offsets, i, offset);
    }
    return offsets;
}

/* The start of a pass over `sequence` with `type`'s slots at `offsets`: the offsets in
 * at[64] (their number in *n) and a new list as long as `sequence` (its items in *seq, a
 * new reference, until the caller drops it); NULL with an error (*seq NULL) */
static PyObject *begin_pass(PyTypeObject *type, PyObject *offsets, PyObject *sequence,
                            const char *what, const char *message, Py_ssize_t *at,
                            Py_ssize_t *n, PyObject **seq) {
    *seq = NULL;
    *n = read_offsets(type, offsets, at, 64, what);
    if (*n < 0)
        return NULL;
    *seq = PySequence_Fast(sequence, message);
    if (*seq == NULL)
        return NULL;
    PyObject *out = PyList_New(PySequence_Fast_GET_SIZE(*seq));
    if (out == NULL)
        Py_CLEAR(*seq);
    return out;
}

PyDoc_STRVAR(build_doc,
             "build(cls, offsets, rows, start, same) -> list: for each tuple of `rows`, an\n"
             "object of `cls` whose slots at `offsets` hold the row's values from `start` on;\n"
             "each string the one equal string `same` (a dict, or None) holds.");

static PyObject *build(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *cls, *offsets, *rows, *same;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "O!O!OnO:build", &PyType_Type, &cls, &PyTuple_Type, &offsets,
                          &rows, &start, &same))
        return NULL;
    if (same == Py_None)
        same = NULL;
    else if (!PyDict_CheckExact(same)) {
        PyErr_SetString(PyExc_TypeError, "build: same must be a dict or None");
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)cls;
    Py_ssize_t at[64];
    if (start < 0) {
        PyErr_SetString(PyExc_ValueError, "build: a start >= 0");
        return NULL;
    }
    Py_ssize_t n;
    PyObject *seq;
    PyObject *out = begin_pass(type, offsets, rows, "build", "build: rows must be a sequence",
                               at, &n, &seq);
    if (out == NULL)
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(out);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t r = 0; r < count; r++) {
        PyObject *row = items[r];
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != start + n) {
            PyErr_Format(PyExc_TypeError, "build: row %zd is not a tuple of %zd values", r,
                         start + n);
            goto fail;
        }
        PyObject *obj = type->tp_alloc(type, 0);
        if (obj == NULL)
            goto fail;
        PyList_SET_ITEM(out, r, obj); /* from here on freed with the list */
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *value = PyTuple_GET_ITEM(row, start + i);
            if (same != NULL && PyUnicode_CheckExact(value)) {
                value = PyDict_SetDefault(same, value, value); /* borrowed */
                if (value == NULL)
                    goto fail;
            }
            Py_INCREF(value);
            *(PyObject **)((char *)obj + at[i]) = value;
        }
    }
    Py_DECREF(seq);
    return out;
fail:
    Py_DECREF(out);
    Py_DECREF(seq);
    return NULL;
}


PyDoc_STRVAR(values_doc,
             "values(cls, offsets, objects) -> list[tuple]: for each object of `cls` (or a\n"
             "subclass) of `objects`, the tuple of the values of its slots at `offsets`\n"
             "(AttributeError for an unset slot, TypeError for an object of another class).");

static PyObject *values(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *cls, *offsets, *objects;
    if (!PyArg_ParseTuple(args, "O!O!O:values", &PyType_Type, &cls, &PyTuple_Type, &offsets,
                          &objects))
        return NULL;
    PyTypeObject *type = (PyTypeObject *)cls;
    Py_ssize_t at[64];
    Py_ssize_t n;
    PyObject *seq;
    PyObject *out = begin_pass(type, offsets, objects, "values",
                               "values: objects must be a sequence", at, &n, &seq);
    if (out == NULL)
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(out);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t r = 0; r < count; r++) {
        PyObject *obj = items[r];
        if (!PyObject_TypeCheck(obj, type)) {
            PyErr_Format(PyExc_TypeError, "values: object %zd is not a %s", r, type->tp_name);
            goto fail;
        }
        PyObject *row = PyTuple_New(n);
        if (row == NULL)
            goto fail;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *value = *(PyObject **)((char *)obj + at[i]);
            if (value == NULL) { /* what reading the unset slot raises */
                Py_DECREF(row);
                PyErr_Format(PyExc_AttributeError, "values: object %zd has a slot not set", r);
                goto fail;
            }
            Py_INCREF(value);
            PyTuple_SET_ITEM(row, i, value);
        }
        PyList_SET_ITEM(out, r, row);
    }
    Py_DECREF(seq);
    return out;
fail:
    Py_DECREF(out);
    Py_DECREF(seq);
    return NULL;
}

static PyMethodDef methods[] = {
    {"layout", layout, METH_VARARGS, layout_doc},
    {"build", build, METH_VARARGS, build_doc},
    {"values", values, METH_VARARGS, values_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_records",
    "Objects of slots dataclasses from tuples of their field values (ratingdb/_records.c).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__records(void) { return PyModule_Create(&module); }
