"""The confirmation turn: one short structured call asking the model whether its cited evidence answers the question.

A structured draft that passed the citation check and the answer-fit rules says *something the evidence states*;
whether that is the answer to *this* question is a judgement the deterministic rules cannot make (a wrong year
from the right passage, the manager instead of his successor). With ``confirm=True`` the agent shows the model only
the question, the short answer and the items it cited, and asks ``{"supported": true | false}`` through the same
structured output as the draft; ``false`` (or no readable reply) ends in the fixed refusal
(``abstain_reason="not_confirmed"``). It costs one call of a few hundred tokens per served answer. Measured in
``docs/agent.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..evidence.render import shorten
from .drafting import first_json_object

__all__ = ["CONFIRM_SCHEMA", "CONFIRM_SYSTEM_PROMPT", "confirm_prompt", "confirm_response_format", "parse_confirm"]

CONFIRM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"supported": {"type": "boolean",
                                 "description": "whether the evidence states that this is the answer"}},
    "required": ["supported"],
    "additionalProperties": False,
}
"""The JSON Schema of the confirmation reply."""

CONFIRM_SYSTEM_PROMPT = """\
You check answers against evidence. Reply in JSON: {"supported": true} when the evidence states that the \
proposed answer answers the question exactly as asked, else {"supported": false}."""

_ITEM_CHARS = 900


def confirm_response_format() -> dict[str, Any]:
    """The ``response_format`` of the confirmation call."""
    return {"type": "json_schema", "json_schema": {"name": "answer_check", "schema": CONFIRM_SCHEMA,
                                                   "strict": True}}


def confirm_prompt(question: str, answer: str, cited: Sequence[tuple[int, str]]) -> str:
    """The confirmation turn: the cited items (number, text), the question and the proposed answer."""
    evidence = "\n\n".join(f"[{n}] {shorten(' '.join(text.split()), _ITEM_CHARS)}" for n, text in cited)
    return (f"Evidence:\n{evidence}\n\nQuestion: {question}\nProposed answer: {answer}\n"
            "Does the evidence state that the proposed answer is the answer to the question, exactly as asked "
            '(not a related name, date or number)? Reply with JSON only: {"supported": true} or '
            '{"supported": false}.')


def parse_confirm(text: str) -> bool | None:
    """The reply's verdict, or None when it holds no readable one."""
    value = first_json_object(text, key="supported")
    if value is None:
        lowered = text.strip().lower()
        return True if lowered.startswith(("yes", "true")) else False if lowered.startswith(("no", "false")) \
            else None
    verdict = value.get("supported")
    if isinstance(verdict, bool):
        return verdict
    if isinstance(verdict, str) and verdict.strip().lower() in ("true", "false", "yes", "no"):
        return verdict.strip().lower() in ("true", "yes")
    return None

