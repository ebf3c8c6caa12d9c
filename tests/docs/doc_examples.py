"""Finds the examples in README.md and docs/*.md that show an output (used by run_doc_examples.py).

A code block is an indented (4 spaces) or fenced block. In it:
- Python: `>>>` examples with doctest semantics (the lines after a `>>>` / `...` statement, up to a blank
  line or the next `>>>`, are its output);
- shell: a line `$ mixgraph ARGS` followed by the lines it prints, up to a blank line or the next `$`
  line. A line that starts with `#` there is a comment, not output; a `$` line without output lines shows
  no output and is not run.
Markers on the line just before a block (HTML comments, invisible in the rendered page):
- `<!-- doctest: skip (REASON) -->` skips the block, reported with the reason;
- `<!-- doctest: requires MOD[, MOD...] -->` skips the block when a Python module is not importable;
  `requires glpk` when mixgraph was built without GLPK (`mixgraph info`), `requires cuda` without a CUDA
  device visible to torch.
"""

import dataclasses
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^\s*<!--\s*doctest:\s*(skip|requires)\s*(.*?)\s*-->\s*$")


def doc_files():
    """README.md and docs/*.md (not docs/history/: dated records of past measurements)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@dataclasses.dataclass
class Block:
    path: pathlib.Path
    line: int  # 1-based line of the block's first line
    lines: list  # dedented lines
    skip: str = ""  # reason, when a skip marker precedes the block
    requires: tuple = ()

    @property
    def where(self):
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path):
    """Every code block of a markdown file, dedented, with the marker that precedes it."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out = []
    i = 0
    prev_nonblank = ""
    while i < len(lines):
        line = lines[i]
        fence = re.match(r"^(\s*)(```+|~~~+)", line)
        if fence:
            start, indent, mark = i, len(fence.group(1)), fence.group(2)
            i += 1
            body = []
            while i < len(lines) and not lines[i].strip().startswith(mark):
                body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i].lstrip())
                i += 1
            out.append(_block(path, start + 2, body, prev_nonblank))
            prev_nonblank = ""
            i += 1
            continue
        if line.startswith("    ") and line.strip() and (i == 0 or lines[i - 1].strip() == ""):
            start = i
            body = []
            while i < len(lines) and (lines[i].startswith("    ") or lines[i].strip() == ""):
                body.append(lines[i][4:])
                i += 1
            while body and body[-1].strip() == "":
                body.pop()
            out.append(_block(path, start + 1, body, prev_nonblank))
            prev_nonblank = ""
            continue
        if line.strip():
            prev_nonblank = line
        i += 1
    return out


def _block(path, line, body, before):
    b = Block(path, line, body)
    m = MARKER.match(before)
    if m and m.group(1) == "skip":
        b.skip = m.group(2).strip("() ") or "marked skip"
    elif m:
        b.requires = tuple(x.strip() for x in m.group(2).split(",") if x.strip())
    return b


def python_blocks():
    return [b for p in doc_files() for b in blocks(p) if any(l.lstrip().startswith(">>>") for l in b.lines)]


@dataclasses.dataclass
class ShellExample:
    block: Block
    line: int
    command: str  # after "$ "
    want: list  # output lines shown

    @property
    def where(self):
        return f"{self.block.path.relative_to(ROOT)}:{self.line}"


def shell_examples():
    """Every `$ mixgraph ...` line that shows output lines."""
    out = []
    for p in doc_files():
        for b in blocks(p):
            i = 0
            while i < len(b.lines):
                line = b.lines[i]
                if line.startswith("$ "):
                    j = i + 1
                    want = []
                    while j < len(b.lines) and b.lines[j].strip() and not b.lines[j].startswith("$ "):
                        if not b.lines[j].lstrip().startswith("#"):
                            want.append(b.lines[j])
                        j += 1
                    if want:
                        out.append(ShellExample(b, b.line + i, line[2:].strip(), want))
                    i = j
                else:
                    i += 1
    return out


def _line_regex(want):
    parts = re.split(r"(\.\.\.|\s+)", want.strip())
    rx = "".join(".*" if p == "..." else r"\s+" if p and p.isspace() else re.escape(p) for p in parts)
    return re.compile(rx + r"\Z")


def lines_match(want, got):
    """want: the lines shown; got: the lines printed (trailing spaces ignored). `...` alone on a line matches
    any number of lines (none included), `...` inside a line any text, a run of spaces any run of spaces."""
    got = [g.rstrip() for g in got]
    while got and not got[-1]:
        got.pop()
    memo = {}

    def match(i, j):
        if (i, j) in memo:
            return memo[i, j]
        if i == len(want):
            r = j == len(got)
        elif want[i].strip() == "...":
            r = any(match(i + 1, k) for k in range(j, len(got) + 1))
        else:
            r = j < len(got) and _line_regex(want[i]).match(got[j].strip()) is not None and match(i + 1, j + 1)
        memo[i, j] = r
        return r

    return match(0, 0)
