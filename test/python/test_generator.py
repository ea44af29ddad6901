"""The Generator framework (halide_mlir/generator.py) and Python extensions (aot/pyext.py): Halide's Python API,
checked against numpy; ``hl.main()``'s command line and errors; an extension module built from a generator and
imported where MLIR and halide_mlir can't be, matching the JIT."""
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import halide_mlir as hl

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")


@hl.generator(name="t_simple")
class Simple:
    offset = hl.GeneratorParam(0)
    buffer_input = hl.InputBuffer(hl.UInt(8), 2)
    float_arg = hl.InputScalar(float)
    simple_output = hl.OutputBuffer(hl.Float(32), 2)

    def generate(self):
        self.simple_output[x, y] = hl.f32(self.offset + self.buffer_input[x, y]) + self.float_arg


@hl.alias(t_configured_2={"scale": 2})
@hl.generator(name="t_configured")
class Configured(hl.Generator):
    scale = hl.GeneratorParam(1)
    extra = hl.GeneratorParam("")
    vectorize = hl.GeneratorParam(True)
    inp = hl.InputBuffer(None, 2)
    pair = hl.OutputBuffer(None, 2)
    total = hl.OutputScalar(hl.Float(32))

    def configure(self):
        if self.extra:
            self.add_input(self.extra, hl.InputBuffer(hl.UInt(16), 2))
        self.add_output("more", hl.OutputBuffer(hl.Float(64), 2))

    def generate(self):
        g = self
        g.pair[x, y] = (hl.f32(g.inp[x, y]) * g.scale, hl.f32(g.inp[x, y]) + 1)
        e = getattr(g, g.extra, None) if g.extra else None
        g.more[x, y] = hl.f64(e[x, y] + 1) if e is not None else hl.f64(0)
        g.total[()] = hl.f32(g.scale) + 0.5
        g.pair.specialize(g.vectorize).vectorize(x, g.natural_vector_size(hl.Float(32)))


def image(w=8, h=6, dtype=np.uint8):
    yy, xx = np.mgrid[0:h, 0:w]
    return (xx * 3 + yy * 5).astype(dtype)


def test_call_positional_keyword_and_params():
    a = image()
    b = hl.Buffer(a)   # as in Halide, call() takes Buffers and ImageParams, not numpy arrays
    with hl.GeneratorContext(hl.get_jit_target_from_environment()):
        for f, k in ((Simple.call(b, 3.5), 0), (Simple.call(float_arg=3.5, buffer_input=b), 0),
                     (Simple.call(b, float_arg=3.5, generator_params={"offset": "42"}), 42),
                     (Simple.call(generator_params={"offset": 42}, buffer_input=b, float_arg=3.5), 42)):
            assert np.array_equal(np.asarray(f.realize([8, 6])), a + 3.5 + k)


@pytest.mark.parametrize("call,message", [
    (lambda a: Simple.call(a, 3.5, 4), "allows at most 2 positional args, but 3 were specified."),
    (lambda a: Simple.call(a), "requires 2 args, but 1 were specified."),
    (lambda a: Simple.call(hl.f32(1), "happy"), "Input buffer_input requires an ImageParam or Buffer argument"),
    (lambda a: Simple.call(a, float_arg="bogus"), "Input float_arg requires a Param (or scalar literal) argument"),
    (lambda a: Simple.call(a, 3.5, float_arg=4.5), "Input float_arg specified multiple times."),
    (lambda a: Simple.call(a, 3.5, generator_params=[1]), "generator_params must be a dict"),
    (lambda a: Simple.call(a, 3.5, generator_params={"foo": 0}), "has no GeneratorParam"),
    (lambda a: Simple.call(buzzer_input=a, float_arg=3.5), "Unknown input 'buzzer_input' specified via keyword"),
])
def test_call_errors_are_halides(call, message):
    with hl.GeneratorContext(hl.Target("host")):
        with pytest.raises(hl.HalideError, match=None) as e:
            call(hl.Buffer(image()))
    assert message in str(e.value)


@pytest.mark.parametrize("extra", ["", "foo_input"])
def test_configure_types_from_params_tuples_and_scalars(extra):
    a, a16 = image(), image(dtype=np.uint16)
    gp = {"inp.type": hl.UInt(8), "pair.type": [hl.Float(32), hl.Float(32)], "vectorize": True}
    kw = {"inp": hl.Buffer(a)}
    if extra:
        gp["extra"] = extra
        kw[extra] = hl.Buffer(a16)
    with hl.GeneratorContext(hl.Target("host")):
        pair, total, more = Configured.call(generator_params=gp, **kw)
    r = pair.realize([8, 6])
    assert np.array_equal(np.asarray(r[0]), a.astype(np.float32)) and np.array_equal(np.asarray(r[1]), a + 1.0)
    assert total.realize([])[()] == 1.5
    assert np.array_equal(np.asarray(more.realize([8, 6])), a16 + 1.0 if extra else np.zeros((6, 8)))


def test_alias_sets_params_and_generator_errors():
    from halide_mlir.generator import _registry
    with hl.GeneratorContext(hl.Target("host")):
        pair, _, _ = _registry["t_configured_2"].call(hl.Buffer(image()), generator_params={"inp.type": "uint8",
                                                                                "pair.type": "float32,float32"})
    assert np.array_equal(np.asarray(pair.realize([8, 6])[0]), image() * 2.0)
    with pytest.raises(hl.HalideError, match="There is no active GeneratorContext"):
        Simple()
    with pytest.raises(hl.HalideError, match="The Generator name t_simple is already in use"):
        hl.generator(name="t_simple")(type("Again", (), {}))
    with hl.GeneratorContext(hl.Target("host")):
        with pytest.raises(hl.HalideError, match="No type has been specified for inp"):
            Configured.call(hl.Buffer(image()))
        with pytest.raises(hl.HalideError, match="Can only call add_input"):
            Configured().add_input("x2", hl.InputBuffer(hl.UInt(8), 2))
    assert hl.active_generator_context is not None


def test_compile_to_callable_and_create_callable_from_generator():
    a = image()
    out = np.zeros((6, 8), np.float32)
    with hl.GeneratorContext(hl.Target("host")):
        call = Simple(generator_params={"offset": "2"}).compile_to_callable()
    call(a, 1.5, out)
    assert np.array_equal(out, a + 3.5)
    call = hl.create_callable_from_generator(hl.Target("host"), "t_simple", {"offset": 1})
    call(float_arg=0.5, simple_output=out, buffer_input=a)
    assert np.array_equal(out, a + 1.5)
    with pytest.raises(hl.HalideError, match="Generator not found: nope"):
        hl.create_callable_from_generator(hl.Target("host"), "nope")


GENERATOR = textwrap.dedent('''
    import halide_mlir as hl
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")

    @hl.generator(name="brighten")
    class Brighten:
        scale = hl.GeneratorParam(2)
        input = hl.InputBuffer(hl.UInt(8), 3)
        offset = hl.InputScalar(hl.UInt(8))
        output = hl.OutputBuffer(hl.UInt(8), 3)

        def generate(self):
            g = self
            g.add_requirement(g.offset < 200, "offset too large:", g.offset)
            g.output[x, y, c] = hl.u8(hl.min(hl.u16(g.input[x, y, c]) * g.scale + g.offset, 255))
            g.input.set_estimates([(0, 64), (0, 48), (0, 3)])
            g.output.set_estimates([(0, 64), (0, 48), (0, 3)])
            g.output.vectorize(x, 16).parallel(y)

    if __name__ == "__main__":
        hl.main()
''')

# imported with MLIR and halide_mlir unavailable: the module needs nothing but itself (and numpy for the arrays)
USE = textwrap.dedent('''
    import sys
    sys.modules["mlir"] = None
    sys.modules["halide_mlir"] = None
    import numpy as np
    import brighten
    a = np.load(sys.argv[1])
    out = np.empty_like(a)
    brighten.brighten(a, 10, out)
    np.save(sys.argv[2], out)
    out2 = np.empty_like(a)
    brighten.brighten(input=a, offset=10, output=out2)
    assert np.array_equal(out, out2)
    for bad, expect in [((a, 250, out), "Halide Runtime Error: -27"), ((a[:, :, :32], 10, out),
                        "Halide Runtime Error: -4"), ((a.astype(np.int8), 10, out), "Halide Runtime Error: -3")]:
        try:
            brighten.brighten(*bad)
        except RuntimeError as e:
            assert str(e) == expect, e
        else:
            raise AssertionError(expect)
    try:
        brighten.brighten(a[0], 10, out)
    except ValueError as e:
        assert "Expected 3 dimensions, got 2" in str(e)
    assert not [m for m in sys.modules if m.startswith("mlir.") or m.startswith("halide_mlir.")]
    print("ok")
''')


def run_main(d, *args):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, os.path.join(d, "brighten_generator.py"), *args], cwd=d, env=env,
                          capture_output=True, text=True)


@pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="needs a C compiler")
def test_main_python_extension_without_mlir_matches_jit(tmp_path):
    d = str(tmp_path)
    with open(os.path.join(d, "brighten_generator.py"), "w") as f:
        f.write(GENERATOR)
    r = run_main(d, "-g", "brighten", "-o", "out", "-e", "static_library,c_header,python_extension,stmt",
                 "target=host", "scale=3")
    assert r.returncode == 0, r.stderr
    out = os.path.join(d, "out")
    assert sorted(os.listdir(out)) == ["brighten.a", "brighten.h", "brighten.py.cpp", "brighten.stmt"]
    so = hl.aot.build_python_extension(os.path.join(out, "brighten.py.cpp"), os.path.join(out, "brighten.a"), out)
    exported = subprocess.run(["nm", "-g", "--defined-only", so], capture_output=True, text=True).stdout
    assert [ln.split()[-1] for ln in exported.splitlines() if " T " in ln] == ["PyInit_brighten"]
    a = (np.arange(48 * 64 * 3) % 251).astype(np.uint8).reshape(3, 48, 64)
    np.save(os.path.join(d, "in.npy"), a)
    with open(os.path.join(d, "use.py"), "w") as f:
        f.write(USE)
    r = subprocess.run([sys.executable, "use.py", "in.npy", "got.npy"], cwd=d, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=out))
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
    # in this process too, with halide_mlir Buffers (their mins are passed on)
    sys.path.insert(0, out)
    try:
        import brighten
    finally:
        sys.path.remove(out)
    got = hl.Buffer(np.zeros_like(a))
    brighten.brighten(hl.Buffer(a), 10, got)
    assert np.array_equal(np.asarray(got), np.load(os.path.join(d, "got.npy")))
    got.set_min([1, 0, 0])
    # (another output region: the any-size fallback, which finds the input not covering it, as Halide's would)
    with pytest.raises(RuntimeError, match="Halide Runtime Error: -4"):
        brighten.brighten(hl.Buffer(a), 10, got)
    # the JIT on the same generator
    ns = {}
    exec(compile(GENERATOR.replace('name="brighten"', 'name="brighten_jit"'), "gen", "exec"), ns)
    with hl.GeneratorContext(hl.Target("host")):
        f = ns["Brighten"].call(hl.Buffer(a), 10, generator_params={"scale": 3})
    want = np.asarray(f.realize([64, 48, 3]))
    assert np.array_equal(np.load(os.path.join(d, "got.npy")), want)
    assert np.array_equal(want, np.minimum(a.astype(np.uint16) * 3 + 10, 255).astype(np.uint8))


@pytest.mark.parametrize("args,message", [
    (["-o", "out"], "Either -g <name> or -r must be specified; available Generators are:\n    brighten"),
    (["-g", "nope", "-o", "out"], "Generator not found: nope\nDid you mean:\n    brighten"),
    (["-g", "brighten", "-o", "out", "bogus=1"], "Generator brighten has no GeneratorParam(s) named: ['bogus']"),
    (["-g", "brighten", "-o", "out", "-e", "wat"], "Unrecognized emit option: wat is not one of ["),
    (["-g", "brighten", "-o", "out", "-x", "1"], "Unknown flag: -x"),
    (["-g", "brighten", "-o", "out", "scale=two"], "invalid literal for int"),
])
def test_main_errors_are_halides(tmp_path, args, message):
    with open(os.path.join(tmp_path, "brighten_generator.py"), "w") as f:
        f.write(GENERATOR)
    r = run_main(str(tmp_path), *args)
    assert r.returncode != 0 and message in r.stderr, r.stderr[-2000:]


def test_requirement_checked_by_callable():
    ns = {}
    exec(compile(GENERATOR.replace('name="brighten"', 'name="brighten_req"'), "gen", "exec"), ns)
    a = (np.arange(48 * 64 * 3) % 251).astype(np.uint8).reshape(3, 48, 64)
    out = np.empty_like(a)
    with hl.GeneratorContext(hl.Target("host")):
        call = ns["Brighten"]().compile_to_callable()
    call(a, 5, out)
    assert np.array_equal(out, np.minimum(a.astype(np.uint16) * 2 + 5, 255).astype(np.uint8))
    with pytest.raises(hl.HalideError, match="Requirement Failed: .*offset too large: 250"):
        call(a, 250, out)


@hl.generator(name="t_two_outputs")
class TwoOutputs:
    a = hl.InputBuffer(hl.UInt(8), 2)
    k = hl.InputScalar(hl.Int(32))
    o1 = hl.OutputBuffer(hl.Int(32), 2)
    o2 = hl.OutputBuffer([hl.Float(32), hl.UInt(8)], 2)

    def generate(self):
        g = self
        g.add_requirement(g.k > 0)
        g.o1[x, y] = hl.i32(g.a[x, y]) * g.k
        g.o2[x, y] = (hl.f32(g.a[x + 1, y]) / 2, g.a[x, y] + 1)
        g.o1.vectorize(x, 8)
        g.a.set_estimates([(0, 17), (0, 9)])
        g.o1.set_estimates([(0, 16), (0, 9)])
        g.o2.set_estimates([(0, 16), (0, 9)])


@pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="needs a C compiler")
def test_several_outputs_one_function(tmp_path):
    """A Generator with several Outputs (one a Tuple) compiles to one function taking every output buffer."""
    from halide_mlir.generator import _create, compile_generator
    d = str(tmp_path)
    gen = _create("t_two_outputs", hl.GeneratorContext(hl.Target("host")))
    compile_generator(gen, {k: f"{d}/two_outs{s}" for k, s in [("static_library", ".a"), ("c_header", ".h"),
                                                               ("python_extension", ".py.cpp"),
                                                               ("llvm_assembly", ".ll")]}, "two_outs", "host")
    header = open(f"{d}/two_outs.h").read()
    assert ("int two_outs(struct halide_buffer_t *_a_buffer, int32_t _k, struct halide_buffer_t *_o1_buffer, "
            "struct halide_buffer_t *_o2_0_buffer, struct halide_buffer_t *_o2_1_buffer);") in header
    hl.aot.build_python_extension(f"{d}/two_outs.py.cpp", f"{d}/two_outs.a", d)
    sys.path.insert(0, d)
    try:
        import two_outs
    finally:
        sys.path.remove(d)
    a = (np.arange(17 * 9) % 200).astype(np.uint8).reshape(9, 17)
    o1, o2a, o2b = np.zeros((9, 16), np.int32), np.zeros((9, 16), np.float32), np.zeros((9, 16), np.uint8)
    two_outs.two_outs(a, 3, o1, o2a, o2b)
    with hl.GeneratorContext(hl.Target("host")):
        f1, f2 = TwoOutputs.call(hl.Buffer(a), 3)
    r = f2.realize([16, 9])
    assert np.array_equal(o1, np.asarray(f1.realize([16, 9]))) and np.array_equal(o1, a[:, :16].astype(np.int32) * 3)
    assert np.array_equal(o2a, np.asarray(r[0])) and np.array_equal(o2b, np.asarray(r[1]))
    for args, code in [((a, 0, o1, o2a, o2b), -27), ((a[:, :16], 1, o1, o2a, o2b), -4)]:
        with pytest.raises(RuntimeError, match=f"Halide Runtime Error: {code}"):
            two_outs.two_outs(*args)


@pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="needs a C compiler")
def test_autoscheduler_params_schedule_the_aot_function(tmp_path):
    """``autoscheduler=NAME`` (Halide's names) replaces the Generator's schedule before compiling."""
    from halide_mlir.generator import _create, compile_generator
    ns = {}
    exec(compile(GENERATOR.replace('name="brighten"', 'name="brighten_as"'), "gen", "exec"), ns)
    d = str(tmp_path)
    gen = _create("brighten_as", hl.GeneratorContext(hl.Target("host")),
                  {"autoscheduler": "Adams2019", "autoscheduler.parallelism": "4"})
    assert gen.using_autoscheduler() and gen.autoscheduler().extra == {"parallelism": "4"}
    compile_generator(gen, {"static_library": f"{d}/b_as.a", "python_extension": f"{d}/b_as.py.cpp"}, "b_as",
                      "host")
    hl.aot.build_python_extension(f"{d}/b_as.py.cpp", f"{d}/b_as.a", d)
    sys.path.insert(0, d)
    try:
        import b_as
    finally:
        sys.path.remove(d)
    a = (np.arange(48 * 64 * 3) % 251).astype(np.uint8).reshape(3, 48, 64)
    out = np.empty_like(a)
    b_as.b_as(a, 7, out)
    assert np.array_equal(out, np.minimum(a.astype(np.uint16) * 2 + 7, 255).astype(np.uint8))
    with pytest.raises(hl.HalideError, match="Unknown autoscheduler name 'Bogus'"):
        bad = _create("brighten_as", hl.GeneratorContext(hl.Target("host")), {"autoscheduler": "Bogus"})
        compile_generator(bad, {"stmt": f"{d}/x.stmt"}, "x", "host")
