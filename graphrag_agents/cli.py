"""The ``graphrag-agents`` command line (and ``graphrag-mcp``).

Every command works on the embedded FalkorDB in ``./.graphrag`` unless FALKOR_URL / FALKOR_HOST (or ``--url``)
names another server; ``--graph`` (or GRAPHRAG_GRAPH) picks the graph.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Coroutine, Sequence
from importlib import resources
from typing import Any

from .errors import GraphRAGError
from .kg import KnowledgeGraph

__all__ = ["main", "mcp_main"]

Handler = Callable[[argparse.Namespace], Coroutine[Any, Any, int]]


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="FalkorDB URL (default: FALKOR_URL / FALKOR_HOST, else embedded)")
    parser.add_argument("--graph", help="graph name (default: GRAPHRAG_GRAPH or 'default')")
    parser.add_argument("--data-dir", help="embedded FalkorDB folder (default: GRAPHRAG_HOME or ./.graphrag)")


async def _open(args: argparse.Namespace) -> KnowledgeGraph:
    return await KnowledgeGraph.open(url=args.url, graph=args.graph, data_dir=args.data_dir)


def _print_status(status: Any) -> None:
    print(f"graph {status.graph}: {status.documents} documents, {status.chunks} chunks, "
          f"{status.entities} entities, {status.relations} relations")
    if status.entity_labels:
        print("  entity labels: " + ", ".join(f"{k} {v}" for k, v in status.entity_labels.items()))
    if status.relation_types:
        print("  relation types: " + ", ".join(f"{k} {v}" for k, v in list(status.relation_types.items())[:12]))
    if status.unembedded:
        print(f"  {status.unembedded} items wait for `graphrag-agents finalize`")


async def _status(args: argparse.Namespace) -> int:
    async with await _open(args) as kg:
        _print_status(await kg.status())
    return 0


async def _finalize(args: argparse.Namespace) -> int:
    async with await _open(args) as kg:
        report = await kg.finalize()
        e = report.embedded
        print(f"embedded {e.chunks} chunks, {e.entities} entities, {e.facts} facts")
        _print_status(report.status)
    return 0


async def _retrieve(args: argparse.Namespace) -> int:
    async with await _open(args) as kg:
        hits = await kg.retrieve(args.question, top_k=args.top_k)
        if args.json:
            print(json.dumps([{"document_id": h.document_id, "title": h.title, "score": round(h.score, 4),
                               "text": h.text} for h in hits.passages], ensure_ascii=False, indent=2))
            return 0
        for i, hit in enumerate(hits.passages, 1):
            print(f"[{i}] {hit.title} (score {hit.score:.3f})\n    {hit.text[:300]}")
    return 0


def _demo_corpus() -> list[dict[str, str]]:
    text = resources.files("graphrag_agents.data").joinpath("demo_corpus.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _demo_question() -> str:
    text = resources.files("graphrag_agents.data").joinpath("demo_questions.jsonl").read_text(encoding="utf-8")
    return str(json.loads(text.splitlines()[0])["question"])


async def _demo(args: argparse.Namespace) -> int:
    args.graph = args.graph or "demo"
    async with await _open(args) as kg:
        print(f"Building graph '{kg.name}' on {kg.store.location} from {len(_demo_corpus())} bundled paragraphs "
              "(HotpotQA, CC BY-SA 4.0)...")
        for row in _demo_corpus():
            await kg.ingest(text=row["text"], document_id=row["id"], title=row["title"])
        await kg.finalize()
        _print_status(await kg.status())
        question = args.question or _demo_question()
        print(f"\nQuestion: {question}\n")
        hits = await kg.retrieve(question, top_k=5)
        for i, hit in enumerate(hits.passages, 1):
            print(f"[{i}] {hit.title} (score {hit.score:.3f})\n    {hit.text[:300]}")
    return 0


def _parser() -> tuple[argparse.ArgumentParser, dict[str, Handler]]:
    parser = argparse.ArgumentParser(prog="graphrag-agents", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    handlers: dict[str, Handler] = {}

    def command(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        _common(p)
        handlers[name] = handler
        return p

    command("status", _status, "counts of documents, chunks, entities and relations")
    command("finalize", _finalize, "embed and index everything ingested")
    p = command("retrieve", _retrieve, "search the graph for a question")
    p.add_argument("question")
    p.add_argument("--top-k", type=int, default=10)
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p = command("demo", _demo, "build a small bundled graph and answer a multi-hop question from it")
    p.add_argument("question", nargs="?", help="ask this instead of the bundled question")
    return parser, handlers


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``graphrag-agents``."""
    parser, handlers = _parser()
    args = parser.parse_args(argv)
    try:
        return asyncio.run(handlers[args.command](args))
    except GraphRAGError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def mcp_main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``graphrag-mcp`` (the MCP server)."""
    from .adapters.mcp import main as serve

    return int(serve(argv))


if __name__ == "__main__":
    sys.exit(main())
