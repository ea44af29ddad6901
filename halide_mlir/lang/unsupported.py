"""Halide scheduling directives halide_mlir does not implement yet. Each is defined on Func and Stage so that a
program using it stops with a HalideError naming the directive, the Func and the user's line -- never runs with
the directive silently dropped, and never an AttributeError that reads like a typo."""

from __future__ import annotations

from ..error import HalideError
from .source import user_site

NOT_SUPPORTED = ("add_trace_tag", "hexagon")


def _refuse(name: str):
    def directive(self, *args, **kwargs):
        raise HalideError(
            f"{user_site()}: Func '{self.name()}': the '{name}' schedule directive is not supported "
            f"by halide_mlir yet (docs/directives.md#not-supported-yet)"
        )

    directive.__name__ = name
    directive.__doc__ = f"Halide's ``{name}``: not supported yet; raises HalideError."
    return directive


def install(cls: type) -> None:
    """Define each directive ``cls`` lacks as one that refuses."""
    for name in NOT_SUPPORTED:
        if not hasattr(cls, name):
            setattr(cls, name, _refuse(name))
