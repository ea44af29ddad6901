"""The GPU schedule as a transform script, and the pass list from the mapped IR to PTX.

``@__transform_main`` tiles each kernel's generic twice with ``tile_using_forall``: blocks (``#gpu.block<...>``
mapping), then threads (``#gpu.thread<...>``), and tags the block forall with ``hl.kernel``. Bufferization runs
between the two entry points (the mapping ops work on memrefs). ``@halide_gpu_map`` then turns each tagged forall
into its own ``gpu.launch`` (``gpu.map_forall_to_blocks``) and its thread forall into thread ids
(``gpu.map_nested_forall_to_threads``, no barriers: the threads of these kernels share nothing). The script runs
under mlir-opt as it is:

    mlir-opt payload.mlir --transform-preload-library=transform-library-paths=script.mlir --transform-interpreter \\
      --eliminate-empty-tensors --one-shot-bufferize --transform-interpreter=entry-point=halide_gpu_map
"""

from __future__ import annotations

from ..analysis.gpu import KernelPlan
from .mlir_text import mlir_string

ANY = "!transform.any_op"
MAP_SEQUENCE = "halide_gpu_map"

# After @halide_gpu_map: loops inside the threads, the views folded into the loads (else every tap's subview
# becomes a kernel parameter), index computations sunk into the launches (outlining no longer does it), then the
# kernels outlined into a gpu.module.
OUTLINE_PREPARE = (
    "func.func(convert-linalg-to-loops),fold-memref-alias-ops,canonicalize,cse,"
    "func.func(gpu-launch-sink-index-computations)"
)
OUTLINE = OUTLINE_PREPARE + ",gpu-kernel-outlining"
# The kernels to PTX text (format=isa: the driver JIT-compiles it; no ptxas). Memrefs are passed as bare pointers
# (their shapes are static), so a kernel's parameters are one pointer per buffer.
TO_PTX = (
    "nvvm-attach-target{chip=sm_%(cap)d features=+ptx%(ptx)d O=3},"
    "gpu.module(lower-affine,convert-scf-to-cf,convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1},"
    "canonicalize,cse,reconcile-unrealized-casts),gpu-module-to-binary{format=isa}"
)
DEFAULT_CAPABILITY = 80  # PTX for sm_80 runs on every later GPU (the driver compiles it for the device)


def ptx_version(capability: int) -> int:
    """The PTX ISA the target needs: 8.0 covers sm_90 (CUDA 12.0 drivers and later); sm_100/120 need 8.6/8.7."""
    return 87 if capability >= 120 else 86 if capability >= 100 else 80


def build_gpu_transform(kernels: list[KernelPlan], host: bool = False) -> str:
    """The script; ``host``: only its tiling (``@__transform_main``), for driver_gpu.realize_on_host."""
    main, mapping = [], []
    n = 0

    def fresh(prefix: str) -> str:
        nonlocal n
        n += 1
        return f"%{prefix}{n}"

    for k in kernels:
        if k.thread_tilings or k.stage.tile is not None:
            _tiled_kernel(k, main, mapping, fresh)
            continue
        op = fresh("stage")
        main.append(
            f'{op} = transform.structured.match ops{{["linalg.generic"]}} attributes '
            f"{{hl.func = {mlir_string(k.stage.name)}}} in %root : ({ANY}) -> {ANY}"
        )
        blocks = fresh("blocks")
        tiled = fresh("tiled")
        if k.single_thread or not k.block_mapping:
            main.append(
                f"{tiled}, {blocks} = transform.structured.tile_using_forall {op} num_threads [1] "
                f"(mapping = [#gpu.block<x>]) : ({ANY}) -> ({ANY}, {ANY})"
            )
        else:
            main.append(
                f"{tiled}, {blocks} = transform.structured.tile_using_forall {op} tile_sizes "
                f"[{', '.join(map(str, k.block_tiles))}] (mapping = [{_attrs('block', k.block_mapping)}]) "
                f": ({ANY}) -> ({ANY}, {ANY})"
            )
        if k.thread_mapping:
            threads = fresh("threads")
            # by thread counts, not tile sizes: an edge block's tile is smaller, and the mapping needs a forall of
            # the same (static) trip count in every block; the threads past the edge get empty slices
            counts = ", ".join(str(k.block_dims["xyz".index(a)]) if a else "0" for a in k.thread_mapping_full)
            main.append(
                f"{fresh('tiled')}, {threads} = transform.structured.tile_using_forall {tiled} num_threads "
                f"[{counts}] (mapping = [{_attrs('thread', k.thread_mapping)}]) : ({ANY}) -> ({ANY}, {ANY})"
            )
        name = fresh("name")
        main.append(f"{name} = transform.param.constant {mlir_string(k.name)} -> !transform.any_param")
        main.append(f'transform.annotate {blocks} "hl.kernel" = {name} : {ANY}, !transform.any_param')
        # after bufferization: this kernel's launch
        forall, launch = fresh("forall"), fresh("launch")
        mapping.append(
            f'{forall} = transform.structured.match ops{{["scf.forall"]}} attributes '
            f"{{hl.kernel = {mlir_string(k.name)}}} in %root : ({ANY}) -> {ANY}"
        )
        mapping.append(f"{launch} = transform.gpu.map_forall_to_blocks {forall} generate_gpu_launch : ({ANY}) -> {ANY}")
        _tag_launch(k.name, launch, mapping, fresh)
        mapping.append(
            f"{fresh('mapped')} = transform.gpu.map_nested_forall_to_threads {launch} block_dims = "
            f"[{', '.join(map(str, k.block_dims))}] sync_after_distribute = false : ({ANY}) -> {ANY}"
        )
    fn = fresh("fn")
    # (the bufferized parallel_insert_slices leave self-copies that fold only once CSE has made them equal)
    cleanup = [
        f'{fn} = transform.structured.match ops{{["func.func"]}} in %root : ({ANY}) -> {ANY}',
        f"transform.apply_patterns to {fn} {{",
        "  transform.apply_patterns.canonicalization",
        "  transform.apply_patterns.tensor.fold_tensor_subset_ops",
        f"}} : {ANY}",
        f"transform.apply_cse to {fn} : {ANY}",
    ]
    after = [
        f'{fn} = transform.structured.match ops{{["func.func"]}} in %root : ({ANY}) -> {ANY}',
        f"transform.apply_cse to {fn} : {ANY}",
        f"transform.apply_patterns to {fn} {{",
        "  transform.apply_patterns.canonicalization",
        f"}} : {ANY}",
    ]

    def sequence(name: str, body: list) -> str:
        lines = "\n".join("    " + line for line in body)
        return (
            f"  transform.named_sequence @{name}(%root: {ANY} {{transform.readonly}}) {{\n{lines}\n"
            f"    transform.yield\n  }}\n"
        )

    return (
        "module attributes {transform.with_named_sequence} {\n"
        + sequence("__transform_main", main + cleanup)
        + ("" if host else sequence(MAP_SEQUENCE, mapping + after))
        + "}\n"
    )


def _tiled_kernel(k: KernelPlan, main: list, mapping: list, fresh) -> None:
    """A kernel whose block forall the payload made (codegen/gpu_tiled.py, tagged ``hl.kernel``): the generics
    inside it go onto the threads; a barrier follows each thread forall when they share memory (the last one,
    before the kernel's end, runtime/gpu_jit.py removes)."""
    for name, counts, axes in k.thread_tilings:
        op = fresh("stage")
        main.append(
            f'{op} = transform.structured.match ops{{["linalg.generic"]}} attributes '
            f"{{hl.func = {mlir_string(name)}}} in %root : ({ANY}) -> {ANY}"
        )
        main.append(
            f"{fresh('tiled')}, {fresh('threads')} = transform.structured.tile_using_forall {op} num_threads "
            f"[{', '.join(map(str, counts))}] (mapping = [{_attrs('thread', axes)}]) : ({ANY}) -> ({ANY}, "
            f"{ANY})"
        )
    forall, launch = fresh("forall"), fresh("launch")
    mapping.append(
        f'{forall} = transform.structured.match ops{{["scf.forall"]}} attributes '
        f"{{hl.kernel = {mlir_string(k.name)}}} in %root : ({ANY}) -> {ANY}"
    )
    mapping.append(f"{launch} = transform.gpu.map_forall_to_blocks {forall} generate_gpu_launch : ({ANY}) -> {ANY}")
    _tag_launch(k.name, launch, mapping, fresh)
    mapped = fresh("mapped")
    mapping.append(
        f"{mapped} = transform.gpu.map_nested_forall_to_threads {launch} block_dims = "
        f"[{', '.join(map(str, k.block_dims))}] sync_after_distribute = "
        f"{'true' if k.barriers else 'false'} : ({ANY}) -> {ANY}"
    )


def _tag_launch(name: str, launch: str, mapping: list, fresh) -> None:
    """The launch keeps its kernel's name (``hl.kernel``): a kernel whose result nothing reads is erased as dead
    code on the way to outlining, and the names of the others must not shift (runtime/gpu_jit.py)."""
    param = fresh("name")
    mapping.append(f"{param} = transform.param.constant {mlir_string(name)} -> !transform.any_param")
    mapping.append(f'transform.annotate {launch} "hl.kernel" = {param} : {ANY}, !transform.any_param')


def _attrs(kind: str, axes) -> str:
    return ", ".join(f"#gpu.{kind}<{a}>" for a in axes)
