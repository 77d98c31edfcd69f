"""Per-file ingest plans an agent may choose, kept within the operator's ``plan_limits``.

An agent passes ``plan=[rules]`` to ``ingest``; each rule is ``{"match": glob, "chunker": ..., "extractor": ...,
"resolver": ...}`` and the first rule whose glob matches a file's path decides that file's plan. Choices outside
the limits are replaced by an allowed one and the plan's ``reason`` says so, so an agent never spends more than
the operator allowed. :data:`CHEAP_PLAN_LIMITS` is the default: no LLM call at all.

Example::

    limits = merge_plan_limits({"extractors": ["ner", "llm"]})
    planner = RuleBasedIngestionPlanner([PlanRule(match="*.md", chunker="structural")], limits)
    planned = planner.plan_for("notes/a.md")
    planned.plan.chunker, planned.reason      # ('structural', "rule 1 ('*.md') ...")
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...errors import ToolError
from ...ingest.chunkers import AUTO, CHUNKERS
from ...ingest.plan import EXTRACTORS, RESOLVERS, IngestPlan
from .sandbox import glob_match

__all__ = [
    "CHEAP_PLAN_LIMITS",
    "DEFAULT_LLM_PAIRS",
    "ChunkParams",
    "PlanLimits",
    "PlanRule",
    "PlannedFile",
    "RuleBasedIngestionPlanner",
    "ingest_description",
    "merge_plan_limits",
]

DEFAULT_LLM_PAIRS = 500
"""Pair-check budget given to ``llm_verified`` when the limits allow it without naming ``max_llm_pairs``."""
FREE_EXTRACTOR = "none"
"""Chunks only: costs nothing, so it is allowed whatever the limits say."""


@dataclass(frozen=True)
class PlanLimits:
    """The strategies an agent's ingest plan may pick; the first listed of each kind is the default."""

    chunkers: tuple[str, ...] = ("sentence", "fixed", "structural")
    """Chunker names (``sentence``, ``fixed``, ``structural``)."""
    extractors: tuple[str, ...] = ("ner",)
    """Extractor names (``ner``, ``llm``, ``auto``); ``none`` (chunks only) is always allowed."""
    resolvers: tuple[str, ...] = ("exact",)
    """Entity resolvers (``exact``, ``llm_verified``)."""
    max_llm_pairs: int = 0
    """Most LLM pair checks per document ``llm_verified`` may spend."""
    max_chunks: int | None = 1000
    """A file of more chunks is refused before it is extracted (None: no limit)."""
    tune_params: bool = False
    """Whether a rule may set ``chunk_params`` (chunk sizes); otherwise each chunker's defaults are used."""

    def allows_extractor(self, name: str) -> bool:
        """True when ``name`` may be used (``none`` always may)."""
        return name == FREE_EXTRACTOR or name in self.extractors


CHEAP_PLAN_LIMITS = PlanLimits()
"""Sentence / fixed / structural chunking, offline ``ner`` extraction, ``exact`` resolution, files of at most
1,000 chunks: ingesting costs no LLM call."""

_KEYS = tuple(f.name for f in dataclasses.fields(PlanLimits))


def _names(key: str, value: Any, valid: Sequence[str]) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence) or not value:
        raise ValueError(f"plan_limits[{key!r}] must be a non-empty list of names from {list(valid)}, got {value!r}")
    unknown = [v for v in value if v not in valid]
    if unknown:
        raise ValueError(f"plan_limits[{key!r}] has unknown names {unknown}; valid names are {list(valid)}")
    return tuple(dict.fromkeys(value))


def merge_plan_limits(limits: Mapping[str, Any] | PlanLimits | None) -> PlanLimits:
    """The operator's ``plan_limits`` over :data:`CHEAP_PLAN_LIMITS`: a key left out keeps its cheap value.

    When ``resolvers`` allows ``llm_verified`` and ``max_llm_pairs`` is not given, the budget is
    :data:`DEFAULT_LLM_PAIRS` (500). Raises ``ValueError`` naming the valid keys or values.
    """
    if limits is None:
        return CHEAP_PLAN_LIMITS
    if isinstance(limits, PlanLimits):
        return limits
    if not isinstance(limits, Mapping):
        raise ValueError(f"plan_limits must be a mapping such as {{'extractors': ['ner', 'llm']}}, got {limits!r}")
    unknown = sorted(set(limits) - set(_KEYS))
    if unknown:
        raise ValueError(f"Unknown plan_limits keys {unknown}; valid keys are {list(_KEYS)}")
    values: dict[str, Any] = {}
    if "chunkers" in limits:
        values["chunkers"] = _names("chunkers", limits["chunkers"], sorted(CHUNKERS))
    if "extractors" in limits:
        values["extractors"] = _names("extractors", limits["extractors"], EXTRACTORS)
    if "resolvers" in limits:
        values["resolvers"] = _names("resolvers", limits["resolvers"], RESOLVERS)
    for key in ("max_llm_pairs", "max_chunks"):
        if key in limits:
            value = limits[key]
            low = 0 if key == "max_llm_pairs" else 1
            if (value is None and key == "max_chunks") or (
                    isinstance(value, int) and not isinstance(value, bool) and value >= low):
                values[key] = value
            else:
                raise ValueError(f"plan_limits[{key!r}] must be an integer >= {low}"
                                 f"{' or None' if key == 'max_chunks' else ''}, got {value!r}")
    if "tune_params" in limits:
        if not isinstance(limits["tune_params"], bool):
            raise ValueError(f"plan_limits['tune_params'] must be true or false, got {limits['tune_params']!r}")
        values["tune_params"] = limits["tune_params"]
    if "llm_verified" in values.get("resolvers", ()) and "max_llm_pairs" not in values:
        values["max_llm_pairs"] = DEFAULT_LLM_PAIRS
    return dataclasses.replace(CHEAP_PLAN_LIMITS, **values)


class ChunkParams(BaseModel):
    """Chunk sizes for a rule (used only when ``plan_limits`` allow ``tune_params``)."""

    model_config = ConfigDict(extra="forbid")

    target_chars: int | None = Field(default=None, ge=100, le=8000,
                                     description="sentence / structural: chunk size to aim for (chars).")
    max_chars: int | None = Field(default=None, ge=100, le=16000,
                                  description="sentence / structural: hard maximum chunk size (chars).")
    size: int | None = Field(default=None, ge=100, le=8000, description="fixed: window size (chars).")
    overlap: int | None = Field(default=None, ge=0, le=4000, description="fixed: overlap between windows (chars).")
    syntax: Literal["auto", "markdown", "rst"] | None = Field(
        default=None, description="structural: heading syntax (default auto).")

    def given(self) -> dict[str, Any]:
        """The parameters that were set."""
        return self.model_dump(exclude_none=True)


class PlanRule(BaseModel):
    """One rule of an ingest plan: the first rule whose ``match`` fits a file's path picks its strategies."""

    model_config = ConfigDict(extra="forbid")

    match: str = Field(default="*", min_length=1, max_length=512,
                       description="Glob on the file's path: '*.md' matches any .md file; with a '/' it matches "
                                   "the whole path ('reports/*.pdf', '**' spans folders). Default '*'.")
    chunker: Literal["sentence", "fixed", "structural"] | None = Field(
        default=None, description="sentence (default; Markdown / reST files: structural), fixed windows, or "
                                  "structural (one chunk per section).")
    chunk_params: ChunkParams | None = Field(default=None, description="Chunk sizes, when plan_limits allow it.")
    extractor: Literal["auto", "ner", "llm", "none"] | None = Field(
        default=None, description="How entities and relations are found: ner, llm, auto or none (chunks only).")
    resolver: Literal["exact", "llm_verified"] | None = Field(
        default=None, description="How duplicate entities are merged: exact or llm_verified.")
    max_llm_pairs: int | None = Field(default=None, ge=0, le=100_000,
                                      description="llm_verified: most LLM pair checks per document.")

    def matches(self, path: str) -> bool:
        """Whether the glob fits ``path`` (a pattern without '/' is matched against the file name too)."""
        if "/" in self.match:
            return glob_match(path, self.match)
        return fnmatchcase(path.rsplit("/", 1)[-1], self.match)


@dataclass(frozen=True)
class PlannedFile:
    """The plan chosen for one document, and why."""

    plan: IngestPlan
    reason: str
    """Which rule decided it and what was replaced to stay within the limits."""
    match: str | None = None
    """The glob of the rule that matched, None for defaults or a remembered plan."""

    def to_dict(self) -> dict[str, Any]:
        """The plan as shown in results: strategies, the matching rule and the reason."""
        out = self.plan.to_dict()
        if not out.get("chunk_params"):
            out.pop("chunk_params", None)
        if out.get("resolver") != "llm_verified":
            out.pop("max_llm_pairs", None)
        if self.match is not None:
            out["match"] = self.match
        out["reason"] = self.reason
        return out


class RuleBasedIngestionPlanner:
    """Picks each document's :class:`IngestPlan` from the first matching rule, within ``limits``.

    Args:
        rules: the agent's plan rules, in priority order (empty: defaults for every file).
        limits: what the rules may choose; see :func:`merge_plan_limits`.
    """

    def __init__(self, rules: Sequence[PlanRule] = (), limits: PlanLimits = CHEAP_PLAN_LIMITS) -> None:
        self.rules = list(rules)
        self.limits = limits

    def default(self, reason: str = "no plan given: the default strategies") -> PlannedFile:
        """The default plan: the first allowed chunker, extractor and resolver."""
        return self._build(PlanRule(), reason, None)

    def plan_for(self, path: str) -> PlannedFile:
        """The plan of the first rule matching ``path``, or the defaults when none does."""
        for number, rule in enumerate(self.rules, start=1):
            if rule.matches(path):
                return self._build(rule, f"rule {number} ({rule.match!r})", rule.match)
        if self.rules:
            return self.default(f"no rule matched {path!r}: the default strategies")
        return self.default()

    def _build(self, rule: PlanRule, reason: str, match: str | None) -> PlannedFile:
        limits = self.limits
        notes: list[str] = []

        def pick(kind: str, wanted: str | None, allowed: Sequence[str], ok: bool) -> str:
            if wanted is None:
                return allowed[0]
            if ok:
                return wanted
            notes.append(f"{kind} {wanted!r} is outside plan_limits (allowed: {', '.join(allowed)}), "
                         f"used {allowed[0]!r}")
            return allowed[0]

        chunker = pick("chunker", rule.chunker, limits.chunkers, rule.chunker in limits.chunkers)
        if rule.chunker is None and _auto_default(limits.chunkers):
            chunker = AUTO  # as kg.ingest's default: sections for Markdown / reST files, sentences for the rest
        extractor = pick("extractor", rule.extractor, (*limits.extractors, FREE_EXTRACTOR),
                         rule.extractor is not None and limits.allows_extractor(rule.extractor))
        resolver = pick("resolver", rule.resolver, limits.resolvers, rule.resolver in limits.resolvers)
        pairs = 0
        if resolver == "llm_verified":
            pairs = limits.max_llm_pairs if rule.max_llm_pairs is None else rule.max_llm_pairs
            if pairs > limits.max_llm_pairs:
                notes.append(f"max_llm_pairs {pairs} is over the limit, used {limits.max_llm_pairs}")
                pairs = limits.max_llm_pairs
        params: dict[str, Any] = rule.chunk_params.given() if rule.chunk_params else {}
        if params and not limits.tune_params:
            notes.append("chunk_params ignored: plan_limits do not allow tuning chunk sizes (tune_params)")
            params = {}
        if params and chunker != rule.chunker:
            notes.append(f"chunk_params ignored: they were meant for the {rule.chunker or 'default'} chunker")
            params = {}
        try:
            plan = IngestPlan(chunker=chunker, chunk_params=params, extractor=extractor,  # type: ignore[arg-type]
                              resolver=resolver, max_llm_pairs=pairs,  # type: ignore[arg-type]
                              max_chunks=limits.max_chunks)
        except ValueError as exc:
            raise ToolError(f"Plan rule {match!r}: {exc}.",
                            "Give chunk_params that fit the rule's chunker: target_chars / max_chars for "
                            "sentence and structural, size / overlap (smaller than size) for fixed.") from None
        return PlannedFile(plan, "; ".join([reason, *notes]), match)


# -- the ingest tool's description -------------------------------------------------------------------------

_CHUNKERS = {
    "sentence": "whole sentences packed into ~800-char chunks (free)",
    "fixed": "fixed ~800-char windows with overlap (free)",
    "structural": "one chunk per Markdown/RST section, with its heading path (free)",
}
_EXTRACTORS = {
    "ner": "offline named-entity recognition, relations between entities named in one sentence (no LLM call)",
    "llm": "the chat model reads each chunk, constrained by the ontology: one LLM call per chunk, one retry on "
           "malformed output",
    "auto": "llm when a chat model is configured, else ner",
    "none": "chunks only, no entities (free)",
}
_RESOLVERS = {
    "exact": "same normalised name and type = one entity (free)",
    "llm_verified": "also merges near-duplicate names the chat model confirms: up to max_llm_pairs ({pairs}) "
                    "LLM pair checks per document",
}
_POLICY = {
    "manual": "Call finalize once after the last batch.",
    "on_write": "The graph is finalized after every ingest that changed something.",
    "never": "The operator finalizes the graph.",
}


def _auto_default(chunkers: Sequence[str]) -> bool:
    """Whether a file with no chunker chosen gets ``auto``: the first allowed is ``sentence`` and ``structural``
    is allowed too, so a Markdown or reST file is cut at its sections, as ``kg.ingest`` does by default."""
    return bool(chunkers) and chunkers[0] == "sentence" and "structural" in chunkers


def _options(kind: str, names: tuple[str, ...], costs: dict[str, str], pairs: int = 0) -> str:
    auto = kind == "chunkers" and _auto_default(names)
    parts = [f"{name}{(' (default; .md/.rst files: structural)' if auto else ' (default)') if i == 0 else ''}: "
             f"{costs[name].format(pairs=pairs)}" for i, name in enumerate(names)]
    return f"{kind}: " + "; ".join(parts)


def ingest_description(limits: PlanLimits, with_files: bool, policy: str) -> str:
    """The description agents read, listing the plan options ``limits`` allow and their cost."""
    text = ("Add documents to the knowledge graph (write). Pass `text` as one document (document_id optional; "
            "not a 'file:' id)")
    if not with_files:
        return (text + ". Unchanged text is skipped (status unchanged); reextract=true extracts it again. The "
                "result reports `pruned`: what the ontology misses, with the set_ontology call that keeps it. "
                + _POLICY[policy])
    extractors = (*limits.extractors, *(() if FREE_EXTRACTOR in limits.extractors else (FREE_EXTRACTOR,)))
    chunk_limit = (f" A file of over {limits.max_chunks:,} chunks is refused before extraction."
                   if limits.max_chunks else "")
    tuning = (" A rule may set chunk_params (target_chars / max_chars, or size / overlap for fixed)."
              if limits.tune_params else " chunk_params are not allowed (each chunker's defaults apply).")
    return (
        text + ", or `files`: paths or globs under the files root such as 'reports/*.pdf' (at most 50 files per "
        "call), with an optional `plan` of rules {\"match\": \"*.md\", \"chunker\": \"structural\", \"extractor\": "
        "..., \"resolver\": ...}: the first rule whose glob matches a file's path picks its strategies. Options "
        "allowed here: " + "; ".join([
            _options("chunkers", limits.chunkers, _CHUNKERS),
            _options("extractors", extractors, _EXTRACTORS),
            _options("resolvers", limits.resolvers, _RESOLVERS, limits.max_llm_pairs)]) + "." + chunk_limit
        + tuning + " Choices outside these are replaced, and each document's plan.reason says so. Statuses: "
        "ingested / updated / unchanged (skipped) / reextracted (reextract=true; a file keeps the plan of its "
        "last ingest unless you pass plan) / failed (with the reason; the batch goes on). The result reports "
        "`pruned`: what the ontology misses, with the exact set_ontology call that keeps it. " + _POLICY[policy])
