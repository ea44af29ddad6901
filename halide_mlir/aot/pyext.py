"""``-e python_extension``: the C source of a CPython extension module that calls an AOT function, and
``build_python_extension`` that compiles it with the static library into an importable module.

As Halide's (``.py.cpp``): the module is named after the function (``HALIDE_PYTHON_EXTENSION_MODULE_NAME``
overrides it) and has one function of that name, taking the arguments then the outputs, positionally or by
keyword. Buffers come through the buffer protocol (numpy arrays, memoryviews; axes reversed, numpy's last axis
is Halide's dimension 0; format ``?`` is Bool) or as a halide_mlir ``hl.Buffer`` (its array and its mins); scalars
as Python numbers. A nonzero result raises ``RuntimeError("Halide Runtime Error: <code>")``; the GIL is released
while the function runs. The module needs nothing but the C library and Python at run time (no numpy, no MLIR):
the source is C that also compiles as C++, with Halide's runtime declarations inlined.
"""

from __future__ import annotations

import os
import subprocess
import sysconfig

from ..error import HalideError
from ..lang.source import user_site
from .arguments import BufferArg, Spec
from .wrapper import c_name, c_scalar, prototype

# PyArg_ParseTuple format and C type per scalar, as Halide's extensions parse them
_FORMATS = {
    "float": ("f", "float"),
    "double": ("d", "double"),
    "bool": ("p", "int"),
    "int64_t": ("L", "long long"),
    "uint64_t": ("K", "unsigned long long"),
    "int8_t": ("i", "int"),
    "int16_t": ("i", "int"),
    "int32_t": ("i", "int"),
    "uint8_t": ("I", "unsigned int"),
    "uint16_t": ("I", "unsigned int"),
    "uint32_t": ("I", "unsigned int"),
}

_SUPPORT = r"""
/* A Python object as a halide_buffer_t: the buffer protocol (axes reversed), or a halide_mlir hl.Buffer
   (its .array in numpy order and its .mins() in Halide's). */
static int __hl_py_unpack(PyObject *obj, int writable, const char *name, int dims, Py_buffer *view,
                          halide_dimension_t *dim, halide_buffer_t *buf, int *have_view) {
    PyObject *target = obj, *mins = NULL;
    int i;
    *have_view = 0;
    if (!PyObject_CheckBuffer(obj) && PyObject_HasAttrString(obj, "array") && PyObject_HasAttrString(obj, "mins")) {
        target = PyObject_GetAttrString(obj, "array");
        mins = PyObject_CallMethod(obj, "mins", NULL);
        if (!target || !mins) { Py_XDECREF(target); Py_XDECREF(mins); return 0; }
    } else {
        Py_INCREF(target);
    }
    memset(view, 0, sizeof(*view));
    if (PyObject_GetBuffer(target, view, PyBUF_FORMAT | PyBUF_STRIDED_RO | (writable ? PyBUF_WRITABLE : 0)) < 0) {
        Py_DECREF(target);
        Py_XDECREF(mins);
        PyErr_Format(PyExc_ValueError, "Invalid argument %s: Expected a buffer (a numpy array or an hl.Buffer)",
                     name);
        return 0;
    }
    Py_DECREF(target);
    *have_view = 1;
    if (view->ndim != dims) {
        Py_XDECREF(mins);
        PyErr_Format(PyExc_ValueError, "Invalid argument %s: Expected %d dimensions, got %d", name, dims,
                     view->ndim);
        return 0;
    }
    for (i = 0; i < view->ndim; i++) {
        int j = view->ndim - 1 - i;
        dim[i].min = 0;
        dim[i].extent = (int32_t)view->shape[j];
        dim[i].stride = (int32_t)(view->strides[j] / view->itemsize);
        dim[i].flags = 0;
        if (mins) {
            PyObject *m = PySequence_GetItem(mins, i);
            if (!m) { Py_DECREF(mins); return 0; }
            dim[i].min = (int32_t)PyLong_AsLong(m);
            Py_DECREF(m);
        }
    }
    Py_XDECREF(mins);
    memset(buf, 0, sizeof(*buf));
    {
        const char *p = view->format ? view->format : "B";
        while (*p && strchr("@<>!=", *p)) p++;
        if (*p == 'f' || *p == 'd' || *p == 'e') {
            buf->type.code = halide_type_float;
        } else if (*p >= 'a' && *p <= 'z') {
            buf->type.code = halide_type_int;
        } else {
            buf->type.code = halide_type_uint;
        }
        if (*p == '?') {
            buf->type.bits = 1;   /* Bool: a distinct type from uint8, as in Halide */
        } else if (*p && strchr("bBhHiIlLqQfde", *p)) {
            buf->type.bits = (uint8_t)(view->itemsize * 8);
        } else {
            PyErr_Format(PyExc_ValueError, "Invalid data type for %s: %s", name, view->format);
            return 0;
        }
    }
    buf->type.lanes = 1;
    buf->dimensions = view->ndim;
    buf->dim = dim;
    buf->host = (uint8_t *)view->buf;
    return 1;
}

static void __hl_py_error(void *user_context, const char *msg) {
    (void)user_context;
#ifdef HALIDE_PYTHON_EXTENSION_LOG_ERRORS_TO_STDERR
    PyGILState_STATE s = PyGILState_Ensure();
    PySys_FormatStderr("%s\n", msg);
    PyGILState_Release(s);
#else
    (void)msg;
#endif
}
"""


def python_extension_source(spec: Spec, runtime_header: str) -> str:
    fn = spec.fn_name
    args = spec.arguments
    bufs = [a for a in args if isinstance(a, BufferArg)]
    lines = [
        "/* Generated by halide_mlir: a CPython extension module calling " + fn + " (see its header). */",
        "#define PY_SSIZE_T_CLEAN",
        "#include <Python.h>",
        "#include <string.h>",
        "#include <stdint.h>",
        "",
        runtime_header,
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        f"{prototype(spec)};",
        "#ifdef __cplusplus",
        "}",
        "#endif",
        "#ifndef HALIDE_PYTHON_EXTENSION_MODULE_NAME",
        f"#define HALIDE_PYTHON_EXTENSION_MODULE_NAME {fn}",
        "#endif",
        _SUPPORT,
    ]
    kwlist = ", ".join(f'"{c_name(a.name)}"' for a in args)
    lines += [
        f"static const char *const __hl_{fn}_kwlist[] = {{{kwlist}, NULL}};",
        "",
        f"static PyObject *__hl_py_{fn}(PyObject *module, PyObject *args, PyObject *kwargs) {{",
        "    (void)module;",
    ]
    fmt, refs = "", []
    for a in args:
        n = c_name(a.name)
        if isinstance(a, BufferArg):
            fmt += "O"
            lines.append(f"    PyObject *py_{n} = NULL;")
            refs.append(f"&py_{n}")
        else:
            code, ctype = _FORMATS[c_scalar(a.type)]
            fmt += code
            lines.append(f"    {ctype} py_{n} = 0;")
            refs.append(f"&py_{n}")
    lines += [
        f'    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "{fmt}", (char **)__hl_{fn}_kwlist, {", ".join(refs)}))',
        "        return NULL;",
    ]
    nb = max(1, len(bufs))
    lines += [
        f"    Py_buffer views[{nb}];",
        f"    int have[{nb}] = {{0}};",
        f"    halide_buffer_t hbuf[{nb}];",
        "    int ok = 1, result = 0, i;",
    ]
    for k, a in enumerate(bufs):
        lines.append(f"    halide_dimension_t dim{k}[{max(1, len(a.mins))}];")
    for k, a in enumerate(bufs):
        lines.append(
            f'    if (ok) ok = __hl_py_unpack(py_{c_name(a.name)}, {int(a.output)}, "{a.name}", '
            f"{len(a.mins)}, &views[{k}], dim{k}, &hbuf[{k}], &have[{k}]);"
        )
    call, k = [], 0
    for a in args:
        if isinstance(a, BufferArg):
            call.append(f"&hbuf[{k}]")
            k += 1
        else:
            call.append(f"({c_scalar(a.type)})py_{c_name(a.name)}")
    lines += [
        "    if (ok) {",
        "        Py_BEGIN_ALLOW_THREADS",
        f"        result = {fn}({', '.join(call)});",
        "        Py_END_ALLOW_THREADS",
        "    }",
        f"    for (i = 0; i < {len(bufs)}; i++)",
        "        if (have[i]) PyBuffer_Release(&views[i]);",
        "    if (!ok) return NULL;",
        "    if (result != 0) {",
        '        PyErr_Format(PyExc_RuntimeError, "Halide Runtime Error: %d", result);',
        "        return NULL;",
        "    }",
        "    Py_RETURN_NONE;",
        "}",
        "",
    ]
    # Halide's CMake (add_halide_python_extension_library) joins several functions into one module: it defines
    # HALIDE_PYTHON_EXTENSION_OMIT_MODULE_DEFINITION and compiles this file as C++ with a module definition
    # (module_definition_source) that calls Halide::PythonExtensions::<fn>, listed in ..._FUNCTIONS.
    lines += [
        "#ifdef HALIDE_PYTHON_EXTENSION_OMIT_MODULE_DEFINITION",
        "#ifdef __cplusplus",
        "namespace Halide { namespace PythonExtensions {",
        f"PyObject *{fn}(PyObject *module, PyObject *args, PyObject *kwargs) {{",
        f"    return __hl_py_{fn}(module, args, kwargs);",
        "}",
        "} }",
        "#endif",
        "#else",
    ]
    lines += [
        "#define __HL_STR2(x) #x",
        "#define __HL_STR(x) __HL_STR2(x)",
        "#define __HL_CAT2(x, y) x##y",
        "#define __HL_CAT(x, y) __HL_CAT2(x, y)",
        "",
        "static PyMethodDef __hl_methods[] = {",
        f'    {{"{fn}", (PyCFunction)(void (*)(void))__hl_py_{fn}, METH_VARARGS | METH_KEYWORDS, NULL}},',
        "    {NULL, NULL, 0, NULL}};",
        "",
        "static struct PyModuleDef __hl_module = {PyModuleDef_HEAD_INIT,",
        "    __HL_STR(HALIDE_PYTHON_EXTENSION_MODULE_NAME), NULL, -1, __hl_methods, NULL, NULL, NULL, NULL};",
        "",
        "#ifdef __cplusplus",
        'extern "C"',
        "#endif",
        '__attribute__((visibility("default"))) PyObject *__HL_CAT(PyInit_, '
        "HALIDE_PYTHON_EXTENSION_MODULE_NAME)(void) {",
        "    PyObject *m = PyModule_Create(&__hl_module);",
        "    halide_set_error_handler(__hl_py_error);",
        "    return m;",
        "}",
        "#endif",
        "",
    ]
    return "\n".join(lines)


def module_definition_source(runtime_header: str) -> str:
    """What Halide's ``GenRT -r NAME -e python_extension`` writes: the module that binds the functions of
    several ``.py.cpp`` files compiled with ``HALIDE_PYTHON_EXTENSION_OMIT_MODULE_DEFINITION``, named by
    ``HALIDE_PYTHON_EXTENSION_MODULE_NAME`` and listed by ``HALIDE_PYTHON_EXTENSION_FUNCTIONS`` (`` X(fn)...``).
    C++ only, as Halide's."""
    return "\n".join(
        [
            "/* Generated by halide_mlir: the module definition of a Python extension (see pyext.py). */",
            "#define PY_SSIZE_T_CLEAN",
            "#include <Python.h>",
            "#include <string.h>",
            "#include <stdint.h>",
            "",
            runtime_header,
            "",
            "namespace Halide { namespace PythonExtensions {",
            "#define X(name) extern PyObject *name(PyObject *module, PyObject *args, PyObject *kwargs);",
            "HALIDE_PYTHON_EXTENSION_FUNCTIONS",
            "#undef X",
            "} }",
            "#define __HL_STR2(x) #x",
            "#define __HL_STR(x) __HL_STR2(x)",
            "#define __HL_CAT2(x, y) x##y",
            "#define __HL_CAT(x, y) __HL_CAT2(x, y)",
            "static PyMethodDef __hl_methods[] = {",
            "#define X(name) {#name, (PyCFunction)(void (*)(void))Halide::PythonExtensions::name, "
            "METH_VARARGS | METH_KEYWORDS, NULL},",
            "    HALIDE_PYTHON_EXTENSION_FUNCTIONS",
            "#undef X",
            "    {NULL, NULL, 0, NULL}};",
            "static struct PyModuleDef __hl_module = {PyModuleDef_HEAD_INIT,",
            "    __HL_STR(HALIDE_PYTHON_EXTENSION_MODULE_NAME), NULL, -1, __hl_methods, NULL, NULL, NULL, NULL};",
            "static void __hl_py_error(void *user_context, const char *msg) {",
            "    (void)user_context;",
            "#ifdef HALIDE_PYTHON_EXTENSION_LOG_ERRORS_TO_STDERR",
            "    PyGILState_STATE s = PyGILState_Ensure();",
            '    PySys_FormatStderr("%s\\n", msg);',
            "    PyGILState_Release(s);",
            "#else",
            "    (void)msg;",
            "#endif",
            "}",
            'extern "C" __attribute__((visibility("default"))) PyObject *'
            "__HL_CAT(PyInit_, HALIDE_PYTHON_EXTENSION_MODULE_NAME)(void) {",
            "    PyObject *m = PyModule_Create(&__hl_module);",
            "    halide_set_error_handler(__hl_py_error);",
            "    return m;",
            "}",
            "",
        ]
    )


def build_python_extension(source: str, library: str, output_dir: str = ".", module_name: str = "") -> str:
    """Compiles ``source`` (a ``.py.cpp`` from ``-e python_extension``) with ``library`` (the function's static
    library or object) into ``output_dir/<module><EXT_SUFFIX>`` for this Python, exporting only ``PyInit_<module>``
    (the library's symbols stay local, so several extensions load into one process). Returns its path."""
    from .build import _cc

    name = module_name or os.path.basename(source).split(".")[0]
    out = os.path.join(output_dir, name + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))
    argv = [
        _cc(),
        "-x",
        "c",
        "-O2",
        "-fPIC",
        "-shared",
        "-fvisibility=hidden",
        f"-DHALIDE_PYTHON_EXTENSION_MODULE_NAME={name}",
        "-I",
        sysconfig.get_paths()["include"],
        source,
        "-x",
        "none",
        library,
        "-Wl,--exclude-libs,ALL",
        "-lpthread",
        "-ldl",
        "-lm",
        "-o",
        out,
    ]
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        raise HalideError(f"{user_site()}: building the Python extension {name} failed:\n{r.stderr[-4000:]}")
    return out
