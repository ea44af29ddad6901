"""Place the buffers of Funcs scheduled ``store_in(MemoryType.Heap/Stack/Register)`` on a CPU target
(analysis/store_in.py has Halide's rules and how the choice reaches here: a name location on the Func's ops).

Runs after codegen/lowering.py's HOIST passes (allocations out of serial loops, the small ones promoted to
``memref.alloca``) and before the deallocation pipeline, which frees every ``memref.alloc`` left:
 - Heap: a promoted ``memref.alloca`` goes back to a ``memref.alloc`` (freed by the deallocation pipeline, moved
   out of the loops by hoist_static_allocas, as any heap buffer);
 - Stack, Register: a static ``memref.alloc`` too big for the automatic promotion becomes a ``memref.alloca``
   up to STORE_IN_STACK_LIMIT bytes (hoist_static_allocas moves it to its frame's entry: one slot per thread).
   Beyond that a Stack buffer stays on the heap, as Halide's pseudostack is a heap buffer beyond 16 KiB; a
   Register buffer is refused (Halide would put it on the stack whatever its size).
"""

from __future__ import annotations

import re

from ..analysis.store_in import TAG
from ..error import HalideError

# per buffer; OpenMP's worker threads have 4 MiB stacks by default (libomp's KMP_STACKSIZE on 64-bit targets)
STORE_IN_STACK_LIMIT = 1024 * 1024

_TAGGED = re.compile(re.escape(TAG) + r'(\w+)"(?:\(([^)]*)\))?')


def memory_type_of(op) -> tuple[str, str] | None:
    """(memory type name, source location) of an allocation of a tagged Func, or None."""
    m = _TAGGED.search(str(op.location))
    return (m.group(1), m.group(2) or "unknown") if m else None


def place_allocations(module) -> int:
    """Rewrite the tagged allocations as their Func's ``store_in`` asks; returns how many changed."""
    from mlir import ir
    from mlir.dialects import memref

    found = []

    def visit(op):
        if op.name in ("memref.alloc", "memref.alloca") and len(op.operands) == 0 and TAG in str(op.location):
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    count = 0
    for op in found:
        kind, where = memory_type_of(op)
        mtype = op.results[0].type
        align = op.attributes["alignment"] if "alignment" in op.attributes else None
        if kind == "Heap" and op.name == "memref.alloca":
            make = memref.AllocOp
        elif kind in ("Stack", "Register") and op.name == "memref.alloc":
            size = _bytes(mtype)
            if size > STORE_IN_STACK_LIMIT:
                if kind == "Register":
                    raise HalideError(
                        f"{_readable(where)}: store_in(MemoryType.Register): the Func's buffer takes {size} bytes, "
                        f"more than halide_mlir puts on a thread's stack ({STORE_IN_STACK_LIMIT}); compute it at an "
                        f"inner loop or store it in MemoryType.Stack or Heap"
                    )
                continue  # Stack beyond the limit: the heap, as Halide's pseudostack
            make = memref.AllocaOp
        else:
            continue
        with ir.InsertionPoint(op), op.location:
            new = make(mtype, [], [], alignment=align)
        op.results[0].replace_all_uses_with(new.result)
        op.erase()
        count += 1
    return count


def _bytes(mtype) -> int:
    from mlir import ir

    t = ir.MemRefType(mtype)
    n = 1
    for d in t.shape:
        n *= d
    bits = t.element_type.width if hasattr(t.element_type, "width") else 64
    return n * max(1, bits // 8)


def _readable(where: str) -> str:
    m = re.match(r'"(.*)":(\d+):\d+', where)
    return f"{m.group(1).rsplit('/', 1)[-1]}:{m.group(2)}" if m else "<unknown>"
