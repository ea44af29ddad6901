"""``python -m bench.vectorization [--smoke] [--only NAME,...] [--rounds N]``: what auto-vectorization buys.

Each benchmark of bench/suite.py is built with its hand-written schedule and then with every ``vectorize`` of that
schedule taken out (the split a ``vectorize(x, n)`` makes stays): the schedule a user who never wrote
``vectorize`` would have. That pipeline runs three ways: scalar (as Halide runs
it: MLIR emits scalar loops and LLVM's loop/SLP vectorizers are kept off), "LLVM" (the same scalar loops left to
LLVM -O3's vectorizers) and auto-vectorized (analysis/vectorize.py picks the loop and the width); the
hand-vectorized schedule is the last column. Single-threaded, interleaved, best of N; outputs are checked
against the hand schedule's.
Writes the table into bench/RESULTS.md between ``<!-- begin vectorization -->`` markers.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# benchmarks whose hand schedule halide_mlir cannot compile (bench/RESULTS.md): no hand column to compare with
# column -> set_auto_vectorize argument (analysis/vectorize.py)
MODES = {"scalar": False, "llvm": "llvm", "auto": True}
KNOWN_UNSUPPORTED = {"local_laplacian": "its hand schedule fails in MLIR's vectorizer (see bench/RESULTS.md)"}


def strip_vectorize(output) -> int:
    """Remove the user's ``vectorize`` directives from every Func of ``output``'s pipeline; returns how many.
    The splits ``vectorize(x, n)`` made stay, so the loop nest (and what unroll() refers to) is unchanged."""
    from halide_mlir.analysis.pipeline import build_pipeline
    from halide_mlir.lang.schedule import touch
    removed = 0
    for stage in build_pipeline(output).stages:
        for sched in [stage.func.schedule(), *(u.schedule for u in stage.updates)]:
            keep = [d for d in sched.directives if d.kind != "vectorize"]
            removed += len(sched.directives) - len(keep)
            sched.directives[:] = keep
    touch()
    return removed


def best_ms(fn, rounds: int, target_s: float) -> list[float]:
    t = time.perf_counter()
    fn()
    k = max(1, min(100, int(target_s / max(time.perf_counter() - t, 1e-7))))
    samples = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(k):
            fn()
        samples.append((time.perf_counter() - t) / k * 1e3)
    return samples


def run(b, hl, scale: float, rounds: int, target_s: float) -> dict:
    from bench.harness import compare
    res = {"name": b.name, "status": "ok", "message": ""}
    if b.missing(hl) or b.name in KNOWN_UNSUPPORTED:
        return {**res, "status": "skipped", "message": KNOWN_UNSUPPORTED.get(b.name) or b.skip_reason}
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
    samples = {m: [] for m in runs}
    if best_ms(runs["scalar"], 1, 0)[0] > 1000:
        rounds = min(rounds, 3)  # a second per scalar run (conv_layer): fewer rounds, the ratio is large anyway
    for _ in range(rounds):  # interleaved: machine drift hits all of them alike
        for m, fn in runs.items():
            samples[m] += best_ms(fn, 1, target_s)
    hl.set_auto_vectorize(None)
    for m, s in samples.items():
        res[f"{m}_ms"] = min(s)
    res["speedup"] = res["scalar_ms"] / res["auto_ms"]
    return res


def table(results: list[dict]) -> str:
    from bench.harness import geomean
    lines = ["| benchmark | vectorize() removed | scalar ms | LLVM-vectorized ms | auto-vectorized ms | "
             "auto speedup over scalar | over LLVM | hand-vectorized ms | auto / hand |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        if r["status"] != "ok":
            lines.append(f"| {r['name']} | {r['status']}: {r['message']} | | | | | | | |")
            continue
        lines.append(f"| {r['name']} | {r['removed']} | {r['scalar_ms']:.2f} | {r['llvm_ms']:.2f} | "
                     f"{r['auto_ms']:.2f} | **{r['speedup']:.2f}x** | {r['llvm_ms'] / r['auto_ms']:.2f}x | "
                     f"{r['hand_ms']:.2f} | {r['auto_ms'] / r['hand_ms']:.2f} |")
    ok = [r for r in results if r["status"] == "ok"]
    lines.append("")
    lines.append(f"**geomean auto-vectorized speedup over scalar: {geomean([r['speedup'] for r in ok]):.2f}x**; "
                 f"over MLIR-scalar loops left to LLVM's vectorizers "
                 f"{geomean([r['llvm_ms'] / r['auto_ms'] for r in ok]):.2f}x; auto / hand-vectorized geomean "
                 f"{geomean([r['auto_ms'] / r['hand_ms'] for r in ok]):.2f} ({len(ok)} benchmarks)")
    return "\n".join(lines)


def write(results: list[dict], info: str) -> str:
    path = os.path.join(HERE, "RESULTS.md")
    text = open(path).read()
    block = (f"<!-- begin vectorization -->\n## Auto-vectorization: scalar vs auto, 1 thread\n\n"
             f"Written by `python -m bench.vectorization` (its docstring says what is measured). {info}\n\n"
             f"{table(results)}\n<!-- end vectorization -->")
    pattern = re.compile(r"<!-- begin vectorization -->.*?<!-- end vectorization -->", re.S)
    text = pattern.sub(lambda m: block, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + block
    with open(path, "w") as f:
        f.write(text.rstrip("\n") + "\n")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.vectorization", description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, 2 rounds, no RESULTS.md")
    ap.add_argument("--only", help="comma-separated benchmark names")
    ap.add_argument("--rounds", type=int)
    args = ap.parse_args(argv)
    os.environ["HL_NUM_THREADS"] = "1"
    warnings.filterwarnings("ignore", message="The floating-point value", category=RuntimeWarning)
    import halide_mlir as hl
    from bench import machine
    from bench.harness import SMOKE_SCALE, git_revision
    from bench.suite import BENCHMARKS
    selected = [b for b in BENCHMARKS if not args.only or b.name in args.only.split(",")]
    rounds = args.rounds or (2 if args.smoke else 9)
    results = []
    for b in selected:
        t = time.perf_counter()
        r = run(b, hl, SMOKE_SCALE if args.smoke else 1.0, rounds, 0.002 if args.smoke else 0.05)
        results.append(r)
        msg = r["message"] or (f"scalar {r['scalar_ms']:.2f} ms, auto {r['auto_ms']:.2f} ms "
                               f"({r['speedup']:.2f}x), hand {r['hand_ms']:.2f} ms")
        print(f"  {b.name:20s} {r['status']:11s} {msg}  [{time.perf_counter() - t:.1f} s]", flush=True)
    print()
    print(table(results))
    if not args.smoke:
        info = (f"{machine.cpu_model()}, HL_NUM_THREADS=1, {rounds} interleaved rounds, "
                f"{time.strftime('%Y-%m-%d')}, halide_mlir at {git_revision()}.")
        print(f"\nwrote {write(results, info)}")
    return 1 if any(r["status"] == "mismatch" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
