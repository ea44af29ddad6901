"""The one exception type users see, as in Halide's Python bindings."""


class HalideError(RuntimeError):
    pass


class UnrollWarning(RuntimeWarning):
    """A loop the schedule unrolls was not (fully) unrolled in the compiled code: same values, slower."""
