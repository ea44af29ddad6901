# `-e python_extension` through hl.main (halide_mlir/generator.py, aot/pyext.py): Halide's file names in the output
# directory, and a .py.cpp that parses the arguments then the outputs by keyword (scalars with PyArg formats as
# Halide's), reverses numpy's axes, releases the GIL around the call, and defines PyInit_<function> with a
# silent error handler (errors come back as "Halide Runtime Error: <code>").
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s -g lit_gen -o %t -e python_extension,c_header,static_library -f lit_fn target=host
# RUN: ls %t | FileCheck %s --check-prefix=FILES
# RUN: FileCheck %s --check-prefix=EXT < %t/lit_fn.py.cpp
#
# FILES: lit_fn.a
# FILES: lit_fn.h
# FILES: lit_fn.py.cpp
#
# EXT: #include <Python.h>
# EXT: int lit_fn(struct halide_buffer_t *_input_buffer, float _gain, struct halide_buffer_t *_output_buffer);
# EXT: #define HALIDE_PYTHON_EXTENSION_MODULE_NAME lit_fn
# EXT: int j = view->ndim - 1 - i;
# EXT: __hl_lit_fn_kwlist[] = {"input", "gain", "output", NULL};
# EXT: PyArg_ParseTupleAndKeywords(args, kwargs, "OfO"
# EXT: __hl_py_unpack(py_output, 1, "output", 2,
# EXT: Py_BEGIN_ALLOW_THREADS
# EXT-NEXT: result = lit_fn(&hbuf[0], (float)py_gain, &hbuf[1]);
# EXT: "Halide Runtime Error: %d"
# EXT: PyInit_, HALIDE_PYTHON_EXTENSION_MODULE_NAME)(void) {
# EXT: halide_set_error_handler(__hl_py_error);

import halide_mlir as hl

x, y = hl.Var("x"), hl.Var("y")


@hl.generator(name="lit_gen")
class LitGen:
    input = hl.InputBuffer(hl.Float(32), 2)
    gain = hl.InputScalar(hl.Float(32))
    output = hl.OutputBuffer(hl.Float(32), 2)

    def generate(self):
        self.output[x, y] = self.input[x, y] * self.gain
        self.input.set_estimates([(0, 32), (0, 8)])
        self.output.set_estimates([(0, 32), (0, 8)])


if __name__ == "__main__":
    hl.main()
