"""The chain check of ``tools`` mode: the hops a tool-calling model reports with its structured final answer.

The system prompt (:data:`~graphrag_agents.agent.prompts.TOOLS_SYSTEM_PROMPT`) asks the model to walk a
multi-hop question with one ``retrieve`` per hop, and the structured final turn
(:data:`~graphrag_agents.agent.prompts.FINAL_ANSWER_PROMPT`) asks for the hops it walked beside its answer:
``"hops": [{"question": ..., "answer": ..., "evidence": [n]}, ...]``. :func:`check_tools_chain` checks them as
the hop chain of ``retrieve_first`` is checked (:func:`~graphrag_agents.agent.hops.check.check_hop`: one cited
sentence states each hop's subject, the earlier answer, and its answer together), requires the chain to end in
the final answer, and applies the bridge rule to it. A reply without hops is a one-hop answer, checked as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ...tools.toolkit import GraphRAGToolkit
from ..drafting import StructuredDraft, _ints, first_json_object
from ..fit.bridge import bridge_problem
from ..fit.names import words
from ..gate import AcceptRule
from .check import HopStep, MissingHop, check_hop, hop_subject
from .plan import MAX_HOPS

__all__ = ["ToolsChain", "check_tools_chain", "reported_hops"]


@dataclass
class ToolsChain:
    """What the check found: the checked chain, or the hop that failed, or a bridge finding."""

    chain: list[HopStep] = field(default_factory=list)
    missing: MissingHop | None = None
    bridge: str | None = None


def reported_hops(reply: str) -> list[StructuredDraft] | None:
    """The hops of a structured final reply as (question in ``answer``'s place is not needed) drafts, each with its
    question kept beside it; None when the reply reports none (or more than :data:`MAX_HOPS`)."""
    value = first_json_object(reply)
    hops = value.get("hops") if value is not None else None
    if not isinstance(hops, list) or not hops or len(hops) > MAX_HOPS:
        return None
    drafts = [StructuredDraft(answer=" ".join(str(h.get("answer", "")).split()), evidence=_ints(h.get("evidence")))
              for h in hops if isinstance(h, dict)]
    return drafts if len(drafts) == len(hops) else None


def _questions(reply: str) -> list[str]:
    value = first_json_object(reply) or {}
    return [" ".join(str(h.get("question", "")).split()) for h in value.get("hops") or [] if isinstance(h, dict)]


async def check_tools_chain(question: str, reply: str, final: StructuredDraft, session: GraphRAGToolkit,
                            issued: Sequence[int], accept: AcceptRule) -> ToolsChain | None:
    """Check the hops ``reply`` reports (None when it reports none): each hop cited by one sentence stating its
    subject and answer, the last hop's answer the final one, and the final answer not a bridge entity.
    ``issued``: the evidence numbers the run's tools issued."""
    hops = reported_hops(reply)
    if hops is None:
        return None
    questions = _questions(reply)
    chain: list[HopStep] = []
    for i, (hop, hop_question) in enumerate(zip(hops, questions, strict=True)):
        subject = chain[-1]["answer"] if chain else hop_subject("", hop_question, [])
        n, _ = (await check_hop(hop, subject, session, issued, accept, question=hop_question) if hop.answer
                else (None, None))
        if n is None:
            return ToolsChain(chain, MissingHop(index=i + 1, question=hop_question,
                                                reason=f"no cited sentence states {subject or 'it'} and "
                                                       f"{hop.answer!r} together"))
        chain.append(HopStep(index=i + 1, question=hop_question, subject=subject, answer=hop.answer, evidence=[n]))
    if words(chain[-1]["answer"]) != words(final.answer):
        return ToolsChain(chain, MissingHop(index=len(chain), question=chain[-1]["question"],
                                            reason=f"the chain ends in {chain[-1]['answer']!r}, not the answer "
                                                   f"{final.answer!r}"))
    bridges = [b for b in [chain[0]["subject"], *(step["answer"] for step in chain[:-1])] if b]
    problem = bridge_problem(question, final.answer, bridges)
    return ToolsChain(chain, None, problem.detail if problem else None)
