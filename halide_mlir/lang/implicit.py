"""Halide's implicit variables: ``hl._`` in a call or a definition's left-hand side, and ``hl._0 .. hl._9``.

In a call, ``_`` stands for as many implicit Vars ``_0, _1, ...`` as the callee has dimensions beyond the
explicit arguments (``g[x, _]`` on a 3-D g is ``g[x, _0, _1]``). On the left of a pure definition it stands for
the implicit Vars its right-hand side mentions (``f[x, _] = g[x, _]`` defines f over ``(x, _0, _1)``), so a Func's
dimensions come from what it reads. Halide's Func::add_implicit_vars and FuncRef::args_with_implicit_vars.
"""

from __future__ import annotations

from ..error import HalideError
from .source import user_site
from .traversal import walk
from .var import Var


def is_placeholder(a) -> bool:
    """``hl._`` given as a Var or as an Expr of it (Halide matches the Variable's name)."""
    if isinstance(a, Var):
        return a.is_placeholder()
    return getattr(a, "kind", None) == "var" and a.value.is_placeholder()


def expand(args: tuple, dims: int) -> tuple[tuple, int, int]:
    """``args`` with the first ``_`` replaced by implicit Vars up to ``dims`` arguments (none when ``dims`` is
    not larger), the placeholder's position (-1: none) and how many Vars it became."""
    pos = next((i for i, a in enumerate(args) if is_placeholder(a)), -1)
    if pos < 0:
        return tuple(args), -1, 0
    rest = list(args[:pos]) + list(args[pos + 1 :])
    count = max(0, dims - len(rest))
    return tuple(rest[:pos] + [Var.implicit(i) for i in range(count)] + rest[pos:]), pos, count


def count_implicit(values) -> int:
    """One more than the highest implicit Var index the Exprs mention (Halide's CountImplicitVars)."""
    n = 0
    for e in values:
        for node in walk(e):
            if node.kind == "var":
                n = max(n, node.value.implicit_index() + 1)
    return n


def definition_args(func, args: tuple, values) -> tuple:
    """The left-hand side of ``func[args] = values`` with implicit Vars added where Halide adds them."""
    dims = len(func._pure.args) if func._pure is not None else 0
    expanded, pos, count = expand(args, dims)
    n = count_implicit(values)
    name = func.name()
    if func._pure is not None:
        # an update (Halide's define_update: no implicit Vars added; one the left lacks is undefined there)
        for i in range(n):
            if not any(_implicit_index(a) == i for a in expanded):
                raise HalideError(f'{user_site()}: Error: Undefined variable "_{i}" in definition of Func "{name}"')
        return expanded
    if n > 0 and pos >= 0:
        expanded = expanded[:pos] + tuple(Var.implicit(i) for i in range(n)) + expanded[pos:]
    for i in range(n):
        if not any(_implicit_index(a) == i for a in expanded):
            raise HalideError(
                f"{user_site()}: Error: Right-hand-side of update definition of {name} uses implicit variables, "
                f"but the left-hand-side does not contain the placeholder symbol '_'."
            )
    return expanded


def mismatch_message(callee, exprs, dims: int) -> str:
    """Halide's text for a call with the wrong number of arguments (a Buffer's, or a Func's and an
    ImageParam's, whose Func Halide names ``<name>_im``)."""
    from .buffer import Buffer
    from .param import ImageParam

    n = len(exprs)
    if isinstance(callee, Buffer):
        return (
            f"Dimensionality mismatch accessing Buffer {callee.name()}. There were {n} arguments, but the Buffer "
            f"has {dims} dimensions:\n  {callee.name()}({', '.join(map(str, exprs))})"
        )
    name = f"{callee.name()}_im" if isinstance(callee, ImageParam) else callee.name()
    return f'Func "{name}" was called with {n} arguments, but was defined with {dims}'


def _implicit_index(a) -> int:
    if getattr(a, "kind", None) == "var":
        a = a.value
    return a.implicit_index() if isinstance(a, Var) else -1
