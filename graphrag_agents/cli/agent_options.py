"""The command-line options of the reference agent, shared by ``ask`` and ``eval``, and the
:class:`~graphrag_agents.agent.AgentOptions` they make.

Imports nothing heavy (``AgentOptions`` needs no LangChain): the CLI builds its parsers before it knows whether the
agent will run.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..agent.options import AgentOptions

__all__ = ["add_drafting_arguments", "agent_options"]


def add_drafting_arguments(parser: argparse.ArgumentParser) -> None:
    """``--repair-citations``, ``--drafting``, ``--no-answer-fit``, ``--confirm``, ``--supporting-sentence``,
    ``--min-confidence``, ``--no-hops`` and ``--choice-check`` / ``--no-choice-check``."""
    parser.add_argument("--repair-citations", action="store_true",
                        help="cite the evidence the check suggests when a draft lacks it")
    parser.add_argument("--drafting", choices=["structured", "text"], default=None,
                        help="structured: a JSON short answer + evidence numbers, rendered and checked; text: "
                             "cited sentences (default: structured in retrieve_first, text in tools)")
    parser.add_argument("--no-answer-fit", action="store_true",
                        help="serve a structured answer that passes the citation check even when it does not fit "
                             "the question (echoes it, one side of a comparison, unrelated evidence)")
    parser.add_argument("--confirm", action="store_true",
                        help="before serving a structured answer, ask the model whether its cited evidence states "
                             "it (one more call per answer; no is the refusal)")
    parser.add_argument("--supporting-sentence", action="store_true",
                        help="structured drafting asks for the evidence sentence that states the answer first")
    parser.add_argument("--min-confidence", type=_probability, default=None, metavar="P",
                        help="refuse a structured answer the model gave a probability under P (0-1; needs a model "
                             "that returns log-probabilities)")
    parser.add_argument("--no-hops", action="store_true",
                        help="retrieve_first: answer every question from one retrieve (the previous default), not "
                             "a multi-hop question as a chain of checked hops")
    parser.add_argument("--choice-check", action=argparse.BooleanOptionalAction, default=False,
                        help="retrieve_first: before serving a checked answer, ask the model to pick it again among "
                             "alternatives from its evidence; another pick is the refusal (default: off)")


def agent_options(args: argparse.Namespace, **fields: Any) -> AgentOptions:
    """The :class:`AgentOptions` of the flags :func:`add_drafting_arguments` parsed, with ``fields`` (the options
    a command takes from its own flags, such as ``min_score``) set too."""
    return AgentOptions(repair_citations=args.repair_citations, drafting=args.drafting,
                        answer_fit=not args.no_answer_fit, confirm=args.confirm,
                        supporting_sentence=args.supporting_sentence, min_confidence=args.min_confidence,
                        hops=not args.no_hops, choice_check=args.choice_check, **fields)


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a probability from 0 to 1, not {text!r}")
    return value
