"""Running one fuzz example and classifying it.

An example passes when halide_mlir's scheduled result equals its unscheduled result, and both equal real
Halide's result with the same schedule (integers bit-exact, floats within rtol 1e-4 / atol 1e-5 x the output's
largest magnitude). It is *skipped* when real Halide rejects the program or schedule (unless ours accepts it and
computes something different from the unscheduled pipeline); it counts as *unsupported* when ours raises
``hl.HalideError`` on what Halide accepts -- an ``hl.InternalError`` (MLIR rejected what we generated) is listed
apart, as a halide_mlir bug or gap. Any other exception, any mismatch, and any crash (segfault, abort, hang) is a
failure.

halide_mlir runs in a persistent worker process (halide_mlir/tools/worker.py; restarted when it dies), so a
segfault is reported with its reproducer instead of killing the fuzzer. Real Halide runs in a second worker at
the same time (2 cores), so one of its own hangs or crashes (seen: an example it ran for minutes) costs one
timeout and is filed as a skip, not a stalled run. Workers report an exception by its class, never by its text.
"""

from __future__ import annotations

import atexit
import dataclasses
import os
import re
import textwrap
import traceback
import warnings

import numpy as np

from ..worker import Worker, WorkerDied
from .pipelines import H, W

RTOL, ATOL = 1e-4, 1e-5
TIMEOUT = 120.0  # seconds for one example in the worker before it counts as a hang


# ----------------------------------------------------------------------------------------------------------------
# In the workers
# ----------------------------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Run:
    """One realize of an example: its output, or the exception it raised."""

    output: np.ndarray | None = None
    error: str = ""  # the exception's class name
    kind: str = ""  # by class: "internal" (hl.InternalError: MLIR rejected what we generated), "refused"
    # (another HalideError: a deliberate refusal), "other" (any other exception)
    message: str = ""
    diagnostic: str = ""  # an InternalError's MLIR diagnostic

    @property
    def ok(self) -> bool:
        return not self.error


def _error(hl, e: BaseException) -> Run:
    internal = getattr(hl, "InternalError", None)  # real Halide has none (its errors are all HalideError)
    if internal is not None and isinstance(e, internal):
        kind = "internal"
    elif isinstance(e, getattr(hl, "HalideError", ())):
        kind = "refused"
    else:
        kind = "other"
    msg = str(e) if kind != "other" else "".join(traceback.format_exception(type(e), e, e.__traceback__)[-6:])
    return Run(error=type(e).__name__, kind=kind, message=msg, diagnostic=getattr(e, "diagnostic", None) or "")


def _load(source: str):
    ns = {"__name__": "fuzz_case"}
    exec(compile(source, "<fuzz case>", "exec"), ns)
    return ns


def _run_one(hl, ns, schedule: bool) -> Run:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if hasattr(hl, "AutoVectorizeWarning"):  # ours fell back to scalar code: a bug to report
                warnings.simplefilter("error", hl.AutoVectorizeWarning)
            return Run(output=realize_case(hl, ns, schedule))
    except Exception as e:  # noqa: BLE001 -- classified by the caller
        return _error(hl, e)


def realize_case(hl, ns: dict, schedule: bool = True) -> np.ndarray:
    """The output of the example whose module namespace is ``ns`` under ``hl`` (real Halide or halide_mlir)."""
    ns.get("PARAMS", {}).clear()
    f = ns["build"](hl, schedule)
    if ns.get("GPU") and schedule:
        return _run_gpu(hl, ns, f)
    # one realize per drawn value of the Params (PARAM_VALUES: name -> values), so that every branch of a
    # specialization runs in the same compiled pipeline; the outputs are stacked
    values = ns.get("PARAM_VALUES") or {}
    outs = []
    for i in range(max((len(v) for v in values.values()), default=1)):
        for name, vals in values.items():
            if name in ns.get("PARAMS", {}):  # declared under `if schedule:` only
                ns["PARAMS"][name].set(vals[i])
        outs.append(np.array(np.asarray(f.realize([W, H])), copy=True))
    return outs[0] if len(outs) == 1 else np.stack(outs)


def _run_gpu(hl, ns, f):
    """A GPU schedule (GPU = True in the source): there is no GPU here. Ours compiles the kernels to PTX and
    computes the values with the kernels' code run on the host (driver_gpu.realize_on_host); real Halide compiles
    for host-cuda (so that it accepts or rejects the schedule) and its values are those of the unscheduled
    pipeline (a schedule never changes them)."""
    if hl.__name__ == "halide_mlir":
        from halide_mlir import driver_gpu
        from halide_mlir.runtime.realize import output_buffers

        _, region = output_buffers(f, [W, H])
        driver_gpu.compile_pipeline(f, region, hl.Target("host-cuda")).ptx()
        return np.array(np.asarray(driver_gpu.realize_on_host(f, [W, H])), copy=True)
    f.compile_jit(hl.Target("host-cuda"))
    return np.array(np.asarray(ns["build"](hl, False).realize([W, H])), copy=True)


def ours():
    """halide_mlir's worker handler: a source in, its (unscheduled, scheduled) Runs out."""
    import halide_mlir as hl

    def handle(source):
        try:
            ns = _load(source)
        except Exception as e:  # noqa: BLE001
            return (_error(hl, e),) * 2
        return _run_one(hl, ns, False), _run_one(hl, ns, True)

    return handle


def run_reference(source: str, schedule: bool = True) -> Run:
    import halide

    try:
        ns = _load(source)
    except Exception as e:  # noqa: BLE001
        return _error(halide, e)
    return _run_one(halide, ns, schedule)


def reference(quiet: bool):
    """Real Halide's worker handler: (source, schedule) in, its Run out. ``quiet``: its warnings (printed to
    sys.stdout by the bindings, and to fd 2 by the C++ side) go nowhere."""
    import io
    import sys

    if quiet:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        sys.stdout = sys.stderr = io.StringIO()

    def handle(msg):
        res = run_reference(*msg)
        if quiet:
            sys.stdout.seek(0)
            sys.stdout.truncate()
        return res

    return handle


# ----------------------------------------------------------------------------------------------------------------
# In the fuzzer
# ----------------------------------------------------------------------------------------------------------------

_worker = None
_reference_worker = None


def worker() -> Worker:
    """halide_mlir's worker (started on the first example, restarted after a crash or 300 examples)."""
    global _worker
    if _worker is None:
        # every example is a new pipeline: don't fill the on-disk compile cache with them (and always compile)
        _worker = Worker(
            "halide_mlir.tools.fuzz.check:ours",
            recycle=300,
            env={"HALIDE_MLIR_CACHE": os.environ.get("HALIDE_MLIR_CACHE", "0")},
        )
        atexit.register(_worker.close)
    return _worker


def reference_worker(quiet: bool | None = None) -> Worker:
    """Real Halide's worker; ``quiet`` (the command line's choice) silences its warnings."""
    global _reference_worker
    if _reference_worker is None:
        _reference_worker = Worker("halide_mlir.tools.fuzz.check:reference", (bool(quiet),), recycle=300)
        atexit.register(_reference_worker.close)
    elif quiet is not None and _reference_worker.args != (quiet,):
        _reference_worker.args = (quiet,)
        _reference_worker.stop()
    return _reference_worker


def _answer(w: Worker):
    """The worker's reply, or a str saying how it crashed or hung."""
    try:
        return w.result(TIMEOUT)
    except WorkerDied as e:
        return f"hang: {e}" if e.hung else str(e)


def _reference(source: str, schedule: bool = True) -> Run:
    """Real Halide's result in its worker; a hang or a crash of Halide itself comes back as an error."""
    rw = reference_worker()
    rw.submit((source, schedule))
    return _did_not_finish(_answer(rw))


def _did_not_finish(res) -> Run:
    if isinstance(res, str):
        return Run(error="crash", kind="other", message=f"real Halide did not finish ({res})")
    return res


@dataclasses.dataclass
class Outcome:
    status: str  # pass, skip, unsupported, mismatch, crash, error
    detail: str = ""
    signature: str = ""

    @property
    def failed(self) -> bool:
        return self.status in ("mismatch", "crash", "error")


def compare(ref: np.ndarray, got: np.ndarray):
    """None if equal under the fuzzer's rules, else a description of the difference."""
    if ref.shape != got.shape:
        return f"shape {got.shape} != {ref.shape}"
    if ref.dtype != got.dtype:
        return f"dtype {got.dtype} != {ref.dtype}"
    if ref.dtype.kind == "f":
        # Sums of large terms that cancel differ by rounding at the scale of the terms, not of the result
        # (Halide's simplifier orders float arithmetic differently): scale atol by the output's magnitude.
        finite = np.abs(ref[np.isfinite(ref)])
        atol = max(ATOL, ATOL * float(finite.max())) if finite.size else ATOL
        bad = ~np.isclose(got, ref, rtol=RTOL, atol=atol, equal_nan=True)
    else:
        bad = got != ref
    if not bad.any():
        return None
    idx = np.argwhere(bad)
    first = tuple(int(i) for i in idx[0])
    return (
        f"{len(idx)} of {ref.size} values differ; first at [y, x] = {list(first)}: "
        f"expected {ref[first]!r}, got {got[first]!r}"
    )


def _first_line(s: str) -> str:
    s = s.strip()
    return s.splitlines()[0][:160] if s else ""


def _diagnostic_key(diagnostic: str) -> str:
    """The first MLIR diagnostic of an internal failure, without numbers: tells distinct failures apart."""
    for line in diagnostic.splitlines():
        m = re.search(r'(?:error|Diagnostic message at [^:]*):(?:\s*"[^"]*":\d+:\d+:)?\s*(.*)', line)
        if m and m.group(1).strip():
            return re.sub(r"\d+", "#", m.group(1).strip())[:70]
    return _first_line(diagnostic)[:70]


def check(source: str, w: Worker | None = None) -> Outcome:
    """Run one example (ours and real Halide in their workers, concurrently) and classify it."""
    w = w or worker()
    w.submit(source)
    rw = reference_worker()
    rw.submit((source, True))
    res = _answer(w)
    ref = _did_not_finish(_answer(rw))
    if isinstance(res, str):
        return Outcome("crash", res, "crash")
    unsched, sched = res
    if not ref.ok:  # Halide rejects the program or the schedule
        if sched.ok and unsched.ok:
            diff = compare(unsched.output, sched.output)
            if diff:
                return Outcome(
                    "mismatch",
                    f"real Halide rejects this ({ref.error}: {ref.message.strip()[:300]}); "
                    f"ours accepts it and the scheduled result differs from the unscheduled "
                    f"one: {diff}",
                    "mismatch:rejected-schedule",
                )
        for r in (sched, unsched):
            if r.kind == "other":
                return Outcome(
                    "error",
                    f"ours raised {r.error} (real Halide also rejected it: {ref.error})\n{r.message}",
                    f"error:{r.error}",
                )
        first = ref.message.strip().splitlines()[0][:200] if ref.message.strip() else ""
        return Outcome("skip", f"real Halide: {ref.error}: {first}")
    for what, r in (("unscheduled", unsched), ("scheduled", sched)):
        if r.kind == "other":
            return Outcome("error", f"ours ({what}) raised {r.error}:\n{r.message}", f"error:{r.error}")
    for what, r in (("unscheduled", unsched), ("scheduled", sched)):
        if not r.ok:  # a HalideError on what Halide accepts; an InternalError is a bug or gap, listed apart
            return Outcome(
                "unsupported",
                f"ours ({what}): {r.message.strip()}",
                f"unsupported:internal:{_diagnostic_key(r.diagnostic or r.message)}"
                if r.kind == "internal"
                else "unsupported:refused",
            )
    for what, r in (("unscheduled", unsched), ("scheduled", sched)):
        diff = compare(ref.output, r.output)
        if diff:
            # Halide can disagree with itself: when its unscheduled pipeline gives exactly our (scheduled and
            # unscheduled) values, the schedule changed Halide's result, not ours
            plain = _reference(source, schedule=False)
            if plain.ok and not compare(plain.output, unsched.output) and not compare(plain.output, sched.output):
                return Outcome(
                    "skip",
                    f"real Halide's scheduled result differs from its own unscheduled one, which ours equals ({diff})",
                )
            return Outcome("mismatch", f"ours ({what}) vs real Halide: {diff}", f"mismatch:{what}")
    return Outcome("pass")


def reproducer(source: str, outcome: Outcome | None = None) -> str:
    """The example as a standalone script: runs real Halide and halide_mlir and prints both."""
    head = ""
    if outcome is not None:
        head = "".join(f"# {l}\n" for l in f"{outcome.status}: {outcome.detail}".splitlines()[:12])
    tail = textwrap.dedent(f"""

        if __name__ == "__main__":
            import halide
            import halide_mlir
            from halide_mlir.tools.fuzz.check import realize_case  # Params realized per value, GPU on the host
            expected = realize_case(halide, globals())
            got = realize_case(halide_mlir, globals())
            unscheduled = realize_case(halide_mlir, globals(), schedule=False)
            for name, a in (("halide", expected), ("ours", got), ("ours unscheduled", unscheduled)):
                print(name, a.dtype, a.shape)
                print(a[..., :4, :8])
            close = np.allclose if expected.dtype.kind == "f" else np.array_equal
            kw = dict(rtol={RTOL}, atol={ATOL}) if expected.dtype.kind == "f" else {{}}
            print("ours == halide:", close(got, expected, **kw), "  unscheduled == halide:",
                  close(unscheduled, expected, **kw))
        """)
    return head + source + tail
