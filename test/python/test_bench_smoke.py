"""Keeps the benchmark harness (bench/) alive: smoke mode (tiny sizes, 2 rounds) on two small benchmarks, run in a
subprocess (it sets HL_NUM_THREADS before importing Halide and halide_mlir). Checks that it runs, that both
implementations' outputs agree, and that RESULTS.md is written. Timings are never asserted. No matplotlib needed."""
import json
import subprocess
import sys

import pytest

from helpers import REPO_ROOT as ROOT
from helpers import python_env

pytest.importorskip("halide")


def test_bench_smoke(tmp_path):
    env = python_env()
    proc = subprocess.run([sys.executable, "-m", "bench", "--smoke", "--threads", "1", "--no-chart",
                           "--only", "blur_f32,rgb_to_gray", "--out", str(tmp_path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads((tmp_path / "results-threads1.json").read_text())
    results = {r["name"]: r for r in data["results"]}
    assert set(results) == {"blur_f32", "rgb_to_gray"}
    for r in results.values():
        assert r["status"] == "ok", r
        assert r["agree"], r
    text = (tmp_path / "RESULTS.md").read_text()
    assert "| blur_f32 |" in text and "geomean" in text


@pytest.mark.parametrize("study", ["vectorization", "autoschedule"])
def test_study_smoke(study):
    """bench.vectorization (scalar vs auto-vectorized) and bench.autoschedule (autoscheduler vs hand schedules):
    smoke mode prints the table and writes nothing; outputs are checked inside (exit code 1 on a mismatch)."""
    env = python_env()
    proc = subprocess.run([sys.executable, "-m", f"bench.{study}", "--smoke", "--threads", "1",
                           "--only", "blur_u8,matmul"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "| blur_u8 |" in proc.stdout and "| matmul |" in proc.stdout and "geomean" in proc.stdout, proc.stdout
    assert " ok " in proc.stdout and "mismatch" not in proc.stdout, proc.stdout


def test_bench_apps_smoke(tmp_path):
    """Halide's apps (bench/apps.py, ``--suite apps``) at tiny sizes: the ones halide_mlir runs agree with Halide,
    and their results go to their own section and JSON file. camera_pipe and stencil_chain are left out (their
    compile takes minutes here)."""
    env = python_env()
    names = ["bilateral_grid", "interpolate", "iir_blur", "max_filter", "nl_means"]
    proc = subprocess.run([sys.executable, "-m", "bench", "--smoke", "--threads", "1", "--no-chart",
                           "--only", ",".join(names), "--out", str(tmp_path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads((tmp_path / "results-apps-threads1.json").read_text())
    results = {r["name"]: r for r in data["results"]}
    assert set(results) == set(names)
    for r in results.values():
        assert r["status"] == "ok", r
        assert r["agree"], r
    text = (tmp_path / "RESULTS.md").read_text()
    assert "<!-- begin apps-threads=1 -->" in text and "| iir_blur |" in text and "peak RSS delta" in text
