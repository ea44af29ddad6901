"""What bench/vectorization.py and bench/autoschedule.py share: a study that runs each benchmark of the suite a few
ways, prints a table and writes it into its own section of bench/RESULTS.md."""

from __future__ import annotations

import argparse
import os
import re
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))


def skipped(b, hl) -> dict | None:
    if b.missing(hl):
        return {"name": b.name, "status": "skipped", "message": b.skip_reason}
    return None


def best_ms(fn, rounds: int, target_s: float) -> list[float]:
    """``rounds`` samples of ``fn``'s time in ms, each averaged over enough calls to last ``target_s``."""
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


def interleaved(runs: dict, rounds: int, target_s: float) -> dict:
    """Best time in ms of each of ``runs``, sampled A B C A B C ... so machine drift hits them alike."""
    samples = {m: [] for m in runs}
    for _ in range(rounds):
        for m, fn in runs.items():
            samples[m] += best_ms(fn, 1, target_s)
    return {m: min(s) for m, s in samples.items()}


def write_section(marker: str, title: str, prog: str, info: str, table: str) -> str:
    """Replace (or append) the ``<!-- begin marker -->`` section of bench/RESULTS.md."""
    path = os.path.join(HERE, "RESULTS.md")
    text = open(path).read()
    block = (
        f"<!-- begin {marker} -->\n## {title}\n\nWritten by `python -m {prog}` (its docstring says what is "
        f"measured). {info}\n\n{table}\n<!-- end {marker} -->"
    )
    pattern = re.compile(rf"<!-- begin {marker} -->.*?<!-- end {marker} -->", re.S)
    text = pattern.sub(lambda m: block, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + block
    with open(path, "w") as f:
        f.write(text.rstrip("\n") + "\n")
    return path


def main(argv, prog: str, doc: str, marker: str, title: str, run, table, summary, default_threads: str) -> int:
    """``run(b, halide, hl, scale, rounds, target_s, threads) -> dict`` per benchmark (``status`` ok, skipped,
    unsupported or mismatch, ``message``), ``table(results) -> str``, ``summary(result) -> str`` (one line)."""
    ap = argparse.ArgumentParser(prog=f"python -m {prog}", description=doc.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, 2 rounds, no RESULTS.md")
    ap.add_argument("--only", help="comma-separated benchmark names")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--threads", default=default_threads, help="a number or 'all'")
    args = ap.parse_args(argv)
    threads = (os.cpu_count() or 1) if args.threads == "all" else int(args.threads)
    os.environ["HL_NUM_THREADS"] = str(threads)  # read by both Halide's runtime and halide_mlir's compiler
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
        r = skipped(b, hl) or run(
            b, halide, hl, SMOKE_SCALE if args.smoke else 1.0, rounds, 0.002 if args.smoke else 0.05, threads
        )
        results.append(r)
        msg = r["message"] or summary(r)
        print(f"  {b.name:20s} {r['status']:11s} {msg}  [{time.perf_counter() - t:.1f} s]", flush=True)
    print()
    print(table(results))
    if not args.smoke:
        info = (
            f"{machine.cpu_model()}, HL_NUM_THREADS={threads}, {rounds} interleaved rounds, "
            f"{time.strftime('%Y-%m-%d')}, halide_mlir at {git_revision()}."
        )
        print(f"\nwrote {write_section(marker, title, prog, info, table(results))}")
    return 1 if any(r["status"] == "mismatch" for r in results) else 0
