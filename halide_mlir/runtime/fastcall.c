/* The per-call work of a repeated realize / hl.Callable in one C call (runtime/fastcall.py builds and loads it).

call(fn, template, scalars, values, outputs, raws, alignment):
  fn        address of the pipeline's packed entry point, void(void **args)
  template  bytes: the argument array (one void* per argument) with the Buffers' cells already in place
  scalars   bytes: one ScalarSpec per Param argument (its slot, which of `values` it is, its type and range)
  values    a list or tuple holding the Params' values
  outputs   a tuple of (slot, descriptor bytes) per output to allocate: the descriptor is copied and pointed at
            the aligned start of the matching raw array
  raws      a list of writable byte buffers (numpy uint8 arrays), one per output
  checks    (optional) a tuple of (index, Buffer, its array, its mins): hl.Callable's last call; unless each
            values[index] is that Buffer with that array and mins, nothing is called and None is returned
  count     (optional, with checks) how many values there must be, else None is returned
Returns True (no outputs), a tuple of each output's offset into its raw array, or False: a value is not exactly of
its Param's Python type or out of its range (the caller converts it, or takes the ctypes path). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    int32_t slot, value, code, pad;
    int64_t lo, hi;
} ScalarSpec;

enum { I8 = 1, I16 = 2, I32 = 3, I64 = 4, F32 = 5, F64 = 6, BOOL = 7 };

#define MAX_ARGS 256
#define MAX_OUTS 16
#define MAX_DESC (24 + 16 * 32) /* a memref descriptor of rank <= 32 */

typedef void (*packed_fn)(void **);

static PyObject *str_array, *str_mins;

/* 1: every check holds; 0: one does not; -1: an error */
static int same_buffers(PyObject *checks, PyObject **items, Py_ssize_t nvalues) {
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(checks); k++) {
        PyObject *c = PyTuple_GET_ITEM(checks, k);
        if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) != 4) {
            PyErr_SetString(PyExc_TypeError, "checks: (index, Buffer, array, mins) tuples");
            return -1;
        }
        Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(c, 0));
        if (i < 0 || i >= nvalues) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_IndexError, "check index out of range");
            return -1;
        }
        PyObject *v = items[i];
        if (v != PyTuple_GET_ITEM(c, 1)) return 0;
        PyObject *array = PyObject_GetAttr(v, str_array);
        if (array == NULL) return -1;
        Py_DECREF(array); /* (only its identity is compared; v holds it) */
        if (array != PyTuple_GET_ITEM(c, 2)) return 0;
        PyObject *mins = PyObject_GetAttr(v, str_mins);
        if (mins == NULL) return -1;
        int eq = PyObject_RichCompareBool(mins, PyTuple_GET_ITEM(c, 3), Py_EQ);
        Py_DECREF(mins);
        if (eq != 1) return eq;
    }
    return 1;
}

static int sequence_items(PyObject *values, PyObject ***items, Py_ssize_t *nvalues) {
    if (PyList_Check(values)) {
        *nvalues = PyList_GET_SIZE(values);
        *items = ((PyListObject *)values)->ob_item;
    } else if (PyTuple_Check(values)) {
        *nvalues = PyTuple_GET_SIZE(values);
        *items = ((PyTupleObject *)values)->ob_item;
    } else {
        PyErr_SetString(PyExc_TypeError, "values must be a list or a tuple");
        return -1;
    }
    return 0;
}

static PyObject *call(PyObject *self, PyObject *const *a, Py_ssize_t n) {
    (void)self;
    if (n == 8 || n == 9) {
        PyObject **items;
        Py_ssize_t nvalues;
        if (!PyTuple_Check(a[7])) {
            PyErr_SetString(PyExc_TypeError, "checks must be a tuple");
            return NULL;
        }
        if (sequence_items(a[3], &items, &nvalues) < 0) return NULL;
        if (n == 9) {
            Py_ssize_t count = PyLong_AsSsize_t(a[8]);
            if (count == -1 && PyErr_Occurred()) return NULL;
            if (count != nvalues) Py_RETURN_NONE;
        }
        int same = same_buffers(a[7], items, nvalues);
        if (same < 0) return NULL;
        if (!same) Py_RETURN_NONE;
        n = 7;
    }
    if (n != 7 || !PyBytes_Check(a[1]) || !PyBytes_Check(a[2]) || !PyTuple_Check(a[4])) {
        PyErr_SetString(PyExc_TypeError, "call(fn, template, scalars, values, outputs, raws, alignment)");
        return NULL;
    }
    packed_fn fn = (packed_fn)PyLong_AsVoidPtr(a[0]);
    if (fn == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "null function pointer");
        return NULL;
    }
    Py_ssize_t nargs = PyBytes_GET_SIZE(a[1]) / (Py_ssize_t)sizeof(void *);
    Py_ssize_t nscalars = PyBytes_GET_SIZE(a[2]) / (Py_ssize_t)sizeof(ScalarSpec);
    Py_ssize_t nouts = PyTuple_GET_SIZE(a[4]);
    if (nargs > MAX_ARGS || nscalars > MAX_ARGS || nouts > MAX_OUTS) {
        PyErr_SetString(PyExc_ValueError, "too many arguments for the trampoline");
        return NULL;
    }
    void *args[MAX_ARGS];
    memcpy(args, PyBytes_AS_STRING(a[1]), nargs * sizeof(void *));

    uint64_t storage[MAX_ARGS];
    const ScalarSpec *spec = (const ScalarSpec *)PyBytes_AS_STRING(a[2]);
    if (nscalars) {
        PyObject *values = a[3];
        Py_ssize_t nvalues;
        PyObject **items;
        if (sequence_items(values, &items, &nvalues) < 0) return NULL;
        for (Py_ssize_t i = 0; i < nscalars; i++) {
            const ScalarSpec *s = &spec[i];
            if (s->value < 0 || s->value >= nvalues || s->slot < 0 || s->slot >= nargs) {
                PyErr_SetString(PyExc_IndexError, "scalar spec out of range");
                return NULL;
            }
            PyObject *v = items[s->value];
            void *p = &storage[i];
            if (s->code == F32 || s->code == F64) {
                if (!PyFloat_CheckExact(v)) Py_RETURN_FALSE;
                double d = PyFloat_AS_DOUBLE(v);
                if (s->code == F32) {
                    float f = (float)d;
                    memcpy(p, &f, sizeof f);
                } else {
                    memcpy(p, &d, sizeof d);
                }
            } else if (s->code == BOOL) {
                int8_t b;
                if (v == Py_True) b = 1;
                else if (v == Py_False) b = 0;
                else Py_RETURN_FALSE;
                memcpy(p, &b, 1);
            } else {
                if (!PyLong_CheckExact(v)) Py_RETURN_FALSE;
                int overflow = 0;
                long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
                if (overflow || (x == -1 && PyErr_Occurred()) || x < s->lo || x > s->hi) {
                    PyErr_Clear();
                    Py_RETURN_FALSE;
                }
                if (s->code == I8) {
                    int8_t t = (int8_t)x;
                    memcpy(p, &t, sizeof t);
                } else if (s->code == I16) {
                    int16_t t = (int16_t)x;
                    memcpy(p, &t, sizeof t);
                } else if (s->code == I32) {
                    int32_t t = (int32_t)x;
                    memcpy(p, &t, sizeof t);
                } else {
                    int64_t t = (int64_t)x;
                    memcpy(p, &t, sizeof t);
                }
            }
            args[s->slot] = p;
        }
    }

    PyObject *result = Py_True;
    _Alignas(16) char descs[MAX_OUTS][MAX_DESC];
    void *cells[MAX_OUTS];
    if (nouts) {
        PyObject *raws = a[5];
        Py_ssize_t alignment = PyLong_AsSsize_t(a[6]);
        if (!PyList_Check(raws) || PyList_GET_SIZE(raws) != nouts || alignment <= 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "raws: one array per output");
            return NULL;
        }
        result = PyTuple_New(nouts);
        if (result == NULL) return NULL;
        for (Py_ssize_t k = 0; k < nouts; k++) {
            PyObject *o = PyTuple_GET_ITEM(a[4], k);
            PyObject *d = PyTuple_Check(o) && PyTuple_GET_SIZE(o) == 2 ? PyTuple_GET_ITEM(o, 1) : NULL;
            Py_ssize_t slot = d ? PyLong_AsSsize_t(PyTuple_GET_ITEM(o, 0)) : -1;
            if (d == NULL || !PyBytes_Check(d) || PyBytes_GET_SIZE(d) > MAX_DESC || PyBytes_GET_SIZE(d) < 16 ||
                slot < 0 || slot >= nargs) {
                Py_DECREF(result);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad output spec");
                return NULL;
            }
            Py_buffer view;
            if (PyObject_GetBuffer(PyList_GET_ITEM(raws, k), &view, PyBUF_WRITABLE) < 0) {
                Py_DECREF(result);
                return NULL;
            }
            uintptr_t base = (uintptr_t)view.buf;
            Py_ssize_t offset = (Py_ssize_t)((alignment - (Py_ssize_t)(base % (uintptr_t)alignment)) % alignment);
            PyBuffer_Release(&view); /* (the caller holds the array through the call) */
            void *ptr = (void *)(base + (uintptr_t)offset);
            memcpy(descs[k], PyBytes_AS_STRING(d), PyBytes_GET_SIZE(d));
            memcpy(descs[k], &ptr, sizeof ptr);             /* allocated */
            memcpy(descs[k] + sizeof ptr, &ptr, sizeof ptr); /* aligned */
            cells[k] = descs[k];
            args[slot] = &cells[k];
            PyTuple_SET_ITEM(result, k, PyLong_FromSsize_t(offset));
        }
    } else {
        Py_INCREF(result);
    }
    /* the GIL is released as ctypes does: the pipeline's threads may call back into Python (print, tracing) */
    Py_BEGIN_ALLOW_THREADS
    fn(args);
    Py_END_ALLOW_THREADS
    return result;
}

static PyMethodDef methods[] = {
    {"call", (PyCFunction)(void (*)(void))call, METH_FASTCALL, "call the packed entry point (see the source)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_halide_mlir_fastcall", NULL, -1, methods};

PyMODINIT_FUNC PyInit__halide_mlir_fastcall(void) {
    str_array = PyUnicode_InternFromString("_array");
    str_mins = PyUnicode_InternFromString("_mins");
    if (str_array == NULL || str_mins == NULL) return NULL;
    return PyModule_Create(&module);
}
