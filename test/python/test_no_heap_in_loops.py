"""Issue 6: no heap allocation inside hot loops, and stack use that does not grow with the image size.

Checked on the lowered LLVM dialect (``compile_to_lowered_mlir``) by control-flow analysis, not by counting:
every ``llvm.func`` is split into its blocks, the branch targets give the CFG, and a block is *in a loop* when it
belongs to a cycle (a strongly connected component with more than one block, or a self-edge), to the body of an
``omp.loop_nest`` (run once per iteration), or to a region nested in such a block. An ``omp.parallel`` region is
a frame of its own, as in the LLVM IR, where it becomes a function that each thread calls once. Then

* no block in a loop calls an allocator (``malloc``, ``aligned_alloc``, ``calloc``, ``realloc``);
* no function (or ``omp.parallel`` region) that calls an allocator is called from a block in a loop (so a
  per-tile helper can't hide one), except the async runtime's coroutine task functions (``presplitcoroutine``),
  whose frame is allocated once per parallel task by design, not per tile;
* every ``llvm.alloca`` is in its frame's entry block: an alloca anywhere else is a dynamic stack allocation
  that grows the stack each time it executes.

The parallel pipelines are checked with both parallel-loop runtimes (OpenMP, the default, and the async runtime).
"""
import re

import numpy as np
import pytest

import halide_mlir as hl
from helpers import V, box_blur

ALLOCATORS = ("malloc", "aligned_alloc", "calloc", "realloc")
_FUNC = re.compile(r"^\s*llvm\.func @([\w$.]+)\(")
_LABEL = re.compile(r"^\s*\^(bb\d+)")
_SUCC = re.compile(r"\^(bb\d+)")
_CALL = re.compile(r"llvm\.call @([\w$.]+)\(")
_OP = re.compile(r"^\s*(?:%[^=]*= )?([a-z_]+\.[\w.]+)")


def parse(ir: str) -> dict:
    """{frame: {"blocks": {key: [lines]}, "entry": key, "coroutine": bool, "region": {key: region}}} for every
    function with a body and every ``omp.parallel`` region: OpenMP outlines that region into a function each
    thread runs once, so it is a frame of its own, called (a synthetic ``llvm.call``) from the block holding the
    op. Blocks of nested regions (``omp.wsloop``, ``omp.loop_nest``; labels restart in each region) get keys
    ``rN:bbM``; a region remembers the block holding its op and whether it runs per iteration
    (``omp.loop_nest``)."""
    funcs, stack, block, counter = {}, [], None, [0]

    def open_region(frame, parent, iterated, resume=None):
        counter[0] += 1
        region = {"frame": frame, "prefix": f"r{counter[0]}:", "parent": parent, "iterated": iterated,
                  "resume": parent or resume}   # the block holding the op, where the text goes on after it
        stack.append(region)
        key = region["prefix"] + "entry"
        funcs[frame]["blocks"][key] = []
        funcs[frame]["region"][key] = region
        if funcs[frame]["entry"] is None:
            funcs[frame]["entry"] = key
        return key

    for line in ir.splitlines():
        if not stack:
            m = _FUNC.match(line)
            if m and line.rstrip().endswith("{"):   # a definition, not a declaration
                funcs[m.group(1)] = {"blocks": {}, "entry": None, "region": {},
                                     "coroutine": "presplitcoroutine" in line}
                block = open_region(m.group(1), None, False)
            continue
        region = stack[-1]
        frame = funcs[region["frame"]]
        if re.match(r"^\s*\}", line):           # end of the innermost region
            stack.pop()
            block = region["resume"]
            continue
        m = _LABEL.match(line)
        if m:
            block = region["prefix"] + m.group(1)
            frame["blocks"][block] = []
            frame["region"][block] = region
            continue
        frame["blocks"][block].append(line)
        if line.rstrip().endswith("{"):         # an op with a region
            op = _OP.match(line).group(1)
            if op == "omp.parallel":
                name = f"{region['frame']}.omp_par{counter[0]}"
                frame["blocks"][block].append(f"llvm.call @{name}()  // runs the region on each thread")
                funcs[name] = {"blocks": {}, "entry": None, "region": {}, "coroutine": False}
                block = open_region(name, None, False, resume=block)
            else:
                block = open_region(region["frame"], block, op == "omp.loop_nest")
    return funcs


def blocks_in_loops(func: dict) -> set:
    """Blocks on a cycle of their region's CFG, blocks of a region run per iteration (``omp.loop_nest``), and
    blocks of regions whose op sits in such a block."""
    blocks = func["blocks"]
    succ = {b: {func["region"][b]["prefix"] + s for line in lines for s in _SUCC.findall(line)}
            for b, lines in blocks.items()}
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

    def in_loop(b):
        region = func["region"][b]
        return (b in result or region["iterated"]
                or (region["parent"] is not None and in_loop(region["parent"])))
    return {b for b in blocks if in_loop(b)}


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
    bx, out, x, y = box_blur(hl, hl.Buffer(a, "input"), names=("blur_x", "blur_y"))
    xo, yo, xi, yi = V(hl, "xo yo xi yi")
    out.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, 16)
    if parallel:
        out.parallel(yo)
    bx.compute_at(out, xo).vectorize(x, 16)
    return out


def numpy_blur(a):
    third = np.float32(1) / np.float32(3)  # Halide divides by a constant as a multiplication by its reciprocal
    bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) * third
    return (bx[:-2] + bx[1:-1] + bx[2:]) * third


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


OMP = """module {
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @f(%arg0: i64) {
    %0 = llvm.mlir.constant(0 : i64) : i64
    %1 = llvm.mlir.constant(1 : i64) : i64
    omp.parallel {
      %2 = llvm.alloca %1 x f32 : (i64) -> !llvm.ptr
      omp.wsloop {
        omp.loop_nest (%arg1) : i64 = (%0) to (%arg0) step (%1) {
          llvm.br ^bb1
        ^bb1:  // pred: ^bb0
          omp.yield
        }
      }
      omp.terminator
    }
    llvm.return
  }
}"""


def test_checker_sees_openmp_regions():
    """An omp.parallel region is a frame (its entry block may hold allocas, once per thread); the body of an
    omp.loop_nest runs per iteration, whatever its own CFG looks like."""
    counts = check_no_heap_in_loops(OMP)
    assert counts["allocas"] == 1 and counts["loop_blocks"] == 2
    per_thread = OMP.replace("      omp.wsloop {\n",
                             "      %9 = llvm.call @malloc(%1) : (i64) -> !llvm.ptr\n      omp.wsloop {\n")
    assert check_no_heap_in_loops(per_thread)["allocator_calls"] == 1
    per_iteration = OMP.replace("          omp.yield\n",
                                "          %9 = llvm.call @malloc(%1) : (i64) -> !llvm.ptr\n          omp.yield\n")
    with pytest.raises(AssertionError, match="inside a loop"):
        check_no_heap_in_loops(per_iteration)
    alloca_in_body = OMP.replace("      %2 = llvm.alloca %1 x f32 : (i64) -> !llvm.ptr\n", "").replace(
        "          omp.yield\n", "          %2 = llvm.alloca %1 x f32 : (i64) -> !llvm.ptr\n          omp.yield\n")
    with pytest.raises(AssertionError, match="outside the entry block"):
        check_no_heap_in_loops(alloca_in_body)
    # a parallel loop inside a serial loop: its per-thread malloc runs once per outer iteration
    in_a_loop = per_thread.replace("    omp.parallel {\n", "    llvm.br ^bb1\n  ^bb1:  // 2 preds: ^bb0, ^bb1\n"
                                   "    omp.parallel {\n").replace(
        "    llvm.return\n", "    llvm.cond_br %3, ^bb1, ^bb2\n  ^bb2:  // pred: ^bb1\n    llvm.return\n")
    with pytest.raises(AssertionError, match="which allocates on the heap, in a loop"):
        check_no_heap_in_loops(in_a_loop)


# --------------------------------------------------------------------------------- the pipelines

THREADS = [("1", "openmp"), ("2", "openmp"), ("2", "async")]


def threads_id(p):
    return "1" if p[0] == "1" else f"{p[0]}-{p[1]}"


@pytest.fixture(params=THREADS, ids=threads_id)
def threads(request, monkeypatch):
    """HL_NUM_THREADS and the parallel-loop runtime (codegen/lowering.py)."""
    n, runtime = request.param
    monkeypatch.setenv("HL_NUM_THREADS", n)
    monkeypatch.setenv("HALIDE_MLIR_PARALLEL_RUNTIME", runtime)
    return request.param


@pytest.mark.parametrize("parallel", [True, False], ids=["parallel", "serial"])
def test_tiled_fusion_blur_has_no_heap_allocation_in_loops(threads, parallel):
    a = np.random.default_rng(3).random((130, 1026), dtype=np.float32)
    out = tiled_blur(a, parallel)
    ir = out.compile_to_lowered_mlir([1024, 128])
    counts = check_no_heap_in_loops(ir)
    assert counts["loop_blocks"] > 0, "the parser found no loops at all: it is not looking at the right IR"
    if parallel:
        # the 34x256 f32 producer tile (34 KiB) of each thread (task) lives on the stack: no malloc at all (the
        # aligned_alloc of the async runtime's coroutine frames aside, once per task)
        assert "llvm.call @malloc(" not in ir
    np.testing.assert_array_equal(np.asarray(out.realize([1024, 128])), numpy_blur(a))


def test_large_tile_stays_on_the_heap_but_out_of_serial_loops(threads):
    """A producer strip too big for the stack (3 x 34 x 2048 f32 > 64 KiB) is malloc'ed at most once per
    parallel iteration: never inside the serial loops below it."""
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


def test_compute_at_with_update_has_no_heap_allocation_in_loops(threads):
    """A matmul tile: the producer has an update (reduction) and is computed per tile of the output."""
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
