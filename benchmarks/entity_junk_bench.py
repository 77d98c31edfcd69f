"""Junk entities from technical documents: the ner extractor with and without the code filter, in one run.

Builds a corpus from documentation files that ship on this machine (default: the Markdown docs of Node.js under
``/usr/share/doc/nodejs`` and of litellm / pydantic-ai in the project's venv, sorted by path, up to
``--max-chars``; ``--skip-files N`` leaves out the first N, for a slice the rules were not written on), ingests
it twice with the ``ner`` extractor and the default plan (Markdown cut at its sections) into two graphs of a
fresh embedded FalkorDB (the baseline with ``NerExtractor(skip_code=False)``, then the default), merges
duplicates as ``finalize`` does (no embedding), and prints, for the 100 most-mentioned entities of each, the
share the documented rule (:func:`junk`) calls junk, and the lists themselves to read. Then, as a check that
names in plain prose stay, it runs the extractor alone with and without the filter over the first ``--prose``
HotpotQA paragraphs of ``/work/shared/eval`` (or ``--prose-file``) and prints the share of names the filter
removes, and the names.

Run: ``.venv/bin/python benchmarks/entity_junk_bench.py [--max-chars 400000] [--skip-files 0] [--top 100]``.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graphrag_agents import KnowledgeGraph  # noqa: E402
from graphrag_agents.ingest.chunkers import get_chunker  # noqa: E402
from graphrag_agents.ingest.code_spans import code_like, mask_chunks  # noqa: E402
from graphrag_agents.ingest.common_names import ProseWords, runs_on, without_number  # noqa: E402
from graphrag_agents.ingest.dedupe import merge_label_votes, merge_unknown_duplicates  # noqa: E402
from graphrag_agents.ingest.extract_ner import GENERIC_WORDS, NerExtractor  # noqa: E402
from graphrag_agents.ingest.loaders import load_file  # noqa: E402
from graphrag_agents.ingest.ontology_store import DEFAULT_ONTOLOGY  # noqa: E402
from graphrag_agents.ingest.plan import IngestPlan  # noqa: E402

SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
PATTERNS = ["/usr/share/doc/nodejs/**/*.md", str(SITE / "litellm" / "**" / "*.md"),
            str(SITE / "pydantic_ai*" / "**" / "*.md")]


def corpus(max_chars: int, skip_files: int = 0) -> list[str]:
    """The files of the corpus: every match of :data:`PATTERNS`, by path, until ``max_chars`` are reached,
    leaving out the first ``skip_files`` files the corpus without skipping takes."""
    left_out = set(corpus(max_chars)[:skip_files]) if skip_files else set()
    files, total = [], 0
    for pattern in PATTERNS:
        for name in sorted(glob.glob(pattern, recursive=True)):
            size = Path(name).stat().st_size
            if size < 1_000 or total + size > max_chars or name in left_out:
                continue
            files.append(name)
            total += size
    return files


def corpus_prose(files: list[str]) -> ProseWords:
    """The lower-case words of the whole corpus's prose (its code and markup masked, one file as one text)."""
    return ProseWords(text for name in files for text in mask_chunks([load_file(name).text]))


def junk(name: str, prose: ProseWords) -> bool:
    """The documented rule: a name is junk when it reads as code or markup
    (:func:`~graphrag_agents.ingest.code_spans.code_like`: ``ASN1_MEM_ERROR``, ``NULL``, ``NaN``, ``Timothy" Gu``),
    ends in a lower-case word (``Node.js first``), is one generic word or computing acronym (``Document``,
    ``API``), or is a common word or phrase the corpus also writes in lower case, or capitalises only at the start
    of a line (``Version``, ``Tier 2``, ``Hook Callbacks``, ``Tips``; :meth:`ProseWords.common` over the whole
    corpus, where the extractor asks it of one document)."""
    core = without_number(name)
    return (code_like(name) or runs_on(name) or (" " not in core and core.casefold() in GENERIC_WORDS)
            or prose.common(name))


async def top_entities(kg: KnowledgeGraph, top: int) -> list[tuple[str, str, int]]:
    rows = await kg.store.ro_query(
        "MATCH (e:__Entity__) OPTIONAL MATCH (e)-[m:MENTIONED_IN]->() "
        "RETURN e.name, e.label, count(m) AS n ORDER BY n DESC, e.name LIMIT $top", {"top": top})
    return [(str(name), str(label), int(n)) for name, label, n in rows]


async def run(files: list[str], data_dir: str, top: int) -> None:
    prose = corpus_prose(files)
    results = {}
    for graph, skip_code in (("baseline", False), ("filtered", True)):
        async with await KnowledgeGraph.open(graph=graph, data_dir=data_dir) as kg:
            kg.ner = NerExtractor(skip_code=skip_code)
            started = time.perf_counter()
            report = await kg.ingest(paths=files, plan=IngestPlan(extractor="ner"), progress=False)
            seconds = time.perf_counter() - started
            await merge_unknown_duplicates(kg.store)  # as finalize does, which the `entities` command shows
            await merge_label_votes(kg.store, [e.label for e in (await kg.get_ontology()).entities])
            entities = await top_entities(kg, top)
            status = await kg.status()
        flagged = [e for e in entities if junk(e[0], prose)]
        results[graph] = (len(flagged) / max(1, len(entities)), seconds, status.entities, entities, flagged)
        failed = sum(d.status == "failed" for d in report.documents)
        print(f"{graph}: {status.documents} documents ({failed} failed), {status.chunks} chunks, "
              f"{status.entities} entities, ingest {seconds:.1f} s; junk among the top {len(entities)}: "
              f"{len(flagged)} = {100 * results[graph][0]:.1f}%")
    base, new = results["baseline"], results["filtered"]
    print(f"junk share: {100 * new[0]:.1f}% vs baseline {100 * base[0]:.1f}% "
          f"(ratio {new[0] / max(base[0], 1e-9):.2f}x); entities {new[2]:,} vs {base[2]:,}; "
          f"ingest time {new[1] / base[1]:.2f}x")
    for graph in ("baseline", "filtered"):
        print(f"\n{graph}, top {top} (name, label, mentions; * = junk by the rule):")
        print("; ".join(f"{'*' if junk(n, prose) else ''}{n} ({lb}, {m})" for n, lb, m in results[graph][3]))


async def prose_check(path: Path, paragraphs: int) -> None:
    """Names the filter removes from plain prose (HotpotQA paragraphs): what it costs where there is no code."""
    with path.open(encoding="utf-8") as lines:
        texts = [json.loads(line)["text"] for _, line in zip(range(paragraphs), lines, strict=False)]
    docs = [[c.text for c in get_chunker("sentence").chunk(text)] for text in texts]
    names = {}
    for skip_code in (False, True):
        results = await NerExtractor(skip_code=skip_code).extract(docs, DEFAULT_ONTOLOGY)
        names[skip_code] = [{e.name for e in r.entities} if not isinstance(r, Exception) else set() for r in results]
    total = sum(len(n) for n in names[False])
    removed = [name for before, after in zip(names[False], names[True], strict=True) for name in sorted(before - after)]
    print(f"\nprose check, {len(texts)} paragraphs of {path.name}: the filter removes {len(removed)} of {total:,} "
          f"names ({100 * len(removed) / max(1, total):.1f}%): " + "; ".join(removed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-chars", type=int, default=400_000, help="corpus size in bytes (default 400,000)")
    parser.add_argument("--skip-files", type=int, default=0,
                        help="start after this many corpus files, for a slice the rules were not written on")
    parser.add_argument("--top", type=int, default=100, help="most-mentioned entities to judge (default 100)")
    parser.add_argument("--prose", type=int, default=600, help="HotpotQA paragraphs for the prose check (0 = none)")
    parser.add_argument("--prose-file", type=Path, default=Path("/work/shared/eval/hotpotqa.corpus.jsonl"),
                        help="a corpus.jsonl of prose paragraphs (default: the shared HotpotQA corpus)")
    args = parser.parse_args()
    files = corpus(args.max_chars, args.skip_files)
    print(f"corpus: {len(files)} files, {sum(Path(f).stat().st_size for f in files):,} bytes, from "
          + ", ".join(PATTERNS))
    with tempfile.TemporaryDirectory() as data_dir:
        asyncio.run(run(files, data_dir, args.top))
    if args.prose and args.prose_file.is_file():
        asyncio.run(prose_check(args.prose_file, args.prose))


if __name__ == "__main__":
    main()
