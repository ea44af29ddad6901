"""``python -m bench.autoschedule [--smoke] [--only NAME,...] [--rounds N] [--threads N|all]``: the built-in
autoscheduler (``Pipeline.apply_autoscheduler``, halide_mlir/autotune/autoschedule.py) against the hand-written
schedules.

Each benchmark of bench/suite.py runs three ways, interleaved, best of N: Halide 21 with the hand schedule,
halide_mlir with the hand schedule, and halide_mlir with every schedule replaced by the autoscheduler's. Outputs are
checked against Halide's. Writes the table into bench/RESULTS.md between ``<!-- begin autoschedule -->`` markers
(bench/study.py).
"""

from __future__ import annotations

import sys

import numpy as np

from bench import study


def run(b, halide, hl, scale: float, rounds: int, target_s: float, threads: int) -> dict:
    from bench.harness import compare

    res = {"name": b.name, "status": "ok", "message": ""}
    ins = b.inputs(scale)
    hf, sizes = b.build(halide, ins)
    hf.compile_jit()
    hout = hf.realize(sizes)
    try:
        hand, _ = b.build(hl, ins)
        hand_out = hand.realize(sizes)
        auto, _ = b.build(hl, ins)
        result = hl.Pipeline(auto).apply_autoscheduler(
            hl.get_host_target(), hl.AutoschedulerParams("halide_mlir", {"parallelism": threads})
        )
        res["schedule"] = result.schedule_source
        auto_out = auto.realize(sizes)
    except hl.HalideError as e:
        return {**res, "status": "unsupported", "message": str(e).splitlines()[0]}
    for what, out in (("hand", hand_out), ("auto", auto_out)):
        ok, why = compare(b, np.asarray(hout), np.asarray(out))
        if not ok:
            return {**res, "status": "mismatch", "message": f"{what}: {why}"}
    runs = {
        "halide": lambda: hf.realize(hout),
        "hand": lambda: hand.realize(hand_out),
        "auto": lambda: auto.realize(auto_out),
    }
    res.update({f"{m}_ms": ms for m, ms in study.interleaved(runs, rounds, target_s).items()})
    return res


def table(results: list[dict]) -> str:
    from bench.harness import geomean

    lines = [
        "| benchmark | Halide hand ms | ours hand ms | ours autoscheduled ms | auto / ours hand | auto / Halide hand |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        if r["status"] != "ok":
            lines.append(f"| {r['name']} | {r['status']}: {r['message']} | | | | |")
            continue
        lines.append(
            f"| {r['name']} | {r['halide_ms']:.2f} | {r['hand_ms']:.2f} | {r['auto_ms']:.2f} | "
            f"{r['auto_ms'] / r['hand_ms']:.2f} | {r['auto_ms'] / r['halide_ms']:.2f} |"
        )
    ok = [r for r in results if r["status"] == "ok"]
    lines += [
        "",
        f"**geomean autoscheduled / hand-scheduled (ours): "
        f"{geomean([r['auto_ms'] / r['hand_ms'] for r in ok]):.2f}; autoscheduled / Halide hand: "
        f"{geomean([r['auto_ms'] / r['halide_ms'] for r in ok]):.2f}** ({len(ok)} benchmarks; < 1: the "
        f"autoscheduler is faster)",
        "",
        "<details><summary>the autoscheduler's schedules</summary>",
        "",
    ]
    for r in ok:
        lines += [f"`{r['name']}`:", "```python", r["schedule"].rstrip("\n"), "```"]
    lines += ["</details>"]
    return "\n".join(lines)


def main(argv=None) -> int:
    return study.main(
        argv,
        "bench.autoschedule",
        __doc__,
        "autoschedule",
        "Autoscheduler vs hand-written schedules",
        run,
        table,
        lambda r: (
            f"Halide hand {r['halide_ms']:.2f} ms, ours hand {r['hand_ms']:.2f} ms, ours auto {r['auto_ms']:.2f} ms"
        ),
        default_threads="all",
    )


if __name__ == "__main__":
    sys.exit(main())
