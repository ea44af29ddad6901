"""Run the suite: Halide 21 and halide_mlir side by side on the same inputs.

Per benchmark:

1. make the inputs once (numpy), build the pipeline with ``halide`` and time ``compile_jit()`` (Halide's compile +
   JIT), realize once into an output buffer;
2. build the same program with ``halide_mlir``; its compile + JIT time is the first ``realize`` minus the median
   steady-state ``realize`` (compilation is specialized to the sizes and happens in the first realize);
   Halide is compiled first (see ``--ours-first``: the other order has crashed in some experiments);
3. time the two interleaved, A B A B ... for ``--rounds`` rounds (each sample is the mean of k back-to-back
   realizes into the same preallocated output, k chosen so one sample takes ~20 ms) and keep best and median;
   between samples both thread pools are left to go idle (SETTLE_S): an OpenMP worker still spinning after our
   sample (KMP_BLOCKTIME, 1 ms by default here) would otherwise take a core from Halide's next one, and back;
4. check the outputs agree (integers exactly, floats to rtol 1e-4 plus an absolute tolerance relative to the
   output's magnitude: Halide reorders float sums);
5. roofline: bytes = every input read once + the output written once, over the measured copy bandwidth; FLOPs
   (float pipelines) over the measured FMA peak; the bound is the larger of the two times; "% roof" = bound / time.

6. peak memory: what one more realize adds to the process's resident high-water mark, for each implementation
   (``peak_rss_delta_mib``).

``--suite apps`` runs Halide's apps of ``bench/apps.py`` instead of ``bench/suite.py``; their results go to
sections and JSON files of their own (``apps-threads=N``).

Ratios use the best times. A schedule halide_mlir rejects with HalideError is listed as "unsupported: <message>";
a benchmark needing something halide_mlir does not have (``requires``) is listed as skipped.
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

import numpy as np

from halide_mlir.runtime import jit
from halide_mlir.runtime.memory import aligned_empty

from . import machine
from .apps import APP_BENCHMARKS
from .suite import BENCHMARKS

SUITES = {"core": BENCHMARKS, "apps": APP_BENCHMARKS}
SUITES["all"] = BENCHMARKS + APP_BENCHMARKS
BY_NAME = {b.name: b for b in SUITES["all"]}

HERE = os.path.dirname(os.path.abspath(__file__))
SMOKE_SCALE = 1 / 16


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", default="all", help="1, N, or all (sets HL_NUM_THREADS before compiling)")
    p.add_argument("--smoke", action="store_true", help="tiny sizes, 2 rounds, no files unless --out (for CI)")
    p.add_argument(
        "--suite",
        default="core",
        choices=sorted(SUITES),
        help="core: bench/suite.py (the default); apps: Halide's apps of bench/apps.py, written to "
        "their own sections of RESULTS.md; all: both",
    )
    p.add_argument("--only", default=None, help="comma-separated benchmark names (of any suite)")
    p.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 15; 2 with --smoke)")
    p.add_argument(
        "--out",
        default=None,
        help="directory for RESULTS.md, ratios.png and the JSON results (default: bench/; with --smoke: none)",
    )
    p.add_argument("--no-chart", action="store_true", help="do not write ratios.png")
    p.add_argument(
        "--ours-first",
        action="store_true",
        help="compile halide_mlir before Halide for each benchmark (to test the crash of the other order)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=600,
        help="seconds per benchmark before the process dumps its Python stacks and exits (a hang, e.g. a "
        "deadlocked parallel loop, must not stall CI)",
    )
    p.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    return p.parse_args(argv)


# ---------------------------------------------------------------------------------------------------------------


def _first_line(e: BaseException) -> str:
    lines = [l.strip() for l in str(e).strip().splitlines() if l.strip()]
    text = " ".join(lines[:3]) if lines else type(e).__name__
    return text if len(text) < 300 else text[:297] + "..."


def compare(b, ref: np.ndarray, got: np.ndarray) -> tuple[bool, str]:
    if ref.shape != got.shape:
        return False, f"shape {got.shape} vs Halide {ref.shape}"
    if not b.float_output:
        d = np.abs(ref.astype(np.int64) - got.astype(np.int64))
        diff = int(np.max(d)) if ref.size else 0
        if diff <= b.int_atol:
            return True, "exact" if diff == 0 else f"max diff {diff}"
        beyond = int(np.count_nonzero(d > b.int_atol))
        return (
            beyond <= b.int_outliers * ref.size,
            f"max diff {diff}; {beyond} of {ref.size} values differ by more than {b.int_atol}",
        )
    r64, g64 = ref.astype(np.float64), got.astype(np.float64)
    if np.array_equal(r64, g64):
        return True, "bit-exact"
    scale = float(np.max(np.abs(r64[np.isfinite(r64)]))) if np.isfinite(r64).any() else 1.0
    atol = b.atol_rel * scale
    ok = bool(np.allclose(g64, r64, rtol=b.rtol, atol=atol, equal_nan=True))
    err = np.abs(g64 - r64) / (np.abs(r64) + atol)
    worst = float(np.nanmax(err)) if err.size else 0.0
    return ok, f"max err {worst:.1e} (rel, atol {b.atol_rel:g}*max)"


def _vm_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


def _malloc_trim() -> None:
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def peak_rss_delta_mib(fn):
    """Peak resident memory one steady-state realize adds to the process (MiB): the kernel's high-water mark is
    reset (``/proc/self/clear_refs``, Linux), then read after the call. Memory an allocator keeps from an earlier
    realize is returned to the kernel first (glibc's ``malloc_trim``), so it counts again; None where the kernel
    does not offer the reset."""
    try:
        time.sleep(SETTLE_S)
        _malloc_trim()
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = _vm_kib("VmRSS")
        fn()
        return max(0, _vm_kib("VmHWM") - before) / 1024
    except OSError:
        return None


SETTLE_S = 0.005  # > our OpenMP workers' spin (runtime/openmp.py) and Halide's thread pool's


def _sample(fn, k: int) -> float:
    time.sleep(SETTLE_S)
    t = time.perf_counter()
    for _ in range(k):
        fn()
    return (time.perf_counter() - t) / k


def _calibrate(fn, target_s: float) -> int:
    t = min(_sample(fn, 1) for _ in range(3))
    return max(1, min(100, int(math.ceil(target_s / max(t, 1e-7)))))


def _warm_up(hl) -> None:
    x = hl.Var("x")
    f = hl.Func("warm_up")
    f[x] = x * 2
    f.realize([8])


def _disk_cache_load_ms(b, ours, ins, engines_before: set) -> float:
    """What a second process pays instead of compiling: the same pipeline built again, with the engines the
    first realize made out of the in-memory cache, so its first realize links the object the disk cache
    (runtime/disk_cache.py; a fresh directory for this run, see main) stored. The engines are kept alive
    elsewhere (destroying one would tear down the runtime the others share)."""
    new = {k: jit._engines.pop(k) for k in set(jit._engines) - engines_before}
    try:
        f, sizes = b.build(ours, ins)
        t = time.perf_counter()
        f.realize(sizes)
        return (time.perf_counter() - t) * 1e3
    finally:
        _KEEP.append(new)


_KEEP: list = []


def _same_memory(hl, first):
    """An output buffer like ``first`` (the first realize's), on the same kind of memory for both
    implementations: a 128-byte aligned numpy array (numpy also asks the kernel for huge pages on large ones).
    Where each allocated its own, timings moved by 20% with which of the two allocated first (rgb_to_gray)."""
    arr = np.asarray(first)
    out = aligned_empty(arr.shape, arr.dtype)
    out[...] = arr
    return hl.Buffer(out), out  # (real Halide's Buffer does not keep the array alive)


def run_benchmark(
    b, halide, ours, scale: float, rounds: int, bw_gbs: float, peak_gflops: float, ours_first: bool, target_s: float
) -> dict:
    res = {"name": b.name, "description": b.description, "status": "ok", "message": ""}
    missing = b.missing(ours)
    if missing:
        res.update(status="skipped", message=f"{b.skip_reason} (halide_mlir has no {', '.join(missing)})")
        return res
    ins = b.inputs(scale)

    def build_halide():
        f, sizes = b.build(halide, ins)
        t = time.perf_counter()
        f.compile_jit()
        res["halide_compile_ms"] = (time.perf_counter() - t) * 1e3
        out, memory = _same_memory(halide, f.realize(sizes))
        f.realize(out)
        return f, sizes, out, memory

    def build_ours():
        try:
            f, sizes = b.build(ours, ins)
        except AttributeError as e:  # a schedule directive halide_mlir does not have
            raise ours.HalideError(f"missing API: {e}") from None
        engines = set(jit._engines)
        t = time.perf_counter()
        out = f.realize(sizes)
        res["_ours_first_ms"] = (time.perf_counter() - t) * 1e3
        res["_ours_load_ms"] = _disk_cache_load_ms(b, ours, ins, engines)
        out, memory = _same_memory(ours, out)
        f.realize(out)
        return f, sizes, out, memory

    halide_state = ours_state = None
    steps = [("halide", build_halide), ("ours", build_ours)]
    if ours_first:
        steps.reverse()
    for who, step in steps:
        try:
            state = step()
        except Exception as e:  # noqa: BLE001 - every failure is reported in the table
            if who == "halide":
                res.update(status="error", message=f"Halide: {type(e).__name__}: {_first_line(e)}")
                return res
            if isinstance(e, ours.HalideError):
                res.update(status="unsupported", message=f"unsupported: {_first_line(e)}")
            else:
                res.update(status="error", message=f"halide_mlir {type(e).__name__}: {_first_line(e)}")
                res["traceback"] = traceback.format_exc()
            state = None
        if who == "halide":
            halide_state = state
        else:
            ours_state = state

    hf, sizes, hout, _ = halide_state
    res["sizes"] = list(sizes)
    res["bytes"] = float(sum(a.nbytes for a in ins.values() if a.ndim > 1 or a.size > 8) + np.asarray(hout).nbytes)
    res["flops"] = float(b.flops(ins, sizes))
    t_mem = res["bytes"] / (bw_gbs * 1e9)
    t_fma = res["flops"] / (peak_gflops * 1e9)
    res["roofline_ms"] = max(t_mem, t_fma) * 1e3
    res["bound"] = "FMA" if t_fma > t_mem else "memory"

    run_h = lambda: hf.realize(hout)  # noqa: E731
    if ours_state is None:  # still time Halide alone
        k = _calibrate(run_h, target_s)
        th = [_sample(run_h, k) for _ in range(rounds)]
        res["halide_best_ms"], res["halide_median_ms"] = min(th) * 1e3, float(np.median(th)) * 1e3
        res["frac_halide"] = res["roofline_ms"] / res["halide_best_ms"]
        return res

    of, osizes, oout, _ = ours_state
    ok, why = compare(b, np.asarray(hout), np.asarray(oout))
    res["agree"], res["agree_msg"] = ok, why
    run_o = lambda: of.realize(oout)  # noqa: E731
    kh, ko = _calibrate(run_h, target_s), _calibrate(run_o, target_s)
    th, to = [], []
    for _ in range(rounds):
        th.append(_sample(run_h, kh))
        to.append(_sample(run_o, ko))
    res["halide_best_ms"], res["halide_median_ms"] = min(th) * 1e3, float(np.median(th)) * 1e3
    res["ours_best_ms"], res["ours_median_ms"] = min(to) * 1e3, float(np.median(to)) * 1e3
    res["ours_compile_ms"] = max(0.0, res.pop("_ours_first_ms") - res["ours_median_ms"])
    res["ours_load_ms"] = max(0.0, res.pop("_ours_load_ms") - res["ours_median_ms"])
    res["ratio"] = res["ours_best_ms"] / res["halide_best_ms"]
    res["frac_halide"] = res["roofline_ms"] / res["halide_best_ms"]
    res["frac_ours"] = res["roofline_ms"] / res["ours_best_ms"]
    res["halide_peak_mib"], res["ours_peak_mib"] = peak_rss_delta_mib(run_h), peak_rss_delta_mib(run_o)
    # check again after timing: a pipeline must give the same answer every call
    ok2, why2 = compare(b, np.asarray(hout), np.asarray(oout))
    if not (ok and ok2):
        res.update(status="mismatch", message=f"outputs differ: {why if not ok else why2}")
    return res


# ---------------------------------------------------------------------------------------------------------------


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def _ms(v):
    return "" if v is None else (f"{v:.3g}" if v < 10 else f"{v:.1f}")


def _pct(v):
    return "" if v is None else f"{100 * v:.0f}%"


def _mib(r):
    h, o = r.get("halide_peak_mib"), r.get("ours_peak_mib")
    return "" if h is None or o is None else f"{h:.1f} / {o:.1f}"


def table(results: list[dict]) -> str:
    head = (
        "| benchmark | Halide ms best / med | ours ms best / med | ours/Halide | compile Halide ms | "
        "compile ours ms (cold / disk cache) | roofline ms (bound) | % roof Halide | % roof ours | outputs |"
    )
    memory = any(r.get("halide_peak_mib") is not None for r in results)
    if memory:
        head += " peak RSS delta MiB Halide / ours |"
    rows = [head, "|" + "---|" * (11 if memory else 10)]
    for r in results:
        if r["status"] == "skipped":
            rows.append(f"| {r['name']} | | | | | | | | | skipped: {r['message']} |" + (" |" if memory else ""))
            continue
        h = f"{_ms(r.get('halide_best_ms'))} / {_ms(r.get('halide_median_ms'))}" if "halide_best_ms" in r else ""
        o = f"{_ms(r.get('ours_best_ms'))} / {_ms(r.get('ours_median_ms'))}" if "ours_best_ms" in r else ""
        ratio = f"**{r['ratio']:.2f}**" if "ratio" in r else ""
        roof = f"{_ms(r['roofline_ms'])} ({r['bound']})" if "roofline_ms" in r else ""
        if r["status"] == "ok":
            outputs = f"agree ({r['agree_msg']})"
        else:
            outputs = r["message"].replace("|", "\\|")
        compile_ours = (
            f"{_ms(r.get('ours_compile_ms'))} / {_ms(r.get('ours_load_ms'))}" if "ours_compile_ms" in r else ""
        )
        rows.append(
            f"| {r['name']} | {h} | {o} | {ratio} | {_ms(r.get('halide_compile_ms'))} | "
            f"{compile_ours} | {roof} | {_pct(r.get('frac_halide'))} | "
            f"{_pct(r.get('frac_ours'))} | {outputs} |" + (f" {_mib(r)} |" if memory else "")
        )
    return "\n".join(rows)


def git_revision() -> str:
    try:
        root = os.path.dirname(HERE)
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "halide_mlir"], cwd=root, capture_output=True, text=True, timeout=10
        ).stdout.strip()
        return rev + (" (+ uncommitted changes in halide_mlir/)" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def section(info: dict, results: list[dict]) -> str:
    ratios = [r["ratio"] for r in results if r["status"] == "ok" and "ratio" in r]
    g = geomean(ratios)
    lines = [
        ("## Halide's apps, " if info.get("suite") == "apps" else "## ")
        + f"threads = {info['threads']}"
        + (" (all cores)" if info["threads"] == info["cores"] else ""),
        "",
        f"- machine: {info['cpu']}, {info['cores']} cores{', AVX-512' if info['avx512'] else ''}; "
        f"HL_NUM_THREADS={info['threads']}",
        f"- date: {info['date']}; halide_mlir at {info['revision']}; {info['rounds']} interleaved rounds"
        f"{'; SMOKE sizes' if info.get('smoke') else ''}",
        f"- measured copy bandwidth {info['bandwidth_gbs']:.1f} GB/s; measured f32 FMA peak "
        f"{info['fma_peak_gflops']:.0f} GFLOP/s (see bench/machine.py)",
        "",
        table(results),
        "",
        f"**geomean ours/Halide = {g:.2f}** over {len(ratios)} benchmarks that ran under both "
        f"({sum(r['status'] == 'skipped' for r in results)} skipped, "
        f"{sum(r['status'] == 'unsupported' for r in results)} unsupported, "
        f"{sum(r['status'] in ('error', 'mismatch') for r in results)} errors/mismatches).",
    ]
    return "\n".join(lines)


HEADER = """# Benchmarks: halide_mlir vs Halide 21

Written by `python -m bench` (`bench/harness.py` says what is measured and how; the benchmarks are in
`bench/suite.py`, each written once against the `hl` module and run under both). Times are per `realize` into a
preallocated output; "ours/Halide" uses the best of the interleaved rounds (< 1 means halide_mlir is faster);
compile times are Halide's `compile_jit()` and halide_mlir's first `realize` minus a steady one, cold (empty disk
cache) and as a second process gets it (the object linked from the disk cache, no compilation); the roofline is
max(bytes moved / copy bandwidth, FLOPs / FMA peak), both measured on this machine at the same thread setting.
Timings are never test assertions.

![ours/Halide](ratios.png)
"""


def write_results(out_dir: str, info: dict, results: list[dict]) -> str:
    os.makedirs(out_dir, exist_ok=True)
    apps = "apps-" if info.get("suite") == "apps" else ""
    tag = f"{apps}threads={info['threads']}"
    with open(os.path.join(out_dir, f"results-{apps}threads{info['threads']}.json"), "w") as f:
        json.dump(
            {"machine": info, "results": [{k: v for k, v in r.items() if k != "traceback"} for r in results]},
            f,
            indent=1,
        )
    path = os.path.join(out_dir, "RESULTS.md")
    text = open(path).read() if os.path.exists(path) else HEADER
    block = f"<!-- begin {tag} -->\n{section(info, results)}\n<!-- end {tag} -->"
    pattern = re.compile(rf"<!-- begin {re.escape(tag)} -->.*?<!-- end {re.escape(tag)} -->", re.S)
    text = pattern.sub(lambda m: block, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + block
    # keep sections ordered by thread count, most threads first
    blocks = re.findall(r"<!-- begin threads=(\d+) -->.*?<!-- end threads=\1 -->", text, re.S)
    if blocks:
        found = {
            n: re.search(rf"<!-- begin threads={n} -->.*?<!-- end threads={n} -->", text, re.S).group(0) for n in blocks
        }
        head = text[: text.index("<!-- begin ")]
        # the studies' sections (bench/study.py) follow the thread sections and are kept as they are
        others = [m.group(0) for m in re.finditer(r"<!-- begin (?!threads=)(\S+) -->.*?<!-- end \1 -->", text, re.S)]
        text = (
            head.rstrip("\n") + "\n\n" + "\n\n".join([found[n] for n in sorted(found, key=int, reverse=True)] + others)
        )
    with open(path, "w") as f:
        f.write(text.rstrip("\n") + "\n")
    return path


def write_chart(out_dir: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = []
    for name in sorted(os.listdir(out_dir)):
        m = re.fullmatch(r"results-threads(\d+)\.json", name)
        if m:
            with open(os.path.join(out_dir, name)) as f:
                runs.append(json.load(f))
    runs.sort(key=lambda r: -r["machine"]["threads"])
    names = [b.name for b in BENCHMARKS]
    fig, ax = plt.subplots(figsize=(11, 4.8))
    width = 0.8 / max(1, len(runs))
    for i, run in enumerate(runs):
        by = {r["name"]: r for r in run["results"]}
        xs, ys = [], []
        for j, n in enumerate(names):
            r = by.get(n)
            if r and r.get("status") == "ok" and r.get("ratio"):
                xs.append(j + (i - (len(runs) - 1) / 2) * width)
                ys.append(r["ratio"])
        g = geomean(ys)
        bars = ax.bar(xs, ys, width, label=f"HL_NUM_THREADS={run['machine']['threads']} (geomean {g:.2f})")
        for x_, y_ in zip(xs, ys):
            ax.text(x_, y_, f"{y_:.2f}", ha="center", va="bottom", fontsize=7)
        del bars
    for j, n in enumerate(names):  # mark what did not run under both
        statuses = {r["name"]: r["status"] for run in runs for r in run["results"]}
        if statuses.get(n, "ok") != "ok":
            ax.text(j, 1.0, statuses[n], ha="center", va="bottom", rotation=90, fontsize=7, color="gray")
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter

    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if v in (0.5, 0.7, 1.5, 2, 3, 5) else ""))
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel("time ours / Halide 21 (log; < 1 = faster)")
    cpu = runs[0]["machine"]["cpu"] if runs else ""
    ax.set_title(f"halide_mlir vs Halide 21 — {cpu}, {runs[0]['machine']['date'] if runs else ''}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out_dir, "ratios.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ---------------------------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.list:
        for b in SUITES["all"]:
            print(f"{b.name:20s} {b.description}" + (f"   [requires {', '.join(b.requires)}]" if b.requires else ""))
        return 0
    selected = SUITES[args.suite]
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in BY_NAME]
        if unknown:
            print(f"unknown benchmark(s) {unknown}; known: {', '.join(BY_NAME)}", file=sys.stderr)
            return 2
        selected = [BY_NAME[n] for n in wanted]
    # the apps' results go to their own sections and JSON files, so a run of them leaves the core suite's alone
    suite = "apps" if all(getattr(b, "group", "core") == "apps" for b in selected) else "core"
    threads = (os.cpu_count() or 1) if args.threads == "all" else int(args.threads)
    # Both Halide's runtime and halide_mlir's compiler read HL_NUM_THREADS: set it before importing either.
    os.environ["HL_NUM_THREADS"] = str(threads)
    rounds = args.rounds or (2 if args.smoke else 15)
    scale = SMOKE_SCALE if args.smoke else 1.0
    out_dir = args.out or (None if args.smoke else HERE)
    warnings.filterwarnings("ignore", message="The floating-point value", category=RuntimeWarning)

    # every first compile is cold: a fresh disk cache for this run (its loads are measured separately)
    cache_dir = tempfile.TemporaryDirectory(prefix="halide-mlir-bench-cache-")
    os.environ["HALIDE_MLIR_CACHE"] = "1"
    os.environ["HALIDE_MLIR_CACHE_DIR"] = cache_dir.name

    import halide
    import halide_mlir

    info = machine.describe(threads)
    info.update(rounds=rounds, smoke=args.smoke, revision=git_revision(), suite=suite)
    print(
        f"{info['cpu']}, {info['cores']} cores, HL_NUM_THREADS={threads}, {rounds} rounds"
        f"{', smoke sizes' if args.smoke else ''}",
        flush=True,
    )
    # machine measurements first: the FMA-peak pipeline is compiled with Halide before any MLIR engine exists
    info["bandwidth_gbs"] = machine.bandwidth_gbs(
        threads, copy_mb=16 if args.smoke else 256, repeats=2 if args.smoke else 5
    )
    info["fma_peak_gflops"] = machine.fma_peak_gflops(
        halide, threads, steps=8 if args.smoke else 16, repeats=2 if args.smoke else 7
    )
    print(
        f"copy bandwidth {info['bandwidth_gbs']:.1f} GB/s, f32 FMA peak {info['fma_peak_gflops']:.0f} GFLOP/s",
        flush=True,
    )

    for hl in (halide, halide_mlir):  # one-time set-up (LLVM, MLIR's context) is not the first benchmark's compile
        _warm_up(hl)
    results = []
    for b in selected:
        t = time.perf_counter()
        print(f"  {b.name:20s} ...", end="\r", flush=True)
        faulthandler.dump_traceback_later(args.timeout, exit=True)
        r = run_benchmark(
            b,
            halide,
            halide_mlir,
            scale,
            rounds,
            info["bandwidth_gbs"],
            info["fma_peak_gflops"],
            args.ours_first,
            target_s=0.002 if args.smoke else 0.02,
        )
        faulthandler.cancel_dump_traceback_later()
        results.append(r)
        summary = r["message"] or (
            f"Halide {r['halide_best_ms']:.3f} ms, ours {r['ours_best_ms']:.3f} ms, "
            f"ratio {r['ratio']:.2f}, {r['agree_msg']}"
        )
        print(f"  {b.name:20s} {r['status']:11s} {summary}  [{time.perf_counter() - t:.1f} s]", flush=True)
        if "traceback" in r:
            print(r["traceback"], file=sys.stderr)

    print()
    print(section(info, results))
    code = 1 if any(r["status"] in ("error", "mismatch") for r in results) else 0
    if out_dir:
        print(f"\nwrote {write_results(out_dir, info, results)}")
        if not args.no_chart:
            try:
                print(f"wrote {write_chart(out_dir)}")
            except ImportError:
                msg = "matplotlib is not installed (pip install -e '.[bench]'): no chart"
                print(msg, file=sys.stderr)
                if not args.smoke:
                    code = code or 1
    return code
