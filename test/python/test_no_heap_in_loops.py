"""Issue 6: no heap allocation inside hot loops, and stack use that does not grow with the image size.

Checked on the lowered LLVM dialect (``compile_to_lowered_mlir``) by control-flow analysis, not by counting:
every ``llvm.func`` is split into its blocks, the branch targets give the CFG, and a block is *in a loop* when it
belongs to a cycle (a strongly connected component with more than one block, or a self-edge). Then

* no block in a loop calls an allocator (``malloc``, ``aligned_alloc``, ``calloc``, ``realloc``);
* no function that calls an allocator is called from a block in a loop (so a per-tile helper can't hide one),
  except the async runtime's coroutine task functions (``presplitcoroutine``), whose frame is allocated once per
  parallel task by design, not per tile;
* every ``llvm.alloca`` is in its function's entry block: an alloca anywhere else is a dynamic stack allocation
  that grows the stack each time it executes.
"""
import re

import numpy as np
import pytest

import halide_mlir as hl

ALLOCATORS = ("malloc", "aligned_alloc", "calloc", "realloc")
_FUNC = re.compile(r"^\s*llvm\.func @([\w$.]+)\(")
_LABEL = re.compile(r"^\s*\^(bb\d+)")
_SUCC = re.compile(r"\^(bb\d+)")
_CALL = re.compile(r"llvm\.call @([\w$.]+)\(")


def parse(ir: str) -> dict:
    """{function: {"blocks": {name: [lines]}, "entry": name, "coroutine": bool}} for functions with bodies."""
    funcs, cur, block = {}, None, None
    for line in ir.splitlines():
        m = _FUNC.match(line)
        if m:
            cur = None
            if line.rstrip().endswith("{"):   # a definition, not a declaration
                cur = funcs[m.group(1)] = {"blocks": {"entry": []}, "entry": "entry",
                                           "coroutine": "presplitcoroutine" in line}
                block = "entry"
            continue
        if cur is None:
            continue
        if re.match(r"^  \}\s*$", line):     # end of the function body (two-space indent inside the module)
            cur = None
            continue
        m = _LABEL.match(line)
        if m:
            block = m.group(1)
            cur["blocks"][block] = []
            continue
        cur["blocks"][block].append(line)
    return funcs


def blocks_in_loops(func: dict) -> set:
    blocks = func["blocks"]
    succ = {b: {s for line in lines for s in _SUCC.findall(line)} for b, lines in blocks.items()}
    index, low, stack, on_stack, result, counter = {}, {}, [], set(), set(), [0]

    def strongconnect(v):   # Tarjan's SCC
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in succ[v]:
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1 or v in succ[v]:
                result.update(scc)

    for b in blocks:
        if b not in index:
            strongconnect(b)
    return result


def check_no_heap_in_loops(ir: str) -> dict:
    """Asserts the three properties above; returns counts for the caller's own checks."""
    funcs = parse(ir)
    assert funcs, "no llvm.func bodies found in the lowered IR"
    loops = {name: blocks_in_loops(f) for name, f in funcs.items()}
    allocating = set()
    counts = {"allocator_calls": 0, "allocas": 0, "loop_blocks": sum(len(v) for v in loops.values())}
    for name, f in funcs.items():
        for b, lines in f["blocks"].items():
            for line in lines:
                for callee in _CALL.findall(line):
                    if callee in ALLOCATORS:
                        counts["allocator_calls"] += 1
                        allocating.add(name)
                        assert b not in loops[name], f"@{callee} called inside a loop (block ^{b} of @{name})"
                if "llvm.alloca" in line:
                    counts["allocas"] += 1
                    assert b == f["entry"], f"llvm.alloca outside the entry block (^{b} of @{name}): stack grows"
    for name, f in funcs.items():   # an allocating function must not be called per loop iteration
        for b in loops[name]:
            for line in f["blocks"][b]:
                for callee in _CALL.findall(line):
                    if callee in allocating and not funcs[callee]["coroutine"]:
                        raise AssertionError(f"@{name} calls @{callee}, which allocates on the heap, in a loop")
    return counts


def tiled_blur(a: np.ndarray, parallel: bool = True):
    inp = hl.Buffer(a, "input")
    x, y, xo, yo, xi, yi = (hl.Var(n) for n in "x y xo yo xi yi".split())
    bx, out = hl.Func("blur_x"), hl.Func("blur_y")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    out[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    out.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, 16)
    if parallel:
        out.parallel(yo)
    bx.compute_at(out, xo).vectorize(x, 16)
    return out


def numpy_blur(a):
    bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) / np.float32(3)
    return (bx[:-2] + bx[1:-1] + bx[2:]) / np.float32(3)


# --------------------------------------------------------------------------------- the checker itself

LOOPY = """module {
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @f(%arg0: i64) {
    %0 = llvm.mlir.constant(0 : i64) : i64
    llvm.br ^bb1(%0 : i64)
  ^bb1(%1: i64):  // 2 preds: ^bb0, ^bb2
    %2 = llvm.icmp "slt" %1, %arg0 : i64
    llvm.cond_br %2, ^bb2, ^bb3
  ^bb2:  // pred: ^bb1
    %3 = llvm.call @malloc(%1) : (i64) -> !llvm.ptr
    llvm.br ^bb1(%1 : i64)
  ^bb3:  // pred: ^bb1
    llvm.return
  }
}"""


def test_checker_catches_a_malloc_in_a_loop():
    with pytest.raises(AssertionError, match="inside a loop"):
        check_no_heap_in_loops(LOOPY)
    hoisted = LOOPY.replace("    %3 = llvm.call @malloc(%1) : (i64) -> !llvm.ptr\n", "").replace(
        "    %0 = llvm.mlir.constant(0 : i64) : i64\n",
        "    %0 = llvm.mlir.constant(0 : i64) : i64\n    %9 = llvm.call @malloc(%0) : (i64) -> !llvm.ptr\n")
    assert check_no_heap_in_loops(hoisted)["allocator_calls"] == 1
    dynamic_alloca = LOOPY.replace("llvm.call @malloc(%1) : (i64) -> !llvm.ptr",
                                   "llvm.alloca %1 x f32 : (i64) -> !llvm.ptr")
    with pytest.raises(AssertionError, match="outside the entry block"):
        check_no_heap_in_loops(dynamic_alloca)
    helper = LOOPY.replace("llvm.call @malloc(%1) : (i64) -> !llvm.ptr", "llvm.call @g(%1) : (i64) -> !llvm.ptr")
    helper = helper.replace("  llvm.func @f(", "  llvm.func @g(%arg0: i64) -> !llvm.ptr {\n"
                            "    %0 = llvm.call @malloc(%arg0) : (i64) -> !llvm.ptr\n    llvm.return %0 : !llvm.ptr\n"
                            "  }\n  llvm.func @f(")
    with pytest.raises(AssertionError, match="which allocates on the heap, in a loop"):
        check_no_heap_in_loops(helper)


# --------------------------------------------------------------------------------- the pipelines

@pytest.mark.parametrize("threads", ["1", "2"])
@pytest.mark.parametrize("parallel", [True, False], ids=["parallel", "serial"])
def test_tiled_fusion_blur_has_no_heap_allocation_in_loops(monkeypatch, threads, parallel):
    monkeypatch.setenv("HL_NUM_THREADS", threads)
    a = np.random.default_rng(3).random((130, 1026), dtype=np.float32)
    out = tiled_blur(a, parallel)
    ir = out.compile_to_lowered_mlir([1024, 128])
    counts = check_no_heap_in_loops(ir)
    assert counts["loop_blocks"] > 0, "the parser found no loops at all: it is not looking at the right IR"
    if parallel:
        # the 34x256 f32 producer tile (34 KiB) of each task lives on the stack: no malloc at all (the
        # aligned_alloc of the async runtime's coroutine frames aside, once per task)
        assert "llvm.call @malloc(" not in ir
    np.testing.assert_array_equal(np.asarray(out.realize([1024, 128])), numpy_blur(a))


@pytest.mark.parametrize("threads", ["1", "2"])
def test_large_tile_stays_on_the_heap_but_out_of_serial_loops(monkeypatch, threads):
    """A producer strip too big for the stack (3 x 34 x 2048 f32 > 64 KiB) is malloc'ed at most once per
    parallel iteration: never inside the serial loops below it."""
    monkeypatch.setenv("HL_NUM_THREADS", threads)
    a = np.random.default_rng(4).random((66, 2050), dtype=np.float32)
    inp = hl.Buffer(a, "input")
    x, y, yo, yi = (hl.Var(n) for n in "x y yo yi".split())
    bx, out = hl.Func("blur_x"), hl.Func("blur_y")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    out[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    out.split(y, yo, yi, 32).vectorize(x, 16).parallel(yo)
    bx.compute_at(out, yo).vectorize(x, 16)
    ir = out.compile_to_lowered_mlir([2048, 64])
    check_no_heap_in_loops(ir)
    np.testing.assert_array_equal(np.asarray(out.realize([2048, 64])), numpy_blur(a))


@pytest.mark.parametrize("threads", ["1", "2"])
def test_compute_at_with_update_has_no_heap_allocation_in_loops(monkeypatch, threads):
    """A matmul tile: the producer has an update (reduction) and is computed per tile of the output."""
    monkeypatch.setenv("HL_NUM_THREADS", threads)
    n = 64
    rng = np.random.default_rng(5)
    A, B = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    a, b = hl.Buffer(A, "A"), hl.Buffer(B, "B")
    x, y, xi, yi = (hl.Var(s) for s in "x y xi yi".split())
    r = hl.RDom([hl.Range(0, n)])
    prod, out = hl.Func("prod"), hl.Func("matmul")
    prod[x, y] = hl.f32(0)
    prod[x, y] += a[r.x, y] * b[x, r.x]
    out[x, y] = prod[x, y]
    out.tile(x, y, xi, yi, 32, 8).vectorize(xi, 16).parallel(y)
    prod.compute_at(out, x).vectorize(x, 16)
    prod.update().reorder(x, y, r.x).vectorize(x, 16)
    check_no_heap_in_loops(out.compile_to_lowered_mlir([n, n]))
    np.testing.assert_allclose(np.asarray(out.realize([n, n])), A @ B, rtol=1e-5)
