"""Autotuner (issue 7): stochastic search over schedules, measured with the real JIT.

    import halide_mlir as hl
    from halide_mlir.autotune import autotune
    result = autotune(out, [w, h], budget_s=60)
    print(result.schedule_code)      # out.tile(x, y, xo, yo, xi, yi, 64, 16).vectorize(xi, 16).parallel(yo) ...
    result.apply()                   # give the Funcs the best schedule

From the shell: ``python -m halide_mlir.autotune FILE.py --budget 60`` (FILE.py defines ``pipeline()``).
Modules: space.py (genomes, decoding to schedule calls, code), search.py (genetic search, cache, progress),
measure.py (what the worker process, halide_mlir/tools/worker.py, runs: compile, check, time).
"""

from .search import AutotuneResult, autotune
from .space import apply_plan, pipeline_funcs, plan_code

__all__ = ["autotune", "AutotuneResult", "apply_plan", "pipeline_funcs", "plan_code"]
