"""Shared helper for the lit tests: print one compilation stage of a pipeline.

Lives in Inputs/ (excluded from lit discovery by lit.cfg.py, which puts it on PYTHONPATH). A test does

    from hl_stage import emit
    ...
    emit(out, [W, H])

and is run as `%python %s <stage>`, where <stage> is one of STAGES below.
"""
import sys

from halide_mlir.driver import stages

STAGES = ("payload", "transform", "scheduled", "bufferized", "lowered", "llvm")


def stage_text(func, sizes, stage):
    if stage == "payload":
        return func.compile_to_mlir(sizes)
    if stage == "transform":
        return func.transform_script(sizes)
    if stage == "scheduled":
        return stages(func, sizes).scheduled()
    if stage == "bufferized":
        return stages(func, sizes).bufferized()
    if stage == "lowered":
        return func.compile_to_lowered_mlir(sizes)
    if stage == "llvm":
        return func.compile_to_llvm_ir(sizes)
    raise SystemExit(f"unknown stage {stage!r}; expected one of {', '.join(STAGES)}")


def emit(func, sizes, stage=None):
    """Print `stage` (default: sys.argv[1], else "payload") of `func` realized over `sizes`."""
    if stage is None:
        stage = sys.argv[1] if len(sys.argv) > 1 else "payload"
    sys.stdout.write(stage_text(func, sizes, stage))
    sys.stdout.write("\n")
