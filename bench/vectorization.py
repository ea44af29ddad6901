"""``python -m bench.vectorization [--smoke] [--only NAME,...] [--rounds N] [--threads N]``: what auto-vectorization
buys.

Each benchmark of bench/suite.py is built with its hand-written schedule and then with every ``vectorize`` of that
schedule taken out (the split a ``vectorize(x, n)`` makes stays): the schedule a user who never wrote
``vectorize`` would have. That pipeline runs three ways: scalar (as Halide runs
it: MLIR emits scalar loops and LLVM's loop/SLP vectorizers are kept off), "LLVM" (the same scalar loops left to
LLVM -O3's vectorizers) and auto-vectorized (analysis/vectorize.py picks the loop and the width); the
hand-vectorized schedule is the last column. Single-threaded, interleaved, best of N (one thread unless --threads);
outputs are checked
against the hand schedule's.
Writes the table into bench/RESULTS.md between ``<!-- begin vectorization -->`` markers (bench/study.py).
"""

from __future__ import annotations

import sys

import numpy as np

from bench import study
from bench.study import best_ms, interleaved

# column -> set_auto_vectorize argument (analysis/vectorize.py)
MODES = {"scalar": False, "llvm": "llvm", "auto": True}


def strip_vectorize(output) -> int:
    """Remove the user's ``vectorize`` directives from every Func of ``output``'s pipeline; returns how many.
    The splits ``vectorize(x, n)`` made stay, so the loop nest (and what unroll() refers to) is unchanged."""
    from halide_mlir.driver import front_end
    from halide_mlir.lang.schedule import touch

    removed = 0
    for stage in front_end(output).stages:
        for sched in [stage.func.schedule(), *(u.schedule for u in stage.updates)]:
            keep = [d for d in sched.directives if d.kind != "vectorize"]
            removed += len(sched.directives) - len(keep)
            sched.directives[:] = keep
    touch()
    return removed


def run(b, halide, hl, scale: float, rounds: int, target_s: float, threads: int) -> dict:
    from bench.harness import compare

    res = {"name": b.name, "status": "ok", "message": ""}
    ins = b.inputs(scale)
    try:
        hand, sizes = b.build(hl, ins)
        ref = np.asarray(hand.realize(sizes)).copy()
        plain, _ = b.build(hl, ins)
        res["removed"] = strip_vectorize(plain)
        outs = {}
        for mode in MODES:
            hl.set_auto_vectorize(MODES[mode])
            outs[mode] = plain.realize(sizes)
    except hl.HalideError as e:
        return {**res, "status": "unsupported", "message": str(e).splitlines()[0]}
    finally:
        hl.set_auto_vectorize(None)
    for mode, out in outs.items():
        ok, why = compare(b, ref, np.asarray(out))
        if not ok:
            return {**res, "status": "mismatch", "message": f"{mode}: {why}"}
    hand_out = hand.realize(sizes)

    def timed(mode):
        def go():
            hl.set_auto_vectorize(MODES[mode])
            plain.realize(outs[mode])

        return go

    runs = {**{m: timed(m) for m in MODES}, "hand": lambda: hand.realize(hand_out)}
    if best_ms(runs["scalar"], 1, 0)[0] > 1000:
        rounds = min(rounds, 5)  # a second per scalar run (conv_layer): fewer rounds, the ratio is large anyway
    res.update({f"{m}_ms": ms for m, ms in interleaved(runs, rounds, target_s).items()})
    hl.set_auto_vectorize(None)
    res["speedup"] = res["scalar_ms"] / res["auto_ms"]
    return res


def table(results: list[dict]) -> str:
    from bench.harness import geomean

    lines = [
        "| benchmark | vectorize() removed | scalar ms | LLVM-vectorized ms | auto-vectorized ms | "
        "auto speedup over scalar | over LLVM | hand-vectorized ms | auto / hand |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        if r["status"] != "ok":
            lines.append(f"| {r['name']} | {r['status']}: {r['message']} | | | | | | | |")
            continue
        lines.append(
            f"| {r['name']} | {r['removed']} | {r['scalar_ms']:.2f} | {r['llvm_ms']:.2f} | "
            f"{r['auto_ms']:.2f} | **{r['speedup']:.2f}x** | {r['llvm_ms'] / r['auto_ms']:.2f}x | "
            f"{r['hand_ms']:.2f} | {r['auto_ms'] / r['hand_ms']:.2f} |"
        )
    ok = [r for r in results if r["status"] == "ok"]
    lines.append("")
    lines.append(
        f"**geomean auto-vectorized speedup over scalar: {geomean([r['speedup'] for r in ok]):.2f}x**; "
        f"over MLIR-scalar loops left to LLVM's vectorizers "
        f"{geomean([r['llvm_ms'] / r['auto_ms'] for r in ok]):.2f}x; auto / hand-vectorized geomean "
        f"{geomean([r['auto_ms'] / r['hand_ms'] for r in ok]):.2f} ({len(ok)} benchmarks)"
    )
    return "\n".join(lines)


def main(argv=None) -> int:
    return study.main(
        argv,
        "bench.vectorization",
        __doc__,
        "vectorization",
        "Auto-vectorization: scalar vs auto",
        run,
        table,
        lambda r: (
            f"scalar {r['scalar_ms']:.2f} ms, auto {r['auto_ms']:.2f} ms "
            f"({r['speedup']:.2f}x), hand {r['hand_ms']:.2f} ms"
        ),
        default_threads="1",
    )


if __name__ == "__main__":
    sys.exit(main())
