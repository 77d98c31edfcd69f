"""Where the embedded server's start-up time goes, and what a warm attach saves: 2k, 10k and 100k chunks.

    python benchmarks/startup_bench.py build   [--sizes 2000,10000,100000] [--root .graphrag-bench/startup]
    python benchmarks/startup_bench.py measure [--sizes 2000,10000,100000] [--root .graphrag-bench/startup]

A script, not a test: pytest only collects ``tests/``.

``build`` grows one graph of the synthetic corpus of ``scale_bench.py`` (real sentences and names recombined,
written with the product's writer, finalized with vectors derived from real embeddings) and, at each size, stops
its server and copies the data folder to ``ROOT/chunks-N`` (reused by later runs: the 100k build takes an hour on
a shared 2-core machine).

``measure`` times, for each size, in fresh client processes (what an MCP client does per conversation):

* **cold start**: ``KnowledgeGraph.open`` + the first ``retrieve`` with no server running, split into the
  server's load of its append-only file (until PING answers), index construction (until every index reports
  OPERATIONAL) and the first retrieve; the same from an RDB snapshot of the same graph (``--appendonly no``) and
  after an AOF rewrite, to see which persistence loads faster;
* **warm attach**: the same open + first retrieve while a server kept alive by ``GRAPHRAG_SERVER_IDLE`` runs;
* the baseline of both, in the same run: a bare ``redis-server`` start on an empty folder and a retrieve on an
  already open graph;
* server memory (``INFO memory`` used_memory) per chunk against the empty server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

GRAPH = "startup_bench"
SEED = 7
ALPHA = 0.75  # what calibrate picks on this corpus (docs/scale.md)
_SERVER_FILES = ("falkordb.sock", "falkordb.pid", "falkordb.lock", "falkordb.log")


def size_dir(root: Path, size: int) -> Path:
    """The persisted data folder holding the graph of ``size`` chunks."""
    return root / f"chunks-{size}"


def _copy_folder(src: Path, dst: Path) -> None:
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(*_SERVER_FILES))
    (dst / "BUILT").write_text("ok\n")


async def build(root: Path, sizes: list[int], grouped: bool = True) -> None:
    """Grow the graph to each size in ``ROOT/work`` and copy it to ``ROOT/chunks-N`` (sizes already built skip)."""
    from scale_bench import CORPUS, grow
    from synthetic_corpus import LookupEmbedder, Source, base_vectors

    from graphrag_agents.kg import KnowledgeGraph
    from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

    work = root / "work"
    real = OnnxMiniLMEmbedder()
    source = Source(CORPUS)
    vectors = base_vectors(source, real, root)
    lookup = LookupEmbedder(real, {})
    done = 0
    for size in sizes:
        if (size_dir(root, size) / "BUILT").exists():
            print(f"{size:,} chunks: already built in {size_dir(root, size)}", flush=True)
            if not (work / "BUILT_UPTO").exists() or int((work / "BUILT_UPTO").read_text()) < size:
                _copy_folder(size_dir(root, size), work)
                (work / "BUILT_UPTO").write_text(str(size))
            done = size
            continue
        if (work / "BUILT_UPTO").exists():
            done = int((work / "BUILT_UPTO").read_text())
        started = time.perf_counter()
        async with await KnowledgeGraph.open(graph=GRAPH, data_dir=str(work), embedder=lookup) as kg:
            if done == 0:
                await kg.store.delete()
            await kg.ensure_schema()
            write_s, finalize_s, _ = await grow(kg, source, lookup, vectors, SEED, done, size, ALPHA, grouped)
            status = await kg.status()
        (work / "BUILT_UPTO").write_text(str(size))
        _copy_folder(work, size_dir(root, size))
        print(f"{size:,} chunks built ({status.chunks:,} chunks, {status.entities:,} entities, "
              f"{status.relations:,} relations): write {write_s:.0f} s, finalize {finalize_s:.0f} s, "
              f"{time.perf_counter() - started:.0f} s in all", flush=True)
        done = size


async def ask(root: Path, size: int, count: int) -> dict[str, Any]:
    """``scale_bench``'s planted questions on a built size: recall@10 and latency of retrieve vs dense-only."""
    from scale_bench import CORPUS
    from scale_bench import ask as planted
    from synthetic_corpus import Source

    from graphrag_agents.kg import KnowledgeGraph
    from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

    work = root / "ask"
    _copy_folder(size_dir(root, size), work)
    real = OnnxMiniLMEmbedder()
    try:
        async with await KnowledgeGraph.open(graph=GRAPH, data_dir=str(work), embedder=real) as kg:
            found = await planted(kg, real, Source(CORPUS), SEED, size, count)
            status = await kg.status()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"chunks": status.chunks, "entities": status.entities, "relations": status.relations,
            **{k: round(v, 3) for k, v in found.items()}}


async def client(data_dir: Path, question: str) -> dict[str, Any]:
    """One client process's start: imports, embedder, open (server start or attach, index wait), retrieves."""
    started = time.perf_counter()
    from graphrag_agents.kg import KnowledgeGraph
    from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

    out: dict[str, Any] = {"import_s": time.perf_counter() - started}
    embedder = OnnxMiniLMEmbedder()
    mark = time.perf_counter()
    kg = await KnowledgeGraph.open(graph=GRAPH, data_dir=str(data_dir), embedder=embedder)
    out["open_s"] = time.perf_counter() - mark
    server = kg.store._client.server
    assert server is not None
    out["server_s"], out["owned"] = server.startup_seconds, server.owned
    mark = time.perf_counter()
    await embedder.aembed(["model loaded?"])  # waits for the model load open started in the background, if any
    out["model_wait_s"] = time.perf_counter() - mark
    mark = time.perf_counter()
    hits = await kg.retrieve(question)
    out["first_retrieve_s"] = time.perf_counter() - mark
    mark = time.perf_counter()
    await kg.retrieve(question)
    out["warm_retrieve_s"] = time.perf_counter() - mark  # baseline: the same retrieve on an open graph
    out["passages"] = len(hits.passages)
    info = await kg.store._client.db().primary.info("memory")
    out["used_memory"], out["rss"] = int(info["used_memory"]), int(info["used_memory_rss"])
    cpu = await kg.store._client.db().primary.info("cpu")
    out["server_cpu_s"] = float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])  # since the server started
    (out["chunks"],), = await kg.store.ro_query("MATCH (c:Chunk) RETURN count(c)")
    await kg.close()
    out["in_process_s"] = time.perf_counter() - started
    return out


def _run_client(data_dir: Path, question: str, idle: float) -> dict[str, Any]:
    env = dict(os.environ, GRAPHRAG_SERVER_IDLE=str(idle), GRAPHRAG_STORE_START_TIMEOUT="7200")
    started, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, __file__, "client", "--data-dir", str(data_dir), "--question", question],
                          env=env, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["process_s"] = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the client's CPU time: what a quiet machine would take
    result["client_cpu_s"] = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return result


_STAMP = re.compile(r"^\d+:\w (\d+ \w+ \d+ [\d:.]+) \* (.*)$")


def _server_log(data_dir: Path, since: int) -> dict[str, float]:
    """Seconds of the last start's phases, from the server log: index construction, base (RDB) and incr (AOF)."""
    text = (data_dir / "falkordb.log").read_text(errors="replace")[since:]
    phases: dict[str, float] = {"indexes_s": 0.0, "base_s": 0.0, "incr_s": 0.0}
    opened: datetime | None = None
    for line in text.splitlines():
        match = _STAMP.match(line)
        if not match:
            continue
        when, what = datetime.strptime(match[1], "%d %b %Y %H:%M:%S.%f"), match[2]
        if "Constructing indexes" in what:
            opened = when
        elif "Done decoding graph" in what and opened is not None:
            phases["indexes_s"] += (when - opened).total_seconds()
            opened = None
        elif what.startswith("DB loaded from base file"):
            phases["base_s"] = float(what.rsplit(":", 1)[1].split()[0])
        elif what.startswith("DB loaded from incr file"):
            phases["incr_s"] = float(what.rsplit(":", 1)[1].split()[0])
    return phases


def _log_size(data_dir: Path) -> int:
    log = data_dir / "falkordb.log"
    return len(log.read_text(errors="replace")) if log.exists() else 0


def _stop_kept(data_dir: Path) -> None:
    pid = int((data_dir / "falkordb.pid").read_text())
    os.kill(pid, signal.SIGTERM)
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def _rewrite_aof(data_dir: Path) -> None:
    """BGREWRITEAOF and wait: the append-only file becomes one RDB base, what a SAVE at close would leave."""
    from graphrag_agents.store.embedded import acquire_server, release_server

    server = acquire_server(data_dir, idle_timeout=0)
    try:
        import redis

        conn = redis.Redis(unix_socket_path=str(server.socket_path))
        conn.bgrewriteaof()
        while int(conn.info("persistence")["aof_rewrite_in_progress"]) or \
                int(conn.info("persistence")["aof_rewrite_scheduled"]):
            time.sleep(0.1)
        conn.close()
    finally:
        release_server(server)


def _bare_start(scratch: Path) -> dict[str, Any]:
    """Baseline: the embedded server started on an empty folder (no data), and its memory."""
    from graphrag_agents.store.embedded import acquire_server, release_server

    folder = scratch / "empty"
    shutil.rmtree(folder, ignore_errors=True)
    started = time.perf_counter()
    server = acquire_server(folder, idle_timeout=0)
    seconds = time.perf_counter() - started
    import redis

    conn = redis.Redis(unix_socket_path=str(server.socket_path))
    memory = int(conn.info("memory")["used_memory"])
    conn.close()
    release_server(server)
    return {"start_s": seconds, "used_memory": memory}


def measure(root: Path, sizes: list[int], variants: list[str]) -> None:
    """Cold start (as built, and after an AOF rewrite) and warm attach per size; baselines in the same run."""
    from scale_bench import CORPUS
    from synthetic_corpus import Source

    question = Source(CORPUS).paragraph(SEED, 0).question()
    scratch = root / "scratch"
    scratch.mkdir(exist_ok=True)
    bare = _bare_start(scratch)
    print(f"baseline: bare server start on an empty folder {bare['start_s']:.3f} s, used_memory "
          f"{bare['used_memory'] / 2**20:.1f} MiB", flush=True)
    rows: list[dict[str, Any]] = []
    for size in sizes:
        source = size_dir(root, size)
        if not (source / "BUILT").exists():
            print(f"{size:,} chunks: not built (run build first), skipped", flush=True)
            continue
        folder = scratch / f"chunks-{size}"
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(source, folder)
        row: dict[str, Any] = {"size": size, "aof_mib": sum(f.stat().st_size for f in (folder / "appendonlydir")
                                                           .iterdir()) / 2**20}
        for variant in variants:
            if variant == "rewritten":
                _rewrite_aof(folder)
            since = _log_size(folder)
            # "kept": the cold start of a process that starts a kept server, which the warm attach then reuses
            cold = _run_client(folder, question, idle=600 if variant == "kept" else 0)
            cold.update(_server_log(folder, since))
            row[variant] = cold
            print(f"{size:,} chunks, cold ({variant}): {json.dumps(_rounded(cold))}", flush=True)
        # Warm attach: the first process starts a kept server and exits; the second attaches to it.
        if "kept" not in variants:
            _run_client(folder, question, idle=600)
        warm = _run_client(folder, question, idle=600)
        _stop_kept(folder)
        row["warm"] = warm
        print(f"{size:,} chunks, warm attach: {json.dumps(_rounded(warm))}", flush=True)
        rows.append(row)
        shutil.rmtree(folder, ignore_errors=True)
    _table(rows, variants, bare)


def _rounded(row: dict[str, Any]) -> dict[str, Any]:
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}


def _table(rows: list[dict[str, Any]], variants: list[str], bare: dict[str, Any]) -> None:
    print("\n| chunks | AOF MiB | cold: process to first answer s | server load s (index construction s, AOF "
          "replay s) [server CPU s] | open + first retrieve s | warm attach: process s [client CPU s] | attach s "
          "| open + model + first retrieve s | warm / cold | used_memory MiB | KiB per chunk (Δ vs empty) |")
    print("|" + " - |" * 11)
    for r in rows:
        cold, warm = r[variants[0]], r["warm"]
        grown = cold["used_memory"] - bare["used_memory"]
        print(f"| {r['size']:,} | {r['aof_mib']:,.0f} | {cold['process_s']:.1f} | {cold['server_s']:.1f} "
              f"({cold['indexes_s']:.1f}, {cold['incr_s']:.1f}) [{cold['server_cpu_s']:.1f}] "
              f"| {cold['open_s'] + cold['model_wait_s'] + cold['first_retrieve_s']:.1f} "
              f"| {warm['process_s']:.2f} [{warm['client_cpu_s']:.2f}] | {warm['server_s']:.3f} "
              f"| {warm['open_s'] + warm['model_wait_s'] + warm['first_retrieve_s']:.2f} "
              f"| {warm['process_s'] / cold['process_s']:.3f} "
              f"| {cold['used_memory'] / 2**20:,.0f} | {grown / cold['chunks'] / 1024:.1f} |")
    if "rewritten" in variants:
        print("\nafter an AOF rewrite (one RDB base, no incr part):")
        for r in rows:
            a, b = r[variants[0]], r["rewritten"]
            print(f"  {r['size']:,} chunks: server load {b['server_s']:.1f} s vs {a['server_s']:.1f} s as built "
                  f"({b['server_s'] / a['server_s']:.2f}x); index construction {b['indexes_s']:.1f} s vs "
                  f"{a['indexes_s']:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["build", "measure", "ask", "client"])
    parser.add_argument("--sizes", default="2000,10000,100000")
    parser.add_argument("--root", default=".graphrag-bench/startup")
    parser.add_argument("--variants", default="aof,rewritten",
                        help="cold starts: as built (aof), after a rewrite (rewritten), starting a kept server "
                             "that the warm attach reuses (kept, last)")
    parser.add_argument("--relations", choices=["facts", "pairs"], default="facts",
                        help="build: co-mentions as one fact node per sentence (this release) or one relation per "
                             "entity pair (the previous release's writer, the baseline)")
    parser.add_argument("--questions", type=int, default=100, help="ask mode: planted questions per size")
    parser.add_argument("--data-dir", help="client mode: the data folder")
    parser.add_argument("--question", default="", help="client mode: the question")
    args = parser.parse_args()
    if args.mode == "client":
        print(json.dumps(asyncio.run(client(Path(args.data_dir), args.question))))
        return
    sizes = sorted(int(s) for s in args.sizes.split(","))
    root = Path(args.root).resolve()
    root.mkdir(parents=True, exist_ok=True)
    if args.mode == "build":
        asyncio.run(build(root, sizes, grouped=args.relations == "facts"))
    elif args.mode == "ask":
        for size in sizes:
            print(f"{size:,} chunks: {json.dumps(asyncio.run(ask(root, size, args.questions)))}", flush=True)
    else:
        measure(root, sizes, args.variants.split(","))


if __name__ == "__main__":
    main()
