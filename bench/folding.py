"""Storage folding: the intermediate of a sliding window, ours vs Halide 21 (time and memory).

    python -m bench.folding [--size 2048] [--rounds 15]

Per pipeline: the bytes of each intermediate allocation (ours: the ``memref.alloc``s of the bufferized IR; Halide:
the ``allocate`` of its lowered statement, at the same sizes) and how many are live at once (one per parallel task
of the loop it is stored in); the peak resident memory one realize adds (a fresh process per library: the peak is
reset after compiling and the freed heap pages are given back, then one realize into a preallocated output); and
the best and median time of interleaved realizes.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import re
import statistics
import subprocess
import sys
import time

import numpy as np

PIPELINES = {
    # Halide's tutorial lesson 8, "mixed": stored per strip of 16 rows (in parallel), computed per row
    "lesson8_mixed": "store_at_yo",
    # the same with the producer stored at the root, one serial loop over the rows: unfolded, the whole image
    "lesson8_store_root": "store_root",
}


def build(hl, which: str, size: int):
    x, y, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("yo"), hl.Var("yi")
    producer, consumer = hl.Func("producer"), hl.Func("consumer")
    producer[x, y] = hl.sqrt(x * y)
    consumer[x, y] = producer[x, y] + producer[x, y + 1] + producer[x + 1, y] + producer[x + 1, y + 1]
    if which == "store_at_yo":
        consumer.split(y, yo, yi, 16).parallel(yo).vectorize(x, 4)
        producer.store_at(consumer, yo).compute_at(consumer, yi).vectorize(x, 4)
    else:
        consumer.vectorize(x, 4)
        producer.store_root().compute_at(consumer, y).vectorize(x, 4)
    return consumer, [size, size]


def ours_allocations(which: str, size: int) -> list[int]:
    """Bytes of every memref.alloc/alloca of the bufferized IR (the output is the caller's buffer)."""
    import halide_mlir as hl
    from halide_mlir.driver import stages

    out, sizes = build(hl, which, size)
    text = stages(out, sizes).bufferized()
    found = []
    for shape, elem in re.findall(r"memref\.alloca?\(\)(?: \{[^}]*\})? : memref<([0-9x]+)x([a-z0-9]+)>", text):
        n = int(np.prod([int(d) for d in shape.split("x")]))
        found.append(n * int(re.sub(r"[a-z]", "", elem)) // 8)
    return found


def halide_allocations(which: str, size: int) -> list[int]:
    """Bytes of every ``allocate`` in Halide's lowered statement, its symbolic extents set to ``size``."""
    import tempfile

    import halide as hl

    out, sizes = build(hl, which, size)
    with tempfile.NamedTemporaryFile(suffix=".stmt") as f:
        out.compile_to_lowered_stmt(f.name, [], hl.StmtOutputFormat.Text)
        text = open(f.name).read()
    found = []
    for elem, expr in re.findall(r"allocate [\w.$]+\[([a-z]+\d+) \* (.*)\]", text):
        expr = re.sub(r"consumer[$\d]*\.extent\.\d", str(size), expr)
        found.append(eval(expr, {}) * int(re.sub(r"[a-z]", "", elem)) // 8)  # noqa: S307 (our own text)
    return found


def _rss_child(lib: str, which: str, size: int) -> None:
    """(In a fresh process) the peak resident memory one realize adds after compiling, in bytes."""
    hl = __import__("halide" if lib == "halide" else "halide_mlir")
    out, sizes = build(hl, which, size)
    buf = out.realize(sizes)  # compiles; buf is the output every later realize writes into
    out.realize(buf)

    def hwm():
        with open("/proc/self/status") as f:
            return int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1)) * 1024

    def rss():
        with open("/proc/self/status") as f:
            return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1)) * 1024

    # both runtimes keep freed blocks for the next realize (halide_mlir/runtime/memory.py): give their pages back
    # so that this realize faults in what it allocates
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the current RSS
    base = rss()
    out.realize(buf)
    print(json.dumps(hwm() - base))


def peak_rss(lib: str, which: str, size: int) -> int:
    r = subprocess.run(
        [sys.executable, "-m", "bench.folding", "--rss-child", lib, which, str(size)],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(r.stdout.strip().splitlines()[-1])


def times(which: str, size: int, rounds: int) -> dict:
    import halide
    import halide_mlir

    fs = {}
    for name, hl in (("halide", halide), ("ours", halide_mlir)):
        out, sizes = build(hl, which, size)
        buf = out.realize(sizes)
        fs[name] = (out, buf)
    got = {k: [] for k in fs}
    for _ in range(rounds):
        for name, (out, buf) in fs.items():
            t = time.perf_counter()
            for _ in range(5):
                out.realize(buf)
            got[name].append((time.perf_counter() - t) / 5 * 1e3)
    ref, mine = np.asarray(fs["halide"][1]), np.asarray(fs["ours"][1])
    assert np.allclose(ref, mine, rtol=1e-5, atol=1e-5), "ours and Halide disagree"
    return {k: (min(v), statistics.median(v)) for k, v in got.items()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.folding", description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=2048)
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--rss-child", nargs=3, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.rss_child:
        _rss_child(a.rss_child[0], a.rss_child[1], int(a.rss_child[2]))
        return 0
    print(
        f"| pipeline ({a.size}x{a.size} f32) | intermediate bytes, ours / Halide | peak RSS added, ours / Halide "
        "| best ms, ours / Halide | median ms, ours / Halide |"
    )
    print("|---|---|---|---|---|")
    for name, which in PIPELINES.items():
        mine, theirs = ours_allocations(which, a.size), halide_allocations(which, a.size)
        r_mine, r_theirs = peak_rss("ours", which, a.size), peak_rss("halide", which, a.size)
        t = times(which, a.size, a.rounds)
        print(
            f"| {name} | {'+'.join(map(str, mine))} / {'+'.join(map(str, theirs))} | {r_mine} / {r_theirs} | "
            f"{t['ours'][0]:.2f} / {t['halide'][0]:.2f} | {t['ours'][1]:.2f} / {t['halide'][1]:.2f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
