"""Retrieval on Markdown files: the default chunker (``auto``: ``structural`` for ``.md``) against ``sentence``.

The corpus is the shared HotpotQA set rendered as Markdown: the context paragraphs of the first ``--questions``
questions, in corpus order, go into files of ``--per-file`` sections, each section a ``## <title>`` heading over
the paragraph's text (a ``# Notes N`` title on top). Both graphs are built in one fresh embedded FalkorDB with the
product's ingest (``ner`` extractor) and ``finalize``, one with ``--chunker sentence`` (the previous default),
one with the default; then every question is asked once with ``retrieve`` (``top_k`` 10) and scored by
supporting-section recall, the share of a question's supporting paragraphs found, three ways:

* ``R@5 overlap``: a section counts when one of the top 5 passages overlaps it at all (longer chunks, which span
  two sections, get credit for both);
* ``R@5 main``: each passage counts for the one section holding most of its text;
* ``R@3k main``: as ``main``, over the top passages up to 3,000 characters of text (the same reading budget for
  both chunkers).

It also counts the chunks in which a heading line runs into the text of another section.

Run: ``.venv/bin/python benchmarks/markdown_chunker_bench.py [--questions 60] [--per-file 8]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graphrag_agents import KnowledgeGraph  # noqa: E402
from graphrag_agents.ingest.plan import IngestPlan  # noqa: E402
from graphrag_agents.retrieval.retriever import retrieve  # noqa: E402

EVAL = Path("/work/shared/eval")
SCORES = ("R@5 overlap", "R@5 main", "R@3k main")
BUDGET = 3_000


def render(questions: list[dict[str, object]], corpus: dict[str, dict[str, str]], per_file: int,
           folder: Path) -> dict[str, list[tuple[int, int, str]]]:
    """Write the Markdown files; returns, per file path, its sections as (start, end, paragraph id)."""
    ids: list[str] = []
    for q in questions:
        ids += [str(p) for p in q["paragraph_ids"] if str(p) not in ids]  # type: ignore[attr-defined]
    sections: dict[str, list[tuple[int, int, str]]] = {}
    for n in range(0, len(ids), per_file):
        text, spans = f"# Notes {n // per_file + 1}\n\n", []
        for pid in ids[n:n + per_file]:
            row = corpus[pid]
            start = len(text)
            text += f"## {row['title']}\n\n{row['text'].strip()}\n\n"
            spans.append((start, len(text), pid))
        path = folder / f"notes_{n // per_file + 1:03d}.md"
        path.write_text(text, encoding="utf-8")
        sections[str(path)] = spans
    return sections


def sections_of(text: str, file_text: str, spans: list[tuple[int, int, str]]) -> dict[str, int]:
    """Paragraph id -> characters of the chunk ``text`` in its section (found by the chunk's place in the file)."""
    start = file_text.find(text)
    if start < 0:
        return {}
    end = start + len(text)
    return {pid: min(b, end) - max(a, start) for a, b, pid in spans if a < end and start < b}


def heading_runs_in(text: str) -> bool:
    """A heading line with text of another section before it in the same chunk (a heading line right under
    another heading is the same section: the structural chunker keeps "# Notes 1" with its first section)."""
    return re.search(r"^(?!#)\S[^\n]*\n+##? ", text, re.M) is not None


async def measure(graph: str, plan: IngestPlan, data_dir: str, files: list[str],
                  sections: dict[str, list[tuple[int, int, str]]],
                  questions: list[dict[str, object]]) -> dict[str, float]:
    texts = {f: Path(f).read_text(encoding="utf-8") for f in files}
    async with await KnowledgeGraph.open(graph=graph, data_dir=data_dir) as kg:
        started = time.perf_counter()
        await kg.ingest(paths=files, plan=plan, progress=False)
        await kg.finalize(progress=False)
        build = time.perf_counter() - started
        rows = await kg.store.ro_query("MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk) RETURN d.id, c.text")
        mixed = sum(heading_runs_in(str(t)) for _, t in rows)
        hits = dict.fromkeys(SCORES, 0.0)
        for q in questions:
            gold = {str(p) for p in q["supporting_paragraph_ids"]}  # type: ignore[attr-defined]
            result = await retrieve(kg.store, kg.embedder, str(q["question"]), top_k=10)
            found: dict[str, set[str]] = {name: set() for name in SCORES}
            read = 0
            for rank, passage in enumerate(result.passages):
                parts = sections_of(passage.text, texts.get(passage.document_id, ""),
                                    sections.get(passage.document_id, []))
                main = {max(parts, key=lambda pid: parts[pid])} if parts else set()
                if rank < 5:
                    found["R@5 overlap"] |= set(parts)
                    found["R@5 main"] |= main
                if read < BUDGET:
                    found["R@3k main"] |= main
                read += len(passage.text)
            for name in SCORES:
                hits[name] += len(gold & found[name]) / max(1, len(gold))
    return {"chunks": len(rows), "mixed": mixed, "build_s": build,
            "chars": sum(len(str(t)) for _, t in rows) / max(1, len(rows)),
            **{name: hits[name] / max(1, len(questions)) for name in SCORES}}


async def run(args: argparse.Namespace) -> None:
    questions = [json.loads(line) for line in (EVAL / "hotpotqa.questions.jsonl").open(encoding="utf-8")]
    questions = questions[:args.questions]
    corpus = {str(r["id"]): r for r in map(json.loads, (EVAL / "hotpotqa.corpus.jsonl").open(encoding="utf-8"))}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        sections = render(questions, corpus, args.per_file, folder)
        files = sorted(sections)
        print(f"corpus: {len(files)} Markdown files, {sum(len(s) for s in sections.values())} sections "
              f"(HotpotQA paragraphs as '## title' sections), {len(questions)} questions")
        rows = {}
        for name, plan in (("sentence (previous default)", IngestPlan(chunker="sentence", extractor="ner")),
                           ("auto (default: structural for .md)", IngestPlan(extractor="ner"))):
            rows[name] = await measure(name.split()[0], plan, str(Path(tmp) / "data"), files, sections, questions)
        print("| chunker | chunks (mean chars) | chunks with a heading run into other text | "
              + " | ".join(SCORES) + " | build + finalize s |")
        print("| - " * (4 + len(SCORES)) + "|")
        for name, r in rows.items():
            print(f"| {name} | {r['chunks']:.0f} ({r['chars']:.0f}) | {r['mixed']:.0f} | "
                  + " | ".join(f"{r[score]:.3f}" for score in SCORES) + f" | {r['build_s']:.1f} |")
        base, new = rows.values()
        print("ratio default / sentence: " + ", ".join(f"{score} {new[score] / max(base[score], 1e-9):.3f}x"
                                                        for score in SCORES))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=60, help="HotpotQA questions (default 60)")
    parser.add_argument("--per-file", type=int, default=8, help="sections per Markdown file (default 8)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
