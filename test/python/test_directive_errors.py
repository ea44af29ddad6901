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


def partition_bare_var(hl):
    x, y, bx, by = _blur(hl)
    by.never_partition(x)  # site:partition_bare_var
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


def specialize_on_a_var(hl):
    x, y, bx, by = _blur(hl)
    by.specialize(x > 3)  # site:specialize_on_a_var
    return by.realize([8, 8])


def specialize_after_fail(hl):
    x, y, bx, by = _blur(hl)
    by.specialize_fail("never")
    by.specialize(hl.Param(hl.Bool(), "b", True))  # site:specialize_after_fail
    return by.realize([8, 8])


def _sum(hl):
    x = hl.Var("x")
    r = hl.RDom([(0, 16)])
    s = hl.Func("s")
    s[x] = 0
    s[x] += r.x * x
    return x, r, s


def rfactor_foreign_rvar(hl):
    x, r, s = _sum(hl)
    s.update().rfactor(hl.RDom([(0, 4)]).x, hl.Var("u"))  # site:rfactor_foreign_rvar
    return s.realize([4])


def rfactor_of_a_pure_var(hl):
    x, r, s = _sum(hl)
    s.update().rfactor(x, hl.Var("u"))  # site:rfactor_of_a_pure_var
    return s.realize([4])


def clone_in_of_itself(hl):
    x, y, bx, by = _blur(hl)
    bx.clone_in(bx)  # site:clone_in_of_itself
    return by.realize([8, 8])


def compute_with_other_level(hl):
    x, y, bx, by = _blur(hl)
    g = hl.Func("g")
    g[x, y] = bx[x, y] * 2
    out = hl.Func("out")
    out[x, y] = by[x, y] + g[x, y]
    bx.compute_root()
    by.compute_root()
    g.compute_at(out, y)
    g.compute_with(by, y)  # site:compute_with_other_level
    return out.realize([8, 8])


def atomic_vectorized_non_commutative(hl):
    hist, r = _scatter(hl, lambda v: 2 * v - 1)
    hist.update().atomic().vectorize(r.x, 4)  # site:atomic_vectorized_non_commutative
    return hist.realize([8])


def atomic_scan(hl):
    x = hl.Var("x")
    r = hl.RDom([(1, 15)])
    c = hl.Func("c")
    c[x] = x
    c[r.x] = c[r.x - 1] + c[r.x]
    c.update().atomic().parallel(r.x)  # site:atomic_scan
    return c.realize([16])


def parallel_scan_without_atomic(hl):
    x = hl.Var("x")
    r = hl.RDom([(1, 15)])
    c = hl.Func("c")
    c[x] = x
    c[r.x] = c[r.x - 1] + c[r.x]
    c.update().parallel(r.x)  # site:parallel_scan_without_atomic
    return c.realize([16])


def memoize_inline(hl):
    x, y, bx, by = _blur(hl)
    bx.memoize()  # site:memoize_inline
    return by.realize([8, 8])


def hoist_storage_inside_store(hl):
    x, y, bx, by = _blur(hl)
    yo, yi = hl.Var("yo"), hl.Var("yi")
    by.split(y, yo, yi, 4)
    bx.compute_at(by, yo).hoist_storage(by, yi)  # site:hoist_storage_inside_store
    return by.realize([8, 8])


def hoist_storage_across_parallel(hl):
    x, y, bx, by = _blur(hl)
    by.parallel(y)
    bx.compute_at(by, y).hoist_storage_root()  # site:hoist_storage_across_parallel
    return by.realize([8, 8])


def partition_unknown_update_var(hl):
    x, r, s = _sum(hl)
    s.update().partition(hl.Var("z"), hl.Partition.Never)  # site:partition_unknown_update_var
    return s.realize([4])


def bound_extent_unknown_var(hl):
    x, y, bx, by = _blur(hl)
    bx.compute_root().bound_extent(hl.Var("z"), 4)  # site:bound_extent_unknown_var
    return by.realize([8, 8])


def bound_extent_of_an_rvar(hl):
    x, r, s = _sum(hl)
    out = hl.Func("out")
    out[x] = s[x]
    s.compute_root().bound_extent(r.x, 4)  # site:bound_extent_of_an_rvar
    return out.realize([4])


def align_storage_unknown_var(hl):
    x, y, bx, by = _blur(hl)
    bx.compute_root().align_storage(hl.Var("z"), 4)  # site:align_storage_unknown_var
    return by.realize([8, 8])


def fold_storage_of_an_rvar(hl):
    x, r, s = _sum(hl)
    out = hl.Func("out")
    out[x] = s[x]
    s.compute_root().fold_storage(r.x, 4)  # site:fold_storage_of_an_rvar
    return out.realize([4])


def fold_storage_by_a_param(hl):
    x, y, bx, by = _blur(hl)
    bx.store_root().compute_at(by, y).fold_storage(y, hl.Param(hl.Int(32), "p", 4))  # site:fold_storage_by_a_param
    return by.realize([8, 8])


def update_roundup_of_an_inner_split(hl):
    x, r, s = _sum(hl)
    xo, xi = hl.Var("xo"), hl.Var("xi")
    s.update(0).split(x, xo, xi, 2)
    s.update(0).split(xi, xi, hl.Var("xii"), 4, hl.TailStrategy.RoundUp)  # site:update_roundup_of_an_inner_split
    return s.realize([8])



CASES = [
    ("specialize_non_bool", "by", specialize_non_bool),
    ("update_roundup_of_an_inner_split", "s", update_roundup_of_an_inner_split),
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
    ("partition_bare_var", "by", partition_bare_var),
    ("bound_extent_too_small", "bx", bound_extent_too_small),
    ("bound_storage_too_small", "bx", bound_storage_too_small),
    ("fold_storage_too_small", "bx", fold_storage_too_small),
    ("fold_storage_unknown_var", "bx", fold_storage_unknown_var),
    ("specialize_on_a_var", "by", specialize_on_a_var),
    ("specialize_after_fail", "by", specialize_after_fail),
    ("rfactor_foreign_rvar", "s", rfactor_foreign_rvar),
    ("rfactor_of_a_pure_var", "s", rfactor_of_a_pure_var),
    ("clone_in_of_itself", "bx", clone_in_of_itself),
    ("compute_with_other_level", "g", compute_with_other_level),
    ("atomic_vectorized_non_commutative", "hist", atomic_vectorized_non_commutative),
    ("atomic_scan", "c", atomic_scan),
    ("parallel_scan_without_atomic", "c", parallel_scan_without_atomic),
    ("memoize_inline", "bx", memoize_inline),
    ("hoist_storage_inside_store", "bx", hoist_storage_inside_store),
    ("hoist_storage_across_parallel", "bx", hoist_storage_across_parallel),
    ("partition_unknown_update_var", "s.update(0)", partition_unknown_update_var),
    ("bound_extent_unknown_var", "bx", bound_extent_unknown_var),
    ("bound_extent_of_an_rvar", "s", bound_extent_of_an_rvar),
    ("align_storage_unknown_var", "bx", align_storage_unknown_var),
    ("fold_storage_of_an_rvar", "s", fold_storage_of_an_rvar),
    ("fold_storage_by_a_param", "bx", fold_storage_by_a_param),
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
