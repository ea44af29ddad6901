"""``hl.Target``, ``hl.TargetFeature``, ``hl.DeviceAPI`` and the host/GPU helpers of Halide's Python API.

A Target is Halide's ``arch-bits-os[-processor]-feature...`` string, parsed and checked as Halide does (an unknown
token is Halide's "Did not understand Halide target" error), features kept sorted so equal targets print equal.
halide_mlir compiles CPU code for the machine it runs on whatever the CPU features say; the GPU features choose the
backend: a pipeline with GPU schedules needs a GPU feature (``cuda``), and ``cuda_capability_NN`` picks the PTX's
``sm_NN`` (docs/gpu.md). ``host`` expands to the host's CPU features, never a GPU runtime (as in Halide).
"""
from __future__ import annotations

import enum
import os

from ..error import HalideError

# Halide's TargetFeature names (the Python enum's) and their target-string spellings. Capabilities 89 and up are in
# Halide's sources (src/Target.cpp) though not in every release's wheel; H100 is sm_90.
_FEATURES = {
    "JIT": "jit", "Debug": "debug", "EnableBacktraces": "enable_backtraces", "NoAsserts": "no_asserts",
    "NoBoundsQuery": "no_bounds_query", "SSE41": "sse41", "AVX": "avx", "AVX2": "avx2", "AVXVNNI": "avxvnni",
    "FMA": "fma", "FMA4": "fma4", "F16C": "f16c", "ARMv7s": "armv7s", "NoNEON": "no_neon", "VSX": "vsx",
    "POWER_ARCH_2_07": "power_arch_2_07", "CUDA": "cuda", "CUDACapability30": "cuda_capability_30",
    "CUDACapability32": "cuda_capability_32", "CUDACapability35": "cuda_capability_35",
    "CUDACapability50": "cuda_capability_50", "CUDACapability61": "cuda_capability_61",
    "CUDACapability70": "cuda_capability_70", "CUDACapability75": "cuda_capability_75",
    "CUDACapability80": "cuda_capability_80", "CUDACapability86": "cuda_capability_86",
    "CUDACapability89": "cuda_capability_89", "CUDACapability90": "cuda_capability_90",
    "CUDACapability100": "cuda_capability_100", "CUDACapability120": "cuda_capability_120",
    "OpenCL": "opencl", "CLDoubles": "cl_doubles", "CLHalf": "cl_half", "CLAtomics64": "cl_atomics64", "EGL": "egl",
    "UserContext": "user_context", "Profile": "profile", "NoRuntime": "no_runtime", "Metal": "metal",
    "CPlusPlusMangling": "c_plus_plus_name_mangling", "LargeBuffers": "large_buffers", "HexagonDma": "hexagon_dma",
    "HVX_128": "hvx_128", "HVX": "hvx", "HVX_v62": "hvx_v62", "HVX_v65": "hvx_v65", "HVX_v66": "hvx_v66",
    "HVX_v68": "hvx_v68", "FuzzFloatStores": "fuzz_float_stores", "SoftFloatABI": "soft_float_abi", "MSAN": "msan",
    "AVX512": "avx512", "AVX512_KNL": "avx512_knl", "AVX512_Skylake": "avx512_skylake",
    "AVX512_Cannonlake": "avx512_cannonlake", "AVX512_SapphireRapids": "avx512_sapphirerapids",
    "AVX512_Zen4": "avx512_zen4", "AVX512_Zen5": "avx512_zen5", "TraceLoads": "trace_loads",
    "TraceStores": "trace_stores", "TraceRealizations": "trace_realizations", "TracePipeline": "trace_pipeline",
    "D3D12Compute": "d3d12compute", "StrictFloat": "strict_float", "TSAN": "tsan", "ASAN": "asan",
    "CheckUnsafePromises": "check_unsafe_promises", "EmbedBitcode": "embed_bitcode",
    "EnableLLVMLoopOpt": "enable_llvm_loop_opt", "WasmMvpOnly": "wasm_mvponly", "WasmSimd128": "wasm_simd128",
    "WasmThreads": "wasm_threads", "WasmBulkMemory": "wasm_bulk_memory", "WebGPU": "webgpu", "SVE": "sve",
    "SVE2": "sve2", "ARMDotProd": "arm_dot_prod", "ARMFp16": "arm_fp16", "LLVMLargeCodeModel": "llvm_large_code_model",
    "RVV": "rvv", "ARMv8a": "armv8a", "ARMv81a": "armv81a", "ARMv82a": "armv82a", "ARMv83a": "armv83a",
    "ARMv84a": "armv84a", "ARMv85a": "armv85a", "ARMv86a": "armv86a", "ARMv87a": "armv87a", "ARMv88a": "armv88a",
    "ARMv89a": "armv89a", "SanitizerCoverage": "sanitizer_coverage", "ProfileByTimer": "profile_by_timer",
    "SPIRV": "spirv", "Vulkan": "vulkan", "VulkanInt8": "vk_int8", "VulkanInt16": "vk_int16",
    "VulkanInt64": "vk_int64", "VulkanFloat16": "vk_float16", "VulkanFloat64": "vk_float64",
    "VulkanV10": "vk_v10", "VulkanV12": "vk_v12", "VulkanV13": "vk_v13", "Semihosting": "semihosting",
    "AVX10_1": "avx10_1", "X86APX": "x86apx", "Simulator": "simulator",
}

TargetFeature = enum.Enum("TargetFeature", {name: text for name, text in _FEATURES.items()})
TargetFeature.__str__ = lambda self: self.value

_GPU_FEATURES = ("cuda", "opencl", "metal", "d3d12compute", "vulkan", "webgpu")   # Halide's has_gpu_feature()
_ARCHS = {"x86": "X86", "arm": "ARM", "hexagon": "Hexagon", "powerpc": "POWERPC", "riscv": "RISCV",
          "wasm": "WebAssembly", "arch_unknown": "ArchUnknown"}
_OSES = {"linux": "Linux", "windows": "Windows", "osx": "OSX", "android": "Android", "ios": "IOS", "qurt": "QuRT",
         "noos": "NoOS", "wasmrt": "wasmrt", "os_unknown": "OSUnknown", "fuchsia": "Fuchsia"}
TargetArch = enum.Enum("TargetArch", {v: k for k, v in _ARCHS.items()})
TargetOS = enum.Enum("TargetOS", {v: k for k, v in _OSES.items()})


class DeviceAPI(enum.Enum):
    """Where a schedule runs (Halide's DeviceAPI); halide_mlir's GPU backend is CUDA."""
    None_ = 0
    Host = 1
    Default_GPU = 2
    CUDA = 3
    OpenCL = 4
    Metal = 5
    Hexagon = 6
    Vulkan = 9


setattr(DeviceAPI, "None", DeviceAPI.None_)   # Halide's name, a Python keyword

_DEVICE_FEATURE = {DeviceAPI.CUDA: "cuda", DeviceAPI.OpenCL: "opencl", DeviceAPI.Metal: "metal",
                   DeviceAPI.Vulkan: "vulkan"}


def _feature_text(feature) -> str:
    if isinstance(feature, TargetFeature):
        return feature.value
    text = str(feature).split(".")[-1]
    return _FEATURES.get(text, text.lower())


def _bad_target(text: str) -> HalideError:
    return HalideError(f"Did not understand Halide target {text}\nExpected format is "
                       f"arch-bits-os-processor-feature1-feature2-...")


class Target:
    def __init__(self, text: str = "host"):
        text = str(text) or "host"
        tokens = text.split("-")
        arch, bits, os_, processor, features = None, None, None, None, set()
        if tokens[0] == "host":
            host = get_host_target()
            arch, bits, os_, processor, features = host.arch_name, host.bits, host.os_name, host.processor, \
                set(host.features)
            tokens = tokens[1:]
        for t in tokens:
            if t in _ARCHS and arch is None:
                arch = t
            elif t in ("32", "64") and bits is None:
                bits = int(t)
            elif t in _OSES and os_ is None:
                os_ = t
            elif t.startswith("tune_"):
                processor = t
            elif t in _FEATURES.values():
                features.add(t)
            elif t == "trace_all":
                features |= {"trace_loads", "trace_stores", "trace_realizations"}
            else:
                raise _bad_target(text)
        self.arch_name, self.bits, self.os_name = arch or "x86", bits or 64, os_ or "linux"
        self.processor, self.features = processor, frozenset(features)

    # --- Halide's accessors -----------------------------------------------------------------------------------
    @property
    def arch(self):
        return TargetArch(self.arch_name)

    @property
    def os(self):
        return TargetOS(self.os_name)

    def processor_tune(self) -> str:
        return self.processor or "tune_generic"

    def to_string(self) -> str:
        arch = "x86" if self.arch_name == "x86" else self.arch_name
        parts = [f"{arch}-{self.bits}-{self.os_name}"]
        if self.processor:
            parts.append(self.processor)
        return "-".join(parts + sorted(self.features))

    __str__ = to_string

    def __repr__(self) -> str:
        return f"<halide_mlir.Target {self.to_string()}>"

    def __eq__(self, other) -> bool:
        return isinstance(other, Target) and self.to_string() == other.to_string()

    def __hash__(self) -> int:
        return hash(self.to_string())

    def has_feature(self, feature) -> bool:
        return _feature_text(feature) in self.features

    def features_all_of(self, features) -> bool:
        return all(self.has_feature(f) for f in features)

    def features_any_of(self, features) -> bool:
        return any(self.has_feature(f) for f in features)

    def with_feature(self, feature) -> "Target":
        t = Target(self.to_string())
        t.features = self.features | {_feature_text(feature)}
        return t

    def without_feature(self, feature) -> "Target":
        t = Target(self.to_string())
        t.features = self.features - {_feature_text(feature)}
        return t

    def set_feature(self, feature, value: bool = True) -> None:
        text = _feature_text(feature)
        self.features = self.features | {text} if value else self.features - {text}

    def has_gpu_feature(self) -> bool:
        return any(f in self.features for f in _GPU_FEATURES)

    def supports_device_api(self, api) -> bool:
        if api in (DeviceAPI.None_, DeviceAPI.Host):
            return True
        if api == DeviceAPI.Default_GPU:
            return self.has_gpu_feature()
        return _DEVICE_FEATURE.get(api) in self.features

    def natural_vector_size(self, type_) -> int:
        return max(1, 512 // type_.bits())

    # --- the CUDA backend's view ------------------------------------------------------------------------------
    def cuda_capability(self) -> int | None:
        """The highest ``cuda_capability_NN`` feature as NN, or None (the backend's default then)."""
        caps = [int(f.rsplit("_", 1)[1]) for f in self.features if f.startswith("cuda_capability_")]
        return max(caps) if caps else None


def _host_features() -> list[str]:
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        flags = []
    names = {"avx": "avx", "avx2": "avx2", "avx512f": "avx512", "f16c": "f16c", "fma": "fma", "sse4_1": "sse41"}
    return sorted(v for k, v in names.items() if k in flags)


_host: list = []


def get_host_target() -> Target:
    if not _host:
        t = Target.__new__(Target)
        t.arch_name, t.bits, t.os_name, t.processor, t.features = "x86", 64, "linux", None, \
            frozenset(_host_features())
        _host.append(t)
    return Target(_host[0].to_string())


def get_jit_target_from_environment() -> Target:
    """HL_JIT_TARGET, as in Halide (the host when unset); a JIT target is the host's arch, bits and os."""
    text = os.environ.get("HL_JIT_TARGET", "").strip()
    return Target(text) if text else get_host_target()


def get_target_from_environment() -> Target:
    text = os.environ.get("HL_TARGET", "").strip()
    return Target(text) if text else get_host_target()


def host_supports_target_device(target: Target) -> bool:
    """Can this machine run ``target``'s device code? For CUDA: libcuda loads and has a device."""
    if not isinstance(target, Target):
        raise HalideError(f"host_supports_target_device takes a Target, got {target!r}")
    if not target.has_gpu_feature():
        return True
    if target.has_feature("cuda"):
        from ..runtime import cuda
        return cuda.device_count() > 0
    return False


def target_feature_for_device_api(api) -> TargetFeature | None:
    text = _DEVICE_FEATURE.get(api)
    return TargetFeature(text) if text else None


def as_target(target) -> Target:
    """``realize(sizes, target)``/``compile_jit(target)``'s argument: a Target (None: HL_JIT_TARGET's)."""
    if target is None:
        return get_jit_target_from_environment()
    if isinstance(target, Target):
        return target
    if isinstance(target, str):
        return Target(target)
    raise HalideError(f"expected a Target, got {target!r}")
