"""The ``llm`` extractor: one chat-model call per chunk, constrained by the ontology, validated with pydantic.

The prompt lists the declared entity types (with descriptions and properties) and relation types (with their
(source, target) patterns) and asks for one JSON object. The answer is validated with pydantic; when it is
malformed (not JSON, wrong shape) the model is asked once more, with the validation error, in the same
conversation. If the second answer is malformed too, the chunk yields nothing and is listed in
``Extraction.malformed_chunks``. Provider errors (after the chat model's own retries) fail the document.
Whatever the model returns outside the ontology is pruned afterwards (:func:`~.extraction.to_records`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..models.chat import ChatModel
from .extraction import Extraction, RawEntity, RawRelation
from .ontology import Ontology

__all__ = ["ExtractionOutput", "LLMExtractor", "build_messages"]

Scalar = str | int | float | bool


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ExtractedEntity(_Lenient):
    """An entity in the model's answer."""

    name: str = Field(min_length=1)
    type: str = "Unknown"
    description: str = ""
    properties: dict[str, Scalar | None] = Field(default_factory=dict)

    @field_validator("type", "description", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value


class ExtractedRelation(_Lenient):
    """A relation in the model's answer; ends are entity names."""

    source: str = Field(min_length=1)
    target: str = Field(min_length=1)
    type: str = Field(min_length=1)
    fact: str = ""

    @field_validator("fact", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value


class ExtractionOutput(_Lenient):
    """The JSON object the model must return."""

    entities: list[ExtractedEntity] = Field(default_factory=list)
    relations: list[ExtractedRelation] = Field(default_factory=list)


def _ontology_text(ontology: Ontology) -> str:
    lines = ["Entity types:"]
    for e in ontology.entities:
        props = f" Properties: {', '.join(e.properties)}." if e.properties else ""
        lines.append(f"- {e.label}: {e.description or 'no description'}{props}")
    lines.append("Relation types (allowed source type -> target type):")
    for r in ontology.relations:
        pats = "; ".join(f"{s} -> {t}" for s, t in r.patterns) or "none declared"
        lines.append(f"- {r.label}: {r.description or 'no description'} ({pats})")
    return "\n".join(lines)


def build_messages(text: str, ontology: Ontology) -> list[dict[str, str]]:
    """The extraction prompt for one chunk."""
    system = (
        "You extract a knowledge graph from a text. Use only the types below.\n"
        f"{_ontology_text(ontology)}\n"
        'Reply with one JSON object and nothing else: {"entities": [{"name": "...", "type": "<entity type>", '
        '"description": "<one short sentence from the text>", "properties": {}}], "relations": [{"source": '
        '"<entity name>", "target": "<entity name>", "type": "<relation type>", "fact": "<the sentence of the '
        'text that states it>"}]}. Every relation end must be the name of an entity in "entities". '
        'If the text names nothing of these types, reply {"entities": [], "relations": []}.'
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": f"Text:\n{text}"}]


def parse_output(raw: str) -> ExtractionOutput:
    """Validate the model's answer (a JSON object, optionally inside a code fence).

    Raises ``ValueError`` (pydantic's ``ValidationError`` or a JSON error) describing what is wrong.
    """
    text = raw.strip()
    if len(text) >= 6 and text.startswith("```") and text.endswith("```"):  # a fence, cut without a pattern
        text = text[3:-3]
        text = (text[4:] if text.startswith("json") else text).strip()
    return ExtractionOutput.model_validate_json(text)


def _error_text(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "the reply"
        return f"{where}: {first.get('msg', 'invalid')} ({exc.error_count()} error(s))"
    return str(exc)[:300]


class LLMExtractor:
    """Entities and relations from a chat model, one call per chunk (plus one retry on malformed output).

    Args:
        chat: the chat model (its usage counters count every call).
        concurrency: chunks in flight at once.
    """

    name = "llm"

    def __init__(self, chat: ChatModel, *, concurrency: int = 4) -> None:
        self.chat = chat
        self.concurrency = concurrency

    async def extract(self, documents: Sequence[Sequence[str]], ontology: Ontology) -> list[Extraction | Exception]:
        """Extract every chunk of every document; a provider error fails only its document."""
        gate = asyncio.Semaphore(self.concurrency)

        async def one(chunks: Sequence[str]) -> Extraction:
            out = Extraction()

            async def chunk(index: int, text: str) -> None:
                async with gate:
                    await self._chunk(out, index, text, ontology)

            await asyncio.gather(*(chunk(i, t) for i, t in enumerate(chunks)))
            out.entities.sort(key=lambda e: e.chunk_index)
            out.relations.sort(key=lambda r: r.chunk_index)
            return out

        results = await asyncio.gather(*(one(chunks) for chunks in documents), return_exceptions=True)
        return [r if isinstance(r, (Extraction, Exception)) else RuntimeError(str(r)) for r in results]

    async def _chunk(self, out: Extraction, index: int, text: str, ontology: Ontology) -> None:
        messages = build_messages(text, ontology)
        parsed: ExtractionOutput | None = None
        for attempt in (1, 2):
            raw = await self.chat.complete(messages, json_mode=True)
            out.llm_calls += 1
            try:
                parsed = parse_output(raw)
                break
            except (ValidationError, ValueError) as exc:
                if attempt == 2:
                    out.malformed_chunks.append(index)
                    return
                messages = [*messages, {"role": "assistant", "content": raw[:4000]}, {
                    "role": "user",
                    "content": f"That reply is not valid: {_error_text(exc)}. Reply again with only the JSON "
                               'object: {"entities": [...], "relations": [...]}.'}]
        assert parsed is not None
        for e in parsed.entities:
            props = {k: v for k, v in e.properties.items() if v is not None}
            out.entities.append(RawEntity(name=e.name, type=e.type, chunk_index=index, description=e.description,
                                          properties=props))
        for r in parsed.relations:
            out.relations.append(RawRelation(source=r.source, target=r.target, type=r.type, fact=r.fact or text,
                                             chunk_index=index))

