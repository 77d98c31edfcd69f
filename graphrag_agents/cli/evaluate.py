"""``graphrag-agents eval``: its flags and its handler (``commands`` only registers them)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..evaluation.runner import EvalOptions, parse_ks, run_eval
from ..models.langchain_model import configured_model_name
from .agent_options import add_drafting_arguments, agent_options

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``eval`` flags (``--url``, ``--graph`` and ``--data-dir`` come from the common ones)."""
    parser.epilog = ("Here --graph defaults to eval-<corpus digest>-<extractor> and --data-dir to <out>/falkordb: the "
                     "graph is built once and reused while the corpus and the extractor stay the same.")
    parser.add_argument("questions", type=Path, help="questions JSONL (format of shared/eval/)")
    parser.add_argument("corpus", type=Path, help="corpus JSONL: one paragraph a line (id, title, text)")
    parser.add_argument("--extractor", default="ner", choices=["ner", "llm"],
                        help="entity extractor used to build the graph (llm needs a model)")
    parser.add_argument("--k", default="5,10", help="cut-offs of recall@k, comma-separated (default 5,10)")
    parser.add_argument("--limit", type=int, help="only the first N questions")
    parser.add_argument("--out", type=Path, default=Path("eval-out"),
                        help="folder of records and reports; a rerun keeps finished questions (default eval-out)")
    parser.add_argument("--model", help="litellm model name of the reference agent (default: GRAPHRAG_MODEL; "
                                        "without one, only retrieval is evaluated)")
    parser.add_argument("--no-agent", action="store_true", help="evaluate retrieval only, even with a model set")
    parser.add_argument("--agent-mode", default="auto", choices=["auto", "retrieve_first", "tools"],
                        help="retrieve_first suits small local models; tools lets the model call the tools; auto "
                             "(default) picks tools for a model litellm lists with native tool calling, else "
                             "retrieve_first")
    parser.add_argument("--max-tokens", type=int, default=256, help="cap on each answer the model writes")
    add_drafting_arguments(parser)
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bars")


async def run(args: argparse.Namespace) -> int:
    """Run the evaluation and print the summary table and where the reports are."""
    model = None if args.no_agent else (args.model or configured_model_name())
    options = EvalOptions(
        out=args.out, extractor=args.extractor, ks=parse_ks(args.k), limit=args.limit,
        data_dir=Path(args.data_dir) if args.data_dir else None, url=args.url, graph=args.graph, model=model,
        agent_mode=args.agent_mode, max_tokens=args.max_tokens, agent=agent_options(args),
        progress=False if args.quiet else None,
    )
    if options.limit is not None and options.limit < 1:
        print("error: --limit must be at least 1", file=sys.stderr)
        return 2
    result = await run_eval(args.questions, args.corpus, options)
    print(f"{result.asked} questions evaluated, {result.reused} kept from an earlier run "
          f"({'graph reused' if result.build.reused else 'graph built'}: {result.build.graph})\n")
    md = result.files.get("summary_md")
    if md is not None:
        print(md.read_text(encoding="utf-8"))
    for key, path in result.files.items():
        print(f"{key}: {path}")
    return 0
