"""Run time of ``check_citations`` on 20-item evidence, and the throughput of sessions that retrieve and check.

    python benchmarks/citations_speed_bench.py [--answers 200] [--sessions 8] [--calls 20] [--paragraphs 300]
        [--no-throughput] [--data-dir .graphrag-bench]

Part 1 (no graph): each answer cites real supporting sentences of two HotpotQA questions, whose 20 paragraphs
are the evidence [1]..[20]. Timed in the same run: the literal rules (``meaning=False``), the rule book before
claim support (``support=False``), the default with a cold cache (every evidence index built in the check, as a
fresh session does), and the default with the session's cache warm (a revision or the gate's second look), the
modes in turn on each answer. p50 and p95 per answer, in CPU time (what other work on a shared machine does not
change) and in wall time, each p50 as a ratio of the literal p50 and each p95 as a ratio of its own p50.

Part 2 (the graph of ``concurrency_bench.py``, built once in ``--data-dir``): ``--sessions`` sessions at once,
each calling ``retrieve`` ``--calls`` times; then the same with three ``check_citations`` calls after each
retrieve (the draft cites the first sentence of its newest three items; then two revisions). The two alternate
which runs first, ``--rounds`` times. Throughput in retrieves/s (median of the rounds), and the ratio of the two.
Target (issue 23): at least 0.5.

The WordNet reader (the ``lexicon`` extra; the in-place opposite rule looks a word up only when a claim repeats a
sentence with one word changed, which the answers of part 1 never do) is timed after part 1 in the same run: its
first lookup in the process (the exception lists read, the files mapped), then the lookups of the answers' distinct
words, each new to the process (antonyms and lemmas: what the rule asks for a changed word), in CPU time and as a
ratio of part 1's literal p50.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from concurrency_bench import EVAL, _ensure_graph, _rows

from graphrag_agents import GraphRAGToolkit
from graphrag_agents.citations._cache import IndexCache
from graphrag_agents.evidence import Evidence
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.text import wordnet
from graphrag_agents.text.words import LETTERS
from graphrag_agents.tools.citations import check_citations


def _answers(eval_dir: Path, count: int) -> list[tuple[str, dict[int, Evidence]]]:
    corpus = {row["id"]: row for row in _rows(eval_dir / "hotpotqa.corpus.jsonl")}
    questions = _rows(eval_dir / "hotpotqa.questions.jsonl")
    rng = random.Random(0)
    out = []
    for first, second in zip(questions[0::2], questions[1::2], strict=False):
        ids = [*first["paragraph_ids"], *second["paragraph_ids"]][:20]
        evidence = {n: Evidence(n=n, tool="retrieve", kind="passage", content=corpus[pid]["text"])
                    for n, pid in enumerate(ids, 1)}
        sentences = []
        for n, item in evidence.items():
            if corpus[ids[n - 1]]["title"] in first["supporting_titles"] + second["supporting_titles"]:
                sentences.append(f"{item.content.split('. ')[0].rstrip('.')} [{n}].")
        rng.shuffle(sentences)
        out.append((" ".join(sentences[:4]), evidence))
        if len(out) >= count:
            break
    return out


def _timed(fn: Callable[..., object], *args: object, **kwargs: object) -> tuple[float, float]:
    """(CPU ms, wall ms) of one call: the CPU time is what the machine's other work does not change."""
    cpu, wall = time.process_time(), time.perf_counter()
    fn(*args, **kwargs)
    return (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000


_MODES = ("literal (meaning=False)", "before support (support=False)", "default, cold session cache",
          "default, warm session cache")


def run_times(answers: list[tuple[str, dict[int, Evidence]]]) -> float:
    """Time each mode on each answer, the modes in turn per answer, so all see the same load."""
    modes: dict[str, list[tuple[float, float]]] = {mode: [] for mode in _MODES}
    literal, before, cold, warm = _MODES
    for answer, evidence in answers:
        modes[literal].append(_timed(check_citations, answer, evidence, meaning=False))
        modes[before].append(_timed(check_citations, answer, evidence, support=False))
        cache = IndexCache()
        modes[cold].append(_timed(check_citations, answer, evidence, cache=cache))
        modes[warm].append(_timed(check_citations, answer, evidence, cache=cache))
    for column, clock in ((0, "CPU"), (1, "wall")):
        base = statistics.median(t[column] for t in modes[literal])
        print(f"check_citations on 20-item evidence ({len(answers)} answers, {clock} time, p50 / p95 ms, "
              "p50 as x literal, p95 as x own p50):")
        for mode, times in modes.items():
            ordered = sorted(t[column] for t in times)
            p50, p95 = statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]
            print(f"  {mode:<32} p50 {p50:6.2f}  p95 {p95:6.2f}   x{p50 / base:5.1f}   p95 x{p95 / p50:4.2f}")
    return statistics.median(t[0] for t in modes[literal])


def run_wordnet(answers: list[tuple[str, dict[int, Evidence]]], literal_p50: float) -> None:
    """The WordNet reader's first lookup and its lookups of words new to the process, in CPU ms."""
    if not wordnet.available():
        print("WordNet reader: the lexicon extra is not installed")
        return
    wordnet._forget()
    words = list(dict.fromkeys(w.casefold() for answer, _ in answers for w in LETTERS.findall(answer) if len(w) >= 3))
    first, _ = _timed(lambda: (wordnet.antonyms(words[0]), wordnet.lemmas(words[0])))
    times = sorted(_timed(lambda w=w: (wordnet.antonyms(w), wordnet.lemmas(w)))[0] for w in words[1:])
    p50, p95 = statistics.median(times), times[int(0.95 * (len(times) - 1))]
    print(f"WordNet reader, CPU ms: first lookup {first:.2f} (x{first / literal_p50:.1f} literal p50); "
          f"{len(times)} words new to the process p50 {p50:.3f} p95 {p95:.3f} (x{p50 / literal_p50:.2f} / "
          f"x{p95 / literal_p50:.2f} literal p50)")


async def _session(session: GraphRAGToolkit, questions: list[str], offset: int, calls: int, checks: int) -> int:
    done = 0
    for i in range(calls):
        result = await session.retrieve(questions[(offset + i) % len(questions)])
        done += 1
        if not checks:
            continue
        items = [item for item in session.ledger.items()][-3:]
        draft = " ".join(f"{item.content.split('. ')[0].rstrip('.')} [{item.n}]." for item in items)
        for k in range(checks):
            await session.check_citations(draft if k == 0 else draft.replace(" [", f" and more {k} [", 1))
        del result
    return done


async def _throughput(toolkit: GraphRAGToolkit, questions: list[str], sessions: int, calls: int,
                      checks: int) -> float:
    start = time.perf_counter()
    done = await asyncio.gather(*(_session(toolkit.new_session(), questions, s * calls, calls, checks)
                                  for s in range(sessions)))
    return sum(done) / (time.perf_counter() - start)


async def run_throughput(args: argparse.Namespace) -> None:
    corpus = _rows(args.eval_dir / "hotpotqa.corpus.jsonl")[:args.paragraphs]
    questions = [q["question"] for q in _rows(args.eval_dir / "hotpotqa.questions.jsonl")]
    data_dir = Path(args.data_dir).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    graph = f"concurrency_bench_{len(corpus)}"  # the graph concurrency_bench.py builds and caches
    async with await KnowledgeGraph.open(graph=graph, data_dir=str(data_dir)) as kg:
        await _ensure_graph(kg, corpus, data_dir / f"{graph}.built.json", False)
        toolkit = GraphRAGToolkit(kg, read_only=True)
        await _throughput(toolkit, questions, 2, 2, 3)  # warm-up: models loaded, caches filled
        rounds: dict[str, list[float]] = {"retrieve only": [], "retrieve + 3 checks": []}
        order = [("retrieve only", 0), ("retrieve + 3 checks", 3)]
        for i in range(args.rounds):
            # alternate which configuration goes first, so a warming cache or a load change favours neither
            for label, checks in order if i % 2 == 0 else order[::-1]:
                rounds[label].append(await _throughput(toolkit, questions, args.sessions, args.calls, checks))
        base = statistics.median(rounds["retrieve only"])
        print(f"\n{args.sessions} sessions x {args.calls} retrieves, {args.rounds} rounds (median retrieves/s):")
        for label, values in rounds.items():
            value = statistics.median(values)
            print(f"  {label:<22} {value:7.1f} retrieves/s   x{value / base:5.2f} retrieve-only")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=200)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--calls", type=int, default=20, help="retrieves per session")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--paragraphs", type=int, default=300)
    parser.add_argument("--no-throughput", action="store_true", help="skip part 2 (it builds a graph once)")
    parser.add_argument("--data-dir", default=".graphrag-bench", help="embedded FalkorDB folder (cache)")
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    args = parser.parse_args()
    answers = _answers(args.eval_dir, args.answers)
    run_wordnet(answers, run_times(answers))
    if not args.no_throughput:
        asyncio.run(run_throughput(args))


if __name__ == "__main__":
    main()

