"""What building a graph costs against embedding its chunks alone, phase by phase, in the same run.

    python benchmarks/build_bench.py [--sets techdocs_a] [--limit N] [--extractor ner] [--eval-dir DIR]
                                    [--questions 20]

For each set (``<set>.corpus.jsonl`` in ``--eval-dir``, default ``../shared/eval``; several sets are built into
one graph, one document a row, as ``graphrag-agents eval`` builds them), on a fresh embedded FalkorDB:

1. **build**: ``ingest_documents`` with the extractor, then ``finalize`` (the durable server of the embedded
   default, its vector indexes, every default);
2. **baseline**: the package's embedder alone over the same chunk texts ``finalize`` embedded (title, heading and
   text, :func:`~graphrag_agents.ingest.embedding.chunk_embed_text`), in one request, so the embedder's own
   batching (32 texts, shortest first) applies, with the same threads.

Printed per phase: wall seconds, this process's CPU seconds (all its threads: the embedder's and spaCy's) and the
server's CPU seconds (``INFO cpu``), and the ratio of the build to the baseline. On a shared machine the CPU
seconds are the steadier measure; the wall ratio is the issue's. ``finalize`` is split into its phases (dedupe and
resolution; embedding chunks, entities, facts, each with the model's time, the id-window reads and the vector
writes; creating and waiting for the indexes) by wrapping the embedder, the store's queries and ``ensure_schema``.

Then, on the built graph, the first ``retrieve`` against the steady state (``--questions N`` of the last set's
questions file): a graph is ready when built, so its first answer should cost about what later ones do.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphrag_agents import kg as kg_module
from graphrag_agents.ingest import embedding, fact_pooling
from graphrag_agents.ingest.embedding import chunk_embed_text
from graphrag_agents.ingest.plan import IngestPlan, SourceDocument
from graphrag_agents.kg import KnowledgeGraph

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"


@dataclass
class Clock:
    """Wall, this process's CPU and the server's CPU seconds of one phase."""

    wall: float = 0.0
    cpu: float = 0.0
    server: float = 0.0

    def row(self, name: str, base: Clock | None = None) -> str:
        ratio = f"{self.wall / base.wall:.2f}x / {(self.cpu + self.server) / (base.cpu + base.server):.2f}x" \
            if base and base.wall else ""
        return f"| {name} | {self.wall:.1f} | {self.cpu:.1f} | {self.server:.1f} | {ratio} |"


@dataclass
class Tally:
    """Time spent inside wrapped calls during a phase."""

    seconds: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, name: str, seconds: float, n: int = 1) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        self.counts[name] = self.counts.get(name, 0) + n


async def _server_cpu(kg: KnowledgeGraph) -> float:
    info = await kg.store._client.db().primary.execute_command("INFO", "cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


async def _timed(kg: KnowledgeGraph, work: Callable[[], Any]) -> tuple[Any, Clock]:
    server, cpu, wall = await _server_cpu(kg), time.process_time(), time.perf_counter()
    result = await work()
    return result, Clock(time.perf_counter() - wall, time.process_time() - cpu, await _server_cpu(kg) - server)


def _wrap(kg: KnowledgeGraph, tally: Tally) -> None:
    """Count the embedder's model time and the store's write queries into ``tally``."""
    embed, query = kg.embedder.aembed, kg.store.query

    async def aembed(texts: Any) -> Any:
        start = time.perf_counter()
        try:
            return await embed(texts)
        finally:
            tally.add("embedder.aembed", time.perf_counter() - start, len(texts))

    async def write(statement: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await query(statement, params, *args, **kwargs)
        finally:
            tally.add("store writes", time.perf_counter() - start)

    kg.embedder.aembed = aembed  # type: ignore[method-assign]
    kg.store.query = write  # type: ignore[method-assign]


@dataclass
class Phases:
    """``finalize`` split into its phases, each with its own wall, process CPU and server CPU seconds.

    The phase changes when ``finalize`` starts embedding a kind (its first id-window query of that kind) and
    when it creates the indexes; inside the embedding phases, the model's calls (wall and this process's CPU),
    the id-window reads and the vector writes are summed per kind.
    """

    kg: KnowledgeGraph
    current: str = ""
    started: tuple[float, float, float] = (0.0, 0.0, 0.0)
    clocks: dict[str, Clock] = field(default_factory=dict)
    inside: dict[str, dict[str, float]] = field(default_factory=dict)

    async def mark(self, phase: str) -> None:
        now = (time.perf_counter(), time.process_time(), await _server_cpu(self.kg))
        if self.current:
            clock = self.clocks.setdefault(self.current, Clock())
            clock.wall += now[0] - self.started[0]
            clock.cpu += now[1] - self.started[1]
            clock.server += now[2] - self.started[2]
        self.current, self.started = phase, (time.perf_counter(), time.process_time(), await _server_cpu(self.kg))

    def add(self, what: str, seconds: float) -> None:
        part = self.inside.setdefault(self.current, {})
        part[what] = part.get(what, 0.0) + seconds


def _kind(statement: str, current: str) -> tuple[str, str] | None:
    """(kind, what) of one of embed_missing's window reads or vector writes; the lookups and writes of the facts
    read from their chunks' model run (``fact_pooling``) belong to the chunks' phase."""
    if statement in (fact_pooling._MISSING, fact_pooling._TEXTS):
        return "chunks", "fact lookups"
    if statement == fact_pooling.FACT_NODE_UPDATE and current == "embed chunks":
        return "chunks", "fact vector writes"
    for target in embedding._TARGETS:
        if statement == target.update:
            return target.kind, "vector writes"
        head = target.select.split(" AND {")[0]
        if statement.startswith(head) or statement == target.select:
            return target.kind, "id-window reads"
    return None


def _wrap_phases(kg: KnowledgeGraph, phases: Phases) -> None:
    """Split ``finalize`` into phases (see :class:`Phases`)."""
    embed, query, schema = kg.embedder.aembed, kg.store.query, kg_module.ensure_schema

    async def aembed(texts: Any) -> Any:
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return await embed(texts)
        finally:
            phases.add("model wall", time.perf_counter() - start)
            phases.add("model CPU", time.process_time() - cpu)
            phases.add("texts", len(texts))

    async def timed_query(statement: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        kind = _kind(statement, phases.current)
        if kind and phases.current != f"embed {kind[0]}":
            await phases.mark(f"embed {kind[0]}")
        start = time.perf_counter()
        try:
            return await query(statement, params, *args, **kwargs)
        finally:
            phases.add(kind[1] if kind else "other queries", time.perf_counter() - start)

    async def ensure(*args: Any, **kwargs: Any) -> Any:
        if phases.current != "indexes (create, wait)":
            await phases.mark("indexes (create, wait)")
        return await schema(*args, **kwargs)

    kg.embedder.aembed = aembed  # type: ignore[method-assign]
    kg.store.query = timed_query  # type: ignore[method-assign]
    kg_module.ensure_schema = ensure  # type: ignore[assignment]
    spans = getattr(kg.embedder, "embed_spans", None)
    if spans is not None:  # the chunks' model runs that also read their facts (on a worker thread)
        def embed_spans(texts: Any, wanted: Any) -> Any:
            start, cpu = time.perf_counter(), time.process_time()
            try:
                return spans(texts, wanted)
            finally:
                phases.add("model wall", time.perf_counter() - start)
                phases.add("model CPU", time.process_time() - cpu)
                phases.add("texts", len(texts))

        kg.embedder.embed_spans = embed_spans  # type: ignore[attr-defined]


def _rows(sets: list[str], eval_dir: Path, limit: int) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for name in sets:
        path = eval_dir / f"{name}.corpus.jsonl"
        rows += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return rows[:limit] if limit else rows


async def _chunk_texts(kg: KnowledgeGraph) -> list[str]:
    rows = await kg.store.ro_query("MATCH (c:Chunk) OPTIONAL MATCH (d:Document {id: c.document_id}) "
                                   "RETURN d.title, c.heading, c.text")
    return [chunk_embed_text(title, heading, str(text or "")) for title, heading, text in rows]


def _questions(sets: list[str], eval_dir: Path, n: int) -> list[str]:
    path = eval_dir / f"{sets[-1]}.questions.jsonl"
    if not n or not path.exists():
        return []
    return [json.loads(line)["question"] for line in path.read_text().splitlines() if line.strip()][:n + 1]


async def _first_retrieve(kg: KnowledgeGraph, questions: list[str]) -> list[str]:
    """The first ``retrieve`` after the build against the steady state, on the same graph, same run.

    ``first``: question 0, the first query the built graph answers. ``new``: questions 1..n, each asked once
    after it. ``steady``: the same questions asked again. Wall milliseconds (one process, back to back).
    """
    if not questions:
        return []

    async def ask(question: str) -> float:
        start = time.perf_counter()
        await kg.retrieve(question)
        return (time.perf_counter() - start) * 1000

    first = await ask(questions[0])
    new = [await ask(q) for q in questions[1:]]
    steady = [await ask(q) for q in questions[1:]]
    p50 = statistics.median(steady)
    return [f"first retrieve after the build: {first:.1f} ms = {first / p50:.2f}x the steady p50 "
            f"({p50:.1f} ms, {len(steady)} questions asked a second time); those questions asked first: p50 "
            f"{statistics.median(new):.1f} ms = {statistics.median(new) / p50:.2f}x"]


async def run(sets: list[str], eval_dir: Path, limit: int, extractor: str, questions: int = 0) -> None:
    rows = _rows(sets, eval_dir, limit)
    sources = [SourceDocument(str(r["id"]), str(r["id"]), text=str(r["text"]), title=str(r.get("title") or ""))
               for r in rows]
    with tempfile.TemporaryDirectory(prefix="build-bench-") as data_dir:
        async with await KnowledgeGraph.open(graph="build_bench", data_dir=data_dir) as kg:
            await kg.embedder.aembed(["warm up"])  # the model's load is not part of either side
            tally = Tally()
            _wrap(kg, tally)
            report, ingest = await _timed(kg, lambda: kg.ingest_documents(sources, IngestPlan(extractor=extractor)))
            ingest_writes = tally.seconds.get("store writes", 0.0)
            phases = Phases(kg)
            _wrap_phases(kg, phases)
            await phases.mark("dedupe and resolution (merges, regroup, relabel, retype)")
            fin, finalize = await _timed(kg, lambda: kg.finalize(progress=False))
            await phases.mark("")
            readiness = await _first_retrieve(kg, _questions(sets, eval_dir, questions))
            texts = await _chunk_texts(kg)
            _, baseline = await _timed(kg, lambda: kg.embedder.aembed(texts))
    build = Clock(ingest.wall + finalize.wall, ingest.cpu + finalize.cpu, ingest.server + finalize.server)
    print(f"{'+'.join(sets)}: {len(rows)} documents, {len(texts)} chunks, extractor {extractor}; "
          f"finalize embedded {fin.embedded}")
    print("| phase | wall s | process CPU s | server CPU s | ratio to baseline (wall / all CPU) |")
    print("| - | - | - | - | - |")
    print(baseline.row("baseline: the embedder alone over the chunk texts"))
    print(ingest.row(f"ingest ({extractor}; store writes {ingest_writes:.1f} s wall)", baseline))
    print(finalize.row("finalize", baseline))
    for name, clock in phases.clocks.items():
        parts = phases.inside.get(name, {})
        detail = "; ".join(f"{what} {n:.0f}" if what == "texts" else f"{what} {n:.1f} s"
                           for what, n in parts.items())
        print(clock.row(f"finalize: {name}" + (f" ({detail})" if detail else ""), baseline))
    print(build.row("build = ingest + finalize", baseline))
    failed = [d for d in report.documents if d.status == "failed"]
    print(f"ingest: {len(report.documents)} documents, {len(failed)} failed")
    for line in readiness:
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="techdocs_a", help="comma-separated corpus names, built into one graph")
    parser.add_argument("--limit", type=int, default=0, help="the first N rows only")
    parser.add_argument("--extractor", default="ner", choices=("ner", "none"))
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    parser.add_argument("--questions", type=int, default=20,
                        help="after the build, the first retrieve against the steady p50 of N questions of the last "
                             "set (0: skip)")
    args = parser.parse_args()
    asyncio.run(run(args.sets.split(","), args.eval_dir, args.limit, args.extractor, args.questions))


if __name__ == "__main__":
    main()
