"""Property-based schedule fuzzer (issue 6): a schedule must never change what a pipeline computes.

Hypothesis draws a random pipeline (pipelines.py) together with a random *legal* schedule (schedules.py); each
example is rendered as standalone Python source whose ``build(hl, schedule)`` takes the module (program.py), so
the same program runs under real Halide and under halide_mlir. check.py runs it -- halide_mlir scheduled and
unscheduled, real Halide with the same schedule, each in its own worker process (halide_mlir/tools/worker.py) so
that a segfault or a hang is a reported failure -- and classifies it: pass, skip (real Halide rejects it),
unsupported (ours raises a HalideError; an InternalError is listed apart), or a failure (mismatch, crash, any
other exception). campaign.py runs many and shrinks the failures.

    python -m halide_mlir.tools.fuzz --examples 2000 --seed 1

prints progress, then ``N examples, M mismatches, K crashes`` (+ unsupported / skipped counts), then shrinks one
example of every distinct failure with Hypothesis and prints it as a standalone Python reproducer.
"""

from .campaign import reduce_schedule, run
from .check import ATOL, RTOL, Outcome, Run, check, compare, reference_worker, reproducer, run_reference, worker
from .pipelines import PAD, H, W
from .program import Program, draw_program, programs

__all__ = [
    "ATOL",
    "PAD",
    "RTOL",
    "H",
    "Outcome",
    "Program",
    "Run",
    "W",
    "check",
    "compare",
    "draw_program",
    "programs",
    "reduce_schedule",
    "reference_worker",
    "reproducer",
    "run",
    "run_reference",
    "worker",
]
