"""Build ``sphinxdocs``, a second technical-manual evaluation set, from Sphinx's own reStructuredText docs.

What: the ``.rst`` files of a Sphinx source tree's ``doc/`` folder (``usage/`` with all its subfolders,
``tutorial/``, ``man/``, ``faq.rst`` and ``glossary.rst``; never ``changes/``, ``development/``, ``extdev/``,
``internals/`` or a ``_*`` folder) are split into one corpus row per section, a section being the text between
two reST headings (a title line followed by an underline of one repeated punctuation character at least as long
as the title, optionally with a matching overline). Internal hyperlink target lines (``.. _label:``) are dropped;
everything else (directives, code blocks, external link targets) is kept verbatim. Text before a file's first
heading (``:orphan:``, labels, ``.. highlight::``) belongs to no section and is dropped, as are sections with no
text. Each row is::

    {"id": "sphinxdocs-<first 12 hex of sha1(title + "\\n" + text)>",
     "title": "<path relative to doc/> › <heading trail joined by ' › '>",
     "text": "<section text, stripped>"}

Given ``--questions``, the hand-written questions (the shape of the shared ``techdocs_a`` set: ``id``,
``question``, ``answer``, ``answer_aliases``, ``supporting_titles``, ``answerable``, ``type``) are checked and
copied: every supporting title must name exactly one corpus row, and the answer of an answerable question must be
a case-insensitive substring of one of its gold sections, else the script fails. ``paragraph_ids`` and
``supporting_paragraph_ids`` are filled with the gold rows' ids, and ``duplicate_paragraph_ids`` (a flat list,
only when non-empty, as in ``techdocs_a``) with the other rows whose text is identical to a gold row's.

Why: ``techdocs_a`` (npm's Markdown docs) is the only technical-manual set; a second manual, in another markup
and with a deeper heading structure, shows whether a retrieval setting tuned on one manual carries over.

License: the corpus text is Sphinx's documentation, BSD-2-Clause, Copyright (c) 2007-2024 by the Sphinx team.
Keep this note beside any copy of the output.

Command line (the questions are ``benchmarks/data/sphinxdocs/questions.jsonl``, 35 single-section and 15
two-section questions written for this set after reading its sections; the docs are those of the Sphinx 8.1.3
source distribution, ``pip download --no-binary :all: --no-deps sphinx==8.1.3``, unpacked)::

    python benchmarks/sphinx_docs_set.py sphinx-8.1.3/doc --out DIR \
        --questions benchmarks/data/sphinxdocs/questions.jsonl

writes ``DIR/sphinxdocs.corpus.jsonl`` and, with ``--questions``, ``DIR/sphinxdocs.questions.jsonl``, and prints
the counts (rows per top folder, questions per type). Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

PREFIX = "sphinxdocs"
SEP = " › "
INCLUDE_DIRS = ("usage", "tutorial", "man")
INCLUDE_FILES = ("faq.rst", "glossary.rst")
SKIP_DIRS = frozenset({"changes", "development", "extdev", "internals"})
# The punctuation docutils accepts as section adornment.
ADORNMENT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
LABEL = re.compile(r"^\.\. _[^:`]+:\s*$|^\.\. _`[^`]+`:\s*$")
QUESTION_TYPES = frozenset({"single", "two_hop", "unanswerable"})


@dataclass(frozen=True)
class Row:
    """One corpus row: a section of one file."""

    id: str
    title: str
    text: str

    def as_json(self) -> dict[str, str]:
        return {"id": self.id, "title": self.title, "text": self.text}


def _adornment(line: str) -> str | None:
    """The character of an underline/overline (one punctuation char repeated, no blanks), else None."""
    if not line or line[0] not in ADORNMENT or line.rstrip() != line:
        return None
    return line[0] if line == line[0] * len(line) else None


def _heading_at(lines: list[str], i: int) -> tuple[str, tuple[str, bool], int] | None:
    """The heading starting at line ``i`` as ``(title, style, lines used)``, else None. ``style`` is the
    adornment character and whether it has an overline (reST ranks levels by the order styles first appear)."""
    if i > 0 and lines[i - 1].strip():
        return None  # a title is preceded by a blank line (or the start of the file)
    first = lines[i]
    over = _adornment(first)
    if over is not None and i + 2 < len(lines):
        title, under = lines[i + 1].strip(), lines[i + 2]
        if title and _adornment(title) is None and under == first and len(first) >= len(title):
            return title, (over, True), 3
    if i + 1 >= len(lines) or not first.strip() or first[0].isspace() or _adornment(first) is not None:
        return None
    under_char = _adornment(lines[i + 1])
    title = first.rstrip()
    if under_char is None or len(lines[i + 1]) < len(title):
        return None
    return title, (under_char, False), 2


def _clean(body: list[str]) -> str:
    """A section's text: internal target lines dropped (with the blank line that separated them), stripped."""
    out: list[str] = []
    skip_blank = False
    for line in body:
        if LABEL.match(line):
            skip_blank = not out or not out[-1].strip()
            continue
        if skip_blank and not line.strip():
            skip_blank = False
            continue
        skip_blank = False
        out.append(line)
    return "\n".join(out).strip()


def split_sections(rel_path: str, source: str) -> list[Row]:
    """The sections of one reST file as corpus rows, in file order."""
    lines = source.expandtabs(8).splitlines()
    styles: list[tuple[str, bool]] = []
    trail: list[str] = []
    rows: list[Row] = []
    current: str | None = None
    body: list[str] = []

    def flush() -> None:
        if current is None:
            return
        text = _clean(body)
        if text:
            digest = hashlib.sha1(f"{current}\n{text}".encode()).hexdigest()[:12]
            rows.append(Row(f"{PREFIX}-{digest}", current, text))

    i = 0
    while i < len(lines):
        heading = _heading_at(lines, i)
        if heading is None:
            body.append(lines[i])
            i += 1
            continue
        flush()
        title, style, used = heading
        if style not in styles:
            styles.append(style)
        level = styles.index(style)
        trail = [*trail[:level], title]
        current = rel_path + SEP + SEP.join(trail)
        body = []
        i += used
    flush()
    return rows


def source_files(doc: Path) -> list[Path]:
    """The .rst files of the set, sorted by path relative to ``doc``."""
    files = [doc / name for name in INCLUDE_FILES if (doc / name).is_file()]
    for top in INCLUDE_DIRS:
        for path in (doc / top).rglob("*.rst"):
            parts = path.relative_to(doc).parts[:-1]
            if not any(p in SKIP_DIRS or p.startswith("_") for p in parts):
                files.append(path)
    return sorted(files, key=lambda p: p.relative_to(doc).as_posix())


def build_corpus(doc: Path) -> list[Row]:
    """Every section row of the set; fails on a title that two rows share (titles must resolve to one id)."""
    rows: list[Row] = []
    for path in source_files(doc):
        rows.extend(split_sections(path.relative_to(doc).as_posix(), path.read_text(encoding="utf-8")))
    dupes = [t for t, n in Counter(r.title for r in rows).items() if n > 1]
    if dupes:
        sys.exit(f"error: section titles that are not unique: {dupes}")
    return rows


def attach_questions(questions: list[dict[str, object]], rows: list[Row]) -> list[dict[str, object]]:
    """The questions with ``paragraph_ids``, ``supporting_paragraph_ids`` and ``duplicate_paragraph_ids`` filled
    in; exits with every problem found (unknown title, answer not in a gold section, repeated id, bad type)."""
    by_title = {r.title: r for r in rows}
    by_text: dict[str, list[str]] = {}
    for r in rows:
        by_text.setdefault(r.text, []).append(r.id)
    errors: list[str] = []
    seen: set[str] = set()
    out: list[dict[str, object]] = []
    for q in questions:
        qid = str(q.get("id", ""))
        if qid in seen:
            errors.append(f"{qid}: repeated id")
        seen.add(qid)
        if q.get("type") not in QUESTION_TYPES:
            errors.append(f"{qid}: unknown type {q.get('type')!r}")
        titles = [str(t) for t in q.get("supporting_titles", []) or []]  # type: ignore[attr-defined]
        gold = [by_title[t] for t in titles if t in by_title]
        errors.extend(f"{qid}: no section titled {t!r}" for t in titles if t not in by_title)
        answer = str(q.get("answer", ""))
        if q.get("answerable", True):
            if not titles or not answer:
                errors.append(f"{qid}: an answerable question needs an answer and supporting titles")
            elif gold and not any(answer.lower() in g.text.lower() for g in gold):
                errors.append(f"{qid}: answer {answer!r} is in none of its gold sections")
        ids = [g.id for g in gold]
        copies = [c for g in gold for c in by_text[g.text] if c not in ids]
        extras = {k: v for k, v in q.items() if k not in {"paragraph_ids", "supporting_paragraph_ids", "type"}}
        row: dict[str, object] = {
            **extras,
            "paragraph_ids": ids,
            "supporting_paragraph_ids": ids,
            "type": q.get("type"),
        }
        row.pop("duplicate_paragraph_ids", None)
        if copies:
            row["duplicate_paragraph_ids"] = list(dict.fromkeys(copies))
        out.append(row)
    if errors:
        sys.exit("error: questions do not match the corpus:\n  " + "\n  ".join(errors))
    return out


def _write_jsonl(path: Path, rows: list[dict[str, object]] | list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("doc", type=Path, help="the doc/ folder of an unpacked Sphinx source distribution")
    parser.add_argument("--out", type=Path, required=True, help="folder for sphinxdocs.*.jsonl")
    parser.add_argument("--questions", type=Path, help="hand-written questions (.jsonl) to check and copy")
    args = parser.parse_args(argv)
    doc: Path = args.doc
    if not (doc / "usage").is_dir():
        sys.exit(f"error: {doc} has no usage/ folder; pass the doc/ folder of the Sphinx sources")
    rows = build_corpus(doc)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    _write_jsonl(out / f"{PREFIX}.corpus.jsonl", [r.as_json() for r in rows])
    per_top = Counter(r.title.split(SEP, 1)[0].split("/", 1)[0] for r in rows)
    shared = sum(1 for n in Counter(r.text for r in rows).values() if n > 1)
    print(f"corpus: {len(rows)} sections from {len(source_files(doc))} files -> {out / f'{PREFIX}.corpus.jsonl'}")
    for top, n in sorted(per_top.items()):
        print(f"  {top}: {n}")
    print(f"  texts shared by more than one row: {shared}")
    if args.questions is not None:
        qpath: Path = args.questions
        questions = [json.loads(line) for line in qpath.read_text(encoding="utf-8").splitlines() if line.strip()]
        checked = attach_questions(questions, rows)
        _write_jsonl(out / f"{PREFIX}.questions.jsonl", checked)
        types = Counter(str(q["type"]) for q in checked)
        with_copies = sum(1 for q in checked if "duplicate_paragraph_ids" in q)
        print(f"questions: {len(checked)} -> {out / f'{PREFIX}.questions.jsonl'}")
        for kind, n in sorted(types.items()):
            print(f"  {kind}: {n}")
        print(f"  with duplicate_paragraph_ids: {with_copies}")


if __name__ == "__main__":
    main()
