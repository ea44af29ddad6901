"""The compile driver's GPU order: a pipeline with GPU schedules on a target with the ``cuda`` feature.

The same front end, bounds and stage plans as driver.py (auto-vectorization off: a GPU thread computes scalars),
then analysis/gpu.py's kernels, the payload (codegen/payload.py, unchanged), the GPU transform script
(codegen/gpu.py), and runtime/gpu_jit.py's MLIR steps down to PTX; runtime/cuda.py runs it through the CUDA driver.
Like driver.py this module sees every layer; driver.py calls it where a target has a GPU feature.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import driver
from .analysis.bounds import Region, infer_bounds
from .analysis.gpu import KernelPlan, plan_kernels
from .analysis.plan import PipelinePlan, plan_stages
from .codegen.gpu import DEFAULT_CAPABILITY, build_gpu_transform
from .codegen.payload import build_payload
from .error import HalideError
from .lang.target import TargetFeature
from .runtime import cuda, gpu_jit, jit

# the steps whose text a GPU compilation prints (driver.STEPS names them; "asm" is the PTX)
GPU_STEPS = ("pipeline", "plan", "payload", "transform", "scheduled", "bufferized", "outlined", "lowered", "ptx")


@dataclass
class GpuCompilation(driver.StageTexts):
    ASSEMBLY = "ptx"
    plan: PipelinePlan
    kernels: list[KernelPlan]
    payload: str
    transform: str
    capability: int

    @property
    def kernel_names(self) -> list[str]:
        return [k.name for k in self.kernels]

    def text(self, step: str) -> str:
        if step == "pipeline":
            return driver.pipeline_text(self.plan.pipeline)
        if step == "plan":
            return (
                self.plan.text()
                + "\n"
                + "\n".join(
                    f"kernel {k.name}: block tiles {list(k.block_tiles)} {list(k.block_mapping)}, thread tiles "
                    f"{list(k.thread_tiles)} {list(k.thread_mapping)}, block dims {list(k.block_dims)}"
                    for k in self.kernels
                )
            )
        if step in ("payload", "transform"):
            return getattr(self, step)
        if step in ("scheduled", "bufferized", "outlined", "lowered"):
            return str(
                gpu_jit.lower(
                    jit.new_context(),
                    self.payload,
                    self.transform,
                    self.kernel_names,
                    self.capability,
                    until=None if step == "lowered" else step,
                )
            )
        if step in ("ptx", "asm"):
            return gpu_jit.ptx_text(
                gpu_jit.lower(jit.new_context(), self.payload, self.transform, self.kernel_names, self.capability)
            )
        raise HalideError(f"the {step!r} step is a CPU step; a GPU pipeline prints {', '.join(GPU_STEPS)}")

    def ptx(self) -> str:
        return self.text("ptx")


def capability_of(target, device: bool = False) -> int:
    """sm_NN for the PTX: the target's cuda_capability_NN, else the device's (when running), else sm_80."""
    cap = target.cuda_capability()
    if cap is None and device:
        cap = cuda.device_capability()
    return cap or DEFAULT_CAPABILITY


def compile_pipeline(func, region: Region, target, device: bool = False) -> GpuCompilation:
    if not target.has_feature(TargetFeature.CUDA):
        raise HalideError(f"halide_mlir's GPU backend is CUDA; target {target} has another GPU feature")
    pipeline = driver.front_end(func)
    bounded = infer_bounds(pipeline, region)
    plan = plan_stages(bounded, auto_vector=False)
    kernels = plan_kernels(plan)
    return GpuCompilation(
        plan, kernels, build_payload(plan), build_gpu_transform(kernels), capability_of(target, device)
    )


def realize_on_host(func, sizes, target=None):
    """``func`` realized over ``sizes`` with its GPU kernels' code run on the host: the payload and the
    transform script's tiling onto blocks and threads exactly as compiled for the GPU, the block and thread
    foralls run as loops, shared and private memory as ordinary buffers. It checks the values of the kernels' code
    where no GPU is present (tests, the fuzzer); not the mapping to the GPU's ids, the barriers or the PTX."""
    from .lang.target import Target
    from .runtime import realize as run

    outs, region = run.output_buffers(func, sizes)
    target = target or Target("host-cuda")
    c = compile_pipeline(func, region, target)
    payload = re.sub(r" \{memory_space = #gpu\.address_space<\w+>\}", "", c.payload)
    transform = build_gpu_transform(c.kernels, host=True)
    p = driver.front_end(func)
    arg_types = (
        ["memref"] * len(p.inputs)
        + [prm.type().mlir if not prm.type().is_bool() else "i8" for prm in p.params]
        + ["memref"] * len(outs)
    )
    compiled = jit.Compiled(payload, transform, arg_types, 1, driver.lower_to_llvm)
    run.run(compiled, p, outs)
    return outs[0] if len(outs) == 1 else outs


def realize(func, outs, region: Region, target, copy_back: bool = True) -> None:
    """Compute ``outs`` on the GPU (``copy_back``: and copy them to the host, where the realize allocated them).
    Without a CUDA driver and device this raises Halide's error."""
    from .analysis.bounds import input_buffer

    dev = cuda.get_device()
    p = driver.front_end(func)
    c = compile_pipeline(func, region, target)
    if target.cuda_capability() is None:
        c.capability = dev.capability()
    outputs = tuple(range(len(p.inputs) + len(p.params), len(p.inputs) + len(p.params) + len(outs)))
    program = gpu_jit.compile_program(c.payload, c.transform, c.kernel_names, c.capability, outputs)
    args = [input_buffer(h) for h in p.inputs] + [prm.get() for prm in p.params] + list(outs)
    program.run(args, copy_back)
