"""``python -m bench.compile_time [--only NAMES] [--threads N] [--reps N] [--passes]``: where a first compile goes.

Each benchmark of bench/suite.py is compiled ``--reps`` times in one process (the disk cache off, the in-memory
caches cleared between compiles) and the best CPU time of each phase is printed, in ms:

  front     bounds inference, payload and transform script (Python)
  schedule  parsing both and running ``@__transform_main`` (transform interpreter)
  bufferize one-shot-bufferize, the unrolls (``@halide_unroll``), clean-up
  lower     the lowering pass pipeline to the LLVM dialect (runtime/jit.py lower)
  llvm      ExecutionEngine: translation, LLVM -O3, machine code

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
            steps = (_split(lowering.BUFFERIZE) + ["@" + UNROLL_SEQUENCE] + _split(lowering.AFTER_BUFFERIZE)
                     + _split(hoist) + ["heap_allocations"] + _split(loops) + ["hoist_static_allocas"] + _split(after)
                     + ["keep_masked_store_values", "compile_body_once"])
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


def main(argv=None) -> int:
    from bench.suite import BENCHMARKS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="comma-separated benchmark names")
    ap.add_argument("--threads", default="2")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--passes", action="store_true", help="also CPU ms per MLIR pass")
    args = ap.parse_args(argv)
    os.environ["HL_NUM_THREADS"] = args.threads
    names = args.only.split(",") if args.only else \
        [b.name for b in BENCHMARKS if not b.missing(__import__("halide_mlir"))]
    rows, pass_rows = {}, {}
    for name in names:
        try:
            rows[name], pass_rows[name] = profile(name, args.reps, int(args.threads), args.passes)
        except Exception as e:  # noqa: BLE001 -- an unsupported benchmark is listed, not fatal
            print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}", file=sys.stderr)
            continue
        r = rows[name]
        print(f"{name:20s} " + " ".join(f"{k}={v * 1e3:6.1f}" for k, v in r.items())
              + f"  total={sum(r.values()) * 1e3:6.1f} ms", flush=True)
    if args.passes and pass_rows:
        keys = list(dict.fromkeys(k for r in pass_rows.values() for k in r))
        print(f"\n{'CPU ms per pass':36s}" + "".join(f"{n[:9]:>10s}" for n in pass_rows))
        for k in keys:
            print(f"{k[:36]:36s}" + "".join(f"{r.get(k, 0) * 1e3:10.1f}" for r in pass_rows.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
