"""Where a retrieve's CPU goes, against dense-only in the same run: the event loop, the whole client, the server.

    python benchmarks/cpu_split.py [--sets hotpotqa,2wikimultihopqa] [--data-dir .graphrag-bench]
                                   [--questions 150] [--eval-dir DIR]

Wall-clock latency on a shared 2-core machine moves with the load; CPU time moves much less. On the graph of
``retrieval_bench.py`` (reused from ``--data-dir``, which must hold it already), the same questions are answered
by dense-only search (the question's embedding and one chunk vector query) and by ``retrieve`` (all paths,
``top_k`` 10), one after the other, and per question this prints: wall time, CPU of the event loop's thread
(``time.thread_time``: the client's Python: query parameters, replies, scoring), CPU of the whole client process
(the embedder's onnxruntime threads included) and CPU of the FalkorDB server (``/proc/<pid>/stat``, so Linux
only, and the server must serve no one else meanwhile; the run starts once it has built every graph's indexes).
Then it times the embedding alone and while the queries of ``retrieve`` that need no vector (``exact_names`` and
the keyword search) run beside it: whether the cores have room to overlap the two. Last, what the client's
pieces cost on the event loop: a bare query and one with lists of parameters (the store's command path), the
question's name keys and the names a passage writes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path
from typing import Any

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"  # ../shared/eval beside the repository
TOP_K = 10


def _server_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _split(set_name: str, args: argparse.Namespace) -> None:
    from latency_ab import indexes_built

    from graphrag_agents.evaluation.build import ensure_built, open_eval_graph
    from graphrag_agents.evaluation.dataset import load_dataset
    from graphrag_agents.retrieval import fulltext
    from graphrag_agents.retrieval.candidates import keyword_search
    from graphrag_agents.retrieval.names import exact_names
    from graphrag_agents.retrieval.passages import dense_passages
    from graphrag_agents.retrieval.retriever import retrieve

    questions, corpus = load_dataset(args.eval_dir / f"{set_name}.questions.jsonl",
                                     args.eval_dir / f"{set_name}.corpus.jsonl")
    asked = [q.question for q in questions[10:10 + args.questions]]
    async with await open_eval_graph(corpus, extractor="ner", data_dir=args.data_dir) as kg:
        await ensure_built(kg, corpus, extractor="ner", data_dir=args.data_dir, progress=False)
        await indexes_built(kg.store)  # the folder's other graphs too: their index builds would share the cores
        server_process = kg.store._client.server  # the embedded server this benchmark started or reattached to
        pid = server_process.pid if server_process is not None else None
        if pid is None:
            raise SystemExit("cpu_split.py measures the embedded server's CPU: open a --data-dir, not a URL")
        for q in questions[:5]:  # warm the embedder and the server's caches
            await retrieve(kg.store, kg.embedder, q.question, top_k=TOP_K)

        async def dense(question: str) -> Any:
            return await dense_passages(kg.store, (await kg.embedder.aembed([question]))[0], TOP_K)

        async def full(question: str) -> Any:
            return await retrieve(kg.store, kg.embedder, question, top_k=TOP_K)

        print(f"\n{set_name}: {len(asked)} questions, CPU ms per question")
        print("| search | wall | event loop thread | client process | server |")
        print("| - | - | - | - | - |")
        loops = {}
        for label, search in (("dense-only", dense), ("retrieve", full)):
            fulltext._frequencies.pop(kg.store, None)  # each search counts the question's words itself
            server, client, loop, wall = _server_cpu(pid), time.process_time(), time.thread_time(), time.perf_counter()
            for question in asked:
                await search(question)
            n = len(asked)
            loops[label] = (time.thread_time() - loop) / n * 1000
            print(f"| {label} | {(time.perf_counter() - wall) / n * 1000:.1f} | {loops[label]:.1f} | "
                  f"{(time.process_time() - client) / n * 1000:.1f} | {(_server_cpu(pid) - server) / n * 1000:.1f} |")

        async def embedded(question: str, since: float) -> float:
            await kg.embedder.aembed([question])
            return time.perf_counter() - since

        alone, beside = [], []
        for question in asked:
            start = time.perf_counter()
            vector = (await kg.embedder.aembed([question]))[0].tolist()
            alone.append(time.perf_counter() - start)
            fulltext._frequencies.pop(kg.store, None)
            took, _, _ = await asyncio.gather(embedded(question, time.perf_counter()),
                                              exact_names(kg.store, question, TOP_K),
                                              keyword_search(kg.store, question, vector, 30))
            beside.append(took)
        print(f"embedding p50 alone {statistics.median(alone) * 1000:.2f} ms, while exact_names and the keyword "
              f"search run {statistics.median(beside) * 1000:.2f} ms; load average "
              + ", ".join(f"{x:.1f}" for x in os.getloadavg()))
        await _pieces(kg.store, asked, [p.text for p in corpus[:500]])


async def _pieces(store: Any, questions: list[str], texts: list[str]) -> None:
    from graphrag_agents.retrieval.names import _name_keys
    from graphrag_agents.retrieval.written_names import written_names

    def loop_ms(calls: int, since: float) -> float:
        return (time.thread_time() - since) / calls * 1000

    listed = {"seeds": [["hotpotqa-0123456789ab#0", 1.0, ["A Name Written", "Another Name"] * 15]] * 3}
    costs = []
    for query, params in (("RETURN 1", None), ("RETURN size($seeds)", listed)):
        since = time.thread_time()
        for _ in range(300):
            await store.ro_query(query, params)
        costs.append(loop_ms(300, since))
    since = time.thread_time()
    for question in questions:
        _name_keys.__wrapped__(question)  # uncached, as for a new question
    keys = loop_ms(len(questions), since)
    since = time.thread_time()
    for text in texts:
        written_names.__wrapped__(text)
    print(f"event loop CPU: a bare query {costs[0]:.3f} ms, one with lists of parameters {costs[1]:.3f} ms; "
          f"name keys {keys:.3f} ms a question; names a passage writes {loop_ms(len(texts), since):.3f} ms a passage")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="hotpotqa,2wikimultihopqa", help="comma-separated set names")
    parser.add_argument("--data-dir", type=Path, default=Path(".graphrag-bench"), help="embedded FalkorDB folder")
    parser.add_argument("--questions", type=int, default=150, help="questions per set (after the 10 first)")
    parser.add_argument("--eval-dir", type=Path, default=EVAL, help="folder of <set>.{corpus,questions}.jsonl")
    args = parser.parse_args()
    for set_name in args.sets.split(","):
        asyncio.run(_split(set_name.strip(), args))


if __name__ == "__main__":
    main()
