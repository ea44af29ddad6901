"""``hl.Pipeline``, ``hl.Target`` and the autoscheduler entry points of Halide's Python API.

Targets live in target.py (CPU features describe the host; a GPU feature selects the CUDA backend). One
autoscheduler is built in (autotune/autoschedule.py); Halide's plugin names select it too, so a program written
for Halide's ``apply_autoscheduler`` runs unchanged (``load_plugin`` of an autoscheduler is then a no-op).
"""

from __future__ import annotations

import os

from dataclasses import dataclass, field

from ..error import HalideError
from .source import user_site
from .target import Target

AUTOSCHEDULERS = ("halide_mlir", "Mullapudi2016", "Adams2019", "Li2018", "Anderson2021")


def load_plugin(name: str) -> None:
    """Halide loads autoscheduler plugins from shared libraries; halide_mlir's autoscheduler is built in."""
    # a path, as CMake's ``-p`` passes the plugin targets' files (.../libautoschedule_adams2019.so)
    if not os.path.basename(str(name)).replace("lib", "").startswith("autoschedule_"):
        raise HalideError(
            f"{user_site()}: Failed to load: {name}: halide_mlir has no plugins besides the built-in autoscheduler"
        )


@dataclass
class AutoschedulerParams:
    name: str = ""
    extra: dict = field(default_factory=dict)

    def __init__(self, name: str = "", extra: dict | None = None):
        self.name, self.extra = name, dict(extra or {})


@dataclass
class AutoSchedulerResults:
    target: Target
    autoscheduler_params: AutoschedulerParams
    schedule_source: str
    featurization: bytes = b""


class Pipeline:
    """The Funcs a program outputs, compiled together. halide_mlir realizes one output Func per Pipeline."""

    def __init__(self, outputs=None):
        from .func import Func

        outs = [] if outputs is None else list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        if not all(isinstance(f, Func) for f in outs):
            raise HalideError(f"{user_site()}: Pipeline takes a Func or a list of Funcs, got {outputs!r}")
        self._outputs = outs
        self._requirements: list = []

    def defined(self) -> bool:
        return bool(self._outputs)

    def outputs(self) -> list:
        return list(self._outputs)

    def _output(self):
        if not self._outputs:
            raise HalideError(f"{user_site()}: can't use an undefined Pipeline")
        if len(self._outputs) > 1:
            raise HalideError(
                f"{user_site()}: this use of a Pipeline with several outputs "
                f"({', '.join(f.name() for f in self._outputs)}) is not supported yet (realize is)"
            )
        return self._outputs[0]

    def add_requirement(self, condition, *error_args) -> None:
        """Checked before every realize (and Callable call): Halide's "Requirement Failed" when false."""
        from ..aot.requirements import Requirement

        self._requirements.append(Requirement(condition, list(error_args)))
        self._halide_mlir_requirements = self._requirements  # (what the Callable and AOT paths read)

    def _check_requirements(self) -> None:
        for r in self._requirements:
            if not r.holds():
                raise HalideError(f"{user_site()}: Error: Requirement Failed: (false) {r.text()}".rstrip() + " ")

    def get_func(self, index: int):
        """The index-th Func of the pipeline in Halide's topological order (producers first)."""
        from .pipeline_funcs import topological_funcs

        order = topological_funcs(self._outputs)
        if not isinstance(index, int) or not 0 <= index < len(order):
            raise HalideError(f"{user_site()}: Pipeline.get_func({index!r}): the pipeline has {len(order)} Funcs")
        return order[index]

    def invalidate_cache(self) -> None:
        """Drop compiled code: the next realize compiles again (from the disk cache where it has it)."""
        from .schedule import touch

        touch()

    def realize(self, *args, **kwargs):
        self._check_requirements()
        if len(self._outputs) > 1:
            return self._realize_outputs(*args, **kwargs)
        return self._output().realize(*args, **kwargs)

    def _realize_outputs(self, sizes=None, target=None, **kwargs):
        """Several outputs: each realized over the same region, one after the other (Halide computes their
        shared producers once; the values are the same), into one Realization of all their Buffers."""
        from ..runtime.realize import Realization
        from .buffer import Buffer

        sizes = kwargs.pop("dst", kwargs.pop("sizes", sizes))
        if kwargs:
            raise HalideError(f"{user_site()}: realize got unexpected arguments {sorted(kwargs)}")
        dims = {f.dimensions() for f in self._outputs}
        if len(dims) != 1:
            raise HalideError(f"{user_site()}: the outputs of a Pipeline must have the same number of dimensions")
        out = Realization()
        if isinstance(sizes, (list, tuple)) and sizes and all(isinstance(b, Buffer) for b in sizes):
            if len(sizes) != sum(f.num_values() for f in self._outputs):
                raise HalideError(
                    f"{user_site()}: realize of a Pipeline with {len(self._outputs)} outputs was "
                    f"given {len(sizes)} Buffers"
                )
            k = 0
            for f in self._outputs:
                n = f.num_values()
                f.realize(list(sizes[k : k + n]) if n > 1 else sizes[k], target)
                out.extend(sizes[k : k + n])
                k += n
            return out
        for f in self._outputs:
            r = f.realize([] if sizes is None else sizes, target)
            out.extend(r if isinstance(r, list) else [r])
        return out

    def __repr__(self) -> str:
        if not self._outputs:
            return "<halide.Pipeline Pipeline()>"
        return f"<halide.Pipeline [{', '.join(f.name() for f in self._outputs)}]>"

    def compile_jit(self, target: Target | None = None) -> None:
        if not self._outputs:
            raise HalideError(f"{user_site()}: can't use an undefined Pipeline")
        for f in self._outputs:
            f.compile_jit(target)

    def print_loop_nest(self) -> None:
        self._output().print_loop_nest()

    def infer_input_bounds(self, *args):
        return self._output().infer_input_bounds(*args)

    # ahead of time (halide_mlir/aot): every output Func in one function, as Halide's (aot/multi.py)
    def _aot_subject(self):
        if not self._outputs:
            raise HalideError(f"{user_site()}: can't use an undefined Pipeline")
        from .. import aot

        return aot, self if len(self._outputs) > 1 else self._outputs[0]

    def compile_to(self, outputs, arguments, fn_name="", target=None) -> None:
        aot, f = self._aot_subject()
        aot.compile_to(f, outputs, arguments, fn_name, target)

    def compile_to_static_library(self, filename_prefix, arguments, fn_name="", target=None) -> None:
        aot, f = self._aot_subject()
        aot.compile_to_static_library(f, filename_prefix, arguments, fn_name, target)

    def compile_to_file(self, filename_prefix, arguments, fn_name="", target=None) -> None:
        aot, f = self._aot_subject()
        aot.compile_to_file(f, filename_prefix, arguments, fn_name, target)

    def compile_to_object(self, filename, arguments, fn_name="", target=None) -> None:
        aot, f = self._aot_subject()
        aot.compile_to_object(f, filename, arguments, fn_name, target)

    def compile_to_header(self, filename, arguments, fn_name="", target=None) -> None:
        aot, f = self._aot_subject()
        aot.compile_to_header(f, filename, arguments, fn_name, target)

    def compile_to_assembly(self, filename, arguments, fn_name="", target=None) -> None:
        aot, f = self._aot_subject()
        aot.compile_to_assembly(f, filename, arguments, fn_name, target)

    def compile_to_llvm_assembly(self, filename, arguments, fn_name="", target=None) -> None:
        aot, f = self._aot_subject()
        aot.compile_to_llvm_assembly(f, filename, arguments, fn_name, target)

    def compile_to_bitcode(self, filename, arguments, fn_name="", target=None) -> None:
        aot, f = self._aot_subject()
        aot.compile_to_bitcode(f, filename, arguments, fn_name, target)

    def compile_to_c(self, filename, arguments, fn_name="", target=None) -> None:
        aot, f = self._aot_subject()
        aot.compile_to_c(f, filename, arguments, fn_name, target)

    def compile_to_lowered_stmt(self, filename, arguments, fmt=None, target=None) -> None:
        aot, f = self._aot_subject()
        aot.compile_to_lowered_stmt(f, filename, arguments, fmt, target)

    def infer_arguments(self) -> list:
        return self._output().infer_arguments()

    def compile_to_callable(self, arguments, target=None):
        return self._output().compile_to_callable(arguments, target)

    def compile_to_module(self, arguments, fn_name, target=None, linkage=None):
        from ..aot.module import LinkageType, compile_to_module

        if not self._outputs:
            raise HalideError(f"{user_site()}: can't use an undefined Pipeline")
        f = self if len(self._outputs) > 1 else self._output()
        return compile_to_module(
            f, arguments, fn_name, target, LinkageType.ExternalPlusMetadata if linkage is None else linkage
        )

    def apply_autoscheduler(self, target: Target, params: AutoschedulerParams) -> AutoSchedulerResults:
        """Replace every Func's schedule with the built-in autoscheduler's (autotune/autoschedule.py)."""
        from ..autotune.autoschedule import auto_schedule
        from ..autotune.space import apply_plan, plan_code

        if not isinstance(params, AutoschedulerParams):
            raise HalideError(
                f"{user_site()}: apply_autoscheduler takes a Target and an AutoschedulerParams, got {params!r}"
            )
        if params.name not in AUTOSCHEDULERS:
            raise HalideError(
                f"{user_site()}: Unknown autoscheduler name '{params.name}'; known names are: "
                f"{', '.join(AUTOSCHEDULERS)}"
            )
        parallelism = params.extra.get("parallelism")
        infos, plan = auto_schedule(self._output(), int(parallelism) if parallelism is not None else None)
        apply_plan(infos, plan)
        return AutoSchedulerResults(target, params, plan_code(infos, plan))
