"""``GraphRAGToolkit``: the graph tools, bound to one knowledge graph and one evidence session.

A toolkit is itself a session; ``new_session()`` gives another conversation its own evidence numbering while
sharing the graph, the options and the write lock.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from types import TracebackType
from typing import Any

from pydantic import BaseModel

from ..citations import CitationCheck, IndexCache, check_citations, check_packs
from ..errors import ReadOnlyViolation, ToolError
from ..evidence import EvidenceLedger
from ..kg import KnowledgeGraph
from ..models.chat import ChatModel
from ..models.embedder import Embedder
from ..store.schema import read_meta
from .inputs import CheckCitationsInput, GetOntologyInput, RetrieveInput, RetrievePath, StatusInput
from .read_tools import number_ontology, number_retrieval, number_status
from .results import OntologyResult, RetrieveResult, StatusResult, ToolResult
from .spec import ToolAnnotations, ToolSpec
from .write import (
    CHEAP_PLAN_LIMITS,
    DEFAULT_MAX_FILE_BYTES,
    AddFactsResult,
    FilesRoot,
    FinalizePolicy,
    FinalizeResult,
    IngestResult,
    PlanLimits,
    PreviewFilesResult,
    SetOntologyResult,
    WriteState,
    finalize_pending,
    make_write_state,
    write_specs,
)

__all__ = ["READ_TOOLS", "WRITE_TOOLS", "FinalizePolicy", "GraphRAGToolkit"]

READ_TOOLS = ("status", "get_ontology", "retrieve", "check_citations")
WRITE_TOOLS = ("preview_files", "set_ontology", "ingest", "finalize", "add_facts")
_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$")

_READ = ToolAnnotations(read_only=True, destructive=False, idempotent=True, open_world=False)
# check_citations reads only the session's own ledger: no graph, no network.
_DESCRIPTIONS = {
    "status": "Counts of documents, chunks, entities and relations in the knowledge graph, and every entity "
              "label and relation type with its count. The result carries one evidence number [n].",
    "get_ontology": "The declared entity types (with properties) and relation types with their (source, target) "
                    "patterns. The result carries one evidence number [n].",
    "retrieve": "Hybrid search (vector + full-text + graph) of the knowledge graph for a question: entities, "
                "relations around them, facts and source passages, each with an evidence number [n] and a score. "
                "Pass the user's question word for word first; call again with exact names or expand_hops 2-3 "
                "when the first call did not answer.",
    "check_citations": "Check a draft answer before replying: every [n] must be evidence a tool returned in this "
                       "conversation. Lists invalid numbers (removed from the answer), claims with no [n] of their "
                       "own, and cited claims whose figures or names the cited evidence lacks. No LLM involved.",
}


@dataclass
class _Shared:
    """State every session of one toolkit shares."""

    kg: KnowledgeGraph
    read_only: bool
    include: frozenset[str] | None
    finalize_policy: FinalizePolicy
    ledger_capacity: int
    write: WriteState
    """The write side's shared state: files root, plan limits and memory, pending finalize."""
    owns_kg: bool = False
    citation_packs: tuple[str, ...] = ()
    """Rule packs check_citations adds to its general rules."""


class GraphRAGToolkit:
    """The graph tools over one :class:`KnowledgeGraph`, with a per-session evidence ledger.

    Args:
        kg: the knowledge graph.
        read_only: drop the write tools; calling one raises :class:`ReadOnlyViolation`.
        files_root: folder ``preview_files`` and ``ingest(files=...)`` may read (sandboxed); the filesystem
            root, the home folder and folders containing it are refused. Pass a
            :class:`~graphrag_agents.tools.write.sandbox.FilesRoot` to set its options, e.g.
            ``FilesRoot("corpus", allow_hard_links=True)`` (hard-linked files are refused by default).
        max_file_bytes: largest file ``ingest`` reads (None: no limit).
        plan_limits: strategies an agent's ingest plan may pick: ``chunkers``, ``extractors``, ``resolvers``,
            ``max_llm_pairs``, ``max_chunks``, ``tune_params``, merged over ``CHEAP_PLAN_LIMITS``
            (see :func:`graphrag_agents.tools.write.plan.merge_plan_limits`).
        include: the subset of tool names to offer.
        finalize_policy: ``manual`` (agent calls finalize), ``on_write`` (after every changing ingest),
            ``never`` (you call ``kg.finalize()``).
        ledger_capacity: evidence items kept per session.
        citation_packs: rule packs ``check_citations`` adds to its general rules, e.g. ``["records"]`` for
            business records with reviews (see ``docs/citations.md``); an unknown name raises ConfigurationError.

    Example::

        toolkit = GraphRAGToolkit(kg, read_only=True)
        result = await toolkit.call("retrieve", {"question": "Where does Alice work?"})
        print(result.to_llm_text())
    """

    def __init__(self, kg: KnowledgeGraph, *, read_only: bool = False,
                 files_root: str | os.PathLike[str] | FilesRoot | None = None,
                 max_file_bytes: int | None = DEFAULT_MAX_FILE_BYTES,
                 plan_limits: Mapping[str, Any] | PlanLimits | None = CHEAP_PLAN_LIMITS,
                 include: Sequence[str] | None = None, finalize_policy: FinalizePolicy = "manual",
                 ledger_capacity: int = 2000, citation_packs: Sequence[str] | None = None) -> None:
        if finalize_policy not in ("manual", "on_write", "never"):
            raise ValueError(f"finalize_policy must be 'manual', 'on_write' or 'never', not {finalize_policy!r}")
        known = set(READ_TOOLS) | set(WRITE_TOOLS)
        unknown = sorted(set(include or ()) - known)
        if unknown:
            raise ValueError(f"Unknown tool names in include: {unknown}; known tools: {sorted(known)}")
        self._shared = _Shared(
            kg=kg, read_only=read_only, include=frozenset(include) if include is not None else None,
            finalize_policy=finalize_policy, ledger_capacity=ledger_capacity,
            write=make_write_state(files_root, max_file_bytes, plan_limits), citation_packs=check_packs(citation_packs),
        )
        self.ledger = EvidenceLedger(ledger_capacity)
        self.evidence_indexes = IndexCache(2 * ledger_capacity)

    @property
    def kg(self) -> KnowledgeGraph:
        """The knowledge graph the tools work on."""
        return self._shared.kg

    @property
    def read_only(self) -> bool:
        """Whether the write tools are withheld."""
        return self._shared.read_only

    def new_session(self) -> GraphRAGToolkit:
        """A session for another conversation: same graph and options, its own evidence numbering."""
        session = object.__new__(GraphRAGToolkit)
        session._shared = self._shared
        session.ledger = EvidenceLedger(self._shared.ledger_capacity)
        session.evidence_indexes = IndexCache(2 * self._shared.ledger_capacity)
        return session

    @classmethod
    async def for_tenant(cls, base: str | KnowledgeGraph | GraphRAGToolkit, tenant: str | None = None, *,
                         base_graph: str | None = None, url: str | None = None, data_dir: str | None = None,
                         embedder: Embedder | None = None, llm: ChatModel | str | None = None,
                         read_only: bool = False, files_root: str | os.PathLike[str] | None = None,
                         max_file_bytes: int | None = DEFAULT_MAX_FILE_BYTES,
                         plan_limits: Mapping[str, Any] | PlanLimits | None = CHEAP_PLAN_LIMITS,
                         include: Sequence[str] | None = None, finalize_policy: FinalizePolicy = "manual",
                         ledger_capacity: int = 2000, citation_packs: Sequence[str] | None = None) -> GraphRAGToolkit:
        """A toolkit bound to the graph ``<base>__<tenant>``, which it opens; ``aclose()`` closes that graph.

        Args:
            base: the base graph: a name, or a :class:`KnowledgeGraph` / toolkit whose store, embedder and LLM the
                tenant graph uses too. With a single argument, that argument is the tenant (of ``base_graph``).
            tenant: the tenant: 1-63 letters, digits, ``_`` or ``-`` (whitespace at either end is stripped; any
                other character outside the rule is refused).
            base_graph: the base graph's name when only the tenant is given positionally (default "default").
            url, data_dir, embedder, llm: as in :meth:`KnowledgeGraph.open` (taken from ``base`` when it is a
                graph or toolkit and they are not given).
            read_only, files_root, max_file_bytes, plan_limits, include, finalize_policy, ledger_capacity,
                citation_packs: the toolkit's options.

        Example::

            async with await GraphRAGToolkit.for_tenant("kb", "acme", read_only=True) as toolkit:
                found = await toolkit.retrieve("Where does Alice work?")
        """
        if tenant is None:
            if not isinstance(base, str):
                raise TypeError("for_tenant(base, tenant): name the tenant after the base graph or toolkit")
            base, tenant = base_graph or "default", base
        elif base_graph is not None:
            raise TypeError("for_tenant(base, tenant) names the base graph already; drop base_graph=")
        if isinstance(tenant, str):
            tenant = tenant.strip()  # the key rule: whitespace at the ends is not part of a name
        if not isinstance(tenant, str) or not _TENANT.fullmatch(tenant):
            raise ToolError(f"Invalid tenant name {tenant!r}.",
                            "Use 1-63 letters, digits, '_' or '-', starting with a letter or digit (e.g. 'acme').")
        if isinstance(base, GraphRAGToolkit):
            base = base.kg
        if isinstance(base, KnowledgeGraph):
            address = base.store.address
            url = url if url is not None or data_dir is not None else address.url
            data_dir = data_dir if data_dir is not None else address.data_dir
            embedder, llm, base = embedder or base.embedder, llm or base.llm, base.name
        kg = await KnowledgeGraph.open(url=url, graph=f"{base}__{tenant}", data_dir=data_dir, embedder=embedder,
                                       llm=llm)
        try:
            toolkit = cls(kg, read_only=read_only, files_root=files_root, max_file_bytes=max_file_bytes,
                          plan_limits=plan_limits, include=include, finalize_policy=finalize_policy,
                          ledger_capacity=ledger_capacity, citation_packs=citation_packs)
        except BaseException:
            await kg.close()  # a bad option must not leave the graph open
            raise
        toolkit._shared.owns_kg = True
        return toolkit

    async def aclose(self) -> None:
        """Close the graph when this toolkit opened it (``for_tenant``)."""
        if self._shared.owns_kg:
            self._shared.owns_kg = False
            await self._shared.kg.close()

    async def __aenter__(self) -> GraphRAGToolkit:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()

    # -- the tool list -------------------------------------------------------------------------------------

    def _offered(self, name: str) -> bool:
        shared = self._shared
        if shared.include is not None and name not in shared.include:
            return False
        if name in WRITE_TOOLS:
            if shared.read_only:
                return False
            if name == "preview_files" and shared.write.files is None:
                return False
            if name == "finalize" and shared.finalize_policy != "manual":
                return False
        return True

    def _all_specs(self) -> list[ToolSpec]:
        specs = [
            ToolSpec("status", _DESCRIPTIONS["status"], StatusInput, StatusResult, _READ, self._status),
            ToolSpec("get_ontology", _DESCRIPTIONS["get_ontology"], GetOntologyInput, OntologyResult, _READ,
                     self._get_ontology),
            ToolSpec("retrieve", _DESCRIPTIONS["retrieve"], RetrieveInput, RetrieveResult, _READ, self._retrieve),
            ToolSpec("check_citations", _DESCRIPTIONS["check_citations"], CheckCitationsInput, CitationCheck,
                     _READ, self._check_citations),
        ]
        return specs + write_specs(self.kg, self._shared.write, self._shared.finalize_policy)

    def tool_specs(self) -> list[ToolSpec]:
        """The tools this toolkit offers (respecting ``include``, ``read_only``, files root and finalize policy)."""
        return [spec for spec in self._all_specs() if self._offered(spec.name)]

    def spec(self, name: str) -> ToolSpec:
        """The offered tool called ``name``; ToolError (or ReadOnlyViolation) when it is not offered."""
        for spec in self.tool_specs():
            if spec.name == name:
                return spec
        if name in WRITE_TOOLS and self._shared.read_only:
            raise ReadOnlyViolation(f"The tool {name!r} writes to the graph, and this toolkit is read-only.",
                                    "Use the read tools (status, get_ontology, retrieve, check_citations), or "
                                    "build the toolkit with read_only=False.")
        offered = ", ".join(s.name for s in self.tool_specs())
        raise ToolError(f"Unknown or unavailable tool {name!r}.", f"Available tools: {offered}.")

    async def call(self, name: str, args: Mapping[str, Any] | BaseModel | None = None) -> ToolResult:
        """Validate ``args`` with the tool's input model and run it."""
        return await self.spec(name).run(args)

    # -- read tools ----------------------------------------------------------------------------------------

    async def status(self) -> StatusResult:
        """Counts of what the graph holds; one evidence number."""
        result = await self.call("status", {})
        assert isinstance(result, StatusResult)
        return result

    async def get_ontology(self) -> OntologyResult:
        """The declared ontology; one evidence number."""
        result = await self.call("get_ontology", {})
        assert isinstance(result, OntologyResult)
        return result

    async def retrieve(self, question: str, *, paths: Sequence[RetrievePath] | None = None, top_k: int | None = None,
                       expand_hops: int | None = None, document_ids: Sequence[str] | None = None,
                       min_score: float | None = None) -> RetrieveResult:
        """Hybrid search for ``question``, validated as the ``retrieve`` tool validates it (None: the tool's default).

        Args:
            question: what to search for, ideally the user's question word for word.
            paths: the search paths to run (default all): facts, exact_names, fuzzy_names, links, passages.
            top_k: items per path, 1-50 (default 10).
            expand_hops: how far the links path walks from the entities found, 1-5 (default 1).
            document_ids: only search these documents.
            min_score: drop items scoring below this, 0-1 (default: keep all).
        """
        given = {"paths": None if paths is None else list(paths), "top_k": top_k, "expand_hops": expand_hops,
                 "document_ids": None if document_ids is None else list(document_ids), "min_score": min_score}
        options = {k: v for k, v in given.items() if v is not None}
        result = await self.call("retrieve", {"question": question, **options})
        assert isinstance(result, RetrieveResult)
        return result

    async def check_citations(self, answer: str) -> CitationCheck:
        """Check a draft answer's [n] citations against this session's evidence."""
        result = await self.call("check_citations", {"answer": answer})
        assert isinstance(result, CitationCheck)
        return result

    # -- write tools ---------------------------------------------------------------------------------------

    async def preview_files(self, files: Sequence[str] | None = None, offset: int = 0,
                            **options: Any) -> PreviewFilesResult:
        """One sample from the middle of each file under the files root; page on with ``offset=next_offset``."""
        result = await self.call("preview_files", {"files": files, "offset": offset, **options})
        assert isinstance(result, PreviewFilesResult)
        return result

    async def set_ontology(self, entities: Sequence[Mapping[str, Any]] = (),
                           relations: Sequence[Mapping[str, Any]] = ()) -> SetOntologyResult:
        """Declare or extend the ontology (additive only)."""
        result = await self.call("set_ontology", {"entities": list(entities), "relations": list(relations)})
        assert isinstance(result, SetOntologyResult)
        return result

    async def ingest(self, text: str | None = None, **options: Any) -> IngestResult:
        """Ingest ``text``, or ``files=[...]`` under the files root with an optional ``plan``; see the tool."""
        args = {"text": text, **options} if text is not None else options
        result = await self.call("ingest", args)
        assert isinstance(result, IngestResult)
        return result

    async def finalize(self) -> FinalizeResult:
        """Embed and index; under ``finalize_policy="on_write"`` this retries a finalize that failed."""
        policy = self._shared.finalize_policy
        if policy == "manual" or self.read_only:
            result = await self.call("finalize", {})
            assert isinstance(result, FinalizeResult)
            return result
        if policy == "never":
            raise ToolError("finalize_policy is 'never': the toolkit does not finalize.",
                            "Call kg.finalize() yourself after ingesting.")
        return await finalize_pending(self.kg, self._shared.write)

    async def add_facts(self, text: str, entities: Sequence[Mapping[str, Any]],
                        relations: Sequence[Mapping[str, Any]] = (), **options: Any) -> AddFactsResult:
        """Write entities and relations extracted by the caller, tied to their source ``text``."""
        result = await self.call("add_facts", {"text": text, "entities": list(entities),
                                               "relations": list(relations), **options})
        assert isinstance(result, AddFactsResult)
        return result

    async def _status(self, _: StatusInput) -> StatusResult:
        return number_status(self.ledger, await self.kg.status())

    async def _get_ontology(self, _: GetOntologyInput) -> OntologyResult:
        await self.kg.require_exists()
        meta = await read_meta(self.kg.store)
        return number_ontology(self.ledger, meta.ontology_json if meta else "{}")

    async def _retrieve(self, args: RetrieveInput) -> RetrieveResult:
        hits = await self.kg.retrieve(args.question, paths=args.paths, top_k=args.top_k,
                                      expand_hops=args.expand_hops, document_ids=args.document_ids)
        return number_retrieval(self.ledger, hits, args.min_score)

    async def _check_citations(self, args: CheckCitationsInput) -> CitationCheck:
        # CPU-bound: it runs on a worker thread so the event loop (every other session, the call timeout) keeps
        # going; it reads a copy of the ledger, which calls running meanwhile may extend. Each item's index (its
        # words, sentences and parses) is built once per session, not once per check.
        evidence = {item.n: item for item in self.ledger.items()}
        return await asyncio.to_thread(partial(check_citations, cache=self.evidence_indexes,
                                               packs=self._shared.citation_packs), args.answer, evidence)
