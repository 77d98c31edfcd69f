"""Figures the docs quote from committed evaluation summaries are the summaries' own.

A doc quotes a summary verbatim between ``<!-- summary: PATH -->`` and ``<!-- end summary -->``; the block must be
the committed file, and every committed ``summary.md`` must be what ``summary_markdown`` renders from the
``summary.json`` beside it, so a figure the run no longer gives cannot stay in the docs.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

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


DEMO_FIGURE_DOCS = ("cookbook/mcp/README.md", "docs/clients/pydantic-ai-mcp.md")
DEMO_TEXT = re.compile(r"(?P<text>\d[\d,]*)\s+(?:for the demo question|characters, within the default)")
DEMO_JSON = re.compile(r"instead of (?P<json>\d[\d,]*) of compact JSON")


def demo_figures() -> dict[str, tuple[int, ...]]:
    """Per doc, the MCP ``retrieve`` figures it quotes for the demo question: (text characters[, JSON characters])."""
    found = {}
    for doc in DEMO_FIGURE_DOCS:
        text = (ROOT / doc).read_text(encoding="utf-8")
        figures = [int(m.group("text").replace(",", "")) for m in DEMO_TEXT.finditer(text)]
        figures += [int(m.group("json").replace(",", "")) for m in DEMO_JSON.finditer(text)]
        found[doc] = tuple(figures)
    return found


def test_the_docs_quote_one_demo_result_size() -> None:
    found = demo_figures()
    assert all(found.values()), found  # each page still quotes the figure this test checks
    assert len({figures[0] for figures in found.values()}) == 1, found


@pytest.mark.slow
def test_the_demo_result_size_the_docs_quote_is_what_the_server_sends(tmp_path: Path) -> None:
    """Builds the real demo graph (30 paragraphs, ner) and asks the demo question through the MCP server."""
    pytest.importorskip("mcp")
    from mcp import Client

    from graphrag_agents import KnowledgeGraph
    from graphrag_agents.adapters.mcp import RESULT_META_KEY, GraphRAGMCPServer
    from graphrag_agents.cli import main
    from graphrag_agents.cli.commands import _demo_question
    from graphrag_agents.ingest.extract_ner import spacy_available

    if not spacy_available():
        pytest.skip("the demo's figures are measured with the ner extractor")
    assert main(["demo", "--data-dir", str(tmp_path)]) == 0

    async def measure() -> tuple[int, int]:
        kg = await KnowledgeGraph.open(graph="demo", data_dir=str(tmp_path))
        async with kg, Client(GraphRAGMCPServer(kg).server) as client:
            result = await client.call_tool("retrieve", {"question": _demo_question()})
        meta = (result.meta or {})[RESULT_META_KEY]
        return len(result.content[0].text), len(json.dumps(meta, separators=(",", ":")))

    text, compact = asyncio.run(measure())
    for doc, figures in demo_figures().items():
        assert figures[0] == text, f"{doc} quotes {figures[0]:,} characters; the server sends {text:,}"
        if len(figures) > 1:
            assert figures[1] == compact, f"{doc} quotes {figures[1]:,} of compact JSON; it is {compact:,}"
