"""``python -m bench.directives [--rounds N] [--threads N] [--only NAME,...]``: rfactor and specialize, ours vs Halide.

* ``hist_rfactor_par``: lesson 18's ``hist_rfactor_par`` on a 1536x1024 u8 image, 256 bins: the histogram's update
  ``rfactor``'d over r.y (``intermediate.compute_root().update().parallel(y)``), both Funcs ``vectorize(x, 8)``.
* ``sum_rfactor_par_vec``: the sum of a 2048x1536 f32 image, r.x split by 16 and r.y by 64, ``rfactor`` of (rxi, u)
  and (ryo, v): the intermediate's update vectorized over u (16 partial sums per lane) and parallel over v.
* ``blur_spec_w16`` / ``blur_spec_w13``: a 3x3 u16 blur whose output ``specialize(width % 16 == 0)`` s to an
  unmasked ``vectorize(x, 16)``, otherwise ``vectorize(x, 16, GuardWithIf)``; rows in parallel strips of 32 with
  blur_x computed per strip. Measured at an output width of 3072 (the specialization holds) and 3069 (it does not);
  ``blur_nospec_w16`` is the same blur at 3072 without the specialization (GuardWithIf everywhere), and
  ``blur_prefetch_w16`` that one with ``blur_x.prefetch(input, y, y, 2)`` (the input row two rows ahead). Halide
  21 removes a prefetch of an ImageParam given through its Python bindings ("Removing prefetch of input_im ...
  since the prefetched area will always be empty": the directive names the parameter's buffer, not what the
  Func reads), so its column there is the blur without a prefetch.

Both implementations run the same schedule on the same input with the same threads, interleaved, best of N;
outputs are checked equal (the float sum to rtol 1e-4: the rfactor'd order differs from a serial sum).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

_INPUTS: dict = {}


def _hist(m):
    inp = m.Buffer(_INPUTS["u8"], "input")
    x, y = m.Var("x"), m.Var("y")
    hist = m.Func("hist_rfactor_par")
    hist[x] = 0
    r = m.RDom([(0, inp.width()), (0, inp.height())])
    hist[m.cast(m.Int(32), inp[r.x, r.y])] += 1
    intm = hist.update().rfactor([(r.y, y)])
    intm.compute_root().update().parallel(y)
    intm.vectorize(x, 8)
    hist.vectorize(x, 8)
    return hist, [256]


def _sum(m):
    inp = m.Buffer(_INPUTS["f32"], "input")
    x, u, v = m.Var("x"), m.Var("u"), m.Var("v")
    rxo, rxi, ryo, ryi = m.RVar("rxo"), m.RVar("rxi"), m.RVar("ryo"), m.RVar("ryi")
    total = m.Func("sum_rfactor")
    total[x] = m.f32(0)
    r = m.RDom([(0, inp.width()), (0, inp.height())])
    total[x] += inp[r.x, r.y]
    total.update().split(r.x, rxo, rxi, 16).split(r.y, ryo, ryi, 64)
    intm = total.update().rfactor([(rxi, u), (ryo, v)])
    intm.compute_root().vectorize(u, 16)
    intm.update().reorder(u, rxo, ryi, v).vectorize(u, 16).parallel(v)
    return total, [1]


def _blur(m, width, specialized, prefetch=False):
    inp = m.ImageParam(m.UInt(16), 2, "input")
    x, y, yo, yi = m.Var("x"), m.Var("y"), m.Var("yo"), m.Var("yi")
    bx, out = m.Func("blur_x"), m.Func("blur_y")
    bx[x, y] = inp[x, y] + inp[x + 1, y] + inp[x + 2, y]
    out[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) // 9
    out.split(y, yo, yi, 32).parallel(yo)
    bx.compute_at(out, yo).vectorize(x, 16)
    if specialized:
        out.specialize((inp.width() - 2) % 16 == 0).vectorize(x, 16)
    out.vectorize(x, 16, m.TailStrategy.GuardWithIf)
    if prefetch:  # blur_x reads the input: its rows 2 iterations ahead, at each of its rows
        bx.prefetch(inp, y, y, 2)
    inp.set(m.Buffer(_INPUTS[f"u16_{width}"], "input"))
    return out, [width, 1024]


CASES = {
    "hist_rfactor_par": _hist,
    "sum_rfactor_par_vec": _sum,
    "blur_spec_w16": lambda m: _blur(m, 3072, True),
    "blur_spec_w13": lambda m: _blur(m, 3069, True),
    "blur_nospec_w16": lambda m: _blur(m, 3072, False),
    "blur_prefetch_w16": lambda m: _blur(m, 3072, False, prefetch=True),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.directives", description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", default="2")
    ap.add_argument("--only")
    ap.add_argument("--write", action="store_true", help="write the table into bench/RESULTS.md")
    args = ap.parse_args(argv)
    os.environ["HL_NUM_THREADS"] = args.threads  # read by both runtimes
    import halide
    import halide_mlir as hl
    from bench.study import interleaved, write_section

    rng = np.random.default_rng(0)
    _INPUTS["u8"] = rng.integers(0, 256, (1024, 1536)).astype(np.uint8)
    _INPUTS["f32"] = rng.random((1536, 2048), dtype=np.float32)
    for w in (3072, 3069):
        _INPUTS[f"u16_{w}"] = rng.integers(0, 4096, (1026, w + 2)).astype(np.uint16)
    only = set(args.only.split(",")) if args.only else None
    head = "| case | ours ms | Halide ms | ours/Halide |\n|---|---:|---:|---:|"
    rows = []
    print(f"threads {args.threads}, best of {args.rounds}")
    for name, build in CASES.items():
        if only and name not in only:
            continue
        theirs, sizes = build(halide)
        theirs.compile_jit()
        ref = np.asarray(theirs.realize(sizes))
        ours, _ = build(hl)
        got = ours.realize(sizes)
        ok = np.allclose(np.asarray(got), ref, rtol=1e-4) and np.asarray(got).dtype == ref.dtype
        out_t = theirs.realize(sizes)
        ms = interleaved(
            {"ours": lambda: ours.realize(got), "halide": lambda: theirs.realize(out_t)}, args.rounds, 0.02
        )
        ratio = f"{ms['ours'] / ms['halide']:.2f}{'' if ok else ' MISMATCH'}"
        row = f"| {name} | {ms['ours']:.3f} | {ms['halide']:.3f} | {ratio} |"
        rows.append(row)
        print(row, flush=True)
    if args.write:
        info = f"HL_NUM_THREADS={args.threads}, best of {args.rounds} interleaved rounds."
        print(
            write_section(
                "directives", "rfactor, specialize and prefetch", "bench.directives", info, "\n".join([head, *rows])
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
