"""What ``finalize`` spends on entity and fact vectors, and what they buy ``retrieve`` and the reader.

    python benchmarks/finalize_vectors_bench.py [--sets hotpotqa,2wikimultihopqa] [--questions N]
                                                [--rules all:all,shared:all,shared:none,none:none] [--root DIR]

For each set, the corpus is ingested once (the ``ner`` extractor, one document per paragraph, as
``graphrag-agents eval`` builds it) and left unfinalized; then, for each rule ``ENTITIES:FACTS`` (the
``entity_vectors`` and ``fact_vectors`` of ``KnowledgeGraph.finalize``), a copy of that graph (``GRAPH.COPY``) is
finalized in a fresh child process, so each rule's time, CPU and peak memory are its own:

* finalize wall seconds, the child's CPU seconds (the embedder and the client) and the server's CPU seconds;
* the child's peak RSS (it includes the embedder's model, the same for every rule), the server memory the
  finalize added (``used_memory``: vectors and indexes) and the graph's memory after it (``GRAPH.MEMORY USAGE``,
  whole MiB);
* vectors embedded per kind;
* then every question is retrieved from that graph (all paths, ``top_k`` 10): recall@5 / recall@10 of the
  passages' documents, and, rendered at the default ``to_llm_text`` budget (4,400 characters), the read recall
  and answer read of ``benchmarks/evidence_budget_bench.py``, with the share of questions whose text shows an
  entity card or a fact, and the p50 latency of ``retrieve`` (all paths, then the ``facts`` path alone) on the
  graph (sequential, on whatever else the machine runs: compare the ratios of one run);
* how the fact vectors rank: of the ``facts`` path's top 5 facts, the share stated in one of the question's gold
  paragraphs, and the share of questions with at least one such fact there.

Ratios are against the first rule (``all:all``, the previous release), measured in the same run. ``--questions N``
keeps the first N questions and only their own paragraphs (a reduced corpus) for a quick run. A rule already
finalized under ``--root`` (its graph and its cost file kept) is not finalized again: only its quality is
measured, with the code as it is now.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from evidence_budget_bench import measure  # noqa: E402

from graphrag_agents.evaluation.dataset import Paragraph, Question, load_dataset  # noqa: E402
from graphrag_agents.evidence import EvidenceLedger  # noqa: E402
from graphrag_agents.ingest.plan import IngestPlan, SourceDocument  # noqa: E402
from graphrag_agents.kg import KnowledgeGraph  # noqa: E402
from graphrag_agents.tools.read_tools import number_retrieval  # noqa: E402
from graphrag_agents.tools.results import PASSAGES_FIRST, RETRIEVE_TEXT_CHARS, SECTION_FLOOR  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval"
BUDGET = (RETRIEVE_TEXT_CHARS, PASSAGES_FIRST, SECTION_FLOOR, True)  # to_llm_text's defaults (focus on)
SOURCE = "ingested"


def _subset(questions: list[Question], corpus: list[Paragraph], n: int) -> tuple[list[Question], list[Paragraph]]:
    if not n:
        return questions, corpus
    questions = questions[:n]
    wanted = {p for q in questions for p in (*q.paragraph_ids, *q.supporting_paragraph_ids)}
    return questions, [p for p in corpus if p.id in wanted]


def _server_cpu(kg: KnowledgeGraph) -> float:
    """CPU seconds (user + system) of the embedded server process so far."""
    server = kg.store._client.server
    pid = server.pid if server is not None else None
    if pid is None:
        return float("nan")
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _command(kg: KnowledgeGraph, *args: Any) -> Any:
    return await kg.store._client.db().primary.execute_command(*args)


async def _graph_memory_mib(kg: KnowledgeGraph) -> float:
    try:
        reply = await _command(kg, "GRAPH.MEMORY", "USAGE", kg.name)
    except Exception:  # an older server: no per-graph figure
        return float("nan")
    pairs = dict(zip(reply[::2], reply[1::2], strict=False))
    total = next((v for k, v in pairs.items() if "total" in str(k).lower()), None)
    return float(total) if total is not None else float("nan")


def _peak_rss_mib() -> float:
    """This process's peak resident memory (VmHWM: its own, unlike ``ru_maxrss``, which a child inherits)."""
    line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


async def _used_memory_mib(kg: KnowledgeGraph) -> float:
    info = await _command(kg, "INFO", "memory")
    return float(info["used_memory"]) / 2**20


def _finalize_child(data_dir: str, graph: str, entities: str, facts: str) -> None:
    """Run in the child: finalize ``graph`` under the rules, print one JSON line of what it cost."""

    async def run() -> dict[str, Any]:
        async with await KnowledgeGraph.open(graph=graph, data_dir=data_dir) as kg:
            kg.embedder.embed(["warm up the model"])
            rss_before = _peak_rss_mib()
            cpu, wall = time.process_time(), time.perf_counter()
            report = await kg.finalize(progress=False, entity_vectors=entities,  # type: ignore[arg-type]
                                       fact_vectors=facts)  # type: ignore[arg-type]
            return {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
                    "rss_before": rss_before, "rss_peak": _peak_rss_mib(),
                    "chunks": report.embedded.chunks, "entities": report.embedded.entities,
                    "facts": report.embedded.facts, "unembedded": report.status.unembedded}

    print(json.dumps(asyncio.run(run())))


async def _ingested(kg: KnowledgeGraph, corpus: list[Paragraph], marker: Path) -> None:
    if marker.exists() and await kg.store.exists():
        return
    started = time.perf_counter()
    sources = [SourceDocument(p.id, p.id, text=p.text, title=p.title or p.id) for p in corpus]
    await kg.ingest_documents(sources, IngestPlan(extractor="ner"), progress=False)
    marker.write_text(json.dumps({"paragraphs": len(corpus), "seconds": time.perf_counter() - started}))
    print(f"  ingested {len(corpus)} paragraphs in {time.perf_counter() - started:.0f} s", flush=True)


async def _quality(kg: KnowledgeGraph, questions: list[Question]) -> dict[str, float]:
    rows: list[dict[str, float]] = []
    for q in questions[:5]:  # warm the embedder and the server's caches
        await kg.retrieve(q.question, top_k=10)
    for q in questions:
        started = time.perf_counter()
        hits = await kg.retrieve(q.question, top_k=10)
        took = time.perf_counter() - started
        started = time.perf_counter()
        fact_hits = await kg.retrieve(q.question, top_k=10, paths=["facts"])
        facts_took = time.perf_counter() - started
        docs = [p.document_id for p in hits.passages]
        gold = list(q.supporting_paragraph_ids)
        result = number_retrieval(EvidenceLedger(), hits)
        row = measure(result, q, BUDGET)
        text = result.to_llm_text(BUDGET[0])
        row["r5"] = sum(g in docs[:5] for g in gold) / len(gold) if gold else 0.0
        row["r10"] = sum(g in docs[:10] for g in gold) / len(gold) if gold else 0.0
        row["shows_entity"] = float("\nEntities:\n" in text)
        row["shows_fact"] = float("\nFacts:\n" in text or "\nRelated facts:\n" in text)
        row["ms"], row["facts_ms"] = took * 1000, facts_took * 1000
        if gold:  # how the fact vectors rank: the facts path's top 5, from the gold paragraphs or not
            from_gold = [any(c.split("#")[0] in gold for c in f.chunk_ids) for f in fact_hits.facts[:5]]
            row["fact_p5"] = sum(from_gold) / 5
            row["fact_hit5"] = float(any(from_gold))
        rows.append(row)

    def mean(key: str) -> float:
        values = [r[key] for r in rows if key in r]
        return statistics.fmean(values) if values else float("nan")

    found = {k: mean(k) for k in ("r5", "r10", "read_recall", "answer_read", "shows_entity", "shows_fact",
                                  "fact_p5", "fact_hit5")}
    for key in ("ms", "facts_ms"):  # p50 latency
        found[key] = statistics.median(r[key] for r in rows)
    return found


async def run_set(name: str, args: argparse.Namespace) -> None:
    questions, corpus = load_dataset(args.eval_dir / f"{name}.questions.jsonl",
                                     args.eval_dir / f"{name}.corpus.jsonl")
    questions, corpus = _subset(questions, corpus, args.questions)
    data_dir = (args.root / f"{name}-{args.questions or 'all'}").resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    print(f"\n{name}: {len(questions)} questions, {len(corpus)} paragraphs", flush=True)
    results: list[tuple[str, dict[str, Any]]] = []
    async with await KnowledgeGraph.open(graph=SOURCE, data_dir=str(data_dir)) as source:
        await _ingested(source, corpus, data_dir / "ingested.json")
        (entities,), = await source.store.ro_query("MATCH (e:__Entity__) RETURN count(e)")
        (shared,), = await source.store.ro_query(
            "MATCH (e:__Entity__) WHERE outdegree(e, 'MENTIONED_IN') >= 2 RETURN count(e)")
        print(f"  {entities} entities, {shared} of them mentioned in 2+ chunks", flush=True)
        for rule in args.rules.split(","):
            ent, fact = rule.split(":")
            graph = f"rule-{ent}-{fact}"
            saved = data_dir / f"{graph}.json"
            if saved.exists() and await source.store.sibling(graph).exists():
                cost: dict[str, Any] = json.loads(saved.read_text())  # --reuse: finalized by an earlier run
            else:
                if await source.store.sibling(graph).exists():
                    await source.store.sibling(graph).delete()
                await _command(source, "GRAPH.COPY", SOURCE, graph)
                server_cpu, memory = _server_cpu(source), await _used_memory_mib(source)
                child = subprocess.run(
                    [sys.executable, __file__, "_finalize", str(data_dir), graph, ent, fact],
                    capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
                cost = json.loads(child.stdout.strip().splitlines()[-1])
                cost["server_cpu"] = _server_cpu(source) - server_cpu
                cost["added_mib"] = await _used_memory_mib(source) - memory
                saved.write_text(json.dumps(cost))
            async with await KnowledgeGraph.open(graph=graph, data_dir=str(data_dir)) as kg:
                cost["graph_mib"] = await _graph_memory_mib(kg)
                cost.update(await _quality(kg, questions))
            results.append((rule, cost))
            print(f"  {rule}: {json.dumps({k: round(v, 3) for k, v in cost.items()})}", flush=True)
    _table(results)


def _table(results: list[tuple[str, dict[str, Any]]]) -> None:
    base = results[0][1]

    def ratio(cost: dict[str, Any], key: str) -> str:
        return f"{cost[key]:,.1f} ({cost[key] / base[key]:.2f}x)" if base[key] else f"{cost[key]:,.1f}"

    print("\n| entity:fact vectors | vectors (chunks / entities / facts) | finalize s | client CPU s | server CPU s "
          "| client peak RSS MiB | server memory added MiB | graph MiB | R@5 / R@10 | read recall | answer read "
          "| shows entities / facts | facts path top 5 from gold paragraphs (share / any) "
          "| retrieve p50 ms (facts path alone) |")
    print("| - | - | - | - | - | - | - | - | - | - | - | - | - | - |")
    for rule, c in results:
        print(f"| {rule} | {c['chunks']:,} / {c['entities']:,} / {c['facts']:,} | {ratio(c, 'wall')} "
              f"| {ratio(c, 'cpu')} | {ratio(c, 'server_cpu')} | {ratio(c, 'rss_peak')} | {ratio(c, 'added_mib')} "
              f"| {ratio(c, 'graph_mib')} "
              f"| {c['r5']:.3f} / {c['r10']:.3f} | {c['read_recall']:.3f} | {c['answer_read']:.3f} "
              f"| {c['shows_entity']:.3f} / {c['shows_fact']:.3f} | {c['fact_p5']:.3f} / {c['fact_hit5']:.3f} "
              f"| {ratio(c, 'ms')} ({ratio(c, 'facts_ms')}) |")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="hotpotqa,2wikimultihopqa")
    parser.add_argument("--questions", type=int, default=0, help="first N questions and their paragraphs only")
    parser.add_argument("--rules", default="all:all,shared:all,shared:none,none:none",
                        help="ENTITIES:FACTS rules to compare, the first being the baseline")
    parser.add_argument("--root", type=Path, default=Path(".graphrag-bench/finalize-vectors"))
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    args = parser.parse_args()
    for name in args.sets.split(","):
        await run_set(name, args)


if __name__ == "__main__":
    if sys.argv[1:2] == ["_finalize"]:
        _finalize_child(*sys.argv[2:6])
    else:
        asyncio.run(main())
