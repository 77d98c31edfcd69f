"""Retrieval on Markdown files: the default chunker (``auto``: ``structural`` for ``.md``) against ``sentence``.

The corpus is the shared HotpotQA set rendered as Markdown: the context paragraphs of the first ``--questions``
questions, in corpus order, go into files of ``--per-file`` sections, each section a ``## <title>`` heading over
the paragraph's text (a ``# Notes N`` title on top). Both graphs are built in one fresh embedded FalkorDB with the
product's ingest (``ner`` extractor) and ``finalize``, one with ``--chunker sentence`` (the previous default),
one with the default; then every question is asked with ``retrieve`` (``top_k`` 5) and scored by
supporting-section recall@2/5: the share of a question's supporting paragraphs whose section one of the top
passages overlaps. It also counts the chunks in which a heading line runs into the text of another section.

Run: ``.venv/bin/python benchmarks/markdown_chunker_bench.py [--questions 60] [--per-file 8] [--top-k 5]``.
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
KS = (2, 5)


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


def sections_of(text: str, file_text: str, spans: list[tuple[int, int, str]]) -> set[str]:
    """The paragraph ids whose section the chunk ``text`` overlaps (found by its place in the file)."""
    start = file_text.find(text)
    if start < 0:
        return set()
    end = start + len(text)
    return {pid for a, b, pid in spans if a < end and start < b}


def heading_runs_in(text: str) -> bool:
    """A heading line with text of another section before it in the same chunk (a heading line right under
    another heading is the same section: the structural chunker keeps "# Notes 1" with its first section)."""
    return re.search(r"^(?!#)\S[^\n]*\n+##? ", text, re.M) is not None


async def measure(graph: str, plan: IngestPlan, data_dir: str, files: list[str],
                  sections: dict[str, list[tuple[int, int, str]]], questions: list[dict[str, object]],
                  top_k: int) -> dict[str, float]:
    texts = {f: Path(f).read_text(encoding="utf-8") for f in files}
    async with await KnowledgeGraph.open(graph=graph, data_dir=data_dir) as kg:
        started = time.perf_counter()
        await kg.ingest(paths=files, plan=plan, progress=False)
        await kg.finalize(progress=False)
        build = time.perf_counter() - started
        rows = await kg.store.ro_query("MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk) RETURN d.id, c.text")
        mixed = sum(heading_runs_in(str(t)) for _, t in rows)
        hits = {k: 0.0 for k in KS}
        for q in questions:
            gold = {str(p) for p in q["supporting_paragraph_ids"]}  # type: ignore[attr-defined]
            result = await retrieve(kg.store, kg.embedder, str(q["question"]), top_k=top_k)
            for k in KS:
                found: set[str] = set()
                for passage in result.passages[:k]:
                    doc = passage.document_id
                    if doc in sections:
                        found |= sections_of(passage.text, texts[doc], sections[doc])
                hits[k] += len(gold & found) / max(1, len(gold))
    return {"chunks": len(rows), "mixed": mixed, "build_s": build,
            **{f"R@{k}": hits[k] / max(1, len(questions)) for k in KS}}


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
              f"(HotpotQA paragraphs as '## title' sections), {len(questions)} questions, top_k {args.top_k}")
        rows = {}
        for name, plan in (("sentence (previous default)", IngestPlan(chunker="sentence", extractor="ner")),
                           ("auto (default: structural for .md)", IngestPlan(extractor="ner"))):
            rows[name] = await measure(name.split()[0], plan, str(Path(tmp) / "data"), files, sections,
                                       questions, args.top_k)
        print("| chunker | chunks | chunks with a heading run into other text | R@2 | R@5 | build + finalize s |")
        print("| - | - | - | - | - | - |")
        for name, r in rows.items():
            print(f"| {name} | {r['chunks']:.0f} | {r['mixed']:.0f} | {r['R@2']:.3f} | {r['R@5']:.3f} | "
                  f"{r['build_s']:.1f} |")
        base, new = rows.values()
        print(f"ratio default / sentence: R@2 {new['R@2'] / max(base['R@2'], 1e-9):.3f}x, "
              f"R@5 {new['R@5'] / max(base['R@5'], 1e-9):.3f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=60, help="HotpotQA questions (default 60)")
    parser.add_argument("--per-file", type=int, default=8, help="sections per Markdown file (default 8)")
    parser.add_argument("--top-k", type=int, default=5, help="passages per question (default 5)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
