"""``hl.Target``: Halide's target description (arch, bits, OS, processor tuning, features) and its string form.

halide_mlir compiles for the machine it runs on, through LLVM's host CPU. A Target is parsed, printed, compared
and queried exactly as Halide's; where one is handed to the compiler (``compile_jit``, ``realize(...,
target=...)``, ``Pipeline.compile_jit``), ``check_compilable`` refuses what this project cannot honor (another
architecture or OS, GPU APIs, features that change code generation in ways not built here) with a HalideError.
"""

from __future__ import annotations

import enum
import functools

from ..error import HalideError, HalideTypeError
from .source import user_site
from .types import Type


class _Enum(enum.IntEnum):
    """pybind11's enums print as ``TargetOS.Linux`` (Python 3.11's IntEnum would print the number)."""

    def __str__(self) -> str:
        return f"{type(self).__name__}.{self.name}"

    __format__ = object.__format__


TargetOS = _Enum(
    "TargetOS",
    [
        ("OSUnknown", 0),
        ("Linux", 1),
        ("Windows", 2),
        ("OSX", 3),
        ("Android", 4),
        ("IOS", 5),
        ("QuRT", 6),
        ("NoOS", 7),
        ("wasmrt", 9),
    ],
)
TargetArch = _Enum(
    "TargetArch",
    [("ArchUnknown", 0), ("X86", 1), ("ARM", 2), ("Hexagon", 3), ("POWERPC", 4), ("WebAssembly", 5), ("RISCV", 6)],
)
TargetProcessorTune = _Enum(
    "TargetProcessorTune",
    [
        ("TuneGeneric", 0),
        ("TuneK8", 1),
        ("TuneK8_SSE3", 2),
        ("TuneAMDFam10", 3),
        ("TuneBtVer1", 4),
        ("TuneBdVer1", 5),
        ("TuneBdVer2", 6),
        ("TuneBdVer3", 7),
        ("TuneBdVer4", 8),
        ("TuneBtVer2", 9),
        ("TuneZnVer1", 10),
        ("TuneZnVer2", 11),
        ("TuneZnVer3", 12),
        ("TuneZnVer4", 13),
        ("TuneZnVer5", 14),
    ],
)
DeviceAPI = _Enum(
    "DeviceAPI",
    [
        ("None", 0),
        ("Host", 1),
        ("Default_GPU", 2),
        ("CUDA", 3),
        ("OpenCL", 4),
        ("Metal", 5),
        ("Hexagon", 6),
        ("Vulkan", 9),
    ],
)

# Halide 21's features: (enum name, string token, value). HVX is another name of HVX_128, as in Halide. The CUDA
# capabilities from 89 on are in Halide's sources but not in the 21.0.0 wheel (H100 is sm_90): numbered after it.
_FEATURES = """
    JIT:jit:0 Debug:debug:1 EnableBacktraces:enable_backtraces:2 NoAsserts:no_asserts:3
    NoBoundsQuery:no_bounds_query:4 SSE41:sse41:5 AVX:avx:6 AVX2:avx2:7 AVXVNNI:avxvnni:8 FMA:fma:9 FMA4:fma4:10
    F16C:f16c:11 ARMv7s:armv7s:12 NoNEON:no_neon:13 VSX:vsx:14 POWER_ARCH_2_07:power_arch_2_07:15 CUDA:cuda:16
    CUDACapability30:cuda_capability_30:17 CUDACapability32:cuda_capability_32:18
    CUDACapability35:cuda_capability_35:19 CUDACapability50:cuda_capability_50:20
    CUDACapability61:cuda_capability_61:21 CUDACapability70:cuda_capability_70:22
    CUDACapability75:cuda_capability_75:23 CUDACapability80:cuda_capability_80:24
    CUDACapability86:cuda_capability_86:25 OpenCL:opencl:26 CLDoubles:cl_doubles:27 CLHalf:cl_half:54
    CLAtomics64:cl_atomics64:28 EGL:egl:70 UserContext:user_context:29 Profile:profile:30 NoRuntime:no_runtime:31
    Metal:metal:32 CPlusPlusMangling:c_plus_plus_name_mangling:33 LargeBuffers:large_buffers:34
    HexagonDma:hexagon_dma:60 HVX_128:hvx_128:35 HVX:hvx:35 HVX_v62:hvx_v62:36 HVX_v65:hvx_v65:51
    HVX_v66:hvx_v66:52 HVX_v68:hvx_v68:53 FuzzFloatStores:fuzz_float_stores:37 SoftFloatABI:soft_float_abi:38
    MSAN:msan:39 AVX512:avx512:40 AVX512_KNL:avx512_knl:41 AVX512_Skylake:avx512_skylake:42
    AVX512_Cannonlake:avx512_cannonlake:43 AVX512_SapphireRapids:avx512_sapphirerapids:46 AVX512_Zen4:avx512_zen4:44
    AVX512_Zen5:avx512_zen5:45 TraceLoads:trace_loads:47 TraceStores:trace_stores:48
    TraceRealizations:trace_realizations:49 TracePipeline:trace_pipeline:50 D3D12Compute:d3d12compute:58
    StrictFloat:strict_float:55 TSAN:tsan:56 ASAN:asan:57 CheckUnsafePromises:check_unsafe_promises:59
    EmbedBitcode:embed_bitcode:61 EnableLLVMLoopOpt:enable_llvm_loop_opt:62 WasmMvpOnly:wasm_mvponly:63
    WasmSimd128:wasm_simd128:64 WasmThreads:wasm_threads:65 WasmBulkMemory:wasm_bulk_memory:66 WebGPU:webgpu:67
    SVE:sve:68 SVE2:sve2:69 ARMDotProd:arm_dot_prod:71 ARMFp16:arm_fp16:72
    LLVMLargeCodeModel:llvm_large_code_model:73 RVV:rvv:74 ARMv8a:armv8a:75 ARMv81a:armv81a:76 ARMv82a:armv82a:77
    ARMv83a:armv83a:78 ARMv84a:armv84a:79 ARMv85a:armv85a:80 ARMv86a:armv86a:81 ARMv87a:armv87a:82 ARMv88a:armv88a:83
    ARMv89a:armv89a:84 SanitizerCoverage:sanitizer_coverage:85 ProfileByTimer:profile_by_timer:86 SPIRV:spirv:87
    Vulkan:vulkan:88 VulkanInt8:vk_int8:89 VulkanInt16:vk_int16:90 VulkanInt64:vk_int64:91
    VulkanFloat16:vk_float16:92 VulkanFloat64:vk_float64:93 VulkanV10:vk_v10:94 VulkanV12:vk_v12:95
    VulkanV13:vk_v13:96 Semihosting:semihosting:97 AVX10_1:avx10_1:98 X86APX:x86apx:99 Simulator:simulator:100
    FeatureEnd::101 CUDACapability89:cuda_capability_89:102 CUDACapability90:cuda_capability_90:103
    CUDACapability100:cuda_capability_100:104 CUDACapability120:cuda_capability_120:105
"""
_FEATURE_ROWS = [tuple(w.split(":")) for w in _FEATURES.split()]
TargetFeature = _Enum("TargetFeature", [(n, int(v)) for n, _, v in _FEATURE_ROWS])
_TOKEN_FEATURE = {tok: TargetFeature(int(v)) for _, tok, v in _FEATURE_ROWS if tok}
_FEATURE_TOKENS: dict = {}
for _tok, _f in _TOKEN_FEATURE.items():
    _FEATURE_TOKENS.setdefault(_f, []).append(_tok)

_ARCH_TOKENS = {
    "arch_unknown": TargetArch.ArchUnknown,
    "x86": TargetArch.X86,
    "arm": TargetArch.ARM,
    "hexagon": TargetArch.Hexagon,
    "powerpc": TargetArch.POWERPC,
    "wasm": TargetArch.WebAssembly,
    "riscv": TargetArch.RISCV,
}
_OS_TOKENS = {
    "os_unknown": TargetOS.OSUnknown,
    "linux": TargetOS.Linux,
    "windows": TargetOS.Windows,
    "osx": TargetOS.OSX,
    "android": TargetOS.Android,
    "ios": TargetOS.IOS,
    "qurt": TargetOS.QuRT,
    "noos": TargetOS.NoOS,
    "wasmrt": TargetOS.wasmrt,
    "fuchsia": TargetOS.OSUnknown,
}
_TUNE_TOKENS = {
    "tune_generic": TargetProcessorTune.TuneGeneric,
    "tune_k8": TargetProcessorTune.TuneK8,
    "tune_k8_sse3": TargetProcessorTune.TuneK8_SSE3,
    "tune_amdfam10": TargetProcessorTune.TuneAMDFam10,
    "tune_btver1": TargetProcessorTune.TuneBtVer1,
    "tune_bdver1": TargetProcessorTune.TuneBdVer1,
    "tune_bdver2": TargetProcessorTune.TuneBdVer2,
    "tune_bdver3": TargetProcessorTune.TuneBdVer3,
    "tune_bdver4": TargetProcessorTune.TuneBdVer4,
    "tune_btver2": TargetProcessorTune.TuneBtVer2,
    "tune_znver1": TargetProcessorTune.TuneZnVer1,
    "tune_znver2": TargetProcessorTune.TuneZnVer2,
    "tune_znver3": TargetProcessorTune.TuneZnVer3,
    "tune_znver4": TargetProcessorTune.TuneZnVer4,
    "tune_znver5": TargetProcessorTune.TuneZnVer5,
}


def _name(table: dict, value) -> str:
    return next(k for k, v in table.items() if v == value)


_GPU_FEATURES = (
    TargetFeature.CUDA,
    TargetFeature.OpenCL,
    TargetFeature.Metal,
    TargetFeature.D3D12Compute,
    TargetFeature.Vulkan,
    TargetFeature.WebGPU,
)
_DEVICE_FEATURE = {
    DeviceAPI.CUDA: TargetFeature.CUDA,
    DeviceAPI.OpenCL: TargetFeature.OpenCL,
    DeviceAPI.Metal: TargetFeature.Metal,
    DeviceAPI.Hexagon: TargetFeature.HVX_128,
    DeviceAPI.Vulkan: TargetFeature.Vulkan,
}


def _feature(f) -> TargetFeature:
    if isinstance(f, TargetFeature):
        return f
    raise HalideTypeError(f"{user_site()}: expected an hl.TargetFeature, got {f!r}")


class Target:
    """``hl.Target()`` (unknown), ``hl.Target(string)`` (``""`` is the host), or
    ``hl.Target(os, arch, bits[, features][, processor_tune])``."""

    def __init__(self, *args, **kwargs):
        self.os, self.arch, self.bits = TargetOS.OSUnknown, TargetArch.ArchUnknown, 0
        self.processor_tune = TargetProcessorTune.TuneGeneric
        self._features: set = set()
        if not args and not kwargs:
            return
        if len(args) == 1 and not kwargs and isinstance(args[0], str):
            if args[0] == "":
                self._copy(get_host_target())
            elif not self._merge_string(args[0]) or self._has_unknown():
                raise HalideError(_bad_target_message(args[0]))
            return
        from . import overloads as o

        _, a = o.match(
            "Target",
            args,
            kwargs,
            [
                o.Arg("os", lambda v: isinstance(v, TargetOS)),
                o.Arg("arch", lambda v: isinstance(v, TargetArch)),
                o.Arg("bits", o.is_int),
                o.Arg(
                    "features",
                    lambda v: isinstance(v, (list, tuple)) and all(isinstance(f, TargetFeature) for f in v),
                    (),
                ),
                o.Arg("processor", lambda v: isinstance(v, TargetProcessorTune), TargetProcessorTune.TuneGeneric),
            ],
            [
                o.Arg("os", lambda v: isinstance(v, TargetOS)),
                o.Arg("arch", lambda v: isinstance(v, TargetArch)),
                o.Arg("bits", o.is_int),
                o.Arg("processor", lambda v: isinstance(v, TargetProcessorTune)),
                o.Arg(
                    "features",
                    lambda v: isinstance(v, (list, tuple)) and all(isinstance(f, TargetFeature) for f in v),
                    (),
                ),
            ],
        )
        self.os, self.arch, self.bits = a["os"], a["arch"], int(a["bits"])
        self.processor_tune = a["processor"]
        self._features = set(a["features"])

    def _copy(self, other: "Target") -> None:
        self.os, self.arch, self.bits = other.os, other.arch, other.bits
        self.processor_tune, self._features = other.processor_tune, set(other._features)

    def _merge_string(self, text: str) -> bool:
        """Halide's Target::merge_string: the tokens of ``text`` applied to this Target."""
        arch = bits = os_ = tune = features = False
        for i, tok in enumerate(text.split("-")):
            if tok == "host":
                if i > 0:
                    return False
                self._copy(get_host_target())
            elif tok in ("32", "64", "0"):
                if bits:
                    return False
                bits, self.bits = True, int(tok)
            elif tok in _ARCH_TOKENS:
                if arch:
                    return False
                arch, self.arch = True, _ARCH_TOKENS[tok]
            elif tok in _OS_TOKENS:
                if os_:
                    return False
                os_, self.os = True, _OS_TOKENS[tok]
            elif tok in _TUNE_TOKENS:
                if tune:
                    return False
                tune, self.processor_tune = True, _TUNE_TOKENS[tok]
            elif tok in _TOKEN_FEATURE:
                self._features.add(_TOKEN_FEATURE[tok])
                features = True
            elif tok == "trace_all":
                self._features |= {TargetFeature.TraceLoads, TargetFeature.TraceStores, TargetFeature.TraceRealizations}
                features = True
            else:
                return False
        if arch and not bits:
            return False
        if (
            bits
            and self.bits == 0
            and (
                not (arch and self.arch == TargetArch.ArchUnknown)
                or not (os_ and self.os == TargetOS.OSUnknown)
                or features
            )
        ):
            return False
        return True

    def _has_unknown(self) -> bool:
        return self.os == TargetOS.OSUnknown or self.arch == TargetArch.ArchUnknown or self.bits == 0

    @staticmethod
    def validate_target_string(text: str) -> bool:
        t = Target()
        return t._merge_string(str(text)) and not t._has_unknown()

    # --- text ------------------------------------------------------------------------------------
    def to_string(self) -> str:
        parts = [_name(_ARCH_TOKENS, self.arch), str(self.bits), _name(_OS_TOKENS, self.os)]
        if self.processor_tune != TargetProcessorTune.TuneGeneric:
            parts.append(_name(_TUNE_TOKENS, self.processor_tune))
        toks = sorted(t for f in self._features for t in _FEATURE_TOKENS[f])
        return "-".join(parts + toks)

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"<halide.Target {self.to_string()}>"

    def __eq__(self, other) -> bool:
        if not isinstance(other, Target):
            return NotImplemented
        return (self.os, self.arch, self.bits, self.processor_tune, self._features) == (
            other.os,
            other.arch,
            other.bits,
            other.processor_tune,
            other._features,
        )

    def __ne__(self, other) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # mutable (set_feature), as Halide's

    # --- features --------------------------------------------------------------------------------
    def has_feature(self, feature) -> bool:
        return _feature(feature) in self._features

    def features_any_of(self, features) -> bool:
        return any(self.has_feature(f) for f in features)

    def features_all_of(self, features) -> bool:
        return all(self.has_feature(f) for f in features)

    def set_feature(self, feature, value: bool = True) -> None:
        f = _feature(feature)
        if value:
            self._features.add(f)
        else:
            self._features.discard(f)

    def set_features(self, features, value: bool = True) -> None:
        for f in features:
            self.set_feature(f, value)

    def with_feature(self, feature) -> "Target":
        t = Target()
        t._copy(self)
        t.set_feature(feature)
        return t

    def without_feature(self, feature) -> "Target":
        t = Target()
        t._copy(self)
        t.set_feature(feature, False)
        return t

    def has_gpu_feature(self) -> bool:
        return any(f in self._features for f in _GPU_FEATURES)

    def has_large_buffers(self) -> bool:
        return TargetFeature.LargeBuffers in self._features

    def maximum_buffer_size(self) -> int:
        return (1 << 63) - 1 if self.bits == 64 and self.has_large_buffers() else (1 << 31) - 1

    def supported(self) -> bool:
        """Whether Halide (and halide_mlir) can compile for it: halide_mlir only compiles for the host."""
        return self.arch == TargetArch.X86 and self.bits == 64 and not self.has_gpu_feature()

    def supports_device_api(self, api) -> bool:
        if api in (DeviceAPI["None"], DeviceAPI.Host):
            return True
        if api == DeviceAPI.Default_GPU:
            return self.has_gpu_feature()
        f = _DEVICE_FEATURE.get(api)
        return f is not None and f in self._features

    def supports_type(self, t: Type, device=None) -> bool:
        if t.bits() == 64 and t.is_float():
            if device == DeviceAPI.Metal or (device is None and TargetFeature.Metal in self._features):
                return False
            if device == DeviceAPI.OpenCL and TargetFeature.CLDoubles not in self._features:
                return False
        return True

    def cuda_capability(self) -> int | None:
        """The highest ``cuda_capability_NN`` feature as NN, or None (the CUDA backend's default then)."""
        caps = [
            int(tok.rsplit("_", 1)[1])
            for f in self._features
            for tok in _FEATURE_TOKENS[f]
            if tok.startswith("cuda_capability_")
        ]
        return max(caps) if caps else None

    def natural_vector_size(self, t: Type) -> int:
        """Halide's Target::natural_vector_size: the lanes of one SIMD register of ``t``."""
        if self._has_unknown():
            raise HalideError(f"{user_site()}: natural_vector_size of a Target with unknown parts: {self}")
        size = t.bytes()
        is_int = t.is_int() or t.is_uint()
        if self.arch == TargetArch.X86:
            wide_int = (
                TargetFeature.AVX512_Skylake,
                TargetFeature.AVX512_Cannonlake,
                TargetFeature.AVX512_Zen4,
                TargetFeature.AVX512_Zen5,
                TargetFeature.AVX512_SapphireRapids,
            )
            if is_int and self.features_any_of(wide_int):
                return 64 // size
            if t.is_float() and self.features_any_of((TargetFeature.AVX512, TargetFeature.AVX512_KNL, *wide_int)):
                return 64 // size
            if self.has_feature(TargetFeature.AVX2) or self.features_any_of(
                (TargetFeature.AVX512, TargetFeature.AVX512_KNL)
            ):
                return 32 // size
            if self.has_feature(TargetFeature.AVX):
                return 32 // size if t.is_float() else 16 // size
            return 16 // size
        if self.arch == TargetArch.Hexagon:
            if not self.has_feature(TargetFeature.HVX_128):
                raise HalideError(f"{user_site()}: Target uses hexagon arch without target feature hvx set.")
            return 128 // size if is_int else 1
        if self.arch == TargetArch.WebAssembly:
            return 16 // size if self.has_feature(TargetFeature.WasmSimd128) else 1
        if self.arch in (TargetArch.ARM, TargetArch.POWERPC):
            return 16 // size
        return 1


def target_feature_for_device_api(api) -> TargetFeature:
    return _DEVICE_FEATURE.get(api, TargetFeature.FeatureEnd)


@functools.lru_cache(maxsize=1)
def _host() -> tuple:
    """Halide's calculate_host_target, from /proc/cpuinfo (x86-64 Linux: the only host this project runs on)."""
    import platform

    flags: set = set()
    family = 0
    vendor = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, val = line.partition(":")
                key = key.strip()
                if key == "flags" and not flags:
                    flags = set(val.split())
                elif key == "cpu family" and not family:
                    family = int(val)
                elif key == "vendor_id" and not vendor:
                    vendor = val.strip()
    except OSError:
        pass
    F = TargetFeature
    feats = set()
    for flag, feat in (
        ("sse4_1", F.SSE41),
        ("avx", F.AVX),
        ("f16c", F.F16C),
        ("fma", F.FMA),
        ("avx2", F.AVX2),
        ("avx_vnni", F.AVXVNNI),
    ):
        if flag in flags:
            feats.add(feat)
    has = flags.__contains__
    if has("avx512f") and has("avx512cd"):
        feats.add(F.AVX512)
        if has("avx512pf") and has("avx512er"):
            feats.add(F.AVX512_KNL)
        if has("avx512vl") and has("avx512bw") and has("avx512dq"):
            feats.add(F.AVX512_Skylake)
            if has("avx512ifma") and has("avx512vbmi"):
                feats.add(F.AVX512_Cannonlake)
                zen4 = all(
                    map(has, ("avx512_bf16", "avx512_vnni", "avx512_vbmi2", "avx512_bitalg", "avx512_vpopcntdq"))
                )
                if zen4 and vendor == "AuthenticAMD":
                    feats.add(F.AVX512_Zen4)
                    if has("avx512_vp2intersect") and has("avx_vnni"):
                        feats.add(F.AVX512_Zen5)
                if all(map(has, ("avx512_bf16", "avx512_vnni", "amx_tile", "amx_bf16", "amx_int8", "avx_vnni"))):
                    feats.add(F.AVX512_SapphireRapids)
    tune = TargetProcessorTune.TuneGeneric
    if vendor == "AuthenticAMD":
        tune = {0x1A: TargetProcessorTune.TuneZnVer5, 0x17: TargetProcessorTune.TuneZnVer2}.get(family, tune)
        if family == 0x19:
            tune = TargetProcessorTune.TuneZnVer4 if F.AVX512 in feats else TargetProcessorTune.TuneZnVer3
    machine = platform.machine().lower()
    arch = (
        TargetArch.X86
        if machine in ("x86_64", "amd64", "i686", "i386")
        else TargetArch.ARM
        if machine.startswith(("arm", "aarch64"))
        else TargetArch.ArchUnknown
    )
    import sys

    os_ = (
        TargetOS.Linux
        if sys.platform.startswith("linux")
        else TargetOS.OSX
        if sys.platform == "darwin"
        else TargetOS.Windows
        if sys.platform.startswith("win")
        else TargetOS.OSUnknown
    )
    return os_, arch, 64 if sys.maxsize > 2**32 else 32, tune, frozenset(feats)


def get_host_target() -> Target:
    os_, arch, bits, tune, feats = _host()
    return Target(os_, arch, bits, sorted(feats), tune)


def get_target_from_environment() -> Target:
    import os

    text = os.environ.get("HL_TARGET", "")
    return Target(text) if text else get_host_target()


def get_jit_target_from_environment() -> Target:
    import os

    text = os.environ.get("HL_JIT_TARGET", "")
    t = Target(text) if text else get_host_target()
    return t.with_feature(TargetFeature.JIT)


def host_supports_target_device(t: Target) -> bool:
    """Can this machine run ``t``'s device code? For CUDA: libcuda loads and has a device (runtime/cuda.py)."""
    if not isinstance(t, Target):
        raise HalideTypeError(f"{user_site()}: host_supports_target_device takes an hl.Target, got {t!r}")
    if not t.has_gpu_feature():
        return True
    if t.has_feature(TargetFeature.CUDA):
        from ..runtime import cuda

        return cuda.device_count() > 0
    return False


def as_target(target) -> Target:
    """``realize(sizes, target)``/``compile_jit(target)``'s argument: a Target (None: HL_JIT_TARGET's)."""
    if target is None:
        return get_jit_target_from_environment()
    if isinstance(target, str):
        return Target(target)
    if not isinstance(target, Target):
        raise HalideTypeError(f"{user_site()}: expected an hl.Target, got {target!r}")
    return target


# features that do not change the values or the code in a way this project has to reproduce
_HONORED = {
    TargetFeature.JIT,
    TargetFeature.Debug,
    TargetFeature.NoAsserts,
    TargetFeature.NoBoundsQuery,
    TargetFeature.LargeBuffers,
    TargetFeature.EnableBacktraces,
    TargetFeature.UserContext,
    TargetFeature.NoRuntime,
    TargetFeature.CPlusPlusMangling,
    TargetFeature.EmbedBitcode,
    TargetFeature.EnableLLVMLoopOpt,
}


_CUDA_FEATURES = {TargetFeature.CUDA} | {f for f in TargetFeature if f.name.startswith("CUDACapability")}


def check_compilable(target, what: str) -> None:
    """Refuse a Target this project can't compile for (a Target is never silently ignored)."""
    if target is None:
        return
    if isinstance(target, str):
        target = Target(target)
    if not isinstance(target, Target):
        raise HalideTypeError(f"{user_site()}: {what} takes an hl.Target, got {target!r}")
    host = get_host_target()
    if (target.os, target.arch, target.bits) != (host.os, host.arch, host.bits):
        raise HalideError(
            f"{user_site()}: {what}: halide_mlir compiles for the host "
            f"({host.arch.name}-{host.bits}-{host.os.name}) only, not {target}"
        )
    gpu = {f for f in target._features if f in _GPU_FEATURES} - {TargetFeature.CUDA}
    if gpu:
        raise HalideError(
            f"{user_site()}: {what}: target {target} asks for a GPU API halide_mlir has no backend "
            f"for ({', '.join(sorted(f.name for f in gpu))}); its GPU backend is CUDA"
        )
    cpu = {f for f in target._features if f not in _HONORED and f not in _CUDA_FEATURES}
    missing = sorted(f.name for f in cpu - set(host._features))
    if missing:
        raise HalideError(
            f"{user_site()}: {what}: target {target} has features this machine or halide_mlir "
            f"can't honor: {', '.join(missing)}"
        )


def _bad_target_message(text: str) -> str:
    return (
        f"{user_site()}: Did not understand Halide target {text}\n"
        f"Expected format is arch-bits-os-processor-feature1-feature2-...\n"
        f"Where arch is: {', '.join(sorted(_ARCH_TOKENS))}.\nbits is either 32 or 64.\n"
        f"os is: {', '.join(sorted(_OS_TOKENS))}.\nprocessor is: {', '.join(sorted(_TUNE_TOKENS))}.\n"
        f"If arch, bits, or os are omitted, they default to the host.\n"
        f"Features are: {', '.join(sorted(_TOKEN_FEATURE))}.\n"
        f'The target can also begin with "host", which sets the host\'s architecture, os, and feature set, '
        f"with the exception of the GPU runtimes, which default to off.\n"
        f"On this platform, the host target is: {get_host_target()}"
    )
