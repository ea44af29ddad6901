"""The one exception type users see, as in Halide's Python bindings."""


class HalideError(RuntimeError):
    pass
