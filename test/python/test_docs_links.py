"""The design notes live in docs/: every ``docs/FILE.md#anchor`` cited in the repository, and every link between
the docs, names a file and a ``## anchor`` heading that exist; nothing cites notes outside the repository."""
import os
import re
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
DOCS = os.path.join(ROOT, "docs")
# files the docs index may list before they are written
PLANNED = {"architecture.md", "adding-a-primitive.md"}


def tracked_files() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [f for f in out.splitlines() if os.path.isfile(os.path.join(ROOT, f))]


def read(path: str) -> str:
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
        return f.read()


def headings(doc: str) -> set[str]:
    return set(re.findall(r"^## ([a-z0-9-]+)$", read(os.path.join("docs", doc)), re.MULTILINE))


def test_cited_anchors_exist():
    cited = set()
    for f in tracked_files():
        text = read(f)
        cited |= set(re.findall(r"docs/([a-z0-9_-]+\.md)#([a-z0-9-]+)", text))
        if f.startswith("docs/") and f.endswith(".md"):
            cited |= set(re.findall(r"\]\(([a-z0-9_-]+\.md)#([a-z0-9-]+)\)", text))
            cited |= {(os.path.basename(f), a) for a in re.findall(r"\]\(#([a-z0-9-]+)\)", text)}
    assert cited, "no citations found"
    missing = [f"docs/{doc}#{anchor}" for doc, anchor in sorted(cited)
               if not os.path.isfile(os.path.join(DOCS, doc)) or anchor not in headings(doc)]
    assert not missing, missing


def test_docs_index_lists_every_doc():
    index = read("docs/README.md")
    listed = set(re.findall(r"\]\(([a-z0-9_-]+\.md)\)", index))
    present = {f for f in os.listdir(DOCS) if f.endswith(".md") and f != "README.md"}
    assert present <= listed, present - listed
    assert listed <= present | PLANNED, listed - present - PLANNED


# the old notes' file name, spelled in pieces so that this file does not match it itself
OUTSIDE = re.compile("DES" + "IGN" + r"\.md|\.\./" + "shared")


def test_no_citation_outside_the_repository():
    bad = [f for f in tracked_files() if OUTSIDE.search(read(f))]
    assert not bad, bad
