"""halide_mlir/tools/worker.py, the crash-isolating process of the fuzzer and the autotuner: a segfault, a hang or
an exception in the handler is reported to the caller, which goes on with a fresh process."""
import ctypes
import os
import time

import pytest

from halide_mlir.tools.worker import HandlerError, Worker, WorkerDied


def handler(tag):
    """The handler the child runs (this module is importable there: the child gets the caller's sys.path)."""
    def handle(msg):
        if msg == "segfault":
            ctypes.string_at(0)
        if msg == "hang":
            time.sleep(60)
        if msg == "raise":
            raise KeyError("boom")
        print("a stray print must not corrupt the channel")
        return tag, msg, os.getpid()
    return handle


@pytest.fixture
def worker():
    w = Worker(f"{__name__}:handler", ("t",), recycle=3)
    yield w
    w.close()


def test_answers_and_recycles(worker):
    pids = [worker.call(m, 60)[2] for m in "abcd"]
    assert worker.call("e", 60)[:2] == ("t", "e")
    assert pids[0] == pids[1] == pids[2] != pids[3], pids   # a fresh process after `recycle` messages


def test_segfault_hang_and_exception_are_reported(worker):
    with pytest.raises(WorkerDied, match=r"signal 11") as e:
        worker.call("segfault", 60)
    assert not e.value.hung
    with pytest.raises(WorkerDied, match="no answer within 2 s") as e:
        worker.call("hang", 2)
    assert e.value.hung
    with pytest.raises(HandlerError) as e:
        worker.call("raise", 60)
    assert e.value.type_name == "KeyError" and "boom" in e.value.text
    assert worker.call("ok", 60)[:2] == ("t", "ok")


def test_the_next_child_gets_the_new_args(worker):
    first = worker.call("a", 60)
    worker.args = ("u",)
    worker.stop()
    second = worker.call("a", 60)
    assert first[0] == "t" and second[0] == "u" and first[2] != second[2]


def test_a_handler_that_cannot_start_is_reported_with_its_error():
    w = Worker("no_such_module_for_the_worker:handler")
    try:
        with pytest.raises(WorkerDied, match="ModuleNotFoundError"):
            w.call("a", 60)
    finally:
        w.close()
