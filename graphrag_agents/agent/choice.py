"""The multiple-choice check: the drafted answer among alternatives from its own evidence, picked again or refused.

Known from outside (issue 22): asked yes / no whether its evidence states an answer, the 1.5B model separates
right from wrong drafts at AUC .42; shown the same evidence with the draft among 2-3 alternatives taken from the
cited passages and the question, plus "none of these", in shuffled order, it does at AUC .72. So the last check
before serving shows the model the cited items, the question and options A, B, ... (the draft; the chain's
bridge entities and other names or dates of the cited items; "none of these"), shuffled by a seed of the
question (the model favours some letters; the same question always gets the same order), and serves the answer
only when the model picks the draft (``abstain_reason="not_chosen"`` otherwise). One call of about 450 prompt
tokens; no alternative at all (a yes / no answer, evidence naming nothing else) skips it. :func:`choose` makes the
call, for the serving check of the single path and for the end of the hop chain.
"""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig

from ..evidence.render import shorten
from ..text.names import extract_names
from .drafting import first_json_object
from .fit.figures import MONTHS
from .fit.names import words
from .state import GroundedAgentState, add_usage
from .structured import StructuredCaller

__all__ = ["CHOICE_SYSTEM_PROMPT", "NONE_OF_THESE", "choice_options", "choice_prompt",
           "choice_response_format", "choose", "parse_choice"]

NONE_OF_THESE = "none of these"
CHOICE_SYSTEM_PROMPT = """\
You pick the option that answers the question, using only the evidence. Reply in JSON: {"choice": "<letter>"}."""

_LETTERS = "ABCD"
_ALTERNATIVES = 2
_YES_NO = frozenset({"yes", "no"})
_ITEM_CHARS = 600
# A month or a weekday alone (a capitalised word of a date: "June"), or a pronoun opening a sentence ("He"), is
# no alternative to a name.
_NOT_ALTERNATIVES = frozenset((*MONTHS, *"""monday tuesday wednesday thursday friday saturday sunday he she it
they his her its their him them we i you this that these those there""".split()))
_YEAR = re.compile(r"(?<!\d)(1\d{3}|20\d{2})(?!\d)")
_DATE = re.compile(r"\b\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|"
                   r"December) \d{3,4}\b|\b(?:January|February|March|April|May|June|July|August|September|October|"
                   r"November|December) \d{1,2}, \d{3,4}\b")


def choice_options(question: str, answer: str, cited_texts: Sequence[str], bridges: Sequence[str] = ()) -> list[str]:
    """The options, shuffled by a seed of ``question``: ``answer``, up to two alternatives (``bridges`` first,
    then names, or dates for a dated answer, of the cited texts that are neither the answer nor in the question),
    and "none of these" last; [] when there is no alternative."""
    answer_words = words(answer)
    if not answer_words or answer_words <= _YES_NO:
        return []
    question_words = words(question)
    seen = [answer_words]
    alternatives: list[str] = []

    def add(candidate: str) -> None:
        found = words(candidate)
        if not found or len(alternatives) >= _ALTERNATIVES:
            return
        if any(found <= s or s <= found for s in seen) or found <= question_words or found <= _NOT_ALTERNATIVES:
            return
        seen.append(found)
        alternatives.append(candidate)

    for bridge in bridges:
        add(bridge)
    dated = bool(_YEAR.search(answer))
    for text in cited_texts:
        if dated:
            for m in [*_DATE.finditer(text), *_YEAR.finditer(text)]:
                add(m.group())
        else:
            for name in extract_names(text):
                add(name.text)
    if not alternatives:
        return []
    options = [answer, *alternatives]
    random.Random(zlib.crc32(question.encode("utf-8"))).shuffle(options)
    return [*options, NONE_OF_THESE]


def choice_prompt(question: str, options: Sequence[str], cited: Sequence[tuple[int, str]]) -> str:
    """The choice turn: the cited items, the question, the lettered options and the reply format."""
    evidence = "\n\n".join(f"[{n}] {shorten(' '.join(text.split()), _ITEM_CHARS)}" for n, text in cited)
    lettered = "\n".join(f"{_LETTERS[i]}. {option}" for i, option in enumerate(options))
    return (f"Evidence:\n{evidence}\n\nQuestion: {question}\nWhich option answers the question, as the evidence "
            f"states it?\n{lettered}\n"
            f'Reply with JSON only: {{"choice": "<one of {", ".join(_LETTERS[:len(options)])}>"}}.')


def choice_response_format(count: int) -> dict[str, Any]:
    """The ``response_format`` of the choice call with ``count`` options."""
    schema = {"type": "object", "properties": {"choice": {"type": "string", "enum": list(_LETTERS[:count])}},
              "required": ["choice"], "additionalProperties": False}
    return {"type": "json_schema", "json_schema": {"name": "answer_choice", "schema": schema, "strict": True}}


def parse_choice(text: str, options: Sequence[str]) -> str | None:
    """The option the reply picks (by its letter, or its text), or None when it picks none readable."""
    value = first_json_object(text, key="choice")
    raw = str(value.get("choice", "")) if value is not None else text
    letter = raw.strip().strip(".)").upper()[:1]
    if letter and letter in _LETTERS[:len(options)] and len(raw.strip().strip(".)")) == 1:
        return options[_LETTERS.index(letter)]
    lowered = " ".join(raw.lower().split())
    return next((o for o in options if o.lower() == lowered), None)


async def choose(model: BaseChatModel, state: GroundedAgentState, question: str, answer: str,
                 cited: list[tuple[int, str]], bridges: list[str],
                 config: RunnableConfig) -> tuple[bool | None, dict[str, Any]]:
    """The multiple-choice check: True when the model picks ``answer``, False when it picks another option,
    None when there was no alternative to show (no call made); and the state update (``choice``, the call's
    cost)."""
    options = choice_options(question, answer, [text for _, text in cited], bridges)
    if not options:
        return None, {"choice": None}
    caller = StructuredCaller(model, choice_response_format(len(options)))
    prompt = [SystemMessage(CHOICE_SYSTEM_PROMPT), HumanMessage(choice_prompt(question, options, cited))]
    response = await caller.ainvoke(prompt, config)
    picked = parse_choice(response.text, options)
    return picked == answer, {"choice": {"options": options, "draft": answer, "picked": picked},
                              "llm_calls": state.get("llm_calls", 0) + 1,
                              "tokens": add_usage(state.get("tokens"), response)}
