"""Input models of the write tools: their JSON Schemas are what agents see, and every bound is enforced here.

Strings refuse control characters (:func:`clean_text`); ids and entity names follow the key rule (whitespace
at either end stripped, control characters refused: :mod:`graphrag_agents._keys`); labels follow the ontology's
label rule (so a label can never carry Cypher), and every list and string has a ceiling, so a hostile or
confused caller gets a :class:`~graphrag_agents.errors.ToolError` naming the field instead of a traceback or a
huge write.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from ...errors import ToolError
from ...ingest.ontology import MAX_LABEL_CHARS, validate_label
from ..inputs import NoInput, clean_text, key_field
from .plan import PlanRule

__all__ = [
    "MAX_FACTS_TEXT_CHARS",
    "MAX_FACT_ENTITIES",
    "MAX_FACT_RELATIONS",
    "MAX_FILES_PER_CALL",
    "MAX_TEXT_CHARS",
    "AddFactsInput",
    "EntityTypeInput",
    "FactEntity",
    "FactRelation",
    "FinalizeInput",
    "IngestFilesInput",
    "IngestTextInput",
    "PreviewFilesInput",
    "RelationTypeInput",
    "SetOntologyInput",
]

MAX_FILES_PER_CALL = 50
MAX_TEXT_CHARS = 2_000_000
MAX_FACTS_TEXT_CHARS = 100_000
MAX_FACT_ENTITIES = 200
MAX_FACT_RELATIONS = 500


def _label(value: str) -> str:
    try:
        return validate_label(value)
    except ToolError as exc:  # pydantic reports ValueErrors with the field's location
        raise ValueError(f"{exc.message} {exc.hint}".strip().rstrip(".")) from None


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("is empty or only whitespace")
    return value


Label = Annotated[str, Field(min_length=1, max_length=MAX_LABEL_CHARS), AfterValidator(_label)]
Name = Annotated[str, Field(min_length=1, max_length=300), key_field("Entity name")]
Description = Annotated[str, Field(max_length=2000), AfterValidator(clean_text)]
DocumentId = Annotated[str, Field(min_length=1, max_length=512), key_field("Document id", lookup=True)]
Title = Annotated[str, Field(min_length=1, max_length=300), AfterValidator(clean_text)]
PathPattern = Annotated[str, Field(min_length=1, max_length=1024), AfterValidator(clean_text),
                        AfterValidator(_not_blank)]


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PreviewFilesInput(_Input):
    """Arguments of ``preview_files``."""

    files: list[PathPattern] | None = Field(
        default=None, min_length=1, max_length=MAX_FILES_PER_CALL,
        description="Paths or globs under the files root to preview (default: every supported file).")
    offset: int = Field(default=0, ge=0, le=1_000_000,
                        description="Index of the first file to show: pass the previous page's next_offset.")
    sample_chars: int = Field(default=2000, ge=200, le=10_000,
                              description="Characters sampled from the middle of each file, 200-10,000.")


class EntityTypeInput(_Input):
    """An entity type to declare."""

    label: Label = Field(description="Entity label, e.g. 'Drug': letters, digits, spaces, '-', '_'.")
    description: Description = Field(default="", description="What counts as this type (guides extraction).")
    properties: list[Label] = Field(default_factory=list, max_length=50,
                                    description="Extra properties to extract, e.g. 'dose'.")


class RelationTypeInput(_Input):
    """A relation type to declare, with the (source, target) entity types it may connect."""

    label: Label = Field(description="Relation type, e.g. 'TREATS': letters, digits, spaces, '-', '_'.")
    description: Description = Field(default="", description="What the relation means (guides extraction).")
    patterns: list[tuple[Label, Label]] = Field(
        default_factory=list, max_length=200,
        description="Allowed [source entity label, target entity label] pairs, e.g. [['Drug', 'Disease']].")


class SetOntologyInput(_Input):
    """Arguments of ``set_ontology``."""

    entities: list[EntityTypeInput] = Field(default_factory=list, max_length=200,
                                            description="Entity types to add (or extend).")
    relations: list[RelationTypeInput] = Field(default_factory=list, max_length=200,
                                               description="Relation types to add, or patterns to add to them.")

    @model_validator(mode="after")
    def _something(self) -> SetOntologyInput:
        if not self.entities and not self.relations:
            raise ValueError("declares nothing: pass entities and/or relations")
        return self


class IngestTextInput(_Input):
    """Arguments of ``ingest`` without a files root: text only."""

    text: Annotated[str, AfterValidator(clean_text), AfterValidator(_not_blank)] | None = Field(
        default=None, min_length=1, max_length=MAX_TEXT_CHARS,
        description="Text to add as one document (at most 2,000,000 characters).")
    document_id: DocumentId | None = Field(
        default=None, description="Id of the text's document (default: derived from the text); not 'file:...'.")
    title: Title | None = Field(default=None, description="Title of the text's document.")
    reextract: bool = Field(default=False,
                            description="Extract again documents whose content did not change (default false).")

    @model_validator(mode="after")
    def _one_source(self) -> IngestTextInput:
        files = getattr(self, "files", None)
        if self.text is None and not files:
            raise ValueError("names nothing to ingest: pass text" + (" or files" if hasattr(self, "files") else ""))
        if self.text is not None and files:
            raise ValueError("passes both text and files; ingest one or the other per call")
        if files and (self.document_id is not None or self.title is not None):
            raise ValueError("document_id and title apply to text only; files get 'file:<path>' ids")
        return self


class IngestFilesInput(IngestTextInput):
    """Arguments of ``ingest`` with a files root: text, or files with a per-file plan."""

    files: list[PathPattern] | None = Field(
        default=None, min_length=1, max_length=MAX_FILES_PER_CALL,
        description="Paths or globs under the files root, e.g. ['reports/*.pdf']; at most 50 files per call.")
    plan: list[PlanRule] | None = Field(
        default=None, min_length=1, max_length=50,
        description="Rules like {'match': '*.md', 'chunker': 'structural'}; the first matching rule wins.")


class FinalizeInput(NoInput):
    """``finalize`` takes no arguments."""


class FactEntity(_Input):
    """An entity stated by the source text."""

    name: Name = Field(description="The entity's name as the text gives it, e.g. 'Aspirin'.")
    label: Label = Field(description="Its entity type, declared in the ontology, e.g. 'Drug'.")
    description: Description = Field(default="", description="A short description from the text.")


class FactRelation(_Input):
    """A relation between two entities of the same call."""

    source: Name = Field(description="Name of the source entity (one of `entities`).")
    target: Name = Field(description="Name of the target entity (one of `entities`).")
    type: Label = Field(description="Relation type declared in the ontology for (source label, target label).")
    fact: Description | None = Field(
        default=None, description="The sentence stating it (default: the text's sentence naming both ends).")


class AddFactsInput(_Input):
    """Arguments of ``add_facts``."""

    text: Annotated[str, AfterValidator(clean_text), AfterValidator(_not_blank)] = Field(
        min_length=1, max_length=MAX_FACTS_TEXT_CHARS,
        description="The source text the facts come from (stored as passages; at most 100,000 characters).")
    entities: list[FactEntity] = Field(min_length=1, max_length=MAX_FACT_ENTITIES,
                                       description="Entities the text names: {name, label, description?}.")
    relations: list[FactRelation] = Field(
        default_factory=list, max_length=MAX_FACT_RELATIONS,
        description="Relations between those entities: {source, target, type, fact?}.")
    document_id: DocumentId | None = Field(
        default=None, description="Document id for the text (default 'facts:<hash of the text>').")
    title: Title | None = Field(default=None, description="Title of the text's document.")
