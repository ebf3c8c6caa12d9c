"""No page of README.md or docs/*.md names a repository file that is not in the repository, links to a page
that does not exist, or points to files kept outside the repository.

A repository path is a word starting with one of the top-level folders (lib/, tools/, tests/, docs/, ...);
`<name>` and `*` in it stand for any name (`tests/test_<area>.cpp`), and `{a,b}` for each alternative.
"""

import pathlib
import re
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import doc_examples as de  # noqa: E402

ROOT = de.ROOT
TOP = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name != "build")
TOP += [".ci"]
# a repository path: a top-level folder, then path characters; not inside a URL or another path
PATH_RX = re.compile(r"(?<![\w./:~$-])((?:" + "|".join(map(re.escape, TOP)) + r")/[\w./<>*{},+-]*)")
LINK_RX = re.compile(r"\]\(([^)\s]+)\)")
OUTSIDE_RX = re.compile(r"outside (?:this|the) repository|not in this repository", re.I)


def _candidates(token):
    """The concrete paths a token may name: `{a,b}` expanded, trailing punctuation dropped."""
    token = token.rstrip(".,:;")
    m = re.search(r"\{([^{}]*)\}", token)
    if m:
        out = []
        for alt in m.group(1).split(","):
            out += _candidates(token[: m.start()] + alt + token[m.end():])
        return out
    return [token]


def _exists(token):
    glob = re.sub(r"<[^<>]*>", "*", token)
    if "*" in glob:
        return any(ROOT.glob(glob.rstrip("/")))
    return (ROOT / glob).exists()


def missing_paths(path):
    """(line number, token) for every repository path named in a page that is not in the repository."""
    bad = []
    text = path.read_text(encoding="utf-8").split("\n")
    for no, line in enumerate(text, 1):
        for m in PATH_RX.finditer(line):
            for token in _candidates(m.group(1)):
                if token.rstrip("/") in TOP:
                    continue
                if not _exists(token):
                    bad.append((no, token))
        for m in LINK_RX.finditer(line):
            target = m.group(1).split("#")[0]
            if not target or re.match(r"^[a-z]+:", target):
                continue
            if not (path.parent / target).exists():
                bad.append((no, target))
    return bad


@pytest.mark.parametrize("page", de.doc_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_named_files_exist(page):
    bad = missing_paths(page)
    assert not bad, "\n".join(f"{page.relative_to(ROOT)}:{no}: {tok} is not in the repository" for no, tok in bad)


@pytest.mark.parametrize("page", de.doc_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_kept_outside(page):
    bad = [f"{page.relative_to(ROOT)}:{no}: {line.strip()}"
           for no, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1) if OUTSIDE_RX.search(line)]
    assert not bad, "a page points to files outside the repository:\n" + "\n".join(bad)


def test_check_can_fail(tmp_path):
    """A planted page naming a missing file and a missing page is caught; existing ones are not."""
    page = tmp_path / "planted.md"
    page.write_text("see tests/no_such_file.cpp and [x](no_such_page.md); lib/ and tests/test_<area>.cpp exist\n")
    bad = missing_paths(page)
    assert [t for _, t in bad] == ["tests/no_such_file.cpp", "no_such_page.md"]
