"""A fuzzing campaign: N examples drawn from a seed, each checked (check.py), counted and summarized; then one
example of every distinct failure is shrunk by Hypothesis, its schedule reduced line by line, and printed as a
standalone Python reproducer."""

from __future__ import annotations

import collections
import hashlib
import os
import re
import sys
import time

from ..worker import Worker
from .check import Outcome, _first_line, check, reproducer, worker
from .program import programs


def _hypothesis_settings(n: int, phases):
    from hypothesis import HealthCheck, settings

    return settings(
        max_examples=n,
        deadline=None,
        database=None,
        phases=phases,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
        report_multiple_bugs=False,
    )


def _digest(source: str) -> str:
    return hashlib.sha1(source.encode()).hexdigest()


def reduce_schedule(source: str, signature: str, w: Worker | None = None) -> tuple[str, Outcome]:
    """Greedy clean-up after Hypothesis' shrinking: drop schedule lines (and then unused Var declarations) one
    at a time while the example still fails with the same signature."""
    lines = source.split("\n")
    start = lines.index("    if schedule:") + 1
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("        "))
    best = check(source, w)
    changed = True
    while changed:
        changed = False
        for i in range(end - 1, start - 1, -1):
            cand = lines[:i] + lines[i + 1 :]
            if end - 1 == start:  # keep the block non-empty
                cand = lines[:i] + ["        pass"] + lines[i + 1 :]
            o = check("\n".join(cand), w)
            if o.signature == signature:
                lines, best, changed = cand, o, True
                end = next(j for j in range(start, len(lines)) if not lines[j].startswith("        "))
    return "\n".join(lines), best


class FuzzFailure(Exception):
    def __init__(self, source, outcome):
        super().__init__(f"{outcome.status}: {outcome.detail}")
        self.source = source
        self.outcome = outcome


def run(
    examples: int,
    seed: int,
    shrink: int = 3,
    out_dir: str | None = None,
    verbose: bool = False,
    stream=sys.stdout,
    shrink_internal: bool = False,
) -> dict:
    from hypothesis import Phase, given, seed as hseed

    counts = collections.Counter()
    unsupported = collections.Counter()
    skipped = collections.Counter()
    failures = []  # (index, source, outcome)
    passing = set()  # digests of examples that did not fail (skipped when replaying for shrinking)
    kinds = collections.Counter()
    sched_ops = collections.Counter()
    ops = collections.Counter()  # the Expr ops and intrinsics of the algorithms
    start = time.time()
    w = worker()
    state = {"i": 0}

    def account(source, prog):
        for k in prog.description.split():
            kinds[k.split(":")[1]] += 1
        for name in re.findall(r"hl\.(\w+)\(", "\n".join(prog.algorithm)):
            if name not in ("cast", "Func", "Buffer", "Var", "RDom", "Float", "Int", "UInt", "ImageParam", "Param"):
                ops[name] += 1
        for l in prog.schedule:
            for op in (
                "compute_root",
                "compute_at",
                "store_at",
                "store_root",
                "compute_inline",
                "split",
                "tile",
                "reorder",
                "vectorize",
                "unroll",
                "parallel",
                "update(0)",
                "TailStrategy",
                "outermost",
                "fold_storage",
                ".in_()",
                ".in_(f",
                ".clone_in(",
                ".specialize(",
                ".rfactor(",
                ".atomic(",
                "gpu_tile",
                "gpu_blocks",
                "gpu_threads",
                "store_in",
                ".prefetch(",
                ".compute_with(",
                "partition",
                ".bound(",
                ".bound_extent(",
                ".align_bounds(",
                ".align_extent(",
                ".align_storage(",
                ".bound_storage(",
                ".memoize(",
                ".async_(",
                ".hoist_storage",
                ".ring_buffer(",
            ):
                if op in l:
                    sched_ops[op] += 1

    @hseed(seed)
    @_hypothesis_settings(examples, [Phase.generate])
    @given(programs())
    def count(prog):
        source = prog.source()
        i = state["i"] = state["i"] + 1
        account(source, prog)
        o = check(source, w)
        counts[o.status] += 1
        if o.status == "unsupported":
            internal = o.signature.startswith("unsupported:internal")
            counts["internal"] += internal
            msg = o.detail.split(": ", 1)[-1]
            if internal:  # the MLIR diagnostic is the interesting part
                msg = " | ".join(l.strip() for l in msg.splitlines()[:4] if l.strip())
            # group messages that differ only in names, numbers and source lines
            key = re.sub(r"\(at <fuzz case>:\d+\)|<fuzz case>\S*|\d+", "#", _first_line(msg))
            key = re.sub(r"'(f\d|constant_exterior_in|repeat_edge_in|mirror_image_in)[^']*'", r"'\1..'", key)
            key = re.sub(r"(f\d|r\d)[\w$.]*", r"\1..", key)
            unsupported[("[MLIR failure] " if internal else "") + key] += 1
            if out_dir:
                os.makedirs(out_dir, exist_ok=True)
                with open(os.path.join(out_dir, f"unsupported_{i:05d}{'_internal' if internal else ''}.py"), "w") as fh:
                    fh.write(reproducer(source, o))
        elif o.status == "skip":
            skipped[_first_line(o.detail)] += 1
        if o.failed or (shrink_internal and o.signature.startswith("unsupported:internal")):
            failures.append((i, source, o))
        if o.failed:
            print(f"[{i}] {o.status.upper()}: {_first_line(o.detail)}", file=stream, flush=True)
            if verbose:
                print(reproducer(source, o), file=stream, flush=True)
            if out_dir:
                os.makedirs(out_dir, exist_ok=True)
                with open(os.path.join(out_dir, f"case_{i:05d}_{o.status}.py"), "w") as fh:
                    fh.write(reproducer(source, o))
        if not o.failed and not o.signature.startswith("unsupported:internal"):
            passing.add(_digest(source))
        if i % 25 == 0:
            el = time.time() - start
            print(
                f"[{i}/{examples}] {el:.0f}s ({i / el:.2f}/s) pass={counts['pass']} "
                f"mismatch={counts['mismatch']} crash={counts['crash']} error={counts['error']} "
                f"unsupported={counts['unsupported']} skip={counts['skip']}",
                file=stream,
                flush=True,
            )

    count()
    n = state["i"]
    elapsed = time.time() - start
    mism, crashes, errors = counts["mismatch"], counts["crash"], counts["error"]
    print(f"\nstage kinds drawn: {dict(kinds)}", file=stream)
    print(f"schedule calls drawn: {dict(sched_ops)}", file=stream)
    print(f"ops drawn: {dict(ops.most_common())}", file=stream)
    print(
        f"\nunsupported by halide_mlir ({counts['unsupported']}, of which {counts['internal']} MLIR failures):",
        file=stream,
    )
    for m, c in unsupported.most_common(25):
        print(f"  {c:5d}  {m}", file=stream)
    print(f"skipped, real Halide rejected ({counts['skip']}):", file=stream)
    for m, c in skipped.most_common(10):
        print(f"  {c:5d}  {m}", file=stream)
    print(
        f"\n{n} examples in {elapsed:.0f} s: {counts['pass']} passed, {counts['unsupported']} unsupported, "
        f"{counts['skip']} skipped (Halide rejected), {errors} errors",
        file=stream,
    )
    print(
        f"{n} examples, {mism} mismatches, {crashes} crashes ({counts['unsupported']} unsupported, "
        f"{errors} other exceptions)",
        file=stream,
        flush=True,
    )

    # Shrink one example of every distinct failure signature: replay the same seeded generation (examples
    # known to pass are not run again), raise on the first example with that signature, let Hypothesis shrink.
    minimized = []
    sigs = []
    for i, _source, o in failures:
        if o.signature not in [s for s, _ in sigs]:
            sigs.append((o.signature, i))
    for sig, first in sigs[:shrink]:
        print(f"\nshrinking '{sig}' (first seen at example {first}) ...", file=stream, flush=True)
        t0 = time.time()

        def make_replay(sig):
            @hseed(seed)
            @_hypothesis_settings(examples, [Phase.generate, Phase.shrink])
            @given(programs())
            def replay(prog):
                source = prog.source()
                if _digest(source) in passing:
                    return
                o = check(source, w)
                if o.signature == sig:
                    raise FuzzFailure(source, o)

            return replay

        replay = make_replay(sig)

        try:
            replay()
        except FuzzFailure as e:
            small, o = reduce_schedule(e.source, sig, w)
            rep = reproducer(small, o)
            minimized.append((sig, rep))
            print(
                f"minimal reproducer ({time.time() - t0:.0f} s):\n{'-' * 78}\n{rep}{'-' * 78}", file=stream, flush=True
            )
            if out_dir:
                with open(os.path.join(out_dir, f"min_{len(minimized)}_{sig.split(':')[0]}.py"), "w") as fh:
                    fh.write(rep)
        else:
            print("  (not reproduced on replay)", file=stream)
    if failures:
        print(
            f"\n{n} examples, {mism} mismatches, {crashes} crashes ({counts['unsupported']} unsupported, "
            f"{errors} other exceptions)",
            file=stream,
            flush=True,
        )
    return {
        "examples": n,
        "mismatches": mism,
        "crashes": crashes,
        "errors": errors,
        "unsupported": counts["unsupported"],
        "skipped": counts["skip"],
        "passed": counts["pass"],
        "failures": failures,
        "minimized": minimized,
    }
