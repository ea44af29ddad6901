"""Where in the user's program something happened: for error messages and MLIR locations."""

from __future__ import annotations

import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Site:
    __slots__ = ("file", "line")

    def __init__(self, file: str, line: int):
        self.file, self.line = file, line

    def __str__(self) -> str:
        return f"{os.path.basename(self.file)}:{self.line}"

    def mlir_loc(self) -> str:
        escaped = self.file.replace("\\", "\\\\").replace('"', '\\"')
        return f'loc("{escaped}":{self.line}:0)'


def capture_site() -> Site | None:
    """The innermost stack frame that is not inside this package: the user's line."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_PACKAGE_DIR + os.sep):
            return Site(filename, frame.f_lineno)
        frame = frame.f_back
    return None


def user_site() -> str:
    site = capture_site()
    return str(site) if site else "<unknown>"
