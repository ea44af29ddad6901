"""``python -m bench.math_functions [--only exp,log] [--types f32,f64] [--rounds N] [--threads N] [--size N]
[--smoke] [--write]``: Halide's math functions, halide_mlir vs Halide 21, side by side in one process.

Per function and type: ``out[x, y] = fn(in[x, y])`` (two inputs for pow and atan2) over a size x size image
(1024 x 1024 by default), scheduled ``vectorize(x, natural width).parallel(y)`` in both, realized into the same
preallocated 128-byte aligned output (bench/harness.py's ``_same_memory``), HL_NUM_THREADS threads for both
(2 by default). Timing as in bench/harness.py: A B A B ... interleaved rounds, each sample the mean of enough
back-to-back realizes to last ~20 ms, best of the rounds. Inputs are drawn over each function's useful range
(``RANGES``). The ulp columns are each implementation's largest error on those inputs against numpy evaluated in
float64 (rounded: a correctly rounded float32 result is within 0.5 ulp of it); f64 rows are measured against
numpy's own f64 result (libm), so they say "within n ulp of libm" (erf's reference is Python's math.erf). A
function halide_mlir does not have would have Halide's time alone. ``--write`` puts the table into bench/RESULTS.md
(``<!-- begin math_functions -->``).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings

import numpy as np

F32_WIDTH, F64_WIDTH = 16, 8  # one zmm (AVX-512), as Halide's natural vector width on this machine


def _uniform(lo, hi):
    return lambda rng, n, dt: rng.uniform(lo, hi, n).astype(dt)


def _log_uniform(lo_exp, hi_exp, signed=False):
    def gen(rng, n, dt):
        v = 10.0 ** rng.uniform(lo_exp, hi_exp, n)
        if signed:
            v *= rng.choice([-1.0, 1.0], n)
        return v.astype(dt)

    return gen


# function -> (arity, input generators (one per argument), numpy reference in float64)
RANGES = {
    "exp": (1, [_uniform(-87, 88)], np.exp),
    "log": (1, [_log_uniform(-30, 30)], np.log),
    "pow": (2, [_log_uniform(-3, 3), _uniform(-10, 10)], np.power),
    "sin": (1, [_uniform(-100, 100)], np.sin),
    "cos": (1, [_uniform(-100, 100)], np.cos),
    "tan": (1, [_uniform(-100, 100)], np.tan),
    "asin": (1, [_uniform(-1, 1)], np.arcsin),
    "acos": (1, [_uniform(-1, 1)], np.arccos),
    "atan": (1, [_log_uniform(-5, 5, signed=True)], np.arctan),
    "atan2": (2, [_uniform(-100, 100), _uniform(-100, 100)], np.arctan2),
    "sinh": (1, [_uniform(-88, 88)], np.sinh),
    "cosh": (1, [_uniform(-88, 88)], np.cosh),
    "tanh": (1, [_uniform(-10, 10)], np.tanh),
    "erf": (1, [_uniform(-5, 5)], np.frompyfunc(math.erf, 1, 1)),
    "sqrt": (1, [_log_uniform(-30, 30)], np.sqrt),
    "floor": (1, [_uniform(-1000, 1000)], np.floor),
    "ceil": (1, [_uniform(-1000, 1000)], np.ceil),
    "round": (1, [_uniform(-1000, 1000)], np.round),  # both round half to even
    "trunc": (1, [_uniform(-1000, 1000)], np.trunc),
    "fast_exp": (1, [_uniform(-87, 88)], np.exp),
    "fast_log": (1, [_log_uniform(-30, 30)], np.log),
    "fast_pow": (2, [_log_uniform(-3, 3), _uniform(-10, 10)], np.power),
    "fast_sin": (1, [_uniform(-100, 100)], np.sin),
    "fast_cos": (1, [_uniform(-100, 100)], np.cos),
    "fast_inverse": (1, [_log_uniform(-30, 30, signed=True)], lambda v: 1 / v),
    "fast_inverse_sqrt": (1, [_log_uniform(-30, 30)], lambda v: 1 / np.sqrt(v)),
}
F64 = ("exp", "log", "pow", "sin", "cos", "tan", "atan", "tanh")  # f64 rows (fast_* are f32 only in Halide)


def inputs(name: str, dtype, size: int, seed: int = 1234) -> list[np.ndarray]:
    _, gens, _ = RANGES[name]
    rng = np.random.default_rng(seed)
    return [g(rng, size * size, dtype).reshape(size, size) for g in gens]


def build(hl, name: str, arrays: list[np.ndarray]):
    """``out[x, y] = name(in0[x, y], ...)``, vectorized at the natural width and parallel over rows."""
    x, y = hl.Var("x"), hl.Var("y")
    bufs = [hl.Buffer(a, f"in{i}") for i, a in enumerate(arrays)]
    f = hl.Func(f"{name}_out")
    f[x, y] = getattr(hl, name)(*[b[x, y] for b in bufs])
    f.vectorize(x, F32_WIDTH if arrays[0].dtype == np.float32 else F64_WIDTH).parallel(y)
    return f


def ulp_error(got: np.ndarray, ref: np.ndarray, dtype) -> float:
    """Largest |got - ref| in units of the last place of ``dtype`` at ``ref`` (ref in float64); a wrong inf or
    nan counts as inf."""
    got = got.astype(np.float64).ravel()
    ref = ref.astype(np.float64).ravel()
    with np.errstate(over="ignore"):
        rounded = ref.astype(dtype).astype(np.float64)  # beyond dtype's range: inf
    same = (got == ref) | (got == rounded) | (np.isnan(got) & np.isnan(ref))
    bad = ~same & ~(np.isfinite(got) & np.isfinite(rounded))
    if bad.any():
        return math.inf
    rounded = np.abs(ref).astype(dtype)
    with np.errstate(over="ignore"):
        spacing = np.spacing(rounded).astype(np.float64)
    spacing = np.where(np.isfinite(spacing), spacing, np.spacing(np.finfo(dtype).max))
    err = np.where(same, 0.0, np.abs(got - ref) / spacing)
    return float(err.max()) if err.size else 0.0


def reference(name: str, arrays: list[np.ndarray]) -> np.ndarray | None:
    fn = RANGES[name][2]
    if fn is None:
        return None
    with np.errstate(all="ignore"):
        return np.asarray(fn(*[a.astype(np.float64) for a in arrays]), dtype=np.float64)


def run_one(halide, ours, name: str, dtype, size: int, rounds: int, target_s: float) -> dict:
    from bench.harness import _calibrate, _same_memory, _sample

    tname = "f32" if dtype == np.float32 else "f64"
    res = {"name": name, "type": tname}
    arrays = inputs(name, dtype, size)
    ref = reference(name, arrays)
    hf = build(halide, name, arrays)
    hf.compile_jit()
    hout, hmem = _same_memory(halide, hf.realize([size, size]))
    hf.realize(hout)
    res["halide_ulp"] = ulp_error(hmem, ref, dtype) if ref is not None else None

    def run_h():
        return hf.realize(hout)

    if not hasattr(ours, name):
        res["message"] = f"halide_mlir has no {name}"
        k = _calibrate(run_h, target_s)
        res["halide_ms"] = min(_sample(run_h, k) for _ in range(rounds)) * 1e3
        return res
    of = build(ours, name, arrays)
    oout, omem = _same_memory(ours, of.realize([size, size]))
    of.realize(oout)
    res["ours_ulp"] = ulp_error(omem, ref, dtype) if ref is not None else None
    res["vs_halide_ulp"] = ulp_error(omem, hmem.astype(np.float64), dtype)

    def run_o():
        return of.realize(oout)

    kh, ko = _calibrate(run_h, target_s), _calibrate(run_o, target_s)
    th, to = [], []
    for _ in range(rounds):
        th.append(_sample(run_h, kh))
        to.append(_sample(run_o, ko))
    res["halide_ms"], res["ours_ms"] = min(th) * 1e3, min(to) * 1e3
    res["ratio"] = res["ours_ms"] / res["halide_ms"]
    return res


def _ulp(v) -> str:
    if v is None:
        return ""
    return "inf" if math.isinf(v) else f"{v:.3g}"


def table(results: list[dict]) -> str:
    lines = [
        (
            "| function | type | ours ms | Halide ms | ours/Halide | ours max ulp | Halide max ulp | "
            "ours vs Halide max ulp |"
        ),
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        if "ours_ms" not in r:
            lines.append(
                f"| {r['name']} | {r['type']} | {r.get('message', '')} | {r['halide_ms']:.3f} | | | "
                f"{_ulp(r.get('halide_ulp'))} | |"
            )
            continue
        lines.append(
            f"| {r['name']} | {r['type']} | {r['ours_ms']:.3f} | {r['halide_ms']:.3f} | "
            f"**{r['ratio']:.2f}** | {_ulp(r.get('ours_ulp'))} | {_ulp(r.get('halide_ulp'))} | "
            f"{_ulp(r.get('vs_halide_ulp'))} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.math_functions", description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated function names")
    ap.add_argument("--types", default="f32,f64", help=f"f32, f64 or both (f64 rows: {', '.join(F64)})")
    ap.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 9; 2 with --smoke)")
    ap.add_argument("--threads", default="2", help="HL_NUM_THREADS for both (a number or 'all')")
    ap.add_argument("--size", type=int, default=None, help="image side (default 1024; 64 with --smoke)")
    ap.add_argument("--smoke", action="store_true", help="small sizes, 2 rounds")
    ap.add_argument("--write", action="store_true", help="write the table into bench/RESULTS.md")
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)
    threads = (os.cpu_count() or 1) if args.threads == "all" else int(args.threads)
    os.environ["HL_NUM_THREADS"] = str(threads)  # read by both Halide's runtime and halide_mlir's compiler
    warnings.filterwarnings("ignore", message="The floating-point value", category=RuntimeWarning)
    import halide

    import halide_mlir
    from bench import machine, study
    from bench.harness import git_revision

    size = args.size or (64 if args.smoke else 1024)
    rounds = args.rounds or (2 if args.smoke else 9)
    names = args.only.split(",") if args.only else list(RANGES)
    types = args.types.split(",")
    results = []
    for tname in ("f32", "f64"):
        if tname not in types:
            continue
        for name in names:
            if tname == "f64" and name not in F64:
                continue
            t = time.perf_counter()
            r = run_one(
                halide,
                halide_mlir,
                name,
                np.float32 if tname == "f32" else np.float64,
                size,
                rounds,
                0.002 if args.smoke else 0.02,
            )
            results.append(r)
            summary = r.get("message") or (
                f"ours {r['ours_ms']:.3f} ms, Halide {r['halide_ms']:.3f} ms, ratio {r['ratio']:.2f}"
            )
            print(f"  {name:9s} {tname} {summary}  [{time.perf_counter() - t:.1f} s]", flush=True)
    print()
    print(table(results))
    if args.write:
        info = (
            f"{machine.cpu_model()}, HL_NUM_THREADS={threads}, {size}x{size}, {rounds} interleaved rounds, "
            f"{time.strftime('%Y-%m-%d')}, halide_mlir at {git_revision()}."
        )
        path = study.write_section("math_functions", "Math functions", "bench.math_functions", info, table(results))
        print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
