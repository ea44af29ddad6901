"""Halide tutorial lesson 8, "scheduling multi-stage pipelines", on halide_mlir.

    python examples/lesson_08.py

The lesson's two-stage pipeline::

    producer[x, y] = sqrt(x * y)
    consumer[x, y] = producer[x, y] + producer[x, y+1] + producer[x+1, y] + producer[x+1, y+1]

is scheduled each way the lesson shows (plus a few variants: the same loop structures with the producer inline or
at the root). Each schedule is realized at the lesson's size (4×4; 800×600 for the "mixed" schedule) and at
160×160, and checked against numpy (the two formulas above in float32), against the default (fully inlined)
schedule and, if it is installed, against the real Halide 21 with the same schedule: a schedule must never change
the result. A schedule halide_mlir refuses would print "not supported yet: <the HalideError>" (none does today).

``pipeline()`` is the entry point of the ``halide-mlir`` command (``halide-mlir transform examples/lesson_08.py``).
"""

from __future__ import annotations

import sys

import numpy as np

import halide_mlir

try:
    import halide
except ImportError:  # the oracle is optional
    halide = None


def algorithm(hl, tag: str):
    """The lesson's producer and consumer, built with module ``hl`` (halide_mlir or halide)."""
    x, y = hl.Var("x"), hl.Var("y")
    producer, consumer = hl.Func(f"producer_{tag}"), hl.Func(f"consumer_{tag}")
    producer[x, y] = hl.sqrt(x * y)
    consumer[x, y] = producer[x, y] + producer[x, y + 1] + producer[x + 1, y] + producer[x + 1, y + 1]
    return producer, consumer, x, y


# --- the schedules: (tag, the schedule as the lesson writes it, function applying it, sizes) -----------------


def default(hl, producer, consumer, x, y):
    pass  # producer is inlined into consumer


def root(hl, producer, consumer, x, y):
    producer.compute_root()


def compute_at_y(hl, producer, consumer, x, y):
    producer.compute_at(consumer, y)


def store_root_compute_at_y(hl, producer, consumer, x, y):
    producer.store_root()
    producer.compute_at(consumer, y)


def store_root_compute_at_x(hl, producer, consumer, x, y):
    producer.store_root().compute_at(consumer, x)


def tile_compute_at(hl, producer, consumer, x, y):
    x_outer, y_outer, x_inner, y_inner = hl.Var("x_outer"), hl.Var("y_outer"), hl.Var("x_inner"), hl.Var("y_inner")
    consumer.tile(x, y, x_outer, y_outer, x_inner, y_inner, 2, 2)
    producer.compute_at(consumer, x_outer)


def mixed(hl, producer, consumer, x, y):
    yo, yi = hl.Var("yo"), hl.Var("yi")
    consumer.split(y, yo, yi, 16)
    consumer.parallel(yo)
    consumer.vectorize(x, 4)
    producer.store_at(consumer, yo)
    producer.compute_at(consumer, yi)
    producer.vectorize(x, 4)


# Variants: the same loop structures on the consumer, the producer inline or at the root.


def tile_inline(hl, producer, consumer, x, y):
    x_outer, y_outer, x_inner, y_inner = hl.Var("x_outer"), hl.Var("y_outer"), hl.Var("x_inner"), hl.Var("y_inner")
    consumer.tile(x, y, x_outer, y_outer, x_inner, y_inner, 2, 2)


def tile_as_splits_root(hl, producer, consumer, x, y):
    x_outer, y_outer, x_inner, y_inner = hl.Var("x_outer"), hl.Var("y_outer"), hl.Var("x_inner"), hl.Var("y_inner")
    consumer.split(x, x_outer, x_inner, 2).split(y, y_outer, y_inner, 2).reorder(x_inner, y_inner, x_outer, y_outer)
    producer.compute_root()


def mixed_root(hl, producer, consumer, x, y):
    yo, yi = hl.Var("yo"), hl.Var("yi")
    consumer.split(y, yo, yi, 16).parallel(yo).vectorize(x, 4)
    producer.compute_root().vectorize(x, 4)


def mixed_inline(hl, producer, consumer, x, y):
    yo, yi = hl.Var("yo"), hl.Var("yi")
    consumer.split(y, yo, yi, 16).parallel(yo).vectorize(x, 4)


SMALL, MEDIUM, LESSON_MIXED = [4, 4], [160, 160], [800, 600]

SCHEDULES = [
    ("default", "(inline)", default, [SMALL, MEDIUM]),
    ("root", "producer.compute_root()", root, [SMALL, MEDIUM]),
    ("y", "producer.compute_at(consumer, y)", compute_at_y, [SMALL, MEDIUM]),
    (
        "store_root_compute_y",
        "producer.store_root(); producer.compute_at(consumer, y)",
        store_root_compute_at_y,
        [SMALL, MEDIUM],
    ),
    ("store_root_compute_x", "producer.store_root().compute_at(consumer, x)", store_root_compute_at_x, [SMALL, MEDIUM]),
    (
        "tile",
        "consumer.tile(x, y, x_outer, y_outer, x_inner, y_inner, 2, 2); producer.compute_at(consumer, x_outer)",
        tile_compute_at,
        [SMALL, MEDIUM],
    ),
    (
        "mixed",
        "consumer.split(y, yo, yi, 16).parallel(yo).vectorize(x, 4); producer.store_at(consumer, yo)"
        ".compute_at(consumer, yi).vectorize(x, 4)",
        mixed,
        [LESSON_MIXED, MEDIUM],
    ),
    ("tile_inline", "consumer.tile(x, y, x_outer, y_outer, x_inner, y_inner, 2, 2)", tile_inline, [SMALL, MEDIUM]),
    (
        "tile_splits_root",
        "consumer.split(x, ..., 2).split(y, ..., 2).reorder(x_inner, y_inner, x_outer, y_outer); "
        "producer.compute_root()",
        tile_as_splits_root,
        [SMALL, MEDIUM],
    ),
    (
        "mixed_root",
        "consumer.split(y, yo, yi, 16).parallel(yo).vectorize(x, 4); producer.compute_root().vectorize(x, 4)",
        mixed_root,
        [LESSON_MIXED, MEDIUM],
    ),
    (
        "mixed_inline",
        "consumer.split(y, yo, yi, 16).parallel(yo).vectorize(x, 4)",
        mixed_inline,
        [LESSON_MIXED, MEDIUM],
    ),
]


def scheduled(hl, tag: str, schedule):
    producer, consumer, x, y = algorithm(hl, tag)
    schedule(hl, producer, consumer, x, y)
    return consumer


def pipeline():
    """For the halide-mlir command: the lesson's "mixed" structure with the producer computed at root."""
    return scheduled(halide_mlir, "mixed_root", mixed_root), LESSON_MIXED


def numpy_reference(size) -> np.ndarray:
    """The lesson's formulas in numpy: sqrt of the int32 product as float32, the four taps summed in order."""
    w, h = size
    ys, xs = np.mgrid[0 : h + 1, 0 : w + 1].astype(np.int32)
    p = np.sqrt((xs * ys).astype(np.float32))
    return p[:-1, :-1] + p[1:, :-1] + p[:-1, 1:] + p[1:, 1:]


def compare(a: np.ndarray, b: np.ndarray) -> tuple[bool, str]:
    if a.shape != b.shape:
        return False, f"shape {a.shape} vs {b.shape}"
    if np.array_equal(a, b):
        return True, "bit-exact"
    err = float(np.max(np.abs(a.astype(np.float64) - b) / np.maximum(np.abs(b.astype(np.float64)), 1)))
    return err < 1e-6, f"max rel err {err:.1e}"


def main() -> int:
    hl = halide_mlir
    reference = {}  # size -> the default schedule's result (ours)
    failures = 0
    for tag, text, schedule, size_list in SCHEDULES:
        print(f"{tag}: {text}")
        consumer = scheduled(hl, tag, schedule)
        try:
            results = {tuple(s): np.asarray(consumer.realize(list(s))) for s in size_list}
        except hl.HalideError as e:
            msg = str(e).strip().splitlines()
            print(f"  not supported yet: {msg[0] if msg else e}")
            continue
        except Exception as e:  # anything else is a halide_mlir bug: report it, keep going
            print(f"  ERROR ({type(e).__name__}): {str(e).strip().splitlines()[0] if str(e).strip() else ''}")
            failures += 1
            continue
        verdicts = []
        for size, ours in results.items():
            if tag == "default":
                reference[size] = ours
            parts = []
            if size not in reference:  # default not computed at this size yet
                reference[size] = np.asarray(scheduled(hl, f"default_{size[0]}x{size[1]}", default).realize(list(size)))
            ok_default, why_default = compare(ours, reference[size])
            ok_numpy, why_numpy = compare(ours, numpy_reference(size))
            parts.append(f"vs numpy {why_numpy}")
            parts.append(f"vs inline {why_default}" if tag != "default" else "")
            ok = ok_default and ok_numpy
            if halide is not None:
                theirs = np.asarray(scheduled(halide, tag, schedule).realize(list(size)))
                ok_halide, why_halide = compare(ours, theirs)
                parts.append(f"vs Halide 21 {why_halide}")
                ok = ok and ok_halide
            failures += not ok
            verdicts.append(f"{size[0]}x{size[1]} {'OK' if ok else 'MISMATCH'} ({', '.join(p for p in parts if p)})")
        print("  " + "; ".join(verdicts))
        consumer.print_loop_nest()
    print("=" * 50)
    print("Success!" if failures == 0 else f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
