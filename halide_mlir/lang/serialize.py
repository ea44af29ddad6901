"""``hl.serialize_pipeline`` / ``deserialize_pipeline`` / ``deserialize_parameters``.

The format is halide_mlir's own (Halide's is a flatbuffer of its IR; ours is the program as recorded here: the
Funcs with their definitions and schedules, the RDoms, Vars, Params, pickled). The external parameters (every
Param and ImageParam the pipeline reads) are stored apart by name, as Halide's: ``deserialize_pipeline(data,
{name: hl.Parameter})`` binds the user's parameters in their place, and ``deserialize_parameters`` returns the
stored ones. An ImageParam's bound buffer is not stored (Halide stores none either). Only load data you trust:
unpickling runs code.
"""

from __future__ import annotations

import io
import os
import pickle

from ..error import HalideError, HalideTypeError
from .source import user_site

MAGIC = b"HLMLIR-PIPE1\n"


from .parameter import Parameter  # noqa: E402  (Halide's hl.Parameter: lang/parameter.py)


def _is_param(obj) -> bool:
    from .param import ImageParam, Param

    return isinstance(obj, (Param, ImageParam))


class _Pickler(pickle.Pickler):
    def __init__(self, f):
        super().__init__(f, protocol=pickle.HIGHEST_PROTOCOL)
        self.params: dict = {}

    def persistent_id(self, obj):
        if _is_param(obj):
            other = self.params.setdefault(obj.name(), obj)
            if other is not obj:
                raise HalideError(
                    f"{user_site()}: serialize_pipeline: two different parameters are named "
                    f"'{obj.name()}'; external parameters are bound by name"
                )
            return ("param", obj.name())
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, f, params: dict):
        super().__init__(f)
        self.params = params

    def persistent_load(self, pid):
        return self.params[pid[1]]


def _stored_param(p):
    """A copy of a parameter for the file: its type, name, value/estimates; no bound buffer."""
    import copy

    q = copy.copy(p)
    if hasattr(q, "_buffer"):
        q._buffer = None
    return q


def _dump(pipeline) -> tuple[bytes, dict]:
    from .pipeline import Pipeline

    if not isinstance(pipeline, Pipeline):
        raise HalideTypeError(f"{user_site()}: serialize_pipeline takes an hl.Pipeline, got {pipeline!r}")
    body = io.BytesIO()
    pk = _Pickler(body)
    pk.dump(pipeline)
    params = {n: _stored_param(p) for n, p in pk.params.items()}
    head = pickle.dumps(params, protocol=pickle.HIGHEST_PROTOCOL)
    return MAGIC + len(head).to_bytes(8, "little") + head + body.getvalue(), pk.params


def _read(data) -> bytes:
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
    elif isinstance(data, (str, os.PathLike)):
        try:
            with open(data, "rb") as f:
                raw = f.read()
        except OSError as e:
            raise HalideError(f"{user_site()}: can't read serialized pipeline: {e}") from None
    else:
        raise HalideTypeError(f"{user_site()}: expected bytes or a file name, got {data!r}")
    if not raw.startswith(MAGIC):
        raise HalideError(f"{user_site()}: not a pipeline serialized by halide_mlir")
    return raw


def _split(raw: bytes) -> tuple[dict, bytes]:
    n = int.from_bytes(raw[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    return pickle.loads(raw[start : start + n]), raw[start + n :]


def serialize_pipeline(pipeline, filename=None, get_params: bool = False):
    """To ``filename`` (returns the external parameters if ``get_params``), or to bytes (returned, with the
    parameters as ``(data, params)`` if ``get_params``)."""
    data, params = _dump(pipeline)
    out = {n: Parameter(p) for n, p in params.items()}
    if filename is not None:
        try:
            with open(filename, "wb") as f:
                f.write(data)
        except OSError as e:
            raise HalideError(f"{user_site()}: can't write serialized pipeline: {e}") from None
        return out if get_params else None
    return (data, out) if get_params else data


def deserialize_parameters(data) -> dict:
    stored, _ = _split(_read(data))
    return {n: Parameter(p) for n, p in stored.items()}


def deserialize_pipeline(data, user_params: dict | None = None):
    stored, body = _split(_read(data))
    params = dict(stored)
    for name, p in (user_params or {}).items():
        if not isinstance(p, Parameter) or not p.defined():
            raise HalideTypeError(
                f"{user_site()}: deserialize_pipeline: the parameter for '{name}' must be an "
                f"hl.Parameter (p.parameter()), got {p!r}"
            )
        if name in stored and type(stored[name]) is not type(p._param):
            raise HalideError(
                f"{user_site()}: deserialize_pipeline: '{name}' is a "
                f"{type(stored[name]).__name__} in the pipeline, not a {type(p._param).__name__}"
            )
        params[name] = p._param
    return _Unpickler(io.BytesIO(body), params).load()
