"""``tools`` mode: the hops a tool-calling model reports are checked like ``retrieve_first``'s chain
(:mod:`~graphrag_agents.agent.hops.tools_chain`)."""

from __future__ import annotations

from ..drafting import StructuredDraft
from ..gate import Verdict
from ..hops.check import chain_text
from ..hops.tools_chain import check_tools_chain
from .base import CheckContext, Rejection


async def reported_chain(context: CheckContext, draft: StructuredDraft, verdict: Verdict) -> Rejection | None:
    """A reported hop no cited sentence states is ``missing_hop``, a bridge answer ``off_question``; a checked
    chain of two hops or more is served with the answer."""
    if context.nodes.mode != "tools":
        return None
    state = context.state
    issued = [n for call in state.get("tool_calls") or [] for n in call["evidence"]]
    walked = await check_tools_chain(state["question"], context.text, draft, context.session(), issued,
                                     context.options.accept)
    if walked is None:
        return None
    if walked.missing is not None:
        context.update.update(missing_hop=walked.missing, chain=walked.chain)
        return Rejection("missing_hop")
    if walked.bridge is not None:
        context.update["fit"] = [walked.bridge]
        return Rejection("off_question")
    if len(walked.chain) > 1:
        context.update["chain"] = walked.chain
        context.served = f"{verdict.answer.rstrip('.')} ({chain_text(walked.chain)})."
        context.chained = True
    return None
