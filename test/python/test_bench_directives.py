"""bench/directives.py (rfactor'd histogram and sum, specialized blur) runs and its outputs match Halide 21's."""
import pytest

pytest.importorskip("halide")


def test_bench_directives_outputs_match(capsys):
    from bench import directives

    assert directives.main(["--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("|") >= 5 * 5 and "MISMATCH" not in out
