"""Autotuner vs hand-written schedules on the bench suite (issue 7): ``python -m bench.autotune_run``.

Per benchmark: autotune the halide_mlir pipeline for a fixed budget (the search starts from the suite's inputs;
the hand-written schedule is only measured, never used as a seed), then time in one process, interleaved
A B C A B C ...: halide_mlir with the hand-written schedule, halide_mlir with the autotuned schedule, and Halide 21
with the hand-written schedule (Halide compiled first, as the harness does). Each sample is the mean of k realizes
(k so a sample takes ~20 ms). Writes bench/autotune_results.md, bench/autotune_<bench>.png and a JSON next to them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np

from .harness import _calibrate, _sample, compare
from .suite import BY_NAME

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = "blur_f32,blur_u8,rgb_to_gray,lesson8_compute_at,lesson8_mixed,matmul,hist_eq"


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip().split("load average:")[-1]
    except OSError:
        return "?"


def run_one(name: str, scale: float, budget: float, rounds: int, seed: int, cache_dir) -> dict:
    import halide_mlir as hl
    from halide_mlir.autotune import autotune
    from halide_mlir.autotune.space import apply_plan, pipeline_funcs

    b = BY_NAME[name]
    ins = b.inputs(scale)
    res = {"name": name, "budget_s": budget, "load_before": uptime()}
    f_hand, sizes = b.build(hl, ins)
    res["sizes"] = sizes
    print(f"== {name} {sizes}: autotuning for {budget:.0f} s (load {res['load_before']})", file=sys.stderr)
    r = autotune(f_hand, sizes, budget_s=budget, seed=seed, cache_dir=cache_dir, progress=True)
    res.update(
        best_search=r.best_time,
        given_search=r.baseline_time,
        counts=r.counts,
        errors=r.errors,
        history=r.history,
        code=r.schedule_code,
        tried=len(r.evaluations),
        search_s=r.search_s,
        evals=[(e["t"], e["time"]) for e in r.evaluations],
    )
    res["load_after_search"] = uptime()

    # the A/B/C timing, one process
    import halide

    h_f, _ = b.build(halide, ins)
    h_f.compile_jit()
    h_out = halide.Buffer(h_f.type(), sizes)
    h_f.realize(h_out)
    f_tuned, _ = b.build(hl, ins)
    apply_plan(pipeline_funcs(f_tuned), r.plan)
    outs = {"hand": hl.Buffer(f_hand.output_type(), sizes), "tuned": hl.Buffer(f_tuned.output_type(), sizes)}
    funcs = {"hand": f_hand, "tuned": f_tuned}
    ref = np.asarray(h_out)
    runs = {"halide": lambda: h_f.realize(h_out)}
    for k, o in outs.items():
        try:
            funcs[k].realize(o)
        except hl.HalideError as e:
            res[f"agree_{k}"] = "HalideError: " + str(e).strip().splitlines()[-1][:200]
            continue
        ok, why = compare(b, ref, np.asarray(o))
        res[f"agree_{k}"] = why if ok else f"MISMATCH {why}"
        runs[k] = (lambda f, o: lambda: f.realize(o))(funcs[k], o)
    ks = {k: _calibrate(fn, 0.02) for k, fn in runs.items()}
    samples = {k: [] for k in runs}
    for _ in range(rounds):
        for k, fn in runs.items():
            samples[k].append(_sample(fn, ks[k]))
    for k in ("halide", "hand", "tuned"):
        s = samples.get(k)
        res[f"{k}_best"], res[f"{k}_med"] = (min(s), float(np.median(s))) if s else (None, None)
    res["load_after"] = uptime()
    return res


def plot(res: dict, out_dir: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    pts = [(t, v * 1e3) for t, v in res["evals"] if v is not None]
    if pts:
        ax.scatter(*zip(*pts), s=6, alpha=0.35, color="gray", label="candidates (valid)")
    hist = [(t, v * 1e3) for t, v in res["history"] if v is not None]
    if hist:
        ax.step(*zip(*hist), where="post", color="C0", lw=2, label="best so far (search)")
    if res.get("given_search"):
        ax.axhline(res["given_search"] * 1e3, color="C3", ls="--", label="hand-written (search worker)")
    ax.set_xlabel("search time (s)")
    ax.set_ylabel("time per realize (ms)")
    if hist:
        top = max([hist[0][1]] + ([res["given_search"] * 1e3] if res.get("given_search") else []))
        ax.set_ylim(0, top * 1.6)
    ax.set_title(f"autotune {res['name']} {'x'.join(map(str, res['sizes']))}, budget {res['budget_s']:.0f} s")
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = os.path.join(out_dir, f"autotune_{res['name']}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def report(all_res: dict, out_dir: str, budget: float) -> str:
    ms = lambda v: "-" if v is None else f"{v * 1e3:.3g}"  # noqa: E731
    ratio = lambda a, b: "-" if a is None or b is None else f"{a / b:.2f}"  # noqa: E731
    rows = [
        "| benchmark | size | hand-written ours ms best / med | autotuned ours ms best / med | "
        "hand / tuned | Halide 21 (hand) ms best / med | tuned / Halide | tried (rejected) | outputs |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in all_res.items():
        rows.append(
            f"| {name} | {'x'.join(map(str, r['sizes']))} | {ms(r['hand_best'])} / {ms(r['hand_med'])} | "
            f"{ms(r['tuned_best'])} / {ms(r['tuned_med'])} | **{ratio(r['hand_best'], r['tuned_best'])}** | "
            f"{ms(r['halide_best'])} / {ms(r['halide_med'])} | {ratio(r['tuned_best'], r['halide_best'])} | "
            f"{r['tried']} ({r['counts'].get('rejected', 0)}) | hand {r['agree_hand']}, tuned "
            f"{r['agree_tuned']} |"
        )
    text = [
        __doc__.split("\n\n")[0].replace("``", "`"),
        "",
        f"Budget: {budget:.0f} s of search per benchmark (plus the reference and the given schedule, measured "
        f"first), genetic search with seed 0, HL_NUM_THREADS unset (2 threads), sizes as in `bench/suite.py` at "
        f"scale 1 (matmul at 0.5: 512^3). The final numbers are 7 interleaved rounds (hand, tuned, Halide) in "
        f'one process after the search; each sample is the mean of k realizes (~20 ms). "hand / tuned" > 1 '
        f"means the autotuned schedule is faster than the suite's hand-written one (both halide_mlir).",
        "",
        "The machine is shared with other agents (2 cores): load averages (1/5/15 min) are listed per "
        "benchmark; medians are far above the bests when the load is high.",
        "",
        *rows,
        "",
    ]
    for name, r in all_res.items():
        text += [
            f"### {name}",
            "",
            f"![{name}](autotune_{name}.png)",
            "",
            f"load before search {r['load_before']}, after {r['load_after']}; search: {r['tried']} schedules in "
            f"{r['search_s']:.0f} s, {r['counts']}; best in the search worker {ms(r['best_search'])} ms vs "
            f"the given schedule {ms(r['given_search']) if r['given_search'] else '-'} ms.",
            "",
        ]
        for status, msgs in (r.get("errors") or {}).items():
            text.append(f"- rejected as {status}, e.g. `{str(msgs[0])[:200]}`")
        text += ["", "```python", r["code"].rstrip(), "```", ""]
    path = os.path.join(out_dir, "autotune_results.md")
    with open(path, "w") as f:
        f.write("# Autotuner vs hand-written schedules\n\n" + "\n".join(text))
    return path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.autotune_run")
    p.add_argument("--only", default=DEFAULT)
    p.add_argument("--budget", type=float, default=90)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cache-dir", default=None)
    p.add_argument("--out", default=HERE)
    p.add_argument("--report-only", action="store_true", help="rewrite the markdown from the JSON")
    p.add_argument("--scale-for", default="matmul=0.5", help="per-benchmark scale overrides, name=s,...")
    args = p.parse_args(argv)
    overrides = dict(kv.split("=") for kv in args.scale_for.split(",") if kv)
    path = os.path.join(args.out, "autotune_results.json")
    all_res = json.load(open(path)) if os.path.exists(path) else {}
    if args.report_only:
        print(report(all_res, args.out, args.budget))
        return 0
    for name in args.only.split(","):
        res = run_one(name, float(overrides.get(name, args.scale)), args.budget, args.rounds, args.seed, args.cache_dir)
        all_res[name] = res
        with open(path, "w") as f:
            json.dump(all_res, f, indent=1, default=str)
        plot(res, args.out)
        ms = lambda k: "-" if res[k] is None else f"{res[k] * 1e3:.3f}"  # noqa: E731
        report(all_res, args.out, args.budget)
        print(f"{name}: hand {ms('hand_best')} tuned {ms('tuned_best')} Halide {ms('halide_best')} ms", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
