"""The vector indexes' construction effort (HNSW ``efConstruction``) against cold start and recall, on one graph.

    python benchmarks/hnsw_bench.py --size 100000 [--ef 200,64] [--root .graphrag-bench/startup] [--questions 100]

FalkorDB keeps no vector index on disk: every server start rebuilds each HNSW index from the stored vectors
(``docs/scale.md``), at a cost that follows ``efConstruction`` (the candidate list each insertion searches;
FalkorDB's default is 200). For each value, on a copy of the graph ``startup_bench.py build`` persisted for
``--size`` chunks, the script recreates the four vector indexes with that value, rewrites the append-only file
(so the next load does not replay the old index and the new one), stops the server, then measures in the same
run:

* the cold start: a fresh server loading the folder (index construction included) until ``open`` returns;
* ``scale_bench``'s planted questions: recall@10 and p50 / p95 of ``retrieve`` (all paths) and of dense-only.

The first value is the baseline of the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
# A 100k graph's indexes take minutes to build (at start-up and when recreated), beyond the product's waits.
os.environ.setdefault("GRAPHRAG_STORE_START_TIMEOUT", "7200")
_BUILD_WAIT_S = 7200.0

from startup_bench import _rewrite_aof  # noqa: E402

from graphrag_agents.store.schema import VECTOR_INDEXES, drop_vector_index_statement, vector_index_statement  # noqa: E402

GRAPH = "startup_bench"


async def _reindex(work: Path, ef: int, graph: str = GRAPH) -> float:
    """Recreate the graph's vector indexes with ``efConstruction`` ``ef``; seconds until they are built."""
    from graphrag_agents.kg import KnowledgeGraph
    from graphrag_agents.store.schema import wait_for_indexes

    kg = await KnowledgeGraph.open(graph=graph, data_dir=str(work))
    try:
        dim = kg.embedder.dimension
        started = time.perf_counter()
        for label, pattern in VECTOR_INDEXES:
            await kg.store.query(drop_vector_index_statement(label, pattern))
            await kg.store.query(vector_index_statement(label, pattern, dim, ef_construction=ef))
        await wait_for_indexes(kg.store, _BUILD_WAIT_S)
        return time.perf_counter() - started
    finally:
        await kg.close()


async def _cold(work: Path, size: int, questions: int) -> dict[str, Any]:
    from scale_bench import CORPUS
    from scale_bench import ask as planted
    from startup_bench import SEED
    from synthetic_corpus import Source

    from graphrag_agents.kg import KnowledgeGraph
    from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder
    from graphrag_agents.store.schema import wait_for_indexes

    real = OnnxMiniLMEmbedder()
    started = time.perf_counter()
    kg = await KnowledgeGraph.open(graph=GRAPH, data_dir=str(work), embedder=real)
    try:
        # open waits 120 s at most for indexes a load left building; the cold start ends when every one is built
        await wait_for_indexes(kg.store, _BUILD_WAIT_S)
        cold = time.perf_counter() - started
        cpu = await kg.store._client.db().primary.info("cpu")
        server_cpu = float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])  # the load, on a shared machine
        found = await planted(kg, real, Source(CORPUS), SEED, size, questions)
    finally:
        await kg.close()
    return {"cold_s": cold, "cold_cpu_s": server_cpu, **found}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100000)
    parser.add_argument("--ef", default="200,64", help="efConstruction values, the first is the baseline")
    parser.add_argument("--root", default=".graphrag-bench/startup", help="startup_bench.py's build folder")
    parser.add_argument("--questions", type=int, default=100)
    args = parser.parse_args()
    root = Path(args.root).resolve()
    source = root / f"chunks-{args.size}"
    rows = []
    for ef in (int(v) for v in args.ef.split(",")):
        work = root / f"hnsw-{ef}"
        if work.exists():
            shutil.rmtree(work)
        shutil.copytree(source, work, ignore=shutil.ignore_patterns("falkordb.sock", "falkordb.pid", "falkordb.lock",
                                                                    "falkordb.log"))
        try:
            build_s = await _reindex(work, ef)
            _rewrite_aof(work)  # else the next load replays the drop and the new index after loading the old one
            row = {"ef": ef, "reindex_s": build_s, **await _cold(work, args.size, args.questions)}
        finally:
            shutil.rmtree(work, ignore_errors=True)
        rows.append(row)
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}), flush=True)
    base = rows[0]
    print(f"\n{args.size:,} chunks, {args.questions} planted questions; ratios against efConstruction {base['ef']}")
    print("| efConstruction | cold start s (ratio) | server CPU s of the load (ratio) | recall@10 retrieve "
          "| recall@10 dense-only | p50 / p95 retrieve ms | p50 / p95 dense-only ms |")
    print("| - | - | - | - | - | - | - |")
    for r in rows:
        print(f"| {r['ef']} | {r['cold_s']:.1f} ({r['cold_s'] / base['cold_s']:.2f}x) "
              f"| {r['cold_cpu_s']:.1f} ({r['cold_cpu_s'] / base['cold_cpu_s']:.2f}x) | {r['recall_ours']:.2f} "
              f"| {r['recall_dense']:.2f} | {r['p50_ours']:.0f} / {r['p95_ours']:.0f} "
              f"| {r['p50_dense']:.0f} / {r['p95_dense']:.0f} |")


if __name__ == "__main__":
    asyncio.run(main())
