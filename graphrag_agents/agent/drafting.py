"""Structured drafts: a short answer and the evidence numbers that state it, as JSON, rendered to a cited draft.

The drafting turn asks the model for ``{"answer": "<short answer or 'not in evidence'>", "evidence": [n, ...]}``
through its structured output (``response_format`` with a JSON schema: llama.cpp's server, OpenAI and the other
hosted providers constrain the reply to it). A model or provider without it gets the same request in words and
its reply is parsed the same way; a reply that holds no such object is checked as a free-text draft.

:func:`render_draft` turns the object into the text the citation check reads, ``Answer: Stanley [34].``: the
label keeps a one-word name from being read as a sentence opener, so the check verifies the short answer itself
against the cited items. The short answer (without markers) is what EM / F1 score.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..text.sentences import MARKER_RE
from ..tools.citations import CitationCheck

__all__ = [
    "DRAFT_SCHEMA",
    "HOPS_DRAFT_SCHEMA",
    "NOT_IN_EVIDENCE",
    "SENTENCE_SCHEMA",
    "StructuredDraft",
    "answer_words",
    "draft_prompt",
    "parse_draft",
    "render_draft",
    "response_format",
    "strip_answer_label",
    "structured_revision_prompt",
]

NOT_IN_EVIDENCE = "not in evidence"
"""The answer a model gives when the evidence does not answer the question; it leads to the fixed refusal."""

DRAFT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "description": f"the short answer, or '{NOT_IN_EVIDENCE}'"},
        "evidence": {"type": "array", "items": {"type": "integer"},
                     "description": "the numbers of the evidence that states the answer"},
    },
    "required": ["answer", "evidence"],
    "additionalProperties": False,
}
"""The JSON Schema of a structured draft."""

_ANSWER_CHARS = 300
# A reply is searched for its object in its first characters and first few "{", so parsing stays bounded.
_MAX_REPLY_CHARS = 20_000
_MAX_OBJECTS = 20
_MAX_NUMBERS = 8
# Replies meaning "the evidence does not say" (normalised: lower case, no punctuation).
_DECLINES = re.compile(r"^(?:not in (?:the )?evidence|unknown|none|n ?a|no answer|not (?:stated|given|mentioned)"
                       r"|(?:the )?(?:knowledge graph|evidence) does not say)$")
_PUNCT = re.compile(r"[^\w\s]")
# "Answer:" (also bold, or repeated) opening a reply: the label the rendered draft and the command line add.
_LABEL = re.compile(r"(?:\*\*|__)?answer(?:\*\*|__)?\s*:(?:\*\*|__)?", re.IGNORECASE)
"""One ``Answer:`` label (bold or not); repeated labels are taken off one at a time (no nested repeat: linear)."""


SENTENCE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sentence": {"type": "string", "description": "the sentence of the evidence that states the answer, copied"},
        **DRAFT_SCHEMA["properties"],
    },
    "required": ["sentence", "answer", "evidence"],
    "additionalProperties": False,
}
"""The draft's JSON Schema with the supporting sentence first (``supporting_sentence``): the model copies the
sentence that states the answer before it writes the answer."""


HOPS_DRAFT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        **DRAFT_SCHEMA["properties"],
        "hops": {"type": "array", "description": "the hops walked to the answer, in order ([] for one hop)",
                 "items": {"type": "object", "properties": {"question": {"type": "string"},
                                                            "answer": {"type": "string"},
                                                            "evidence": {"type": "array",
                                                                         "items": {"type": "integer"}}},
                           "required": ["question", "answer", "evidence"], "additionalProperties": False}},
    },
    "required": ["answer", "evidence", "hops"],
    "additionalProperties": False,
}
"""The draft's JSON Schema with the hops a tool-calling model walked (``tools`` mode's structured final answer)."""


def response_format(sentence: bool = False, hops: bool = False) -> dict[str, Any]:
    """The ``response_format`` of the drafting call (OpenAI's json_schema form, which litellm passes on);
    ``sentence``: the schema that asks for the supporting sentence first; ``hops``: the one with the hops walked."""
    schema = HOPS_DRAFT_SCHEMA if hops else SENTENCE_SCHEMA if sentence else DRAFT_SCHEMA
    return {"type": "json_schema", "json_schema": {"name": "grounded_answer", "schema": schema, "strict": True}}


@dataclass(frozen=True)
class StructuredDraft:
    """A parsed structured draft."""

    answer: str
    """The short answer, without citation markers."""
    evidence: list[int] = field(default_factory=list)
    """The evidence numbers the model gave (markers written inside the answer included)."""

    @property
    def declines(self) -> bool:
        """The model said the evidence does not answer the question (or gave no answer)."""
        words = answer_words(self.answer)
        return not words or bool(_DECLINES.match(words))

    def to_json(self) -> str:
        """The draft as the JSON object it was asked for."""
        return json.dumps({"answer": self.answer, "evidence": self.evidence}, ensure_ascii=False)


def answer_words(answer: str) -> str:
    """The words of a short answer, lower-cased and single-spaced, punctuation left out ('' for ":" or "")."""
    return " ".join(_PUNCT.sub(" ", answer.lower()).split())


def parse_draft(text: str) -> StructuredDraft | None:
    """The structured draft in a reply (a JSON object with ``answer``, possibly fenced or after some words), or
    None when the reply holds none (the caller then checks it as free text)."""
    value = first_json_object(text)
    if value is None or not isinstance(value.get("answer"), str | int | float):
        return None
    raw = strip_answer_label(str(value["answer"]))
    numbers = [n for m in MARKER_RE.finditer(raw) for n in _ints(m.group())]
    answer = " ".join(MARKER_RE.sub(" ", raw).split()).strip(" .")[:_ANSWER_CHARS]
    numbers += _ints(value.get("evidence"))
    return StructuredDraft(answer=answer, evidence=list(dict.fromkeys(numbers))[:_MAX_NUMBERS])


def strip_answer_label(text: str) -> str:
    """``text`` without the ``Answer:`` label(s) it opens with (``"Answer: Stanley [3]."`` -> ``"Stanley [3]."``),
    stripped; other text as it is."""
    text = text.strip()
    while (label := _LABEL.match(text)) is not None:
        text = text[label.end():].lstrip()
    return text


def render_draft(draft: StructuredDraft, evidence: list[int] | None = None) -> str:
    """The cited draft the check reads: ``Answer: Stanley [34].`` (``evidence`` replaces the model's numbers;
    an empty list renders the answer uncited)."""
    numbers = draft.evidence if evidence is None else evidence
    marker = f" [{', '.join(str(n) for n in numbers)}]" if numbers else ""
    return f"Answer: {draft.answer}{marker}."


def draft_prompt(question: str, evidence: str, sentence: bool = False) -> str:
    """The structured drafting turn: the question, the numbered evidence, the question again and the format (in
    words too, for a model without structured output); ``sentence``: the format with the supporting sentence."""
    first = '"sentence": "<the sentence of the evidence that states the answer, copied>", ' if sentence else ""
    none = '"sentence": "", ' if sentence else ""
    return (f"Question: {question}\n\nEvidence:\n{evidence}\n\n"
            f"Question: {question}\n"
            f'Reply with JSON only: {{{first}"answer": "<the short answer: a name, a number, a date, yes or no>", '
            '"evidence": [<the numbers of the evidence that states it>]}. Copy the answer exactly as the evidence '
            f'writes it. If the evidence does not answer the question, reply {{{none}"answer": "{NOT_IN_EVIDENCE}", '
            '"evidence": []}.')


def structured_revision_prompt(draft: StructuredDraft, check: CitationCheck, holders: list[int],
                               misfit: list[str] | None = None) -> str:
    """The revision turn of a structured draft: what the check (and the answer-fit rules, ``misfit``) found, in
    the draft's own terms (its answer and its evidence numbers), and the same reply format."""
    problems: list[str] = list(misfit or [])
    if check.invalid:
        problems.append(f"evidence {_list(check.invalid)} does not exist; use only numbers shown above")
    if (not draft.evidence or not check.cited) and not misfit:
        problems.append("you gave no evidence number")
    for claim in check.unsupported:
        missing = [*claim.missing_names, *claim.missing_figures]
        problems.append(f"evidence {_list(claim.cited)} does not contain {', '.join(repr(m) for m in missing)}"
                        if missing else f"evidence {_list(claim.cited)} does not state it")
    if holders and not misfit:
        problems.append(f"your answer is in evidence {_list(holders)}")
    findings = {"your_reply": json.loads(draft.to_json()), "problems": problems or ["the check rejected it"]}
    checker = "answer check" if misfit else "citation check"
    return (f"The {checker} rejected your reply:\n{json.dumps(findings, ensure_ascii=False)}\n"
            'Reply again with JSON only, {"answer": ..., "evidence": [...]}: an answer the evidence you cite '
            f'states, written as it writes it, or {{"answer": "{NOT_IN_EVIDENCE}", "evidence": []}}.')


def _list(numbers: list[int]) -> str:
    return ", ".join(f"[{n}]" for n in numbers)


def _ints(value: Any) -> list[int]:
    """Evidence numbers from a list, a number or text like ``"[3]"`` / ``"3, 4"``."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value] if value > 0 else []
    if isinstance(value, str):
        return [int(d) for d in re.findall(r"\d{1,6}", value) if int(d) > 0]
    if isinstance(value, list):
        return [n for item in value[:_MAX_NUMBERS * 2] if not isinstance(item, list) for n in _ints(item)]
    return []


def first_json_object(text: str, key: str = "answer") -> dict[str, Any] | None:
    """The first JSON object in ``text`` that has ``key``."""
    decoder = json.JSONDecoder()
    text = text[:_MAX_REPLY_CHARS]
    start = text.find("{")
    for _ in range(_MAX_OBJECTS):
        if start < 0:
            break
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            value = None
        if isinstance(value, dict) and key in value:
            return value
        start = text.find("{", start + 1)
    return None
