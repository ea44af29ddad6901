"""The measuring process: ``python -m halide_mlir.autotune._worker``.

Candidates are compiled and run here, not in the user's process: a crash (segfault in MLIR/LLVM), a deadlocked
parallel loop or a leak costs one worker, which the autotuner kills and restarts. The pipeline arrives pickled
(Funcs, Exprs and Buffers are plain Python objects); messages are length-prefixed pickles on stdin and on a
private copy of stdout (fd 1 itself is pointed at stderr so that stray prints cannot corrupt the channel).
"""
from __future__ import annotations

import os
import pickle
import struct
import sys
import time
import traceback

import numpy as np


def read_msg(f):
    head = f.read(8)
    if len(head) < 8:
        return None
    (n,) = struct.unpack("<Q", head)
    data = f.read(n)
    return pickle.loads(data)


def write_msg(f, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    f.write(struct.pack("<Q", len(data)) + data)
    f.flush()


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
    return False, (f"{int(bad.sum())} of {ref.size} values differ, max |diff| "
                   f"{float(np.nanmax(np.abs(g[bad] - r[bad]))):.3g}")


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
        from ..error import HalideError
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
            self.func.realize(out)   # warm-up
            samples = []
            start = time.perf_counter()
            while True:
                t = time.perf_counter()
                self.func.realize(out)
                samples.append(time.perf_counter() - t)
                if best and samples[-1] > 4 * best and len(samples) >= 2:   # hopeless: do not spend more
                    break
                if len(samples) >= max_samples or (len(samples) >= 3 and time.perf_counter() - start >= min_time):
                    break
            res["time"] = min(samples)
            res["samples"] = len(samples)
            return res
        except HalideError as e:
            return {"status": "halide_error", "error": str(e).strip().splitlines()[-1][:400] if str(e).strip()
                    else "HalideError"}
        except Exception as e:   # noqa: BLE001 -- a bug in the compiler; reported, the search goes on
            tb = traceback.format_exception_only(type(e), e)
            return {"status": "exception", "error": "".join(tb).strip()[-400:]}


def main() -> None:
    chan_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    chan_in = os.fdopen(os.dup(0), "rb")
    state = None
    while True:
        msg = read_msg(chan_in)
        if msg is None:
            return
        cmd, arg = msg
        try:
            if cmd == "init":
                state = State(arg["infos"], arg["sizes"], arg.get("ref"))
                reply = {"status": "ok", "pid": os.getpid()}
            elif cmd == "reference":
                t = time.perf_counter()
                ref = state.reference()
                reply = {"status": "ok", "ref": ref, "time": time.perf_counter() - t}
            elif cmd == "measure":
                reply = state.measure(arg["plan"], arg.get("best"), arg.get("min_time", 0.2),
                                      arg.get("max_samples", 30))
            elif cmd == "transform":
                state.schedule(arg)
                reply = {"status": "ok", "text": state.func.transform_script(state.sizes)}
            elif cmd == "quit":
                write_msg(chan_out, {"status": "ok"})
                return
            else:
                reply = {"status": "exception", "error": f"unknown command {cmd}"}
        except Exception as e:  # noqa: BLE001
            reply = {"status": "exception", "error": "".join(traceback.format_exception_only(type(e), e))[-400:]}
        write_msg(chan_out, reply)


if __name__ == "__main__":
    main()
