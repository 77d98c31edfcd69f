"""Figures the docs quote from committed evaluation summaries are the summaries' own.

A doc quotes a summary verbatim between ``<!-- summary: PATH -->`` and ``<!-- end summary -->``; the block must be
the committed file, and every committed ``summary.md`` must be what ``summary_markdown`` renders from the
``summary.json`` beside it, so a figure the run no longer gives cannot stay in the docs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from graphrag_agents.evaluation.report import summary_markdown

ROOT = Path(__file__).resolve().parents[1]
QUOTE = re.compile(r"<!-- summary: (?P<path>\S+) -->\n(?P<body>.*?)\n<!-- end summary -->", re.S)


def quoted_summaries(text: str) -> list[tuple[str, str]]:
    """(path, quoted text) of every summary block in ``text``."""
    return [(m.group("path"), m.group("body")) for m in QUOTE.finditer(text)]


def stale_quotes(text: str, where: str) -> list[str]:
    """The summary blocks of ``text`` that differ from the committed file they name."""
    problems = []
    for path, body in quoted_summaries(text):
        source = ROOT / path
        if not source.is_file():
            problems.append(f"{where}: quotes {path}, which is not committed")
        elif body.strip() != source.read_text(encoding="utf-8").strip():
            problems.append(f"{where}: its copy of {path} differs from the committed file; paste the file again")
    return problems


def test_docs_quote_the_committed_summaries_verbatim() -> None:
    docs = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "cookbook").rglob("README.md")]
    problems, quoted = [], 0
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        quoted += len(quoted_summaries(text))
        problems += stale_quotes(text, doc.relative_to(ROOT).as_posix())
    assert not problems, "\n".join(problems)
    assert quoted >= 1  # docs/evaluation.md's results


def test_every_committed_summary_md_is_rendered_from_its_json() -> None:
    pairs = [(p, p.with_name("summary.md")) for p in sorted((ROOT / "cookbook").rglob("summary.json"))]
    pairs = [(j, m) for j, m in pairs if m.is_file()]
    assert pairs
    for summary_json, summary_md in pairs:
        rendered = summary_markdown(json.loads(summary_json.read_text(encoding="utf-8")))
        assert rendered == summary_md.read_text(encoding="utf-8"), summary_md.relative_to(ROOT)


def test_a_stale_figure_is_caught() -> None:
    committed = (ROOT / "cookbook/multihop_qa/summary.md").read_text(encoding="utf-8")
    stale = committed.replace("| retrieve (all paths) | 94.0 | 97.5 |", "| retrieve (all paths) | 87.8 | 96.0 |")
    assert stale != committed  # the committed run's figures, as docs/evaluation.md quotes them
    doc = f"<!-- summary: cookbook/multihop_qa/summary.md -->\n{stale}\n<!-- end summary -->\n"
    assert stale_quotes(doc, "x.md") == ["x.md: its copy of cookbook/multihop_qa/summary.md differs from the "
                                         "committed file; paste the file again"]
