"""Cross-compilation (halide_mlir/aot/cross.py, Halide's tutorial lesson 11): objects for other machines, checked
by their headers and symbols; run under qemu-user where it is installed."""

import importlib.util
import os
import re
import shutil
import struct
import subprocess
import sys

import pytest

import halide_mlir as hl
from halide_mlir.runtime.tools import llvm_tool

needs_zig = pytest.mark.skipif(importlib.util.find_spec("ziglang") is None, reason="needs ziglang (aot-cross extra)")
C_DIR = os.path.join(os.path.dirname(__file__), "..", "c")

W, H = 64, 32


def brighter():
    """Lesson 11's pipeline, with the estimates halide_mlir's fixed-size AOT needs."""
    x, y = hl.Var("x"), hl.Var("y")
    offset = hl.Param(hl.UInt(8), "offset")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    f = hl.Func("brighter")
    f[x, y] = inp[x, y] + offset
    f.vectorize(x, 16).parallel(y)
    f.set_estimates([(0, W), (0, H)])
    inp.set_estimates([(0, W), (0, H)])
    return f, [inp, offset]


def target(os_, arch, bits, features=()):
    t = hl.Target()
    t.os, t.arch, t.bits = os_, arch, bits
    t.set_features(list(features))
    return t


def symbols(path):
    """{name: nm's letter}; Mach-O's weak definitions (nm prints T) are W here, read from ``nm -m``."""
    r = subprocess.run([llvm_tool("llvm-nm"), path], capture_output=True, text=True, check=True)
    syms = {line.split()[-1]: line.split()[-2] for line in r.stdout.splitlines() if line.strip()}
    r = subprocess.run([llvm_tool("llvm-nm"), "-m", path], capture_output=True, text=True, check=True)
    for line in r.stdout.splitlines():
        if "weak external" in line and open(path, "rb").read(4) in (b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe"):
            syms[line.split()[-1]] = "W"
    return syms


@needs_zig
def test_lesson_11_headers(tmp_path):
    """The lesson's three Targets (as hl.Target objects) and its header checks, plus the symbols each object
    defines (Mach-O prefixes C names with '_')."""
    f, args = brighter()
    android = str(tmp_path / "arm_32_android")
    windows = str(tmp_path / "x86_64_windows")
    ios = str(tmp_path / "arm_32_ios")
    f.compile_to_file(android, args, "arm_32_android", target(hl.TargetOS.Android, hl.TargetArch.ARM, 32))
    f.compile_to_file(
        windows,
        args,
        "x86_64_windows",
        target(hl.TargetOS.Windows, hl.TargetArch.X86, 64, [hl.TargetFeature.AVX, hl.TargetFeature.SSE41]),
    )
    f.compile_to_file(
        ios, args, "arm_32_ios", target(hl.TargetOS.IOS, hl.TargetArch.ARM, 32, [hl.TargetFeature.ARMv7s])
    )
    with open(android + ".o", "rb") as fh:
        head = fh.read(20)
    assert list(head[:7]) == [0x7F, ord("E"), ord("L"), ord("F"), 1, 1, 1]  # ELF, 32-bit, little-endian
    assert struct.unpack("<H", head[18:20])[0] == 40  # e_machine: EM_ARM
    assert not os.path.exists(windows + ".o")  # Halide names a Windows object .obj
    with open(windows + ".obj", "rb") as fh:
        assert list(fh.read(2)) == [0x64, 0x86]  # COFF machine: x86-64
    with open(ios + ".o", "rb") as fh:
        assert list(struct.unpack("I" * 4, fh.read(16))) == [0xFEEDFACE, 12, 11, 1]  # Mach-O, ARM, ARMv7s, object
    for path, fn, prefix in [(android + ".o", "arm_32_android", ""), (windows + ".obj", "x86_64_windows", ""),
                             (ios + ".o", "arm_32_ios", "_")]:  # fmt: skip
        syms = symbols(path)
        assert syms[f"{prefix}{fn}"] == "T" and syms[f"{prefix}{fn}_argv"] == "T"
        assert syms[f"{prefix}__hl_{fn}_kernel_ciface"] == "T"
        assert syms[f"{prefix}halide_set_error_handler"] == "W"  # the runtime is inside, weak as on Linux
        assert syms[f"{prefix}__kmpc_fork_call"] == "W"  # the parallel y loop's entry point
    win = symbols(windows + ".obj")
    assert "pthread_create" not in win and win["__imp_CreateThread"] == "U"  # Win32 threads, no pthreads


def elf_machine(path):
    with open(path, "rb") as fh:
        head = fh.read(20)
    assert head[:4] == b"\x7fELF"
    return head[4], struct.unpack("<H", head[18:20])[0]


@needs_zig
@pytest.mark.parametrize(
    "text, ext, check",
    [
        ("arm-64-linux", ".o", lambda p: elf_machine(p) == (2, 183)),  # ELF64, EM_AARCH64
        ("x86-64-linux-avx2", ".o", lambda p: elf_machine(p) == (2, 62)),  # ELF64, EM_X86_64
        ("x86-64-osx", ".o", lambda p: open(p, "rb").read(8) == struct.pack("<II", 0xFEEDFACF, 0x01000007)),
        ("arm-64-osx", ".o", lambda p: open(p, "rb").read(8) == struct.pack("<II", 0xFEEDFACF, 0x0100000C)),
    ],
)
def test_target_strings(tmp_path, text, ext, check):
    f, args = brighter()
    prefix = str(tmp_path / "lib")
    f.compile_to_static_library(prefix, args, "brighter_" + text.replace("-", "_"), text)
    r = subprocess.run([llvm_tool("llvm-ar"), "x", "--output", str(tmp_path), prefix + ".a"], capture_output=True)
    assert r.returncode == 0, r.stderr
    (obj,) = [p for p in os.listdir(tmp_path) if p.endswith(ext) and p != "lib.a"]
    assert check(str(tmp_path / obj))


@needs_zig
def test_vector_widths_follow_the_target(tmp_path):
    """Auto-vectorization fills the target's registers: 128-bit NEON on ARM, 256-bit AVX2; never AVX-512 code
    for them (the JIT's host may have it)."""
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    f = hl.Func("scale")
    f[x, y] = inp[x, y] * 2.0 + 1.0
    f.set_estimates([(0, 256), (0, 8)])
    inp.set_estimates([(0, 256), (0, 8)])
    widths = {}
    for text in ("arm-64-linux", "arm-32-linux", "x86-64-linux-avx2", "x86-64-windows-sse41"):
        p = str(tmp_path / f"{text}.ll")
        f.compile_to_llvm_assembly(p, [inp], "scale", text)
        ir = open(p).read()
        widths[text] = {int(n) for n in re.findall(r"<(\d+) x float>", ir)}
        assert text.startswith("x86-64-linux") or "x86_64-unknown-linux-gnu" not in ir  # the target's triple
    assert widths["arm-64-linux"] == {4} and widths["arm-32-linux"] == {4} and widths["x86-64-windows-sse41"] == {4}
    assert widths["x86-64-linux-avx2"] == {8}
    asm = str(tmp_path / "a64.s")
    f.compile_to_assembly(asm, [inp], "scale", "arm-64-linux")
    text = open(asm).read()
    assert "fmla" in text or "fmul\tv" in text or "fadd\tv" in text  # NEON
    asm = str(tmp_path / "avx2.s")
    f.compile_to_assembly(asm, [inp], "scale", "x86-64-linux-avx2")
    assert "zmm" not in open(asm).read() and "ymm" in open(asm).read()


@needs_zig
@pytest.mark.parametrize(
    "text, qemu, zig_target",
    [("arm-64-linux", "qemu-aarch64", "aarch64-linux-musl"), ("arm-32-android", "qemu-arm", "arm-linux-musleabi")],
)
def test_runs_under_qemu(tmp_path, text, qemu, zig_target):
    """The object linked into a static program for that machine gives the right values (a 32-bit target's memref
    descriptors have 4-byte pointers: the runtime's view of a buffer accounts for it)."""
    if shutil.which(qemu) is None:
        pytest.skip(f"{qemu} is not installed")
    f, args = brighter()
    fn = "brighter_" + text.replace("-", "_")
    f.compile_to_file(str(tmp_path / fn), args, fn, text)
    exe = str(tmp_path / "prog")
    r = subprocess.run(
        [sys.executable, "-m", "ziglang", "cc", "-target", zig_target, "-static", "-O1", f"-DFN={fn}", "-include",
         str(tmp_path / f"{fn}.h"), os.path.join(C_DIR, "aot_cross_brighten.c"), str(tmp_path / f"{fn}.o"), "-o",
         exe],
        capture_output=True, text=True,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    r = subprocess.run([qemu, exe], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_missing_cross_toolchain_says_what_to_install(tmp_path, monkeypatch):
    from halide_mlir.aot import cross

    real = importlib.util.find_spec
    monkeypatch.setattr(cross.importlib.util, "find_spec", lambda n, *a: None if n == "ziglang" else real(n, *a))
    f, args = brighter()
    with pytest.raises(hl.HalideError, match="pip install ziglang"):
        f.compile_to_object(str(tmp_path / "f.o"), args, "f", "arm-64-linux")


def test_refused_targets(tmp_path):
    f, args = brighter()
    with pytest.raises(hl.HalideError, match="not RISCV"):
        f.compile_to_object(str(tmp_path / "f.o"), args, "f", "riscv-64-linux")
    with pytest.raises(hl.HalideError, match="sve2"):
        f.compile_to_object(str(tmp_path / "f.o"), args, "f", "arm-64-linux-sve2")
    with pytest.raises(hl.HalideError, match="hvx"):
        f.compile_to_object(str(tmp_path / "f.o"), args, "f", "arm-64-android-hvx")


@needs_zig
def test_generator_main_for_windows_names_obj_and_lib(tmp_path):
    """hl.main with target=x86-64-windows: Halide's file names (.obj, .lib), COFF inside; c_source too."""
    from test_generator import GENERATOR, ROOT

    (tmp_path / "brighten_generator.py").write_text(GENERATOR)
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, str(tmp_path / "brighten_generator.py"), "-g", "brighten", "-o",
                        str(tmp_path / "out"), "-e", "object,static_library,c_header,c_source",
                        "target=x86-64-windows-avx2"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    out = tmp_path / "out"
    assert sorted(os.listdir(out)) == ["brighten.h", "brighten.halide_generated.cpp", "brighten.lib", "brighten.obj"]
    assert (out / "brighten.obj").read_bytes()[:2] == b"\x64\x86"
    assert (out / "brighten.lib").read_bytes()[:8] == b"!<arch>\n"


@needs_zig
@pytest.mark.parametrize(
    "text, qemu, zig_target",
    [("arm-32-linux", "qemu-arm", "arm-linux-musleabihf"), ("arm-32-android", "qemu-arm", "arm-linux-musleabi"),
     ("arm-64-android", "qemu-aarch64", "aarch64-linux-musl")],
)
def test_float_param_under_qemu(tmp_path, text, qemu, zig_target):
    """A float Param and a float buffer across the wrapper/kernel boundary, for the hard- and soft-float ABIs."""
    if shutil.which(qemu) is None:
        pytest.skip(f"{qemu} is not installed")
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    s = hl.Param(hl.Float(32), "s")
    f = hl.Func("f")
    f[x, y] = hl.sqrt(inp[x, y]) * s + hl.f32(x)
    f.parallel(y)
    f.set_estimates([(0, 40), (0, 8)])
    inp.set_estimates([(0, 40), (0, 8)])
    f.compile_to_file(str(tmp_path / "ff"), [inp, s], "ff", hl.Target(text))
    exe = str(tmp_path / "prog")
    r = subprocess.run(
        [sys.executable, "-m", "ziglang", "cc", "-target", zig_target, "-static", "-O1", "-include",
         str(tmp_path / "ff.h"), os.path.join(C_DIR, "aot_cross_float.c"), str(tmp_path / "ff.o"), "-o", exe, "-lm"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    r = subprocess.run([qemu, exe], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


@needs_zig
@pytest.mark.parametrize(
    "text, zig_target, magic",
    [("x86-64-windows-avx-sse41", "x86_64-windows-gnu", b"MZ"), ("x86-64-osx", "x86_64-macos", b"\xcf\xfa\xed\xfe"),
     ("arm-64-osx", "aarch64-macos", b"\xcf\xfa\xed\xfe")],
)
def test_links_into_an_executable(tmp_path, text, zig_target, magic):
    """Machines the tests can't run: the object links into a program of that OS (zig's linker with mingw-w64's
    or Darwin's libraries), so every symbol it needs resolves. _fltused is MSVC's CRT's (an object for
    x86_64-pc-windows-msvc refers to it); mingw has none, so the test program defines it."""
    f, args = brighter()
    fn = "brighter_" + text.replace("-", "_")
    f.compile_to_file(str(tmp_path / fn), args, fn, text)
    obj = str(tmp_path / (fn + (".obj" if "windows" in text else ".o")))
    extra = []
    if "windows" in text:
        (tmp_path / "fltused.c").write_text("int _fltused = 0x9875;\n")
        extra = [str(tmp_path / "fltused.c")]
    exe = str(tmp_path / "prog.exe")
    r = subprocess.run(
        [sys.executable, "-m", "ziglang", "cc", "-target", zig_target, "-O1", f"-DFN={fn}", "-include",
         str(tmp_path / f"{fn}.h"), os.path.join(C_DIR, "aot_cross_brighten.c"), *extra, obj, "-o", exe],
        capture_output=True, text=True,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert open(exe, "rb").read(len(magic)) == magic


@needs_zig
def test_no_neon_object_has_no_neon(tmp_path):
    """no_neon (Halide's -neon) holds for the whole object: the kernel and the C parts (zig's own CPU features are
    dropped from them, llc's apply)."""
    f, args = brighter()
    counts = {}
    for text in ("arm-32-android", "arm-32-android-no_neon"):
        obj = str(tmp_path / f"{text}.o")
        f.compile_to_object(obj, args, "b", text)
        r = subprocess.run([llvm_tool("llvm-objdump"), "-d", obj], capture_output=True, text=True, check=True)
        counts[text] = len(re.findall(r"\tv\w+(?:\.\w+)*\s+\{?[qd]\d+", r.stdout))  # NEON ops on d/q registers
    assert counts["arm-32-android"] > 0 and counts["arm-32-android-no_neon"] == 0, counts
