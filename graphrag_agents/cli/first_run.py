"""The command line's first-run help: the ``graphs`` and ``ontology`` commands, ``--version``, and the checks and
next-step lines that keep ``demo``, ``ingest`` and ``retrieve`` from failing silently.

Kept apart from ``commands`` so the commands there stay one short handler each.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any, Literal

from .._install import pip_extra
from ..errors import ConfigurationError, EmbeddingMismatch, ToolError

if TYPE_CHECKING:
    from ..ingest.report import IngestReport
    from ..kg import KnowledgeGraph

__all__ = [
    "add_graphs_arguments",
    "add_ontology_arguments",
    "demo_extractor",
    "graph_flags",
    "model_down_hint",
    "package_version",
    "print_demo_next",
    "print_ingest_next",
    "retrieve_hint",
    "run_graphs",
    "run_ontology",
]

FULL_INSTALL = pip_extra("all")


def package_version() -> str:
    """The installed distribution's version ("0+unknown" when running from a bare source tree)."""
    try:
        return version("graphrag-agents")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without metadata
        return "0+unknown"


def graph_flags(args: argparse.Namespace, graph: str) -> str:
    """The flags that point a follow-up command at the same graph and store as ``args``."""
    flags = [] if graph == (os.environ.get("GRAPHRAG_GRAPH") or "default") else ["--graph", graph]
    if getattr(args, "url", None):
        flags += ["--url", "$FALKOR_URL" if "@" in args.url else args.url]  # never echo a password
    if getattr(args, "data_dir", None):
        flags += ["--data-dir", args.data_dir]
    return " ".join(f if f.startswith("$") else shlex.quote(f) for f in flags)


def model_down_hint() -> str:
    """The hint under a failed chat-model call: where the model was looked for, and what works without it."""
    from .._secrets import mask_secrets
    from ..models.langchain_model import configured_model_name

    base = os.environ.get("GRAPHRAG_API_BASE") or os.environ.get("OPENAI_API_BASE")
    where = f"the server at {mask_secrets(base)} (GRAPHRAG_API_BASE / OPENAI_API_BASE)" if base else "its provider"
    return (f"check that the model {configured_model_name() or '(GRAPHRAG_MODEL unset)'} is up at {where} and its "
            "API key is set; retrieve and check_citations need no model: graphrag-agents retrieve \"your question\"")


# -- demo --------------------------------------------------------------------------------------------------------


def demo_extractor(requested: str, model_configured: bool) -> Literal["ner", "llm", "none"]:
    """The demo's extractor: ``llm`` with a model, else the offline ``ner`` one, else (no spaCy) passages only.

    Raises:
        ConfigurationError: ``ner`` was asked for explicitly and spaCy is not installed.
    """
    from ..ingest.extract_ner import spacy_available

    if requested == "llm" or (requested == "auto" and model_configured):
        return "llm"
    if spacy_available():
        return "ner"
    if requested == "ner":
        raise ConfigurationError(f"The ner extractor needs spaCy and its English model, which are not installed. "
                                 f"Fix: {FULL_INSTALL}, or set GRAPHRAG_MODEL and use --extractor llm.")
    print(f"note: spaCy (the offline extractor) is not installed, so the demo graph gets passages only: no "
          f"entities, relations or facts. For the full demo: {FULL_INSTALL}.", file=sys.stderr)
    return "none"


def print_demo_next(kg: KnowledgeGraph, args: argparse.Namespace) -> None:
    """Where the demo graph is and the commands that use it next."""
    flags = graph_flags(args, kg.name)
    store = graph_flags(args, os.environ.get("GRAPHRAG_GRAPH") or "default")  # the store flags, no --graph
    print(f"\nThe demo graph is '{kg.name}' in {kg.store.address.describe()}. Next:")
    for command, why in ((f'graphrag-agents retrieve "your question" {flags}', "numbered evidence"),
                         (f'graphrag-agents ask "your question" {flags}', "the grounded agent; needs GRAPHRAG_MODEL"),
                         (f"graphrag-mcp {flags}", "serve it to an MCP client, read-only"),
                         (f"graphrag-agents graphs {store}", "every graph there")):
        print(f"  {' '.join(command.split())}    ({why})")


def check_demo_ingest(report: IngestReport) -> None:
    """Raise when the demo's ingest failed, instead of going on with an empty graph."""
    failed = [d for d in report.documents if d.status == "failed"]
    if failed:
        raise ConfigurationError(f"The demo could not ingest {len(failed)} of {len(report.documents)} paragraphs, "
                                 f"e.g. {failed[0].document_id}: {failed[0].reason}. Fix: {FULL_INSTALL}.")


# -- ingest and retrieve -------------------------------------------------------------------------------------


def ingest_again(paths: Sequence[str], args: argparse.Namespace, graph: str, *extra: str) -> str:
    """The ``ingest`` command that repeats this one (same paths, ``-r`` and plan options, same graph) plus ``extra``."""
    words = ["graphrag-agents", "ingest", *paths]
    if getattr(args, "recursive", False):
        words.append("-r")  # without it a folder is refused
    for option, default in (("chunker", "auto"), ("extractor", "auto"), ("resolver", "exact")):
        value = getattr(args, option, default)
        if value not in (None, default):
            words += [f"--{option}", value]
    words += extra
    return " ".join(shlex.quote(w) for w in words) + (f" {graph_flags(args, graph)}".rstrip())


def print_ingest_next(report: IngestReport, paths: Sequence[str], args: argparse.Namespace, graph: str,
                      unembedded: int = 0) -> None:
    """The line after an ingest, from the graph's state: finalize when anything waits for it, else what to fix."""
    flags = graph_flags(args, graph)
    statuses = [d.status for d in report.documents]
    call = report.pruned.set_ontology_call if not report.pruned.empty else None
    if call and (call.get("entities") or call.get("relations")):
        print(f"from the command line: graphrag-agents ontology --json {shlex.quote(json.dumps(call))} {flags}"
              .rstrip() + f", then {ingest_again(paths, args, graph, '--reextract')}")
    if statuses and all(s == "failed" for s in statuses):
        print("next: nothing was written; fix the failures above, then run the same ingest again")
    elif any(s in ("ingested", "updated", "reextracted") for s in statuses) or unembedded:
        waiting = "" if any(s != "unchanged" for s in statuses) else \
            f"nothing changed, but {unembedded:,} items of earlier ingests wait for it; "
        print(f"next: {waiting}graphrag-agents finalize {flags}".rstrip())
    else:
        print("next: nothing changed; graphrag-agents retrieve \"your question\" " + flags)


async def retrieve_hint(kg: KnowledgeGraph, args: argparse.Namespace) -> str | None:
    """The hint for a retrieve on a graph with items not yet embedded (ingested, not finalized)."""
    status = await kg.status()
    if not status.unembedded:
        return None
    return (f"{status.unembedded} ingested items are not embedded yet, so retrieve cannot find them by meaning. "
            f"Run: graphrag-agents finalize {graph_flags(args, kg.name)}".rstrip())


# -- graphs ------------------------------------------------------------------------------------------------------


def add_graphs_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``graphrag-agents graphs``."""
    parser.add_argument("--json", action="store_true", help="print JSON")


async def run_graphs(args: argparse.Namespace) -> int:
    """List every graph of the data folder or server, with its counts."""
    from ..kg import KnowledgeGraph
    from ..store.connection import resolve_address

    address = resolve_address(args.url, args.data_dir)
    if address.embedded and not os.path.isdir(address.data_dir or ".graphrag"):
        print(f"No graphs: there is no data folder at {os.path.abspath(address.data_dir or '.graphrag')}.\n"
              "hint: build one with graphrag-agents demo, or graphrag-agents ingest PATH... then finalize; or point "
              "--data-dir (GRAPHRAG_HOME) or --url at where your graphs are.", file=sys.stderr)
        return 1
    rows: list[dict[str, Any]] = []
    async with await KnowledgeGraph.open(url=args.url, graph=getattr(args, "graph", None),
                                         data_dir=args.data_dir) as kg:
        for name in await kg.store.graph_names():
            row: dict[str, Any] = {"graph": name}
            try:
                async with await KnowledgeGraph.open(url=args.url, graph=name, data_dir=args.data_dir,
                                                     embedder=kg.embedder) as other:
                    status = await other.status()
                row |= {"documents": status.documents, "chunks": status.chunks, "entities": status.entities,
                        "relations": status.relations, "unembedded": status.unembedded}
            except EmbeddingMismatch as exc:
                row["error"] = str(exc).split(". ")[0]
            rows.append(row)
        where = kg.store.address.describe()
    if args.json:
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    if not rows:
        print(f"No graphs in {where} yet: graphrag-agents demo, or graphrag-agents ingest PATH... then finalize.")
        return 0
    print(f"{len(rows)} graph{'s' if len(rows) != 1 else ''} in {where}:")
    for row in rows:
        if "error" in row:
            print(f"  {row['graph']}: {row['error']}")
            continue
        waiting = f", {row['unembedded']} waiting for finalize" if row["unembedded"] else ""
        print(f"  {row['graph']}: {row['documents']} documents, {row['chunks']} chunks, {row['entities']} entities, "
              f"{row['relations']} relations{waiting}")
    print("Use one with --graph NAME (or GRAPHRAG_GRAPH=NAME).")
    return 0


# -- ontology ----------------------------------------------------------------------------------------------------


def add_ontology_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``graphrag-agents ontology``."""
    parser.add_argument("--entity", action="append", default=[], metavar="LABEL[:DESCRIPTION]",
                        help="declare an entity type (repeatable)")
    parser.add_argument("--relation", action="append", default=[], metavar="LABEL:SOURCE->TARGET[,S2->T2]",
                        help="declare a relation type with the entity types it links (repeatable)")
    parser.add_argument("--json", dest="ontology_json", metavar="JSON",
                        help='declare {"entities": [...], "relations": [...]}, e.g. the call an ingest hint prints')


def _entity(spec: str) -> dict[str, str]:
    label, _, description = spec.partition(":")
    return {"label": label.strip(), "description": description.strip()}


def _relation(spec: str) -> dict[str, Any]:
    label, _, pairs = spec.partition(":")
    patterns = []
    for pair in filter(None, (p.strip() for p in pairs.split(","))):
        source, arrow, target = pair.partition("->")
        if not arrow:
            raise ToolError(f"Bad relation pattern {pair!r} in --relation {spec!r}.",
                            "Write patterns as SOURCE->TARGET, e.g. --relation WORKS_AT:Person->Company.")
        patterns.append([source.strip(), target.strip()])
    return {"label": label.strip(), "patterns": patterns}


async def run_ontology(args: argparse.Namespace) -> int:
    """Show the declared ontology, or extend it (additive only) with --entity / --relation / --json."""
    from ..kg import KnowledgeGraph

    entities = [_entity(e) for e in args.entity]
    relations = [_relation(r) for r in args.relation]
    if args.ontology_json:
        try:
            given = json.loads(args.ontology_json)
        except json.JSONDecodeError as exc:
            raise ToolError(f"--json is not valid JSON ({exc.msg}).",
                            'Pass {"entities": [...], "relations": [...]} in single quotes.') from exc
        entities += list(given.get("entities", [])) if isinstance(given, dict) else []
        relations += list(given.get("relations", [])) if isinstance(given, dict) else []
    async with await KnowledgeGraph.open(url=args.url, graph=args.graph, data_dir=args.data_dir) as kg:
        if entities or relations:
            ontology, changes = await kg.set_ontology(entities=entities, relations=relations)
            added = [*changes.added_entities, *changes.added_relations,
                     *(f"{r} pattern {s}->{t}" for r, s, t in changes.added_patterns),
                     *(f"{label}.{prop}" for label, prop in changes.added_properties)]
            print(f"declared {', '.join(added) if added else 'nothing new'} in graph '{kg.name}'")
            if added:
                print(f"next: graphrag-agents ingest PATH... -r --reextract {graph_flags(args, kg.name)}".rstrip()
                      + "  (extract the documents again with the new types; -r for folders)")
        else:
            ontology = await kg.get_ontology()
        if not ontology.entities and not ontology.relations:
            print(f"graph '{kg.name}' declares no ontology yet (ingest uses the default types until it does)")
            return 0
        print("entity types: " + ", ".join(e.label for e in ontology.entities))
        for relation in ontology.relations:
            pairs = ", ".join(f"{s}->{t}" for s, t in relation.patterns) or "any types"
            print(f"relation {relation.label}: {pairs}")
    return 0
