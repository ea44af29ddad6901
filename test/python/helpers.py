"""Helpers shared by the test files: Vars by name, the pipelines several files build (the README's box blur,
tutorial lesson 8, Halide's matrix multiplication), subprocesses and threads, and the checks of error
messages. The differential harness (run both implementations, compare) is oracle.py."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np

import halide_mlir

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# What ours raises for a primitive it does not have: such a case may be skipped, a wrong result never.
NOT_YET = (halide_mlir.HalideError, AttributeError, NotImplementedError)


def V(hl, *names):
    """Vars by name: ``x, y, xo = V(hl, "x y xo")`` (or ``V(hl, "x", "y", "xo")``)."""
    return [hl.Var(n) for group in names for n in group.split()]


# ---------------------------------------------------------------------------
# Pipelines several files build (unscheduled: each test schedules them)
# ---------------------------------------------------------------------------

def box_blur(hl, inp, names=("bx", "by")):
    """The README's 3x3 box blur of ``inp`` (a Buffer, ImageParam or Func): ``bx`` averages 3 columns, ``by``
    3 rows of ``bx``. Returns (bx, by, x, y)."""
    x, y = hl.Var("x"), hl.Var("y")
    bx, by = hl.Func(names[0]), hl.Func(names[1])
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    return bx, by, x, y


def box_blur_numpy(a):
    """box_blur in numpy ([row, col] layout), with Halide's arithmetic for float32 and uint16."""
    if a.dtype == np.uint16:  # Halide: u16 + u16 wraps, / 3 floors
        bx = ((a[:, :-2] + a[:, 1:-1] + a[:, 2:]) // 3).astype(np.uint16)
        return ((bx[:-2] + bx[1:-1] + bx[2:]) // 3).astype(np.uint16)
    bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) / np.float32(3)
    return (bx[:-2] + bx[1:-1] + bx[2:]) / np.float32(3)


def lesson8(hl, tag=None):
    """Tutorial lesson 8's pipeline: ``producer = sqrt(x * y)``, ``consumer`` sums a 2x2 square of it. The
    Funcs are named ``producer_<tag>`` / ``consumer_<tag>`` (plain ``producer`` / ``consumer`` without a tag).
    Returns (producer, consumer, x, y)."""
    suffix = f"_{tag}" if tag else ""
    x, y = hl.Var("x"), hl.Var("y")
    producer, consumer = hl.Func("producer" + suffix), hl.Func("consumer" + suffix)
    producer[x, y] = hl.sqrt(x * y)
    consumer[x, y] = producer[x, y] + producer[x, y + 1] + producer[x + 1, y] + producer[x + 1, y + 1]
    return producer, consumer, x, y


def matmul(hl, a, b):
    """C = A B (numpy a[row, k]) with the schedule of Halide's matrix multiplication performance test (16
    lanes): ``prod`` is computed per 4-row strip of a 32x32 tile, its y loop and its update's x (2 vectors) and
    y loops unrolled."""
    n = a.shape[0]
    a, b = hl.Buffer(a, "A"), hl.Buffer(b, "B")   # A(k, y), B(x, k)
    x, y, xi, yi, yii, t = V(hl, "x y xi yi yii t")
    r = hl.RDom([hl.Range(0, n)])
    prod, out = hl.Func("prod"), hl.Func("matmul")
    prod[x, y] = hl.f32(0)
    prod[x, y] += a[r.x, y] * b[x, r.x]
    out[x, y] = prod[x, y]
    out.tile(x, y, xi, yi, 32, 32).fuse(x, y, t).parallel(t)
    out.split(yi, yi, yii, 4).vectorize(xi, 16).unroll(xi).unroll(yii)
    prod.compute_at(out, yi).vectorize(x, 16).unroll(y)
    prod.update().reorder(x, y, r.x).vectorize(x, 16).unroll(x).unroll(y)
    return out


# ---------------------------------------------------------------------------
# Subprocesses and threads
# ---------------------------------------------------------------------------

def python_env(**extra) -> dict:
    """os.environ with this checkout first on PYTHONPATH (a child process imports this halide_mlir), updated
    with ``extra``."""
    env = dict(os.environ, PYTHONPATH=REPO_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.update(extra)
    return env


def run_python(code: str, env=None, timeout: int = 300, **kwargs) -> subprocess.CompletedProcess:
    """Run ``code`` (dedented) in a fresh interpreter, so a segfault or an abort is reported, not fatal; ``env``
    defaults to python_env()."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=python_env() if env is None else env, **kwargs)


def in_threads(jobs, timeout=300):
    """Run each job in its own thread, all released at once; re-raise the first failure."""
    barrier = threading.Barrier(len(jobs))
    errors = []

    def run(job):
        try:
            barrier.wait()
            job()
        except BaseException as e:  # noqa: BLE001 -- reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(j,)) for j in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
        assert not t.is_alive(), "a thread hung"
    if errors:
        raise errors[0]


# ---------------------------------------------------------------------------
# Error messages
# ---------------------------------------------------------------------------

def ours_raises(program):
    """Run ``program(hl)`` with ours only (where real Halide crashes or accepts it); it must raise HalideError.
    Returns the message."""
    hl = halide_mlir
    try:
        result = program(hl)
    except hl.HalideError as e:
        return str(e)
    except Exception as e:  # an internal exception leaked
        raise AssertionError(f"ours raised {type(e).__module__}.{type(e).__name__} instead of HalideError: "
                             f"{e}") from e
    raise AssertionError(f"ours did not raise (returned {result!r:.200})")


class UserLines:
    """The lines of a test file that an error must point at (``<file>.py:<line>``), found by a ``# site:<tag>``
    marker on the line, so editing the file does not break the tests::

        LINES = UserLines(__file__)
        ...
        f[x] = g[x] + 1  # site:undefined
        ...
        LINES.check(msg, "g", at="undefined")
    """

    def __init__(self, path):
        self.file = os.path.basename(path)
        with open(path) as f:
            self._source = f.read().splitlines()

    def site(self, tag: str) -> str:
        """``<file>.py:<n>`` for the line carrying the marker ``# site:<tag>``."""
        lines = [i + 1 for i, text in enumerate(self._source) if text.rstrip().endswith(f"# site:{tag}")]
        assert len(lines) == 1, f"marker site:{tag} found {len(lines)} times"
        return f"{self.file}:{lines[0]}"

    def line_of(self, fn) -> str:
        """``<file>.py:<n>`` for the line a lambda is written on (where its calls are made)."""
        return f"{self.file}:{fn.__code__.co_firstlineno}"

    def check(self, msg: str, *words, at: str | None = None) -> None:
        """The message mentions every word, the user's line if ``at`` (a site tag or a line_of) is given, and
        no internal noise."""
        for w in words:
            assert w in msg, f"{w!r} not in error message: {msg!r}"
        if at is not None:
            where = at if at.startswith(self.file) else self.site(at)
            assert where in msg, f"error does not point at the user's line {where}: {msg!r}"
        assert "loc(unknown)" not in msg, msg
        assert "Traceback" not in msg, msg
