"""``OutputFileType.stmt_html`` / ``compile_to_lowered_stmt(..., StmtOutputFormat.HTML)``: one HTML page with
every stage of the compile (Halide's stmt_html shows its lowered Stmt; ours are MLIR modules).

Sections, in compile order: the function's arguments and the region it was compiled for, the payload
(linalg.generic on tensors), the schedule (the transform script), the lowered loops (the bufferized module:
the "stmt" output), and the kernel's LLVM IR after ``opt -O3``. Text is HTML-escaped inside ``<pre>``; a
contents list links to each section; no script, no external resource."""

from __future__ import annotations

import html

_CSS = """body { font-family: sans-serif; margin: 1em 2em; }
nav ul { columns: 2; }
pre { background: #f6f8fa; border: 1px solid #ddd; padding: 0.5em; overflow-x: auto; font-size: 12px; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; }
details > summary { cursor: pointer; font-weight: bold; }"""


def _arguments(spec) -> str:
    from .arguments import BufferArg

    rows = []
    for a in spec.arguments:
        if isinstance(a, BufferArg):
            kind = "output buffer" if a.output else "input buffer"
            region = ", ".join(f"[{m}, {m + e - 1}]" for m, e in zip(a.mins, a.extents))
        else:
            kind, region = "scalar", "" if a.fixed is None else f"== {a.fixed} (compiled in)"
        rows.append(
            f"<tr><td>{html.escape(a.name)}</td><td>{kind}</td><td>{html.escape(str(a.type))}</td>"
            f"<td>{html.escape(region)}</td></tr>"
        )
    return (
        "<table><thead><tr><th>argument</th><th>kind</th><th>type</th><th>region</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _sections(kernel) -> list:
    """(id, title, text) per stage of one build.Kernel."""
    fn = kernel.spec.fn_name
    c = kernel.compilation
    return [
        (f"{fn}-payload", f"{fn}: payload (linalg on tensors)", c.payload),
        (f"{fn}-transform", f"{fn}: schedule (transform script)", c.transform),
        (f"{fn}-lowered", f"{fn}: lowered loops (bufferized MLIR, the stmt)", kernel.stmt()),
        (f"{fn}-llvm", f"{fn}: LLVM IR (opt -O3)", kernel.llvm_ir),
    ]


def page(kernel, fn_name: str) -> str:
    """The page of a build.Kernel or a multi.MultiKernel (one group of sections per output part)."""
    parts = getattr(kernel, "parts", None) or [kernel]
    sections = [s for k in parts for s in _sections(k)]
    nav = "".join(f'<li><a href="#{sid}">{html.escape(title)}</a></li>' for sid, title, _ in sections)
    body = "\n".join(
        f'<section id="{sid}"><h2>{html.escape(title)}</h2>\n<pre><code>{html.escape(text)}</code></pre></section>'
        for sid, title, text in sections
    )
    target = html.escape(" ".join(kernel.target.llc))
    func = html.escape(kernel.spec.func.name())
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{html.escape(fn_name)}: halide_mlir stmt</title>
<style>
{_CSS}
</style>
</head>
<body>
<h1>{html.escape(fn_name)}</h1>
<p>Func <code>{func}</code> compiled by halide_mlir for <code>{target}</code>.</p>
<section id="arguments"><h2>Arguments</h2>
{_arguments(kernel.spec)}
</section>
<nav><h2>Stages</h2><ul>{nav}</ul></nav>
{body}
</body>
</html>
"""
