"""``python -m bench.autoschedule [--smoke] [--only NAME,...] [--rounds N] [--threads N|all]``: the built-in
autoscheduler (``Pipeline.apply_autoscheduler``, halide_mlir/autotune/autoschedule.py) against the hand-written
schedules.

Each benchmark of bench/suite.py runs three ways, interleaved, best of N: Halide 21 with the hand schedule,
halide_mlir with the hand schedule, and halide_mlir with every schedule replaced by the autoscheduler's. Outputs are
checked against Halide's. Writes the table into bench/RESULTS.md between ``<!-- begin autoschedule -->`` markers.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
import warnings

import numpy as np

from bench.vectorization import HERE, KNOWN_UNSUPPORTED, best_ms


def run(b, halide, hl, scale: float, rounds: int, target_s: float, threads: int) -> dict:
    from bench.harness import compare
    res = {"name": b.name, "status": "ok", "message": ""}
    if b.missing(hl) or b.name in KNOWN_UNSUPPORTED:
        return {**res, "status": "skipped", "message": KNOWN_UNSUPPORTED.get(b.name) or b.skip_reason}
    ins = b.inputs(scale)
    hf, sizes = b.build(halide, ins)
    hf.compile_jit()
    hout = hf.realize(sizes)
    try:
        hand, _ = b.build(hl, ins)
        hand_out = hand.realize(sizes)
        auto, _ = b.build(hl, ins)
        result = hl.Pipeline(auto).apply_autoscheduler(
            hl.get_host_target(), hl.AutoschedulerParams("halide_mlir", {"parallelism": threads}))
        res["schedule"] = result.schedule_source
        auto_out = auto.realize(sizes)
    except hl.HalideError as e:
        return {**res, "status": "unsupported", "message": str(e).splitlines()[0]}
    for what, out in (("hand", hand_out), ("auto", auto_out)):
        ok, why = compare(b, np.asarray(hout), np.asarray(out))
        if not ok:
            return {**res, "status": "mismatch", "message": f"{what}: {why}"}
    runs = {"halide": lambda: hf.realize(hout), "hand": lambda: hand.realize(hand_out),
            "auto": lambda: auto.realize(auto_out)}
    samples = {m: [] for m in runs}
    for _ in range(rounds):
        for m, fn in runs.items():
            samples[m] += best_ms(fn, 1, target_s)
    for m, s in samples.items():
        res[f"{m}_ms"] = min(s)
    return res


def table(results: list[dict]) -> str:
    from bench.harness import geomean
    lines = ["| benchmark | Halide hand ms | ours hand ms | ours autoscheduled ms | auto / ours hand | "
             "auto / Halide hand |", "|---|---:|---:|---:|---:|---:|"]
    for r in results:
        if r["status"] != "ok":
            lines.append(f"| {r['name']} | {r['status']}: {r['message']} | | | | |")
            continue
        lines.append(f"| {r['name']} | {r['halide_ms']:.2f} | {r['hand_ms']:.2f} | {r['auto_ms']:.2f} | "
                     f"{r['auto_ms'] / r['hand_ms']:.2f} | {r['auto_ms'] / r['halide_ms']:.2f} |")
    ok = [r for r in results if r["status"] == "ok"]
    lines += ["", f"**geomean autoscheduled / hand-scheduled (ours): "
                  f"{geomean([r['auto_ms'] / r['hand_ms'] for r in ok]):.2f}; autoscheduled / Halide hand: "
                  f"{geomean([r['auto_ms'] / r['halide_ms'] for r in ok]):.2f}** ({len(ok)} benchmarks; < 1: the "
                  f"autoscheduler is faster)", "", "<details><summary>the autoscheduler's schedules</summary>", ""]
    for r in ok:
        lines += [f"`{r['name']}`:", "```python", r["schedule"].rstrip("\n"), "```"]
    lines += ["</details>"]
    return "\n".join(lines)


def write(results: list[dict], info: str) -> str:
    path = os.path.join(HERE, "RESULTS.md")
    text = open(path).read()
    block = (f"<!-- begin autoschedule -->\n## Autoscheduler vs hand-written schedules\n\n"
             f"Written by `python -m bench.autoschedule` (its docstring says what is measured). {info}\n\n"
             f"{table(results)}\n<!-- end autoschedule -->")
    pattern = re.compile(r"<!-- begin autoschedule -->.*?<!-- end autoschedule -->", re.S)
    text = pattern.sub(lambda m: block, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + block
    with open(path, "w") as f:
        f.write(text.rstrip("\n") + "\n")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.autoschedule", description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, 2 rounds, no RESULTS.md")
    ap.add_argument("--only", help="comma-separated benchmark names")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--threads", default="all")
    args = ap.parse_args(argv)
    threads = (os.cpu_count() or 1) if args.threads == "all" else int(args.threads)
    os.environ["HL_NUM_THREADS"] = str(threads)
    warnings.filterwarnings("ignore", message="The floating-point value", category=RuntimeWarning)
    import halide
    import halide_mlir as hl
    from bench import machine
    from bench.harness import SMOKE_SCALE, git_revision
    from bench.suite import BENCHMARKS
    selected = [b for b in BENCHMARKS if not args.only or b.name in args.only.split(",")]
    rounds = args.rounds or (2 if args.smoke else 9)
    results = []
    for b in selected:
        t = time.perf_counter()
        r = run(b, halide, hl, SMOKE_SCALE if args.smoke else 1.0, rounds, 0.002 if args.smoke else 0.05, threads)
        results.append(r)
        msg = r["message"] or (f"Halide hand {r['halide_ms']:.2f} ms, ours hand {r['hand_ms']:.2f} ms, "
                               f"ours auto {r['auto_ms']:.2f} ms")
        print(f"  {b.name:20s} {r['status']:11s} {msg}  [{time.perf_counter() - t:.1f} s]", flush=True)
    print()
    print(table(results))
    if not args.smoke:
        info = (f"{machine.cpu_model()}, HL_NUM_THREADS={threads}, {rounds} interleaved rounds, "
                f"{time.strftime('%Y-%m-%d')}, halide_mlir at {git_revision()}.")
        print(f"\nwrote {write(results, info)}")
    return 1 if any(r["status"] == "mismatch" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
