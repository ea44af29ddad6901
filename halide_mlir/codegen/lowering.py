"""Bufferize the scheduled payload and lower it to the LLVM dialect (DESIGN.md note 7's order)."""
from __future__ import annotations

BUFFERIZE = "one-shot-bufferize{bufferize-function-boundaries=false},canonicalize,cse"

TO_LLVM = ",".join([
    "buffer-deallocation-pipeline",
    "convert-linalg-to-loops",
    "scf-forall-to-for",
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


def pipeline_text() -> str:
    return f"builtin.module({BUFFERIZE},{TO_LLVM})"
