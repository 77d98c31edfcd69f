"""``min_confidence``: the model's own probability of its short answer must reach the threshold."""

from __future__ import annotations

from ..drafting import StructuredDraft
from ..gate import Verdict
from .base import CheckContext, Rejection


async def confident(context: CheckContext, draft: StructuredDraft, verdict: Verdict) -> Rejection | None:
    """Under ``min_confidence`` (read from the drafting reply) is the ``low_confidence`` refusal."""
    threshold = context.options.min_confidence
    if threshold is None or (context.state.get("confidence") or 0.0) >= threshold:
        return None
    return Rejection("low_confidence")
