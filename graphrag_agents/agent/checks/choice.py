"""``choice_check``: the model picks its answer again among alternatives from its cited evidence
(:mod:`~graphrag_agents.agent.choice`)."""

from __future__ import annotations

from ..choice import choose
from ..drafting import StructuredDraft
from ..fit.sides import choice_options as choice_sides
from ..gate import Verdict
from .base import CheckContext, Rejection


async def chosen(context: CheckContext, draft: StructuredDraft, verdict: Verdict) -> Rejection | None:
    """Another pick is the ``not_chosen`` refusal; no call when there is no alternative to show."""
    if not context.options.choice_check:
        return None
    question = context.state["question"]
    sides = [side.text for side in choice_sides(question)]
    picked, usage = await choose(context.nodes.model, context.current(), question, draft.answer,
                                 context.cited_items(verdict.check.cited), sides, context.config)
    context.update.update(usage)
    return Rejection("not_chosen") if picked is False else None
