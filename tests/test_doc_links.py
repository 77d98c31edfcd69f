"""Every relative link of the README and ``docs/`` leads somewhere: the file (or folder) exists, and an anchor
(``page.md#a-heading``, ``#a-heading``) is a heading of that page, as GitHub names headings."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+).+?\1")
LINK = re.compile(r"!?\[[^\]]*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(?P<text>.+?)\s*#*\s*$")
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of ``text`` outside fenced code blocks."""
    lines, fence = [], ""
    for number, line in enumerate(text.splitlines(), 1):
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
        else:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    text = text.replace("`", "").lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of ``page``'s headings (a repeated heading gets -1, -2, ... as on GitHub)."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose_lines(page.read_text(encoding="utf-8")):
        if match := HEADING.match(line):
            base = slug(match.group("text"))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """``path:line: target (why)`` for each relative link of ``page`` that leads nowhere."""
    problems = []
    for number, line in prose_lines(page.read_text(encoding="utf-8")):
        for match in LINK.finditer(CODE_SPAN.sub("", line)):
            target = match.group("target")
            if EXTERNAL.match(target):
                continue
            path_part, _, anchor = target.partition("#")
            dest = (page.parent / unquote(path_part)).resolve() if path_part else page
            where = f"{page.relative_to(root).as_posix()}:{number}: {target}"
            if not dest.exists():
                problems.append(f"{where} (no such file)")
            elif anchor and (dest.is_dir() or dest.suffix != ".md"):
                problems.append(f"{where} (an anchor on something that is not a Markdown page)")
            elif anchor and unquote(anchor) not in anchors(dest):
                problems.append(f"{where} (no heading with that anchor in {dest.name})")
    return problems


def pages(root: Path = ROOT) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def test_every_relative_link_resolves() -> None:
    problems = [p for page in pages() for p in broken_links(page)]
    assert not problems, "\n".join(problems)


def test_the_pages_link_at_all() -> None:
    """A broken link pattern would find no links and pass everything: the index alone links every part."""
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    assert len(LINK.findall(index)) >= 15


def test_a_broken_file_or_anchor_is_caught(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(
        "# Page A\n\n## Multi-hop questions: the hop chain (`hops=True`)\n\n## Measured\n\n## Measured\n", "utf-8")
    (tmp_path / "README.md").write_text(
        "[ok](docs/a.md#multi-hop-questions-the-hop-chain-hopstrue) [ok](docs/a.md#measured-1) [ok](docs/)\n"
        "[gone](docs/b.md) [moved](docs/a.md#the-hop-chain) [self](#page-b) `[code](nowhere.md)`\n"
        "```\n[fenced](nowhere.md)\n```\n[web](https://example.com/x.md)\n", "utf-8")
    assert broken_links(tmp_path / "README.md", tmp_path) == [
        "README.md:2: docs/b.md (no such file)",
        "README.md:2: docs/a.md#the-hop-chain (no heading with that anchor in a.md)",
        "README.md:2: #page-b (no heading with that anchor in README.md)",
    ]
