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
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale_bench import CORPUS, grow
from synthetic_corpus import LookupEmbedder, Source, base_vectors

from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder

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


async def build(root: Path, sizes: list[int]) -> None:
    """Grow the graph to each size in ``ROOT/work`` and copy it to ``ROOT/chunks-N`` (sizes already built skip)."""
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
            write_s, finalize_s, _ = await grow(kg, source, lookup, vectors, SEED, done, size, ALPHA)
            status = await kg.status()
        (work / "BUILT_UPTO").write_text(str(size))
        _copy_folder(work, size_dir(root, size))
        print(f"{size:,} chunks built ({status.chunks:,} chunks, {status.entities:,} entities, "
              f"{status.relations:,} relations): write {write_s:.0f} s, finalize {finalize_s:.0f} s, "
              f"{time.perf_counter() - started:.0f} s in all", flush=True)
        done = size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["build", "measure"])
    parser.add_argument("--sizes", default="2000,10000,100000")
    parser.add_argument("--root", default=".graphrag-bench/startup")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    root = Path(args.root).resolve()
    root.mkdir(parents=True, exist_ok=True)
    if args.mode == "build":
        asyncio.run(build(root, sizes))


if __name__ == "__main__":
    main()
