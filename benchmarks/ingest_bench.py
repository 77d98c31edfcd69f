"""Ingestion benchmark on the HotpotQA sample (../shared/eval/, 1,971 paragraphs), offline with the ner extractor.

Prints, all measured in this run on a fresh embedded FalkorDB:
- baselines: spaCy alone over the same chunks (the extraction floor) and an ingest with extractor="none"
  (chunk + write only);
- the ner ingest: seconds, chunks/s (excluding LLM time: none here), entities and relations written;
- finalize: seconds (dedupe + embedding chunks, entities and facts + indexes);
- re-ingesting the unchanged corpus: seconds and the ratio to the first ingest (target < 10%);
- changing one paragraph: statuses (1 updated, the rest unchanged) and seconds;
- LLM calls per chunk of the llm extractor: from the recorded real-model cassettes of the tests (or, with
  ``--llm-model openai/local --llm-api-base http://127.0.0.1:8089/v1``, live on ``--llm-chunks`` paragraphs).

Run: ``.venv/bin/python benchmarks/ingest_bench.py [--limit N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "eval" / "hotpotqa.corpus.jsonl"


def _rows(path: Path, limit: int | None) -> list[dict[str, str]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows[:limit] if limit else rows


async def _spacy_floor(texts: list[str]) -> float:
    from graphrag_agents.ingest.extract_ner import NerExtractor
    from graphrag_agents.ingest.ontology_store import DEFAULT_ONTOLOGY

    extractor = NerExtractor()
    await extractor.extract([["warm up"]], DEFAULT_ONTOLOGY)  # model load is not part of the floor
    started = time.perf_counter()
    await extractor.extract([[t] for t in texts], DEFAULT_ONTOLOGY)
    return time.perf_counter() - started


async def _llm_calls_per_chunk(args: argparse.Namespace, rows: list[dict[str, str]], data_dir: str) -> str:
    from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
    from graphrag_agents.kg import KnowledgeGraph
    from graphrag_agents.models.chat import ChatModel

    if args.llm_model:
        chat = ChatModel(args.llm_model, api_base=args.llm_api_base, timeout=900,
                         api_key="unused" if args.llm_api_base else None)
        async with await KnowledgeGraph.open(graph="bench_llm", data_dir=data_dir, llm=chat) as kg:
            sources = [SourceDocument(r["id"], r["id"], text=r["text"]) for r in rows[: args.llm_chunks]]
            report = await kg.ingest_documents(sources, IngestPlan(chunker="sentence", extractor="llm"))
            chunks = sum(d.chunks for d in report.documents)
            retries = report.llm_calls - chunks
            for doc in report.documents:
                if doc.status == "failed":
                    print(f"  {doc.document_id} failed: {doc.reason}")
            await kg.store.delete()
        return (f"llm extractor (live, {args.llm_model}): {report.llm_calls} calls for {chunks} chunks = "
                f"{report.llm_calls / max(chunks, 1):.2f} per chunk (1 + {retries} retries of malformed output); "
                f"{report.llm_seconds:.1f} s in the model")
    import yaml

    calls = chunks = retries = 0
    for tape in sorted((ROOT / "tests" / "cassettes").glob("llm_*.yaml")):
        for interaction in yaml.safe_load(tape.read_text())["interactions"]:
            body = json.loads(interaction["request"]["body"])
            if body.get("response_format") != {"type": "json_object"} or "knowledge graph" not in str(body):
                continue
            calls += 1
            retried = len(body["messages"]) > 2
            retries += retried
            chunks += not retried
    return (f"llm extractor (recorded real-model cassettes, tests/cassettes/llm_*.yaml): {calls} calls for "
            f"{chunks} chunks = {calls / max(chunks, 1):.2f} per chunk (1 + {retries} retries of malformed output)")


async def main(args: argparse.Namespace) -> None:
    from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
    from graphrag_agents.kg import KnowledgeGraph

    rows = _rows(Path(args.corpus), args.limit)
    data_dir = args.data_dir or tempfile.mkdtemp(prefix="ingest-bench-")
    if args.only_llm:
        print(await _llm_calls_per_chunk(args, rows, data_dir))
        return
    sources = [SourceDocument(r["id"], r["id"], text=r["text"], title=r["title"]) for r in rows]
    print(f"corpus: {len(rows)} paragraphs, {sum(len(r['text']) for r in rows):,} characters; "
          f"embedded FalkorDB in {data_dir}")

    floor = await _spacy_floor([r["text"] for r in rows])
    print(f"baseline spaCy ner alone over the paragraphs: {floor:.1f} s ({len(rows) / floor:.0f} paragraphs/s)")

    async with await KnowledgeGraph.open(graph="bench_none", data_dir=data_dir) as kg:
        report = await kg.ingest_documents(sources, IngestPlan(extractor="none"), progress=False)
        none_s = report.seconds
        chunks = sum(d.chunks for d in report.documents)
        print(f"baseline ingest, extractor=none (chunk + write): {none_s:.1f} s, {chunks / none_s:.0f} chunks/s")
        await kg.store.delete()

    async with await KnowledgeGraph.open(graph="bench_ner", data_dir=data_dir) as kg:
        plan = IngestPlan(extractor="ner")
        report = await kg.ingest_documents(sources, plan, progress=args.progress)
        first = report.seconds
        chunks = sum(d.chunks for d in report.documents)
        failed = [d for d in report.documents if d.status != "ingested"]
        no_llm = first - report.llm_seconds
        print(f"ner ingest: {first:.1f} s for {chunks} chunks = {chunks / no_llm:.0f} chunks/s excluding LLM time "
              f"({report.llm_seconds:.1f} s, {report.llm_calls} calls); {len(failed)} not ingested; "
              f"{first / none_s:.1f}x the extractor=none baseline, spaCy floor is {floor / first:.0%} of it")

        sample = [r["text"] for r in rows[:128]]
        started = time.perf_counter()
        await kg.embedder.aembed(sample)
        rate = len(sample) / (time.perf_counter() - started)
        (facts,), = await kg.store.ro_query("MATCH ()-[r:RELATES]->() RETURN count(DISTINCT r.fact)")
        (names,), = await kg.store.ro_query("MATCH (e:__Entity__) RETURN count(e)")
        print(f"baseline embedder alone: {rate:.1f} paragraphs/s; finalize has {chunks} chunks, {names} entity "
              f"names and {facts} distinct facts to embed")
        fin = await kg.finalize(progress=args.progress)
        e = fin.embedded
        print(f"finalize: {fin.seconds:.1f} s (merged {fin.merged}; embedded {e.chunks} chunks, {e.entities} "
              f"entities, {e.facts} facts; {chunks / rate:.0f} s of it is the chunks alone at the baseline rate)")

        again = await kg.ingest_documents(sources, plan, progress=False)
        statuses = again.counts()
        print(f"re-ingest unchanged: {again.seconds:.2f} s = {again.seconds / first:.1%} of the first ingest "
              f"(target < 10%); statuses {statuses}")

        changed = list(sources)
        changed[7] = SourceDocument(sources[7].document_id, sources[7].name,
                                    text=str(sources[7].text) + " This sentence was added.", title=sources[7].title)
        one = await kg.ingest_documents(changed, plan, progress=False)
        print(f"one paragraph changed: {one.seconds:.2f} s; statuses {one.counts()} "
              f"(updated: {[d.document_id for d in one.documents if d.status == 'updated']})")

        status = await kg.status()
        print(f"status: {status.documents} documents, {status.chunks} chunks, {status.entities} entities "
              f"{status.entity_labels}, {status.relations} relations {status.relation_types}")
        await kg.store.delete()

    print(await _llm_calls_per_chunk(args, rows, data_dir))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=str(CORPUS))
    parser.add_argument("--limit", type=int, help="only the first N paragraphs")
    parser.add_argument("--data-dir", help="embedded FalkorDB folder (default: a new temporary one)")
    parser.add_argument("--progress", action="store_true", help="show progress bars")
    parser.add_argument("--llm-model", help="measure LLM calls per chunk live with this model (e.g. openai/local)")
    parser.add_argument("--llm-api-base", help="its api_base, e.g. http://127.0.0.1:8089/v1")
    parser.add_argument("--llm-chunks", type=int, default=5, help="paragraphs for the live LLM measurement")
    parser.add_argument("--only-llm", action="store_true", help="only the LLM calls-per-chunk measurement")
    asyncio.run(main(parser.parse_args()))
    sys.exit(0)
