"""Every example in examples/ runs and passes its own checks against an independent reference (numpy: each
example computes its algorithm again in numpy and exits non-zero or raises on a mismatch), at small sizes, with
the real Halide 21 installed (it is compared too) and without it (a base install, without the test extra)."""
import subprocess
import sys

import pytest

from helpers import REPO_ROOT, python_env

EXAMPLES = {
    "blur.py": ["--small"],
    "blur_strategies.py": ["--size", "400x200", "--rounds", "2"],
    "conv_layer.py": ["--repeats", "1", "--rounds", "1", "--no-peak"],
    "dask_blur.py": ["600", "500", "256"],
    "histogram_equalize.py": ["--small"],
    "lesson_08.py": [],
    "local_laplacian.py": ["--small"],
}
# what each prints once its result matched the numpy reference
CHECKED = {
    "blur.py": "max |halide_mlir - numpy|",
    "blur_strategies.py": "outputs agree",
    "conv_layer.py": "0 of 5120000 values outside rtol 1e-4",
    "dask_blur.py": "max |dask - numpy|",
    "histogram_equalize.py": "halide_mlir vs numpy: 0 of",
    "lesson_08.py": "Success!",
    "local_laplacian.py": "|halide_mlir - numpy|",
}


def test_every_example_is_here():
    import os
    found = {f for f in os.listdir(os.path.join(REPO_ROOT, "examples")) if f.endswith(".py") and f[0] != "_"}
    assert found == set(EXAMPLES)


@pytest.mark.parametrize("with_halide", [True, False], ids=["halide", "no_halide"])
@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_example_runs_and_checks(example, with_halide, tmp_path):
    env = python_env()
    if not with_halide:   # `import halide` fails, as in an install without the test extra
        (tmp_path / "hide").mkdir()
        (tmp_path / "hide" / "halide.py").write_text("raise ImportError('halide hidden by the test')\n")
        env["PYTHONPATH"] = str(tmp_path / "hide") + ":" + env["PYTHONPATH"]
    r = subprocess.run([sys.executable, f"{REPO_ROOT}/examples/{example}", *EXAMPLES[example]], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert CHECKED[example] in r.stdout, r.stdout[-3000:]

    assert "MISMATCH" not in r.stdout
