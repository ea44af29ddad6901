"""Any-size AOT functions of pipelines with ``specialize()``: one any-size kernel per specialization path, and a
wrapper that decides the conditions at run time from the buffers' fields and the Params, as Halide's code does
(``if (c1) ... else if (c2) ... else``). Lesson 16's ``brighten_specialized``: planar and interleaved buffers
each get their own loops (the interleaved variant's channel loop unrolled: its condition fixes the extent).

The kernels are linked into one LLVM module (``llvm-link``), so every output kind works as for one kernel.
Conditions are the Exprs Halide allows there that C can say: constants, Params, ``dim(d).min/extent/stride()``
of the inputs and the output, arithmetic, comparisons and logic; ``specialize_fail`` is refused.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ..error import HalideError
from ..lang.source import user_site
from .arguments import BufferArg, ScalarArg
from .wrapper import argv_entry, c_name, c_scalar, prototype


@dataclass
class SpecializedKernel:
    spec: object
    target: object
    schedules: list  # (where, FuncSchedule) with specializations
    variants: list  # (path per schedule, AnySizeKernel)
    llvm_ir: str
    output: object  # the output Func

    @property
    def compilation(self):
        return self

    @property
    def symbol(self) -> str:
        return self.variants[0][1].symbol

    def stmt(self) -> str:
        return "\n".join(f"// specialization path {p}\n{k.stmt()}" for p, k in self.variants)

    def wrapper_c(self) -> str:
        from .anysize import wrapper

        fn = self.spec.fn_name
        lines = [wrapper(k, f"__hl_{fn}_v{i}") for i, (_, k) in enumerate(self.variants)]
        lines.append(f"{prototype(self.spec)} {{")
        for j, (_where, s) in enumerate(self.schedules):
            lines.append(f"    int p{j} = 0;")
            lines += _choose(s, (), f"p{j}", _paths(s), self, "    ")
        names = [f"_{c_name(a.name)}" + ("_buffer" if isinstance(a, BufferArg) else "") for a in self.spec.arguments]
        for i, (path, _) in enumerate(self.variants):
            idx = [_paths(s).index(p) for (_, s), p in zip(self.schedules, path)]
            cond = " && ".join(f"p{j} == {v}" for j, v in enumerate(idx)) or "1"
            lines.append(f"    if ({cond}) return __hl_{fn}_v{i}({', '.join(names)});")
        lines += [f"    return __hl_{fn}_v0({', '.join(names)});", "}", ""]
        lines += argv_entry(fn, self.spec.arguments)
        return "\n".join(lines)


def _paths(schedule) -> list:
    from ..analysis.specialize import all_paths

    return all_paths(schedule)


def _choose(s, prefix: tuple, var: str, paths: list, kernel, indent: str) -> list:
    """C choosing the path through ``s``'s specializations (as analysis/specialize.choose does at compile time)."""
    lines = []
    for i, sp in enumerate(s.specializations):
        lines.append(f"{indent}{'if' if i == 0 else 'else if'} ({condition(sp.condition, kernel)}) {{")
        lines += _choose(sp.schedule, (*prefix, i), var, paths, kernel, indent + "    ")
        lines.append(f"{indent}}}")
    base = f"{var} = {paths.index(prefix)};"
    lines.append(f"{indent}else {{ {base} }}" if s.specializations else f"{indent}{base}")
    return lines


_BINARY = {"add": "+", "sub": "-", "mul": "*", "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def condition(e, kernel) -> str:
    """A specialization condition as a C expression over the wrapper's arguments."""
    k = e.kind
    if k == "const":
        v = e.value
        return str(int(v)) if isinstance(v, bool) or e.type.is_bool() else repr(v)
    if k == "param":
        name = e.value.name()
        if not any(isinstance(a, ScalarArg) and a.name == name for a in kernel.spec.arguments):
            raise _refuse(e)
        return f"_{c_name(name)}"
    if k == "buffer_dim":
        holder, d, what = e.value
        outs = kernel.output.__dict__.get("_output_params") or ()
        for a in kernel.spec.arguments:
            if isinstance(a, BufferArg) and (a.source is holder if not a.output else any(h is holder for h in outs)):
                return f"(int64_t)_{c_name(a.name)}_buffer->dim[{d}].{what}"
        raise _refuse(e)
    a = [condition(x, kernel) for x in e.args]
    if k in _BINARY:
        return f"({a[0]} {_BINARY[k]} {a[1]})"
    if k in ("land", "and") and e.type.is_bool():
        return f"({a[0]} && {a[1]})"
    if k in ("lor", "or") and e.type.is_bool():
        return f"({a[0]} || {a[1]})"
    if k == "not" and e.type.is_bool():
        return f"(!{a[0]})"
    if k in ("min", "max"):
        op = "<" if k == "min" else ">"
        return f"(({a[0]}) {op} ({a[1]}) ? ({a[0]}) : ({a[1]}))"
    if k == "cast" and not e.type.is_float():
        return f"(({c_scalar(e.type) if not e.type.is_bool() else 'int'})({a[0]}))"
    raise _refuse(e)


def _refuse(e) -> HalideError:
    return HalideError(
        f"{user_site()}: the specialization condition {e} can't be decided at run time by halide_mlir's any-size "
        f"function (constants, Params and buffer dims only); give the output estimates for a fixed-size one"
    )


def _assumed_extents(conds, output) -> dict:
    """{dim: extent} of the output that the conditions taken fix (``out.dim(2).extent() == 3`` in a conjunction)."""
    outs = output.__dict__.get("_output_params") or ()
    found = {}

    def visit(e):
        if e.kind in ("land", "and") and e.type.is_bool():
            for x in e.args:
                visit(x)
        elif e.kind == "eq":
            a, b = e.args
            for x, y in ((a, b), (b, a)):
                if (
                    x.kind == "buffer_dim"
                    and x.value[2] == "extent"
                    and any(h is x.value[0] for h in outs)
                    and y.kind == "const"
                ):
                    found[x.value[1]] = int(y.value)

    for c in conds:
        visit(c)
    return found


def _taken(schedule, path) -> list:
    s, out = schedule, []
    for i in path:
        out.append(s.specializations[i].condition)
        s = s.specializations[i].schedule
    return out


def _failures(s) -> bool:
    return any(sp.failure is not None or _failures(sp.schedule) for sp in s.specializations)


def compile_specialized(func, args, fn_name: str, tgt):
    """The SpecializedKernel of ``func``, or None when it has no specializations."""
    from .. import driver
    from ..analysis.specialize import forcing
    from ..runtime.tools import llvm_tool
    from .anysize import compile_any_size
    from .build import _run

    with forcing({}):
        schedules = list(driver.front_end(func).specializations)
    if not schedules:
        return None
    for where, s in schedules:
        if _failures(s):
            raise HalideError(
                f"{user_site()}: specialize_fail() in {where}: halide_mlir's any-size functions don't support it; "
                f"give the output estimates for a fixed-size function"
            )
    variants = []
    for i, combo in enumerate(itertools.product(*[_paths(s) for _, s in schedules])):
        conds = [c for (_, s), p in zip(schedules, combo) for c in _taken(s, p)]
        with forcing({id(s): p for (_, s), p in zip(schedules, combo)}):
            k = compile_any_size(
                func, args, fn_name, tgt, symbol=f"__hl_{fn_name}_any{i}_kernel", extents=_assumed_extents(conds, func)
            )
        variants.append((combo, k))
    irs = []
    import os
    import tempfile

    with tempfile.TemporaryDirectory(prefix="halide_mlir_spec-") as d:
        for i, (_, k) in enumerate(variants):
            irs.append(os.path.join(d, f"v{i}.ll"))
            with open(irs[-1], "w") as f:
                f.write(k.llvm_ir)
        ir = _run([llvm_tool("llvm-link"), "-S", *irs], "llvm-link")
    kernel = SpecializedKernel(variants[0][1].spec, tgt, schedules, variants, ir, func)
    for c in (sp.condition for _, s in schedules for sp in _all(s)):
        condition(c, kernel)  # (refused here, not in the C compiler)
    return kernel


def _all(s) -> list:
    return [x for sp in s.specializations for x in (sp, *_all(sp.schedule))]
