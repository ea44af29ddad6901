"""Developer tools built on halide_mlir, kept apart from the compiler itself.

* ``examples``: loading an example file's ``pipeline()`` (the ``halide-mlir`` command and the autotuner's CLI).
* ``worker``: a persistent child process that runs a handler, so that a segfault or a hang in the compiler
  costs one restart instead of the caller (the fuzzer and the autotuner).
* ``fuzz``: the schedule fuzzer, ``python -m halide_mlir.tools.fuzz --examples N``.
"""
