"""Junk entities from technical documents: the ner extractor with and without the code filter, in one run.

Builds a corpus from documentation files that ship on this machine (default: the Markdown docs of Node.js under
``/usr/share/doc/nodejs`` and of litellm / pydantic-ai in the project's venv, sorted by path, up to
``--max-chars``), ingests it twice with the ``ner`` extractor into two graphs of a fresh embedded FalkorDB (the
baseline with ``NerExtractor(skip_code=False)``, then the default), and prints, for the 100 most-mentioned
entities of each, the share the documented rule
(:func:`graphrag_agents.ingest.code_spans.code_like`) calls junk, and the lists themselves to read.

Run: ``.venv/bin/python benchmarks/entity_junk_bench.py [--max-chars 600000] [--top 100]``.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graphrag_agents import KnowledgeGraph  # noqa: E402
from graphrag_agents.ingest.code_spans import code_like  # noqa: E402
from graphrag_agents.ingest.extract_ner import NerExtractor  # noqa: E402
from graphrag_agents.ingest.plan import IngestPlan  # noqa: E402

SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
PATTERNS = ["/usr/share/doc/nodejs/**/*.md", str(SITE / "litellm" / "**" / "*.md"),
            str(SITE / "pydantic_ai*" / "**" / "*.md")]


def corpus(max_chars: int) -> list[str]:
    """The files of the corpus: every match of :data:`PATTERNS`, by path, until ``max_chars`` are reached."""
    files, total = [], 0
    for pattern in PATTERNS:
        for name in sorted(glob.glob(pattern, recursive=True)):
            size = Path(name).stat().st_size
            if size < 1_000 or total + size > max_chars:
                continue
            files.append(name)
            total += size
    return files


async def top_entities(kg: KnowledgeGraph, top: int) -> list[tuple[str, str, int]]:
    rows = await kg.store.ro_query(
        "MATCH (e:__Entity__) OPTIONAL MATCH (e)-[m:MENTIONED_IN]->() "
        "RETURN e.name, e.label, count(m) AS n ORDER BY n DESC, e.name LIMIT $top", {"top": top})
    return [(str(name), str(label), int(n)) for name, label, n in rows]


async def run(files: list[str], data_dir: str, top: int) -> None:
    results = {}
    for graph, skip_code in (("baseline", False), ("filtered", True)):
        async with await KnowledgeGraph.open(graph=graph, data_dir=data_dir) as kg:
            kg.ner = NerExtractor(skip_code=skip_code)
            started = time.perf_counter()
            report = await kg.ingest(paths=files, plan=IngestPlan(extractor="ner"), progress=False)
            seconds = time.perf_counter() - started
            entities = await top_entities(kg, top)
            status = await kg.status()
        junk = [e for e in entities if code_like(e[0])]
        results[graph] = (len(junk) / max(1, len(entities)), seconds, status.entities, entities, junk)
        failed = sum(d.status == "failed" for d in report.documents)
        print(f"{graph}: {status.documents} documents ({failed} failed), {status.chunks} chunks, "
              f"{status.entities} entities, ingest {seconds:.1f} s; junk among the top {len(entities)}: "
              f"{len(junk)} = {100 * results[graph][0]:.1f}%")
    base, new = results["baseline"], results["filtered"]
    print(f"junk share: {100 * new[0]:.1f}% vs baseline {100 * base[0]:.1f}% "
          f"(ratio {new[0] / base[0]:.2f}x); entities {new[2]:,} vs {base[2]:,}; ingest time {new[1] / base[1]:.2f}x")
    for graph in ("baseline", "filtered"):
        print(f"\n{graph}, top {top} (name, label, mentions; * = junk by the rule):")
        print("; ".join(f"{'*' if code_like(n) else ''}{n} ({lb}, {m})" for n, lb, m in results[graph][3]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-chars", type=int, default=600_000, help="corpus size in bytes (default 600,000)")
    parser.add_argument("--top", type=int, default=100, help="most-mentioned entities to judge (default 100)")
    args = parser.parse_args()
    files = corpus(args.max_chars)
    print(f"corpus: {len(files)} files, {sum(Path(f).stat().st_size for f in files):,} bytes, from "
          + ", ".join(PATTERNS))
    with tempfile.TemporaryDirectory() as data_dir:
        asyncio.run(run(files, data_dir, args.top))


if __name__ == "__main__":
    main()
