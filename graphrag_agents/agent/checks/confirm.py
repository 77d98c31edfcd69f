"""``confirm``: the model, shown only the question, its answer and the items it cited, says whether they state it."""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage

from ..confirm import CONFIRM_SYSTEM_PROMPT, confirm_prompt, parse_confirm
from ..drafting import StructuredDraft
from ..gate import Verdict
from ..state import add_usage
from .base import CheckContext, Rejection


async def confirmed(context: CheckContext, draft: StructuredDraft, verdict: Verdict) -> Rejection | None:
    """One call; no (or an unreadable reply) is the ``not_confirmed`` refusal."""
    if not context.options.confirm:
        return None
    state = context.current()
    items = context.cited_items(verdict.check.cited)
    prompt = [SystemMessage(CONFIRM_SYSTEM_PROMPT),
              HumanMessage(confirm_prompt(state["question"], draft.answer, items))]
    response = await context.nodes.confirmer.ainvoke(prompt, context.config)
    yes = parse_confirm(response.text) is True
    context.update.update(llm_calls=state.get("llm_calls", 0) + 1, tokens=add_usage(state.get("tokens"), response),
                          confirmed=yes)
    return None if yes else Rejection("not_confirmed")
