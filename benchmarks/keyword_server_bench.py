"""The keyword search's server time for a question seen for the first time: its words counted from their postings
(every word, as before the write-time keyword statistics) against the words the statistics put in ``MAX_DF`` chunks
or more estimated from them (the code's query), and the same search once every count is known.

    python benchmarks/keyword_server_bench.py [--sets hotpotqa,2wikimultihopqa] [--data-dir .graphrag-bench]
                                              [--questions 200] [--eval-dir DIR]
    python benchmarks/keyword_server_bench.py --scale-dir DIR [--questions 100]

``--scale-dir``: the graph ``scale_bench.py --reuse`` grew in that folder, asked its planted questions (the same
seed and picks as ``scale_bench.py``) instead of the shared sets.

Each query is sent to the embedded FalkorDB and FalkorDB's own "internal execution time" kept, so the client and
the network do not count. Printed per graph: the median and mean server time per query shape, how many words a
question had estimated, and on how many questions the estimated counts changed the keyword candidates. One more
shape, not the code's: every count known, a word over the cap read only beside the question's rarer words (a
RediSearch intersection, ``word (rare1 | rare2)``, instead of its best postings by full-text score); on the scale
graph, how often each keeps the answer paragraph among the keyword candidates.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"  # ../shared/eval beside the repository
BESIDE = "every count known, a word over the cap read only beside the rarer words (not the code)"
POOL = 30
"""Keyword candidates asked for, as ``passages`` asks for top_k 10."""


def _measure(graph: Any, embedder: Any, name: str, questions: list[str], gold: dict[str, str] | None = None) -> None:
    from graphrag_agents.retrieval import candidates
    from graphrag_agents.retrieval._cypher import VectorParam
    from graphrag_agents.retrieval.fulltext import MAX_DF, counts_params, query_terms, weights_of

    n = graph.ro_query("MATCH (c:Chunk) RETURN count(c)").result_set[0][0]
    shapes: dict[str, list[float]] = {"every word counted": [], "common words estimated (the code)": [],
                                      "every count known (a question seen before)": [], BESIDE: []}
    estimated, differ, kept = [], 0, {"capped": 0, "beside": 0}
    beside = ("UNWIND $weights AS w CALL { WITH w WITH w WHERE w[2] = '' CALL db.idx.fulltext.queryNodes('Chunk', "
              "w[0]) YIELD node, score WITH node, score ORDER BY score DESC LIMIT $cap RETURN node UNION ALL WITH w "
              "WITH w WHERE w[2] <> '' CALL db.idx.fulltext.queryNodes('Chunk', w[2]) YIELD node RETURN node } "
              + candidates._ranked("", "$total") + "ORDER BY lex DESC LIMIT $k " + candidates._RETURN)
    for question in questions:
        terms = query_terms(question)
        if not terms:
            continue
        vector = VectorParam(embedder.embed([question])[0].tolist())
        params = {**candidates._params(vector, POOL, None), "maxdf": MAX_DF}
        fresh = counts_params(n, terms, [-1] * len(terms))
        query = candidates._query(candidates._COUNTING_LEXICAL, None, vector)
        counted = graph.ro_query(query, {**params, **fresh, "countcap": 10**9})
        ours = graph.ro_query(query, {**params, **fresh})
        exact = dict(counted.result_set[0][9]) if counted.result_set else {}
        guessed = dict(ours.result_set[0][9]) if ours.result_set else {}
        estimated.append(sum(1 for t in terms if t in guessed and guessed[t] != exact.get(t)))
        differ += [r[0] for r in counted.result_set] != [r[0] for r in ours.result_set]
        dfs = [int(guessed.get(t, 0)) for t in terms]
        weights, total = weights_of(n, terms, dfs)
        if weights:
            template = candidates._LEXICAL if candidates._over_cap(dfs, None) else candidates._UNCAPPED_LEXICAL
            known = graph.ro_query(candidates._query(template, None, vector),
                                   {**params, "weights": weights, "total": total})
            shapes["every count known (a question seen before)"].append(known.run_time_ms)
            # a RediSearch intersection: the word and any of the rarer ones (a word alone over the cap: capped)
            rare = " | ".join(t for t, df in zip(terms, dfs, strict=True) if 0 < df <= candidates.POSTINGS_CAP)
            read = [[w[0], w[1], w[0] if int(guessed[w[0]]) <= candidates.POSTINGS_CAP
                     else (f"{w[0]} ({rare})" if rare else "")] for w in weights]
            other = graph.ro_query(candidates._query(beside, None, vector),
                                   {**params, "weights": read, "total": total})
            shapes[BESIDE].append(other.run_time_ms)
            if gold is not None:
                kept["capped"] += gold[question] in {r[1] for r in known.result_set}
                kept["beside"] += gold[question] in {r[1] for r in other.result_set}
        shapes["every word counted"].append(counted.run_time_ms)
        shapes["common words estimated (the code)"].append(ours.run_time_ms)
    print(f"\n{name}: {n:,} chunks, {len(shapes['every word counted'])} questions; words whose count the estimate "
          f"changed: {sum(estimated)} ({sum(1 for e in estimated if e)} questions); questions whose keyword "
          f"candidates changed: {differ}")
    print("| query | server ms, median | mean |")
    print("| - | - | - |")
    for shape, times in shapes.items():
        print(f"| {shape} | {statistics.median(times):.2f} | {statistics.fmean(times):.2f} |")
    if gold is not None:
        print(f"answer paragraph among the {POOL} keyword candidates, every count known: capped {kept['capped']}, "
              f"read beside the rarer words {kept['beside']}")


def _raw(kg: Any) -> Any:
    from falkordb import FalkorDB

    server = kg.store._client.server
    if server is None:
        raise SystemExit("keyword_server_bench.py reads the embedded server: open a --data-dir, not a URL")
    return FalkorDB(unix_socket_path=str(server.socket_path)).select_graph(kg.store.name)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="hotpotqa,2wikimultihopqa", help="comma-separated set names")
    parser.add_argument("--data-dir", type=Path, default=Path(".graphrag-bench"), help="embedded FalkorDB folder")
    parser.add_argument("--questions", type=int, default=200, help="the first N questions of each set (0: all)")
    parser.add_argument("--eval-dir", type=Path, default=EVAL, help="folder of <set>.{corpus,questions}.jsonl")
    parser.add_argument("--scale-dir", type=Path, help="the folder of scale_bench.py's reused graph instead")
    args = parser.parse_args()
    if args.scale_dir:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from scale_bench import CORPUS, GRAPH
        from synthetic_corpus import Source

        from graphrag_agents.kg import KnowledgeGraph
        from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

        size = int(json.loads((args.scale_dir / f"{GRAPH}.built.json").read_text())["paragraphs"])
        source = Source(CORPUS)
        picks = random.Random(f"7:questions:{size}").sample(range(size), min(args.questions or 100, size))
        embedder = OnnxMiniLMEmbedder()
        async with await KnowledgeGraph.open(graph=GRAPH, data_dir=str(args.scale_dir), embedder=embedder) as kg:
            paras = [source.paragraph(7, i) for i in picks]
            _measure(_raw(kg), embedder, f"scale_bench graph ({size:,} paragraphs)", [p.question() for p in paras],
                     {p.question(): p.doc_id for p in paras})
        return
    from graphrag_agents.evaluation.build import ensure_built, open_eval_graph
    from graphrag_agents.evaluation.dataset import load_dataset

    for set_name in (s.strip() for s in args.sets.split(",")):
        questions, corpus = load_dataset(args.eval_dir / f"{set_name}.questions.jsonl",
                                         args.eval_dir / f"{set_name}.corpus.jsonl")
        asked = questions[:args.questions] if args.questions else questions
        async with await open_eval_graph(corpus, extractor="ner", data_dir=args.data_dir) as kg:
            await ensure_built(kg, corpus, extractor="ner", data_dir=args.data_dir, progress=False)
            _measure(_raw(kg), kg.embedder, set_name, [q.question for q in asked])


if __name__ == "__main__":
    asyncio.run(main())
