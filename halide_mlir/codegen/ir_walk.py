"""Collecting the ops of a module before rewriting them (the post-bufferization clean-ups rewrite the IR
through MLIR's Python bindings, which must not mutate what a walk is visiting)."""

from __future__ import annotations


def ops_where(module, keep) -> list:
    """The ops of ``module`` for which ``keep(op)`` holds, in pre-order (call inside the module's context)."""
    from mlir import ir

    found = []

    def visit(op):
        if keep(op):
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found
