"""The search: a genetic algorithm over schedules (Halide paper, section 5: elitism, tournament selection,
crossover of whole per-Func genes, mutation of single genes), every candidate measured with the real JIT in a
worker process and checked against the unscheduled pipeline."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from ..error import HalideError
from ..tools.worker import HandlerError, Worker, WorkerDied
from .space import (
    Space,
    apply_plan,
    pipeline_funcs,
    plan_code,
    plan_key,
    reset_schedules,
    restore_schedules,
    save_schedules,
)

CACHE_VERSION = 1


# ------------------------------------------------------------------------------------------------ worker


class Measurer:
    """The worker process (halide_mlir/tools/worker.py) running measure.py's handler for this pipeline; restarted
    after a crash, a timeout, or every ``recycle`` candidates (compiled engines accumulate in its memory)."""

    def __init__(self, infos, sizes, recycle: int = 40):
        self.worker = Worker("halide_mlir.autotune.measure:measurer", (infos, sizes, None), recycle=recycle)

    def set_reference(self, ref) -> None:
        """Later workers get the reference output with the pipeline; the current one is restarted."""
        infos, sizes, _ = self.worker.args
        self.worker.args = (infos, sizes, ref)
        self.worker.stop()

    def call(self, cmd, arg, timeout: float) -> dict:
        """A reply dict; a crash or a timeout becomes {"status": "crash"/"timeout"} and a fresh worker."""
        try:
            return self.worker.call((cmd, arg), timeout)
        except WorkerDied as e:
            return {"status": "timeout" if e.hung else "crash", "error": str(e)}
        except HandlerError as e:
            return {"status": "exception", "error": str(e)[-400:]}

    def close(self) -> None:
        self.worker.close()


# ------------------------------------------------------------------------------------------------ cache


def _source_hash() -> str:
    """The compiler's own sources: a change to halide_mlir invalidates cached measurements."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    h = hashlib.sha1()
    for dirpath, dirnames, files in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", "autotune", "tools"))
        for name in sorted(files):
            if name.endswith((".py", ".mlir")):
                with open(os.path.join(dirpath, name), "rb") as f:
                    h.update(name.encode() + f.read())
    return h.hexdigest()[:16]


def pipeline_hash(infos, sizes) -> str:
    """Hash of the algorithm (every Func with schedules reset, inputs included), sizes, threads, compiler."""
    from ..settings import num_threads

    saved = save_schedules(infos)
    try:
        reset_schedules(infos)
        blob = pickle.dumps([i.func for i in infos], protocol=4)
    finally:
        restore_schedules(infos, saved)
    h = hashlib.sha1(blob)
    h.update(repr((list(sizes), num_threads(), _source_hash(), CACHE_VERSION)).encode())
    return h.hexdigest()[:20]


def default_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "halide_mlir", "autotune")


class Cache:
    def __init__(self, directory: str | None, key: str):
        self.path = None if directory is None else os.path.join(directory, f"{key}.json")
        self.data = {}
        if self.path and os.path.exists(self.path):
            try:
                with open(self.path) as f:
                    self.data = json.load(f)
            except (OSError, ValueError):
                self.data = {}

    def get(self, key: str):
        return self.data.get(key)

    def put(self, key: str, value: dict) -> None:
        self.data[key] = value
        if self.path:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            tmp = self.path + f".{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                json.dump(self.data, f)
            os.replace(tmp, self.path)


# ------------------------------------------------------------------------------------------------ result


@dataclass
class AutotuneResult:
    best_time: float | None  # seconds, best of the runs of the best schedule
    schedule_code: str  # Python to paste (Func/Var names as in the pipeline)
    transform_script: str  # the transform-dialect script of the best schedule
    history: list  # [(search seconds, best time so far)] after every evaluation
    plan: list  # the best schedule as (func index, update or None, method, args) calls
    baseline_time: float | None  # the schedule the Funcs had when autotune was called
    reference_time: float | None  # the unscheduled pipeline (the correctness reference), compile + run
    counts: dict  # evaluations by status: ok, cached, mismatch, halide_error,
    #                                   internal_error, crash, ...
    evaluations: list  # every candidate: dict(t, status, time, error, key)
    budget_s: float
    search_s: float
    errors: dict = field(default_factory=dict)  # a few example messages per failure status
    _infos: list = field(default_factory=list, repr=False)
    _original: list = field(default_factory=list, repr=False)

    def apply(self) -> None:
        """Give the user's Funcs the best schedule (every Func of the pipeline is reset first)."""
        apply_plan(self._infos, self.plan)

    def restore(self) -> None:
        """Put back the schedules the Funcs had when autotune was called."""
        restore_schedules(self._infos, self._original)
        self._original = save_schedules(self._infos)

    @property
    def speedup(self) -> float | None:
        if self.best_time and self.baseline_time:
            return self.baseline_time / self.best_time
        return None

    def __str__(self) -> str:
        ms = lambda t: "-" if t is None else f"{t * 1e3:.3f} ms"  # noqa: E731
        head = (
            f"# autotuned in {self.search_s:.0f} s: best {ms(self.best_time)}, "
            f"given schedule {ms(self.baseline_time)}, {self.counts}"
        )
        return head + "\n" + self.schedule_code


# ------------------------------------------------------------------------------------------------ progress


class Progress:
    def __init__(self, enabled: bool, budget: float, stream=None):
        self.enabled, self.budget, self.stream = enabled, budget, stream or sys.stderr
        self.width = 30
        self._last_best, self._last_t = None, -1e9

    def update(self, elapsed: float, n: int, bad: int, best: float | None, baseline: float | None) -> None:
        if not self.enabled:
            return
        tty = getattr(self.stream, "isatty", lambda: False)()
        if not tty:  # a log file: one line when the best improves, else every 15 s
            if best == self._last_best and elapsed - self._last_t < 15:
                return
            self._last_best, self._last_t = best, elapsed
        frac = min(1.0, elapsed / self.budget) if self.budget > 0 else 1.0
        bar = "#" * int(frac * self.width) + "-" * (self.width - int(frac * self.width))
        b = f"{best * 1e3:.3f} ms" if best else "-"
        base = f" (given {baseline * 1e3:.3f} ms)" if baseline else ""
        self.stream.write(
            ("\r" if tty else "") + f"[{bar}] {elapsed:5.0f}/{self.budget:.0f} s  {n:4d} tried, "
            f"{bad:3d} rejected  "
            f"best {b}{base} " + ("" if tty else "\n")
        )
        self.stream.flush()

    def note(self, text: str) -> None:
        if self.enabled:
            self.stream.write("\n" + text + "\n")
            self.stream.flush()

    def done(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


# ------------------------------------------------------------------------------------------------ search


def _bind_inputs(inputs) -> None:
    if not inputs:
        return
    from ..lang.buffer import Buffer

    for holder, value in inputs.items() if isinstance(inputs, dict) else inputs:
        if isinstance(value, np.ndarray):
            value = Buffer(value)
        holder.set(value)


def autotune(
    func,
    sizes,
    budget_s: float = 60.0,
    inputs=None,
    seed=None,
    cache_dir=None,
    progress=True,
    population: int = 12,
    timeout_s: float = 120.0,
    min_time: float = 0.2,
    log=None,
) -> AutotuneResult:
    """Search the schedule space of the pipeline ending at ``func`` for ``budget_s`` seconds.

    Every Func of the pipeline is scheduled: inline / compute_root / compute_at(consumer, loop) (+ store_at),
    split/tile factors (powers of two and divisors of the output size), loop order, vector width (a quarter to
    twice a 512-bit register of the Func's type), parallel outer loop, unroll of the inner y loop, and for update
    definitions vectorization, RVars-outermost order and parallelism over pure vars. Each candidate is compiled
    and run by the real JIT in a worker process (best of several runs, at least ``min_time`` seconds of runs);
    a candidate whose output differs from the unscheduled pipeline (integers exactly, floats to rtol 1e-4 plus
    1e-5 x max|reference|), that raises HalideError, crashes or exceeds ``timeout_s`` is rejected and counted.
    Measurements are cached as JSON in ``cache_dir`` (default ``~/.cache/halide_mlir/autotune``; ``False``: no
    cache) under a hash of the algorithm, inputs, sizes, thread count and compiler sources.

    ``inputs``: optional {ImageParam or Param: value} bound before compiling. The Funcs' own schedules are not
    changed: call ``result.apply()`` to give them the best one.
    """
    if isinstance(sizes, (int, np.integer)):
        sizes = [int(sizes)]
    sizes = [int(s) for s in sizes]
    _bind_inputs(inputs)
    from ..driver import front_end

    front_end(func)  # definitions must be complete and the given schedule legal
    infos = pipeline_funcs(func)
    if len(sizes) != len(infos[-1].vars):
        raise HalideError(
            f"autotune: Func '{func.name()}' has {len(infos[-1].vars)} dimensions but {len(sizes)} sizes were given"
        )
    original = save_schedules(infos)
    rng = random.Random(seed)
    space = Space(infos, sizes, rng)
    key = pipeline_hash(infos, sizes)
    cache = Cache(None if cache_dir is False else (cache_dir or default_cache_dir()), key)
    prog = Progress(progress, budget_s)
    say = log or (lambda s: prog.note(s))

    worker = Measurer(infos, sizes)
    counts: dict = {}
    errors: dict = {}
    evaluations: list = []
    history: list = []
    best = {"time": None, "plan": None, "genome": None}
    seen: dict = {}
    try:
        r = worker.call("reference", None, max(timeout_s, 300))
        if r["status"] != "ok":
            raise HalideError(f"autotune: the unscheduled pipeline fails ({r['status']}): {r.get('error')}")
        worker.set_reference(r["ref"])
        reference_time = r["time"]
        b = worker.call("measure", {"plan": None, "min_time": min_time}, timeout_s)
        baseline = b.get("time") if b["status"] == "ok" else None
        if b["status"] != "ok":
            say(f"autotune: the given schedule fails ({b['status']}): {b.get('error')}")
        t0 = time.monotonic()
        elapsed = lambda: time.monotonic() - t0  # noqa: E731

        def evaluate(genome) -> float:
            plan = space.decode(genome)
            k = plan_key(plan)
            if k in seen:
                return seen[k]
            hit = cache.get(k)
            if hit is not None:
                res, status = hit, "cached"
            else:
                left = budget_s - elapsed()
                res = worker.call(
                    "measure",
                    {"plan": plan, "best": best["time"], "min_time": min_time},
                    max(15.0, min(timeout_s, left + 10)),
                )
                status = res["status"]
                if status in ("ok", "mismatch", "halide_error", "internal_error", "exception"):
                    cache.put(k, {kk: v for kk, v in res.items() if kk in ("status", "time", "error", "compile_s")})
            counts[status] = counts.get(status, 0) + 1
            if res["status"] != "ok":
                counts.setdefault("rejected", 0)
                counts["rejected"] += 1
                ex = errors.setdefault(res["status"], [])
                if len(ex) < 5 and res.get("error") not in ex:
                    ex.append(res.get("error"))
            t = res.get("time") if res["status"] == "ok" else None
            fitness = t if t is not None else float("inf")
            seen[k] = fitness
            if t is not None and (best["time"] is None or t < best["time"]):
                best.update(time=t, plan=plan, genome=genome)
            evaluations.append(
                {
                    "t": elapsed(),
                    "status": res["status"],
                    "time": t,
                    "error": res.get("error"),
                    "cached": status == "cached",
                    "key": k,
                }
            )
            history.append((elapsed(), best["time"]))
            prog.update(elapsed(), len(evaluations), counts.get("rejected", 0), best["time"], baseline)
            return fitness

        # --- genetic algorithm -----------------------------------------------------------------------
        pop = []
        for g in space.seeds():
            if elapsed() >= budget_s:
                break
            pop.append((evaluate(g), g))
        while len(pop) < population and elapsed() < budget_s:
            g = space.random_genome()
            pop.append((evaluate(g), g))

        def tournament():
            cands = rng.sample(pop, min(3, len(pop)))
            return min(cands, key=lambda p: p[0])[1]

        stale = 0
        while elapsed() < budget_s and pop:
            pop.sort(key=lambda p: p[0])
            nxt = pop[:2]  # elitism
            while len(nxt) < population and elapsed() < budget_s:
                a = tournament()
                child = space.crossover(a, tournament()) if rng.random() < 0.5 else a
                child = space.mutate(child, 1 + int(rng.random() < 0.4) + int(rng.random() < 0.2))
                for _ in range(8):  # prefer schedules not seen yet
                    if plan_key(space.decode(child)) not in seen:
                        break
                    child = space.mutate(child, 1)
                if rng.random() < 0.08:  # immigrants keep diversity
                    child = space.random_genome()
                n_before = len(evaluations)
                f = evaluate(child)
                stale = stale + 1 if len(evaluations) == n_before else 0
                nxt.append((f, child))
                if stale > 200:
                    break
            pop = nxt
            if stale > 200:  # the space is exhausted (all neighbours seen)
                break
        search_s = elapsed()
        prog.done()

        transform = ""
        if best["plan"] is not None:
            r = worker.call("transform", best["plan"], timeout_s)
            transform = r.get("text", "") if r["status"] == "ok" else f"// transform script failed: {r.get('error')}"
    finally:
        worker.close()

    code = plan_code(infos, best["plan"]) if best["plan"] is not None else "# no valid schedule found\n"
    return AutotuneResult(
        best_time=best["time"],
        schedule_code=code,
        transform_script=transform,
        history=history,
        plan=best["plan"] or [],
        baseline_time=baseline,
        reference_time=reference_time,
        counts=counts,
        evaluations=evaluations,
        budget_s=budget_s,
        search_s=search_s,
        errors=errors,
        _infos=infos,
        _original=original,
    )
