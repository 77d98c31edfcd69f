"""The ``graphrag-agents`` command line (and ``graphrag-mcp``).

Every command works on the embedded FalkorDB in ``./.graphrag`` unless FALKOR_URL / FALKOR_HOST (or ``--url``)
names another server; ``--graph`` (or GRAPHRAG_GRAPH) picks the graph.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Coroutine, Sequence
from importlib import resources
from typing import Any

from ..kg import KnowledgeGraph
from . import first_run, interrupt

__all__ = ["main", "mcp_main"]

Handler = Callable[[argparse.Namespace], Coroutine[Any, Any, int]]


_GRAPH_DEFAULTS = {"demo": "'demo'", "eval": "eval-<corpus digest>-<extractor>, see below", "graphs": None}
"""The --graph default a command's help names (None: the command takes no --graph)."""


def _common(parser: argparse.ArgumentParser, command: str = "") -> None:
    parser.add_argument("--url", help="FalkorDB URL (default: FALKOR_URL / FALKOR_HOST, else embedded)")
    graph_default = _GRAPH_DEFAULTS.get(command, "GRAPHRAG_GRAPH or 'default'")
    if graph_default is not None:
        parser.add_argument("--graph", help=f"graph name (default: {graph_default})")
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
    async with interrupt.watched(_open(args)) as kg:
        _print_status(await kg.status())
    return 0


async def _finalize(args: argparse.Namespace) -> int:
    async with interrupt.watched(_open(args)) as kg:
        report = await kg.finalize(progress=False if args.quiet else None, entity_vectors=args.entity_vectors,
                                   fact_vectors=args.fact_vectors)
        e = report.embedded
        # Both rules remove entities; naming only the first printed "merged 0" while the count fell by 21.
        merged = report.merged + report.relabelled
        print(f"merged {merged} duplicate {'entity' if merged == 1 else 'entities'} ({report.merged} Unknown into the "
              f"typed entity of the same name, {report.relabelled} typed differently in different sentences into "
              f"the type given most often); embedded {e.chunks} chunks, {e.entities} entities, {e.facts} facts in "
              f"{report.seconds:.1f} s")
        _print_status(report.status)
    return 0


def _files(paths: Sequence[str], recursive: bool) -> tuple[list[str], list[str], list[str]]:
    """The files to ingest under ``paths`` (folders need ``--recursive``), the problems found, and the files of
    the folders skipped for their suffix (hidden files and folders are skipped without a word)."""
    from pathlib import Path

    from ..ingest.loaders import SUPPORTED_SUFFIXES

    files: list[str] = []
    problems: list[str] = []
    skipped: list[str] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            files.append(raw)
        elif not recursive:
            problems.append(f"{raw} is a folder: pass --recursive to ingest the files under it")
        else:
            for found in sorted(f for f in path.rglob("*") if f.is_file()
                                and not any(part.startswith(".") for part in f.relative_to(path).parts)):
                (files if found.suffix.lower() in SUPPORTED_SUFFIXES else skipped).append(str(found))
    return files, problems, skipped


def _print_skipped(skipped: list[str]) -> None:
    from ..ingest.loaders import SUPPORTED_SUFFIXES

    if skipped:
        print(f"skipped {len(skipped)} file{'s' if len(skipped) != 1 else ''} of an unsupported type "
              f"({', '.join(skipped[:3])}{', ...' if len(skipped) > 3 else ''}); to include them, convert them to "
              f"{' '.join(sorted(SUPPORTED_SUFFIXES))}, or name a file with its path to see why it is refused",
              file=sys.stderr)


async def _ingest(args: argparse.Namespace) -> int:
    from ..ingest.plan import IngestPlan

    files, problems, skipped = _files(args.paths, args.recursive)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    _print_skipped(skipped)
    if not files:
        if not problems:
            from ..ingest.loaders import SUPPORTED_SUFFIXES

            print(f"error: no files to ingest under {', '.join(args.paths)}: none has a supported suffix "
                  f"({' '.join(sorted(SUPPORTED_SUFFIXES))}), or the folders are empty\nhint: convert the documents "
                  "to one of these formats, or point at another folder", file=sys.stderr)
        return 2
    plan = IngestPlan(chunker=args.chunker, extractor=args.extractor, resolver=args.resolver,
                      max_llm_pairs=args.max_llm_pairs)
    async with interrupt.watched(_open(args)) as kg:
        report = await kg.ingest(paths=files, plan=plan, reextract=args.reextract,
                                 progress=False if args.quiet else None)
        if args.json:
            print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
        else:
            unchanged = [d.document_id for d in report.documents if d.status == "unchanged"]
            for doc in report.documents:
                if doc.status == "failed" or (not args.quiet and doc.status != "unchanged"):
                    detail = f": {doc.reason}" if doc.reason else f" ({doc.chunks} chunks, {doc.entities} entities, " \
                                                                   f"{doc.relations} relations)"
                    print(f"{doc.status:12} {doc.document_id}{detail}")
            if unchanged and not args.quiet:  # one line, not one per file: a re-ingest of 600 files printed 600
                one = len(unchanged) == 1
                print(f"{'unchanged':12} {len(unchanged)} file{'' if one else 's'} already stored as "
                      f"{'it is' if one else 'they are'} ({', '.join(unchanged[:3])}"
                      f"{', ...' if len(unchanged) > 3 else ''}); --reextract extracts them again")
            counts = ", ".join(f"{n} {s}" for s, n in report.counts().items())
            print(f"{counts} in {report.seconds:.1f} s, {report.llm_calls} LLM calls")
            if report.hint:
                print(f"hint: {report.hint}")
            unembedded = (await kg.status()).unembedded if await kg.store.exists() else 0
            first_run.print_ingest_next(report, args.paths, args, kg.name, unembedded)
    return 1 if problems or any(d.status == "failed" for d in report.documents) else 0


async def _retrieve(args: argparse.Namespace) -> int:
    from ..tools.results import llm_text
    from ..tools.toolkit import GraphRAGToolkit

    async with interrupt.watched(_open(args)) as kg:
        toolkit = GraphRAGToolkit(kg, read_only=True)
        result = await toolkit.retrieve(args.question, top_k=args.top_k, expand_hops=args.expand_hops)
        print(result.model_dump_json(indent=2) if args.json else llm_text(result, args.max_chars))
        hint = await first_run.retrieve_hint(kg, args)
        if hint:
            print(f"hint: {hint}", file=sys.stderr)
    return 0


async def _entities(args: argparse.Namespace) -> int:
    async with interrupt.watched(_open(args)) as kg:
        await kg.require_exists()
        rows = await kg.store.ro_query(
            "MATCH (e:__Entity__) WHERE $label IS NULL OR e.label = $label "
            "OPTIONAL MATCH (e)-[m:MENTIONED_IN]->() "
            "RETURN e.name, e.label, count(m) AS mentions ORDER BY mentions DESC, e.name LIMIT $limit",
            {"label": args.label, "limit": args.limit},
        )
        if args.json:
            print(json.dumps([{"name": n, "label": lb, "mentions": m} for n, lb, m in rows], ensure_ascii=False))
            return 0
        for name, label, mentions in rows:
            print(f"{name}\t{label}\t{mentions} mentions")
    return 0


def _demo_corpus() -> list[dict[str, str]]:
    text = resources.files("graphrag_agents.data").joinpath("demo_corpus.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _demo_question() -> str:
    text = resources.files("graphrag_agents.data").joinpath("demo_questions.jsonl").read_text(encoding="utf-8")
    return str(json.loads(text.splitlines()[0])["question"])


async def _demo(args: argparse.Namespace) -> int:
    from ..ingest.plan import IngestPlan, SourceDocument
    from ..models.langchain_model import configured_model_name
    from ..tools.toolkit import GraphRAGToolkit
    from .ask import (
        altered_draft,
        extractive_draft,
        how_to_configure,
        print_check,
        print_evidence,
        run_agent,
    )

    args.graph = args.graph or "demo"
    extractor = first_run.demo_extractor(args.extractor, configured_model_name() is not None)
    async with interrupt.watched(_open(args)) as kg:
        print(f"Building graph '{kg.name}' on {kg.store.location} from {len(_demo_corpus())} bundled paragraphs "
              f"(HotpotQA, CC BY-SA 4.0), {extractor} extractor...")
        sources = [SourceDocument(row["id"], row["id"], text=row["text"], title=row["title"])
                   for row in _demo_corpus()]
        first_run.check_demo_ingest(await kg.ingest_documents(sources, IngestPlan(extractor=extractor),
                                                              progress=False))
        await kg.finalize(progress=False)
        _print_status(await kg.status())
        question = args.question or _demo_question()
        print(f"\nQuestion: {question}\n")
        session = GraphRAGToolkit(kg, read_only=True)
        found = await session.retrieve(question, **({"top_k": args.top_k} if args.top_k else {}))
        print(f"retrieve (vector + full-text + graph paths, no LLM) returned {len(found.evidence_numbers())} "
              "numbered evidence items:")
        print_evidence(found)
        draft = extractive_draft(found)
        if draft:
            print("\nExtractive draft (NOT an answer: the first sentence of the top passages, quoted with their [n], "
                  "to show the check):")
            print(f"  {draft}")
            print("check_citations on it (deterministic, no LLM):")
            print_check(await session.check_citations(draft))
            altered = altered_draft(draft)
            if altered:
                print("The same draft with its first figure changed, to show what the check catches:")
                print(f"  {altered}")
                print_check(await session.check_citations(altered))
        if configured_model_name() is None:
            print("\n" + how_to_configure())
            first_run.print_demo_next(kg, args)
            return 0
        print()
        code = await run_agent(session, question, args)
        first_run.print_demo_next(kg, args)
        return 0 if code == 1 else code  # an abstention is a result of the demo, not a failure


async def _ask(args: argparse.Namespace) -> int:
    from ..tools.toolkit import GraphRAGToolkit
    from .ask import run_agent

    async with interrupt.watched(_open(args)) as kg:
        await kg.require_exists()
        return await run_agent(GraphRAGToolkit(kg, read_only=True), args.question, args,
                               steps=sys.stderr if args.json or args.quiet else sys.stdout, as_json=args.json)


def _parser() -> tuple[argparse.ArgumentParser, dict[str, Handler]]:
    parser = argparse.ArgumentParser(prog="graphrag-agents", description=__doc__.replace("``", ""))
    parser.add_argument("--version", action="version", version=f"graphrag-agents {first_run.package_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    handlers: dict[str, Handler] = {}

    def command(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        _common(p, name)
        handlers[name] = handler
        return p

    command("status", _status, "counts of documents, chunks, entities and relations")
    first_run.add_graphs_arguments(command("graphs", first_run.run_graphs, "list the graphs in the data folder (or "
                                                                           "server), with their counts"))
    first_run.add_ontology_arguments(command("ontology", first_run.run_ontology, "show the declared entity and "
                                             "relation types, or declare more (--entity, --relation, --json)"))
    p = command("finalize", _finalize, "deduplicate, embed and index everything ingested")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    p.add_argument("--entity-vectors", choices=["shared", "all", "none"], default=None,
                   help="which entity cards get a vector: shared (entities mentioned in 2+ chunks; the others are "
                        "found by name), all (the previous release), none; default: the graph's last rule, else "
                        "shared")
    p.add_argument("--fact-vectors", choices=["all", "sentences", "typed", "none"], default=None,
                   help="which facts get a vector: all (a co-mention sentence read from its chunk's model run), "
                        "sentences (every fact embedded from its own sentence, the previous release), typed (typed "
                        "relations' facts; co-mention sentences are found through their chunks), none; default: the "
                        "graph's last rule, else all")
    p = command("ingest", _ingest, "add .txt .md .markdown .rst .pdf files (unchanged ones are skipped)")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, or folders with --recursive")
    p.add_argument("--recursive", "-r", action="store_true", help="ingest the supported files under folders")
    p.add_argument("--chunker", default="auto", choices=["auto", "sentence", "fixed", "structural"],
                   help="how documents are cut into chunks: auto (default; structural for .md / .rst files, sentence "
                        "for the rest), sentence (whole sentences up to a size), fixed (character windows) or "
                        "structural (Markdown / reST sections and paragraphs)")
    p.add_argument("--extractor", default="auto", choices=["auto", "ner", "llm", "none"],
                   help="auto: llm when GRAPHRAG_MODEL is set, else ner when spaCy is installed")
    p.add_argument("--resolver", default="exact", choices=["exact", "llm_verified"],
                   help="how entities are merged: exact (default; same normalised name and type) or llm_verified "
                        "(near-duplicates checked by the model, at most --max-llm-pairs per document)")
    p.add_argument("--max-llm-pairs", type=int, default=0, help="LLM pair checks per document (llm_verified)")
    p.add_argument("--reextract", action="store_true", help="extract unchanged files again")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars; print failures only")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p = command("retrieve", _retrieve, "search the graph for a question")
    p.add_argument("question")
    p.add_argument("--top-k", type=int, default=10, help="items per retrieve path (default 10)")
    p.add_argument("--expand-hops", type=int, default=1,
                   help="relation hops the links path follows from the entities found, 1-5 (default 1)")
    p.add_argument("--max-chars", type=int, default=None,
                   help="text budget of the printed evidence (default 4,400 for retrieve, 8,000 for the others)")
    p.add_argument("--json", action="store_true", help="print the typed result as JSON")
    p = command("entities", _entities, "list the entities the graph holds, most mentioned first")
    p.add_argument("--label", help="only entities of this type")
    p.add_argument("--limit", type=int, default=100)
    p.add_argument("--json", action="store_true", help="print JSON")
    from .ask import add_agent_arguments

    p = command("ask", _ask, "answer a question with the reference agent: cited and checked, or the refusal")
    p.add_argument("question")
    add_agent_arguments(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON (steps go to stderr)")
    p.add_argument("--quiet", "-q", action="store_true", help="steps go to stderr")
    p = command("demo", _demo, "build a small bundled graph and answer a multi-hop question from it")
    p.add_argument("question", nargs="?", help="ask this instead of the bundled question")
    p.add_argument("--extractor", default="auto", choices=["auto", "ner", "llm"],
                   help="auto: llm when GRAPHRAG_MODEL is set, else the offline ner extractor")
    add_agent_arguments(p)
    from . import mcp_command  # does not import the mcp package

    mcp_command.add_arguments(command("mcp", mcp_command.serve, "serve the graph tools over MCP (stdio, http or sse)"))
    from . import evaluate as _eval_cli

    _eval_cli.add_arguments(command("eval", _eval_cli.run, "measure retrieval (and the reference agent) on a "
                                                          "questions file and a corpus; resumable"))
    return parser, handlers


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``graphrag-agents``."""
    from .mcp_command import startup_error, startup_error_text  # imports no mcp

    parser, handlers = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    suggestion = suggest_option(parser, argv)
    if suggestion:
        parser.exit(2, f"{parser.prog}: error: {suggestion}\n")
    args = parser.parse_args(argv)
    try:
        code = interrupt.run(lambda: handlers[args.command](args))
        sys.stdout.flush()  # here, not at exit, so a closed pipe is caught below
        return code
    except BrokenPipeError:  # `graphrag-agents entities | head`: the reader has gone, which is not an error
        _silence_stdout()
        return 0
    except Exception as exc:
        error = startup_error(exc)  # also inside the task group of `mcp` over stdio
        if error is None:
            raise
        print(startup_error_text(error), file=sys.stderr)
        return 2


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush into the closed pipe raises nothing."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor behind stdout (captured in tests)
        pass


def suggest_option(parser: argparse.ArgumentParser, argv: Sequence[str]) -> str | None:
    """"unknown option --top_k; did you mean --top-k?" for a misspelled option of the command in ``argv``.

    argparse suggests only on Python 3.14 (``suggest_on_error``) and only for choices; this uses difflib on every
    version, against the options of the command named (or the program's own).
    """
    import difflib

    options = {s for a in parser._actions for s in a.option_strings}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = next((w for w in argv if w in action.choices), None)
            if chosen is not None:
                options |= {s for a in action.choices[chosen]._actions for s in a.option_strings}
    for word in argv:
        if word == "--":
            break
        flag = word.split("=", 1)[0]
        if not flag.startswith("--") or flag in options or any(o.startswith(flag) for o in options):
            continue  # argparse itself accepts unique prefixes
        close = difflib.get_close_matches(flag, sorted(options), n=1, cutoff=0.6)
        return f"unknown option {flag}" + (f"; did you mean {close[0]}?" if close else "; see --help")
    return None


def mcp_main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``graphrag-mcp`` (the MCP server): :func:`.mcp_command.main`."""
    from .mcp_command import main as serve

    return serve(argv)


if __name__ == "__main__":
    sys.exit(main())
