"""What the autotuner's worker process runs (halide_mlir/tools/worker.py): compile, check and time candidates.

Candidates are compiled and run there, not in the user's process: a crash (segfault in MLIR/LLVM), a deadlocked
parallel loop or a leak costs one worker, which the autotuner kills and restarts. The pipeline arrives pickled
(Funcs, Exprs and Buffers are plain Python objects) as ``measurer``'s arguments; then each message is a
``(command, argument)`` pair answered with a dict whose "status" is "ok" or says what went wrong.
"""

from __future__ import annotations

import time
import traceback

import numpy as np


def same(ref: np.ndarray, got: np.ndarray, rtol: float = 1e-4, atol_rel: float = 1e-5) -> tuple[bool, str]:
    """Integers exactly; floats to rtol 1e-4 plus an absolute tolerance of 1e-5 x max|ref| (values near 0)."""
    if ref.shape != got.shape:
        return False, f"shape {got.shape} vs reference {ref.shape}"
    if ref.dtype.kind in "iub":
        if np.array_equal(ref, got):
            return True, "exact"
        d = int(np.max(np.abs(ref.astype(np.int64) - got.astype(np.int64))))
        n = int(np.count_nonzero(ref != got))
        return False, f"{n} of {ref.size} values differ, max diff {d}"
    r, g = ref.astype(np.float64), got.astype(np.float64)
    fin = np.isfinite(r)
    scale = float(np.max(np.abs(r[fin]))) if fin.any() else 1.0
    ok = np.isclose(g, r, rtol=rtol, atol=atol_rel * scale, equal_nan=True)
    if ok.all():
        return True, "close"
    bad = ~ok
    return False, (
        f"{int(bad.sum())} of {ref.size} values differ, max |diff| {float(np.nanmax(np.abs(g[bad] - r[bad]))):.3g}"
    )


class State:
    def __init__(self, infos, sizes, ref):
        from .space import save_schedules

        self.infos, self.sizes, self.ref = infos, list(sizes), ref
        self.original = save_schedules(infos)

    @property
    def func(self):
        return self.infos[-1].func

    def schedule(self, plan) -> None:
        from .space import apply_plan, reset_schedules, restore_schedules

        if plan is None:
            restore_schedules(self.infos, self.original)
            from .space import save_schedules

            self.original = save_schedules(self.infos)
        elif plan == "reset":
            reset_schedules(self.infos)
        else:
            apply_plan(self.infos, plan)

    def new_output(self):
        import halide_mlir as hl

        return hl.Buffer(self.func.output_type(), self.sizes, "autotune_out")

    def reference(self):
        self.schedule("reset")
        out = self.new_output()
        self.func.realize(out)
        self.ref = np.array(np.asarray(out))
        return self.ref

    def measure(self, plan, best: float | None, min_time: float, max_samples: int) -> dict:
        from ..error import HalideError, InternalError

        res = {"status": "ok"}
        try:
            self.schedule(plan)
            out = self.new_output()
            t = time.perf_counter()
            self.func.realize(out)
            res["compile_s"] = time.perf_counter() - t
            if self.ref is not None:
                ok, why = same(self.ref, np.asarray(out))
                if not ok:
                    return {"status": "mismatch", "error": why, "compile_s": res["compile_s"]}
            self.func.realize(out)  # warm-up
            samples = []
            start = time.perf_counter()
            while True:
                t = time.perf_counter()
                self.func.realize(out)
                samples.append(time.perf_counter() - t)
                if best and samples[-1] > 4 * best and len(samples) >= 2:  # hopeless: do not spend more
                    break
                if len(samples) >= max_samples or (len(samples) >= 3 and time.perf_counter() - start >= min_time):
                    break
            res["time"] = min(samples)
            res["samples"] = len(samples)
            return res
        except InternalError as e:  # MLIR rejected what we generated: a compiler bug, counted apart
            lines = [l.strip() for l in str(e).strip().splitlines() if l.strip()]
            return {"status": "internal_error", "error": " | ".join(lines[:2])[:400] or "InternalError"}
        except HalideError as e:
            return {
                "status": "halide_error",
                "error": str(e).strip().splitlines()[-1][:400] if str(e).strip() else "HalideError",
            }
        except Exception as e:  # noqa: BLE001 -- a bug in the compiler; reported, the search goes on
            tb = traceback.format_exception_only(type(e), e)
            return {"status": "exception", "error": "".join(tb).strip()[-400:]}


def measurer(infos, sizes, ref):
    """The worker's handler: ``(command, argument)`` -> reply dict."""
    state = State(infos, sizes, ref)

    def handle(msg) -> dict:
        cmd, arg = msg
        try:
            if cmd == "reference":
                t = time.perf_counter()
                ref = state.reference()
                return {"status": "ok", "ref": ref, "time": time.perf_counter() - t}
            if cmd == "measure":
                return state.measure(arg["plan"], arg.get("best"), arg.get("min_time", 0.2), arg.get("max_samples", 30))
            if cmd == "transform":
                state.schedule(arg)
                return {"status": "ok", "text": state.func.transform_script(state.sizes)}
            return {"status": "exception", "error": f"unknown command {cmd}"}
        except Exception as e:  # noqa: BLE001
            return {"status": "exception", "error": "".join(traceback.format_exception_only(type(e), e))[-400:]}

    return handle
