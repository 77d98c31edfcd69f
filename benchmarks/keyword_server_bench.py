"""The keyword search's server time: its postings read sorted and capped (the query for a word over the cap) against
read without the sort (the query when no word is over it), on the graphs of ``retrieval_bench.py``.

    python benchmarks/keyword_server_bench.py [--sets hotpotqa,2wikimultihopqa] [--data-dir .graphrag-bench]
                                              [--questions 200] [--eval-dir DIR]

For each question whose words all have at most ``POSTINGS_CAP`` postings, both shapes of the counting query (every
word counted in the query) and of the plain query (the counts passed in) are sent to the embedded FalkorDB, and
FalkorDB's own "internal execution time" of each is kept, so the client and the network do not count. The rows of
the two shapes must be the same (the script stops otherwise). Printed: the median and mean per shape, and how
many questions had a word over the cap (left out: they take the capped query either way).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from pathlib import Path

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"  # ../shared/eval beside the repository


async def _measure(set_name: str, args: argparse.Namespace) -> None:
    from falkordb import FalkorDB

    from graphrag_agents.evaluation.build import ensure_built, open_eval_graph
    from graphrag_agents.evaluation.dataset import load_dataset
    from graphrag_agents.retrieval import candidates
    from graphrag_agents.retrieval._cypher import VectorParam
    from graphrag_agents.retrieval.fulltext import MAX_DF, idf, query_terms

    questions, corpus = load_dataset(args.eval_dir / f"{set_name}.questions.jsonl",
                                     args.eval_dir / f"{set_name}.corpus.jsonl")
    async with await open_eval_graph(corpus, extractor="ner", data_dir=args.data_dir) as kg:
        await ensure_built(kg, corpus, extractor="ner", data_dir=args.data_dir, progress=False)
        server = kg.store._client.server
        if server is None:
            raise SystemExit("keyword_server_bench.py reads the embedded server: open a --data-dir, not a URL")
        graph = FalkorDB(unix_socket_path=str(server.socket_path)).select_graph(kg.store.name)
        n = graph.ro_query("MATCH (c:Chunk) RETURN count(c)").result_set[0][0]
        shapes = {"counting query, sorted and capped": [], "counting query, unsorted": [],
                  "plain query, sorted and capped": [], "plain query, unsorted": []}
        over = 0
        asked = questions[:args.questions] if args.questions else questions
        for q in asked:
            terms = query_terms(q.question)
            if not terms:
                continue
            params = candidates._params(VectorParam(kg.embedder.embed([q.question])[0].tolist()), 30, None)
            counting = {"terms": terms, "dfs": [-1] * len(terms), "n": n, "maxdf": MAX_DF, **params}
            capped = graph.ro_query(candidates._query(candidates._COUNTING_LEXICAL, None), counting)
            counts = {str(t): int(df) for t, df in capped.result_set[0][8]} if capped.result_set else {}
            if candidates._over_cap(counts.values(), None):
                over += 1
                continue
            unsorted = graph.ro_query(candidates._query(candidates._COUNTING_UNCAPPED_LEXICAL, None), counting)
            plain = {"weights": [[t, idf(n, counts[t])] for t in terms if 0 < counts.get(t, 0) < MAX_DF], **params}
            plain["total"] = sum(float(w[1]) for w in plain["weights"])
            plain_capped = graph.ro_query(candidates._query(candidates._LEXICAL, None), plain)
            plain_unsorted = graph.ro_query(candidates._query(candidates._UNCAPPED_LEXICAL, None), plain)
            if ([r[:8] for r in capped.result_set] != [r[:8] for r in unsorted.result_set]
                    or plain_capped.result_set != plain_unsorted.result_set):
                raise SystemExit(f"{q.id}: the two shapes returned different rows")
            for shape, result in zip(shapes, (capped, unsorted, plain_capped, plain_unsorted), strict=True):
                shapes[shape].append(result.run_time_ms)
        print(f"\n{set_name}: {len(asked)} questions, {over} with a word over the cap (left out)")
        print("| query | server ms, median | mean |")
        print("| - | - | - |")
        for shape, times in shapes.items():
            print(f"| {shape} | {statistics.median(times):.2f} | {statistics.fmean(times):.2f} |")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="hotpotqa,2wikimultihopqa", help="comma-separated set names")
    parser.add_argument("--data-dir", type=Path, default=Path(".graphrag-bench"), help="embedded FalkorDB folder")
    parser.add_argument("--questions", type=int, default=200, help="the first N questions of each set (0: all)")
    parser.add_argument("--eval-dir", type=Path, default=EVAL, help="folder of <set>.{corpus,questions}.jsonl")
    args = parser.parse_args()
    for set_name in args.sets.split(","):
        await _measure(set_name.strip(), args)


if __name__ == "__main__":
    asyncio.run(main())
