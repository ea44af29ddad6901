"""Crash isolation: a persistent child process (``python -m halide_mlir.tools.worker``) that runs a handler.

The fuzzer and the autotuner compile and run code that may segfault in MLIR/LLVM, abort, hang in a parallel loop
or leak; run in the caller's process, any of these ends the whole run. A ``Worker`` runs it in a child instead:
the child imports ``target`` ("module:function"), calls it with ``args`` to make a handler, then answers each
message with ``handler(message)``. A crash or a hang kills that child only (``WorkerDied``); the next message
starts a fresh one, as does every ``recycle``-th message (compiled engines accumulate in its memory).

A fresh process is started with ``subprocess`` (not multiprocessing's spawn, which would re-run the caller's
``__main__`` script in it). Messages are length-prefixed pickles on the child's stdin and on a private copy of
its stdout; fd 1 itself is pointed at stderr so that stray prints cannot corrupt the channel. stderr goes to a
log file whose last lines explain a crash (an LLVM assertion, a Python traceback).
"""

from __future__ import annotations

import importlib
import os
import pickle
import select
import struct
import subprocess
import sys
import tempfile
import time
import traceback

_HEAD = struct.Struct("<Q")
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class WorkerDied(Exception):
    """The child crashed (signal, abort, exit) or did not answer in time (``hung``; it was killed)."""

    def __init__(self, message: str, hung: bool = False):
        super().__init__(message)
        self.hung = hung


class HandlerError(Exception):
    """The handler raised: its exception's class name (``type_name``) and traceback text, sent across."""

    def __init__(self, type_name: str, text: str):
        super().__init__(type_name, text)
        self.type_name, self.text = type_name, text

    def __str__(self) -> str:
        return self.text


def _write(f, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    f.write(_HEAD.pack(len(data)) + data)
    f.flush()


class Worker:
    """``submit(msg)`` then ``result(timeout)`` (or ``call(msg, timeout)``); the two halves let a caller keep two
    workers busy at once. ``args`` is read at every (re)start, so a caller may change it for the next child."""

    def __init__(self, target: str, args: tuple = (), recycle: int = 300, env: dict | None = None):
        self.target, self.args, self.recycle, self.env = target, tuple(args), recycle, dict(env or {})
        self.proc = None
        self.jobs = 0
        self.log = None

    # --- lifecycle --------------------------------------------------------------------------------------------
    def start(self) -> None:
        env = dict(os.environ)
        # the child imports the same halide_mlir and whatever the caller could import (pickled objects' classes)
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([_PACKAGE_ROOT] + [p for p in sys.path if p]))
        env.update(self.env)
        if self.log is None:
            self.log = tempfile.NamedTemporaryFile(prefix="halide_mlir_worker_", suffix=".log", delete=False)
        self.log.seek(0)
        self.log.truncate()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "halide_mlir.tools.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=env,
        )
        self.jobs = 0
        try:
            _write(self.proc.stdin, (self.target, self.args))
        except BrokenPipeError:  # it died starting up; result() reports how
            pass

    def stop(self, kill: bool = False) -> None:
        """End the child: closing its stdin asks it to exit; one that does not within 5 s is killed."""
        if self.proc is None:
            return
        if not kill:
            try:
                self.proc.stdin.close()
                self.proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self.proc = None

    def close(self) -> None:
        """Stop the child and delete its log."""
        self.stop()
        if self.log is not None:
            self.log.close()
            try:
                os.unlink(self.log.name)
            except OSError:
                pass
            self.log = None

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid

    # --- messages ---------------------------------------------------------------------------------------------
    def submit(self, msg) -> None:
        if self.proc is None or self.proc.poll() is not None or self.jobs >= self.recycle:
            self.stop()
            self.start()
        self.jobs += 1
        try:
            _write(self.proc.stdin, msg)
        except BrokenPipeError:  # it died starting up; result() reports how
            pass

    def result(self, timeout: float):
        """The handler's answer. Raises ``WorkerDied`` (the child is gone; the next submit starts another) or
        ``HandlerError`` (the handler raised; the child lives on)."""
        deadline = time.monotonic() + timeout
        try:
            (n,) = _HEAD.unpack(self._read(_HEAD.size, deadline))
            reply = pickle.loads(self._read(n, deadline))
        except TimeoutError:
            self.stop(kill=True)
            raise WorkerDied(f"no answer within {timeout:.0f} s (killed)", hung=True) from None
        except EOFError:
            raise WorkerDied(self._death()) from None
        if isinstance(reply, HandlerError):
            raise reply
        return reply

    def call(self, msg, timeout: float):
        self.submit(msg)
        return self.result(timeout)

    def _read(self, n: int, deadline: float) -> bytes:
        fd = self.proc.stdout.fileno()
        buf = b""
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(fd, n - len(buf))
            if not chunk:
                raise EOFError
            buf += chunk
        return buf

    def _death(self) -> str:
        """How the child died: its exit code (signal) and the last lines it wrote to stderr."""
        code = self.proc.wait()
        self.stop()
        why = f"worker died with exit code {code}" + (f" (signal {-code})" if code < 0 else "")
        try:
            with open(self.log.name, "rb") as f:
                f.seek(max(0, os.path.getsize(self.log.name) - 600))
                tail = f.read().decode(errors="replace").strip().splitlines()[-3:]
        except OSError:
            tail = []
        return why + (": " + " | ".join(tail) if tail else "")


# --- the child ------------------------------------------------------------------------------------------------

_EOF = object()


def _read_msg(f):
    head = f.read(_HEAD.size)
    if len(head) < _HEAD.size:
        return _EOF
    (n,) = _HEAD.unpack(head)
    return pickle.loads(f.read(n))


def main() -> None:
    # pickled by this module's importable name, not as __main__.HandlerError, which the caller cannot load
    from halide_mlir.tools.worker import HandlerError

    chan_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    chan_in = os.fdopen(os.dup(0), "rb")
    first = _read_msg(chan_in)
    if first is _EOF:
        return
    target, args = first
    module, _, name = target.partition(":")
    handler = getattr(importlib.import_module(module), name)(*args)  # a failure exits: its traceback is the log
    while True:
        msg = _read_msg(chan_in)
        if msg is _EOF:
            return
        try:
            reply = handler(msg)
        except Exception as e:  # noqa: BLE001 -- reported to the caller, which decides
            reply = HandlerError(
                type(e).__name__, "".join(traceback.format_exception(type(e), e, e.__traceback__))[-2000:]
            )
        _write(chan_out, reply)


if __name__ == "__main__":
    main()
