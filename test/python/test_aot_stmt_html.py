"""``OutputFileType.stmt_html`` / ``compile_to_lowered_stmt(..., StmtOutputFormat.HTML)`` (aot/stmt_html.py): a
well-formed page whose sections hold each compile stage's text, escaped; parsed back with html.parser."""
import html.parser

import halide_mlir as hl
W, H = 64, 48


def brighten():
    """test_aot.py's brighten, under another Func name (names are unique per process: a second "brighten" would
    be "brighten$1" in test_aot.py's messages)."""
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    offset = hl.Param(hl.UInt(8), "offset")
    f = hl.Func("shown")
    f[x, y] = inp[x, y] + offset
    f.vectorize(x, 16)
    f.set_estimates([(0, W), (0, H)])
    inp.set_estimates([(0, W), (0, H)])
    return f, [inp, offset]

VOID = {"meta", "br", "hr", "img", "link", "input"}


class Page(html.parser.HTMLParser):
    """Checks the tags nest and collects each section's <pre> text (unescaped) by the section's id."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.sections, self.links, self.title, self.cells = [], {}, [], "", []
        self.section = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "section":
            self.section = attrs["id"]
            self.sections[self.section] = ""
        if tag == "a":
            self.links.append(attrs["href"])

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack)
        self.stack.pop()
        if tag == "section":
            self.section = None

    def handle_data(self, data):
        if "pre" in self.stack and self.section:
            self.sections[self.section] += data
        elif self.stack[-1:] == ["title"]:
            self.title += data
        elif self.stack[-1:] == ["td"]:
            self.cells.append(data)


def parse(text):
    p = Page()
    p.feed(text)
    p.close()
    assert p.stack == [], p.stack
    return p


def test_stmt_html_page(tmp_path):
    f, args = brighten()
    path = tmp_path / "f.stmt.html"
    f.compile_to({hl.OutputFileType.stmt_html: path, hl.OutputFileType.stmt: tmp_path / "f.stmt",
                  hl.OutputFileType.llvm_assembly: tmp_path / "f.ll"}, args, "bright")
    text = path.read_text()
    assert text.startswith("<!DOCTYPE html>")
    page = parse(text)
    assert page.title == "bright: halide_mlir stmt"
    ids = ["bright-payload", "bright-transform", "bright-lowered", "bright-llvm"]
    assert [s for s in page.sections if s != "arguments"] == ids
    assert page.links == ["#" + i for i in ids]
    assert page.sections["bright-lowered"] == (tmp_path / "f.stmt").read_text()  # the stmt, unescaped intact
    assert page.sections["bright-llvm"] == (tmp_path / "f.ll").read_text()
    assert "linalg.generic" in page.sections["bright-payload"]
    assert "transform.named_sequence" in page.sections["bright-transform"]
    assert "memref<48x64xi8>" not in text and "memref&lt;48x64xi8&gt;" in text  # escaped in the page
    assert page.cells[:4] == ["input", "input buffer", "uint8", f"[0, {W - 1}], [0, {H - 1}]"]


def test_compile_to_lowered_stmt_html(tmp_path):
    f, args = brighten()
    for fmt in (hl.StmtOutputFormat.HTML, hl.StmtOutputFormat.html):
        path = tmp_path / f"{fmt.name}.html"
        f.compile_to_lowered_stmt(str(path), args, fmt)
        assert "shown-lowered" in parse(path.read_text()).sections
    f.compile_to_lowered_stmt(str(tmp_path / "s.txt"), args, hl.StmtOutputFormat.Text)
    assert not (tmp_path / "s.txt").read_text().startswith("<")
