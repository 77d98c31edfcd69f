"""Input models of the read tools: their JSON Schemas are what agents see; every bound is enforced here."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .._keys import normalise_key, text_problem
from ..errors import ToolError

__all__ = [
    "MAX_ANSWER_CHARS",
    "CheckCitationsInput",
    "GetOntologyInput",
    "NoInput",
    "RetrieveInput",
    "StatusInput",
    "clean_text",
    "key_field",
]

MAX_ANSWER_CHARS = 40_000
"""Longest draft ``check_citations`` takes: an answer of a few paragraphs is under 5,000 characters; 40,000 is the
size of the largest result the MCP server returns. Longer texts are refused before any work is done."""
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

RetrievePath = Literal["facts", "exact_names", "fuzzy_names", "links", "passages"]


def clean_text(value: str) -> str:
    """Refuse control characters (tabs and line breaks are fine) and lone surrogates."""
    found = _CONTROL.search(value)
    if found:
        raise ValueError(f"contains the control character {found.group()!r} at offset {found.start()}; remove it")
    problem = text_problem(value)
    if problem:
        raise ValueError(f"{problem}; remove it")
    return value


def key_field(what: str, *, lookup: bool = False) -> AfterValidator:
    """A validator applying the key rule of :mod:`graphrag_agents._keys` (strip the ends, NFC, refuse control
    characters) to a field; pydantic reports the refusal with the field's location.

    With ``lookup`` (document ids) the value is checked but kept as given, stripped: the graph resolves it
    (``KnowledgeGraph.document_key``), and a document an earlier version stored under that very form is found by
    it."""

    def check(value: str) -> str:
        try:
            key = normalise_key(value, what)
        except ToolError as exc:
            raise ValueError(f"{exc.message} {exc.hint}".strip().rstrip(".")) from None
        return value.strip() if lookup else key

    return AfterValidator(check)


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("is empty; pass the user's question word for word")
    return value


CleanText = Annotated[str, AfterValidator(clean_text)]


class NoInput(BaseModel):
    """A tool without arguments."""

    model_config = ConfigDict(extra="forbid")


class StatusInput(NoInput):
    """``status`` takes no arguments."""


class GetOntologyInput(NoInput):
    """``get_ontology`` takes no arguments."""


class RetrieveInput(BaseModel):
    """Arguments of ``retrieve``."""

    model_config = ConfigDict(extra="forbid")

    question: Annotated[str, AfterValidator(clean_text), AfterValidator(_not_blank)] = Field(
        min_length=1, max_length=2000,
        description="The question to search for, ideally the user's question word for word (at most 2,000 chars).",
    )
    paths: list[RetrievePath] | None = Field(
        default=None, min_length=1, max_length=5,
        description="Search paths to run (default: all): facts, exact_names, fuzzy_names, links, passages.",
    )
    top_k: int = Field(default=10, ge=1, le=50, description="Items per path, 1-50 (default 10).")
    expand_hops: int = Field(
        default=1, ge=1, le=5,
        description="How far the links path walks from the entities found, 1-5 (default 1; try 2-3 for multi-hop).",
    )
    document_ids: list[Annotated[str, Field(max_length=512), key_field("Document id", lookup=True)]] | None = Field(
        default=None, max_length=100, description="Only search these documents (ids as shown in passages).",
    )
    min_score: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Drop items scoring below this (0-1); default keeps all.",
    )


class CheckCitationsInput(BaseModel):
    """Arguments of ``check_citations``."""

    model_config = ConfigDict(extra="forbid")

    answer: CleanText = Field(
        max_length=MAX_ANSWER_CHARS,
        description="The draft answer, citing evidence numbers as [n], [1, 4] or [1-3]; at most 40,000 characters "
                    "(check the answer itself, not the evidence; split a longer text and check each part).",
    )
