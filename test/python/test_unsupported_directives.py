"""Halide directives halide_mlir does not implement yet are refused with a HalideError naming the directive and
the Func (lang/unsupported.py), and the storage directives it does not apply warn (StorageWarning; fold_storage:
test_storage_folding.py): never a directive accepted and silently dropped."""
import numpy as np
import pytest

import halide_mlir as hl

x, y = hl.Var("x"), hl.Var("y")


@pytest.mark.parametrize("name", ["hexagon"])
def test_a_directive_not_supported_yet_is_refused(name):
    f = hl.Func("refused")
    f[x, y] = x + y
    with pytest.raises(hl.HalideError, match=rf"Func 'refused': the '{name}' schedule directive is not supported"):
        getattr(f, name)(x)
    with pytest.raises(hl.HalideError, match=f"'{name}'"):
        getattr(f.update() if f.has_update_definition() else f, name)()


@pytest.mark.parametrize("call", [lambda f: f.reorder_storage(y, x)])
def test_storage_directives_not_applied_warn(call):
    f = hl.Func("stored")
    f[x, y] = x + y
    with pytest.warns(hl.StorageWarning, match="Func 'stored'"):
        call(f)
    assert np.array_equal(np.asarray(f.realize([5, 3])), np.add.outer(np.arange(3), np.arange(5)))
