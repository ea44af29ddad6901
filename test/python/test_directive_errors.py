"""Issue 16's bad-input column, directive by directive: each call Halide 21 refuses is run under real Halide and
under ours side by side. Both must raise, with the same kind of exception (Halide's ``HalideError`` <->
``hl.HalideError``; a TypeError/ValueError of the bindings <-> ours of the same kind), and our message must name the
Func and the line of this file the bad call sits on (``# site:<case>``). docs/directives.md's "Done-means
checklist" lists these cases per directive.
"""

import warnings

import numpy as np
import pytest

from helpers import UserLines
from oracle import ours, reference

LINES = UserLines(__file__)

IMG = np.arange(16 * 12, dtype=np.uint8).reshape(12, 16) % 7


def _blur(hl, name="bx"):
    """bx[x, y] = in[x, y] + in[x, y + 1] + in[x, y + 2], by[x, y] = bx[x, y] + bx[x + 1, y]."""
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(IMG, "inp")
    bx, by = hl.Func(name), hl.Func("by")
    bx[x, y] = inp[x, y] + inp[x, hl.min(y + 1, 11)] + inp[x, hl.min(y + 2, 11)]
    by[x, y] = bx[x, y] + bx[x + 1, y]
    return x, y, bx, by


def _scatter(hl, op):
    """hist[inp[r.x, r.y] % 8] op= 1 over the image."""
    x = hl.Var("x")
    inp = hl.Buffer(IMG, "inp")
    r = hl.RDom([(0, 16), (0, 12)])
    hist = hl.Func("hist")
    hist[x] = 0
    i = hl.cast(hl.Int(32), inp[r.x, r.y]) % 8
    hist[i] = op(hist[i])
    return hist, r


# Each case: (tag, Func the message names, program(hl)). The bad call carries `# site:<tag>`.

def specialize_non_bool(hl):
    x, y, bx, by = _blur(hl)
    p = hl.Param(hl.Int(32), "p", 3)
    by.specialize(p + 1)  # site:specialize_non_bool
    return by.realize([8, 8])


def specialize_fail_reached(hl):
    x, y, bx, by = _blur(hl)
    p = hl.Param(hl.Int(32), "p", 3)
    by.specialize(p > 2).vectorize(x, 4)
    by.specialize_fail("p must be small")  # site:specialize_fail_reached
    p.set(1)
    return by.realize([8, 8])


def rfactor_non_associative(hl):
    x = hl.Var("x")
    inp = hl.Buffer(IMG, "inp")
    r = hl.RDom([(0, 16)])
    s = hl.Func("s")
    s[x] = 0
    s[x] = s[x] - hl.cast(hl.Int(32), inp[r.x, x])
    s.update().rfactor(r.x, hl.Var("u"))  # site:rfactor_non_associative
    return s.realize([12])


def in_of_itself(hl):
    x, y, bx, by = _blur(hl)
    bx.in_(bx)  # site:in_of_itself
    return by.realize([8, 8])


def in_for_a_non_caller(hl):
    x, y, bx, by = _blur(hl)
    other = hl.Func("other")
    other[x, y] = x + y
    out = hl.Func("out")
    out[x, y] = by[x, y] + other[x, y]
    bx.in_(other).compute_root()  # site:in_for_a_non_caller
    return out.realize([8, 8])


def compute_with_itself(hl):
    x, y, bx, by = _blur(hl)
    bx.compute_root()
    bx.compute_with(bx, y)  # site:compute_with_itself
    return by.realize([8, 8])


def atomic_non_commutative(hl):
    hist, r = _scatter(hl, lambda v: 2 * v - 1)
    hist.update().atomic().parallel(r.y)  # site:atomic_non_commutative
    return hist.realize([8])


def parallel_rvar_without_atomic(hl):
    hist, r = _scatter(hl, lambda v: v + 1)
    hist.update().parallel(r.y)  # site:parallel_rvar_without_atomic
    return hist.realize([8])


def memoize_output(hl):
    x, y, bx, by = _blur(hl)
    by.memoize()  # site:memoize_output
    return by.realize([8, 8])


def ring_buffer_without_hoist(hl):
    x, y, bx, by = _blur(hl)
    bx.compute_at(by, y).store_at(by, y).async_().ring_buffer(2)  # site:ring_buffer_without_hoist
    return by.realize([8, 8])


def hoist_storage_of_inline(hl):
    x, y, bx, by = _blur(hl)
    bx.hoist_storage_root()  # site:hoist_storage_of_inline
    return by.realize([8, 8])


def prefetch_from_outside(hl):
    x, y = hl.Var("x"), hl.Var("y")
    yo, yi = hl.Var("yo"), hl.Var("yi")
    inp = hl.ImageParam(hl.UInt(8), 2, "inp")
    f = hl.Func("f")
    f[x, y] = inp[x, y] + 1
    f.split(y, yo, yi, 4).prefetch(inp, yo, yi)  # site:prefetch_from_outside
    inp.set(hl.Buffer(IMG))
    return f.realize([16, 12])


def partition_always_unpartitioned(hl):
    x, y, bx, by = _blur(hl)
    by.always_partition([x])  # site:partition_always_unpartitioned
    return by.realize([8, 8])


def partition_unknown_var(hl):
    x, y, bx, by = _blur(hl)
    by.partition(hl.Var("z"), hl.Partition.Never)  # site:partition_unknown_var
    return by.realize([8, 8])


def bound_extent_too_small(hl):
    x, y, bx, by = _blur(hl)
    bx.compute_root().bound_extent(x, 4)  # site:bound_extent_too_small
    return by.realize([8, 8])


def bound_storage_too_small(hl):
    x, y, bx, by = _blur(hl)
    bx.compute_at(by, y).bound_storage(x, 4)  # site:bound_storage_too_small
    return by.realize([8, 8])


def fold_storage_too_small(hl):
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(IMG, "inp")
    bx, by = hl.Func("bx"), hl.Func("by")
    bx[x, y] = inp[x, y] + inp[x + 1, y]
    by[x, y] = bx[x, y] + bx[x, y + 1] + bx[x, y + 2]
    bx.store_root().compute_at(by, y).fold_storage(y, 2)  # site:fold_storage_too_small
    return by.realize([8, 8])


def fold_storage_unknown_var(hl):
    x, y, bx, by = _blur(hl)
    bx.store_root().compute_at(by, y).fold_storage(hl.Var("z"), 2)  # site:fold_storage_unknown_var
    return by.realize([8, 8])


CASES = [
    ("specialize_non_bool", "by", specialize_non_bool),
    ("specialize_fail_reached", "by", specialize_fail_reached),
    ("rfactor_non_associative", "s", rfactor_non_associative),
    ("in_of_itself", "bx", in_of_itself),
    ("in_for_a_non_caller", "bx", in_for_a_non_caller),
    ("compute_with_itself", "bx", compute_with_itself),
    ("atomic_non_commutative", "hist", atomic_non_commutative),
    ("parallel_rvar_without_atomic", "hist", parallel_rvar_without_atomic),
    ("memoize_output", "by", memoize_output),
    ("ring_buffer_without_hoist", "bx", ring_buffer_without_hoist),
    ("hoist_storage_of_inline", "bx", hoist_storage_of_inline),
    ("prefetch_from_outside", "f", prefetch_from_outside),
    ("partition_always_unpartitioned", "by", partition_always_unpartitioned),
    ("partition_unknown_var", "by", partition_unknown_var),
    ("bound_extent_too_small", "bx", bound_extent_too_small),
    ("bound_storage_too_small", "bx", bound_storage_too_small),
    ("fold_storage_too_small", "bx", fold_storage_too_small),
    ("fold_storage_unknown_var", "bx", fold_storage_unknown_var),
]


def _kind(exc, mod):
    """What kind of error, in terms both implementations share."""
    for kind in (TypeError, ValueError):
        if isinstance(exc, kind):
            return kind.__name__
    if isinstance(exc, mod.HalideError):
        return "HalideError"
    return f"{type(exc).__module__}.{type(exc).__name__}"


def _raised(program, mod):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            result = program(mod)
        except Exception as e:  # noqa: BLE001 -- the kind is what the test compares
            return e
    raise AssertionError(f"{mod.__name__} did not raise (returned {result!r:.200})")


@pytest.mark.parametrize("tag,func,program", CASES, ids=[c[0] for c in CASES])
def test_refused_as_halide_refuses(tag, func, program):
    ref = _raised(program, reference())
    mine = _raised(program, ours())
    assert _kind(mine, ours()) == _kind(ref, reference()), (
        f"ours raised {type(mine).__name__} ({mine}), Halide {type(ref).__name__} ({ref})")
    assert not isinstance(mine, ours().InternalError), mine
    LINES.check(str(mine), func, at=tag)
