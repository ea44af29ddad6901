"""``python -m bench.compile_time [--only NAMES] [--threads N] [--reps N] [--passes]``: where a first compile goes.

Each benchmark of bench/suite.py is compiled ``--reps`` times in one process (the disk cache off, the in-memory
caches cleared between compiles) and the best CPU time of each phase is printed, in ms:

  front     bounds inference, payload and transform script (Python)
  schedule  parsing both and running ``@__transform_main`` (transform interpreter)
  bufferize one-shot-bufferize, the unrolls (``@halide_unroll``), clean-up
  lower     the lowering pass pipeline to the LLVM dialect (runtime/jit.py lower)
  llvm      ExecutionEngine: translation, LLVM -O3, machine code

``--vs-halide`` instead compares whole cold compiles with Halide's: each benchmark, each of ``--reps`` rounds, in a
fresh process (both libraries warmed up on a trivial pipeline first, as ``python -m bench`` does): Halide's
``compile_jit()`` and our first ``realize`` minus a steady one, wall and CPU ms, best of the rounds.

``--passes`` adds one table of CPU ms per MLIR pass (each pass run in its own PassManager). CPU time rather than
wall time: the machine is shared, and a compile is single-threaded. The first compile of a process also pays for
importing MLIR (~100 ms), which is not counted here; ``python -m bench`` shows it in its first benchmark.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time

os.environ["HALIDE_MLIR_CACHE"] = "0"


def _split(pipeline: str) -> list[str]:
    """Top-level passes of a pipeline string (commas inside {} or () do not split)."""
    out, depth, cur = [], 0, ""
    for ch in pipeline:
        depth += ch in "({"
        depth -= ch in ")}"
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur] if cur else out


def profile(name: str, reps: int, threads: int, passes: bool) -> tuple[dict, dict]:
    import halide_mlir as hl
    from halide_mlir import driver
    from halide_mlir.codegen import lowering
    from halide_mlir.codegen.transform import UNROLL_SEQUENCE
    from halide_mlir.runtime import jit
    from mlir import execution_engine
    from mlir.dialects.transform import interpreter

    from bench.suite import BY_NAME

    b = BY_NAME[name]
    ins = b.inputs(1.0)
    libs = jit.runtime_libraries(threads)
    best: dict = {}
    best_passes: dict = {}
    keep = []  # engines stay alive: destroying one shuts down the async runtime the others share
    for _ in range(reps):
        t: dict = {}
        per: dict = {}
        c = time.process_time()
        f, sizes = b.build(hl, ins)
        compilation = driver.stages(f, sizes)
        payload, transform = compilation.payload, compilation.transform
        t["front"] = time.process_time() - c
        ctx = jit.new_context()
        c = time.process_time()
        module, script = jit.apply_schedule(ctx, payload, transform)
        scripts = [script]
        t["schedule"] = time.process_time() - c
        c = time.process_time()
        if passes:
            hoist, loops, after = lowering.lowering_passes(threads)
            steps = (
                _split(lowering.BUFFERIZE)
                + ["@" + UNROLL_SEQUENCE]
                + _split(lowering.AFTER_BUFFERIZE)
                + _split(hoist)
                + ["heap_allocations"]
                + _split(loops)
                + ["hoist_static_allocas"]
                + _split(after)
                + ["keep_masked_store_values", "compile_body_once"]
            )
            for step in steps:
                s = time.process_time()
                if step == "@" + UNROLL_SEQUENCE:
                    seq = jit._sequence(scripts[0], UNROLL_SEQUENCE)
                    if seq is not None:
                        with ctx:
                            interpreter.apply_named_sequence(module.operation, seq, scripts[0])
                elif step == "heap_allocations":
                    with ctx:
                        if lowering.heap_allocations(module):
                            jit.run_passes(ctx, module, lowering.DEALLOCATE, step, "lower")
                elif step in ("hoist_static_allocas", "keep_masked_store_values", "compile_body_once"):
                    with ctx:
                        getattr(lowering, step)(module)
                else:
                    jit.run_passes(ctx, module, step, step, "lower")
                key = re.sub(r"\{.*", "", step.replace("func.func(", ""))
                per[key] = per.get(key, 0) + time.process_time() - s
            t["bufferize+lower"] = time.process_time() - c
        else:
            jit.bufferize(ctx, module, scripts[0])
            t["bufferize"] = time.process_time() - c
            c = time.process_time()
            jit.lower(ctx, module, threads)
            t["lower"] = time.process_time() - c
        c = time.process_time()
        with ctx:
            engine = execution_engine.ExecutionEngine(module, opt_level=3, shared_libs=libs)
            engine.raw_lookup("_mlir_ciface_pipeline")
        t["llvm"] = time.process_time() - c
        keep.append((ctx, module, engine))
        for k, v in t.items():
            best[k] = min(best.get(k, v), v)
        for k, v in per.items():
            best_passes[k] = min(best_passes.get(k, v), v)
    return best, best_passes


def _first_minus_steady(realize) -> tuple[float, float]:
    """(wall, CPU) seconds of the first call less the best of three more."""
    w, c = time.perf_counter(), time.process_time()
    realize()
    first_w, first_c = time.perf_counter() - w, time.process_time() - c
    steady_w = steady_c = float("inf")
    for _ in range(3):
        w, c = time.perf_counter(), time.process_time()
        realize()
        steady_w, steady_c = min(steady_w, time.perf_counter() - w), min(steady_c, time.process_time() - c)
    return first_w - steady_w, first_c - steady_c


def _child(name: str) -> None:
    """One round of --vs-halide, in a fresh process: prints a JSON line of times in ms."""
    import json
    import warnings

    warnings.filterwarnings("ignore")
    import halide
    import halide_mlir

    from bench.harness import _warm_up
    from bench.suite import BY_NAME

    for hl in (halide, halide_mlir):
        _warm_up(hl)
    b = BY_NAME[name]
    ins = b.inputs(1.0)
    out = {}
    f, sizes = b.build(halide, ins)
    w, c = time.perf_counter(), time.process_time()
    f.compile_jit()
    out["halide_wall"], out["halide_cpu"] = (time.perf_counter() - w) * 1e3, (time.process_time() - c) * 1e3
    first_w, first_c = _first_minus_steady(lambda: f.realize(sizes))
    out["halide_first_run_wall"], out["halide_first_run_cpu"] = first_w * 1e3, first_c * 1e3
    from halide_mlir import driver

    inner = driver.compile

    def timed(*a, **k):
        w, c = time.perf_counter(), time.process_time()
        try:
            return inner(*a, **k)
        finally:
            out["ours_compile_wall"] = (time.perf_counter() - w) * 1e3
            out["ours_compile_cpu"] = (time.process_time() - c) * 1e3

    driver.compile = timed
    f, sizes = b.build(halide_mlir, ins)
    first_w, first_c = _first_minus_steady(lambda: f.realize(sizes))
    out["ours_wall"], out["ours_cpu"] = first_w * 1e3, first_c * 1e3
    print(json.dumps(out))


def vs_halide(names: list[str], reps: int) -> None:
    import json
    import subprocess

    print(
        f"{'benchmark':20s} {'Halide wall':>12s} {'ours wall':>10s} {'ratio':>6s} {'Halide CPU':>11s} "
        f"{'ours CPU':>9s} {'ratio':>6s}   (ms, best of {reps} fresh processes)",
        flush=True,
    )
    for name in names:
        best: dict = {}
        for _ in range(reps):
            r = subprocess.run(
                [sys.executable, "-m", "bench.compile_time", "--child", name],
                capture_output=True,
                text=True,
                env={**os.environ, "HALIDE_MLIR_CACHE": "0"},
            )
            if r.returncode:
                print(f"{name}: failed\n{r.stderr[-2000:]}", file=sys.stderr)
                break
            for k, v in json.loads(r.stdout.strip().splitlines()[-1]).items():
                best[k] = min(best.get(k, v), v)
        if best:
            print(
                f"{name:20s} {best['halide_wall']:12.1f} {best['ours_wall']:10.1f} "
                f"{best['ours_wall'] / best['halide_wall']:6.2f} {best['halide_cpu']:11.1f} {best['ours_cpu']:9.1f} "
                f"{best['ours_cpu'] / best['halide_cpu']:6.2f}   (ours driver.compile "
                f"{best['ours_compile_wall']:.1f} wall / {best['ours_compile_cpu']:.1f} CPU; "
                f"Halide's first realize - steady "
                f"{best['halide_first_run_wall']:.1f} / {best['halide_first_run_cpu']:.1f})",
                flush=True,
            )


def main(argv=None) -> int:
    from bench.suite import BENCHMARKS

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="comma-separated benchmark names")
    ap.add_argument("--threads", default="2")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--passes", action="store_true", help="also CPU ms per MLIR pass")
    ap.add_argument("--vs-halide", action="store_true", help="whole cold compiles against Halide's compile_jit")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    os.environ["HL_NUM_THREADS"] = args.threads
    if args.child:
        _child(args.child)
        return 0
    names = (
        args.only.split(",") if args.only else [b.name for b in BENCHMARKS if not b.missing(__import__("halide_mlir"))]
    )
    if args.vs_halide:
        vs_halide(names, args.reps)
        return 0
    rows, pass_rows = {}, {}
    for name in names:
        try:
            rows[name], pass_rows[name] = profile(name, args.reps, int(args.threads), args.passes)
        except Exception as e:  # noqa: BLE001 -- an unsupported benchmark is listed, not fatal
            print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}", file=sys.stderr)
            continue
        r = rows[name]
        print(
            f"{name:20s} "
            + " ".join(f"{k}={v * 1e3:6.1f}" for k, v in r.items())
            + f"  total={sum(r.values()) * 1e3:6.1f} ms",
            flush=True,
        )
    if args.passes and pass_rows:
        keys = list(dict.fromkeys(k for r in pass_rows.values() for k in r))
        print(f"\n{'CPU ms per pass':36s}" + "".join(f"{n[:9]:>10s}" for n in pass_rows))
        for k in keys:
            print(f"{k[:36]:36s}" + "".join(f"{r.get(k, 0) * 1e3:10.1f}" for r in pass_rows.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
