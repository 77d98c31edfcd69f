"""``AgentOptions``: every setting of the reference agent besides its model, tools, mode and checkpointer.

Imports no agent framework: the command line and the evaluation build options before they know whether the agent
will run.

Example::

    options = AgentOptions(min_score=0.35, confirm=True)
    agent = build_grounded_agent(model, toolkit, mode="retrieve_first", options=options)
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from ..errors import ConfigurationError
from ..tools.toolkit import GraphRAGToolkit
from .accept import REFUSAL, AcceptRule, strictly_grounded
from .reader import ReaderView

__all__ = ["AgentMode", "AgentOptions", "Drafting", "option_names"]

AgentMode = Literal["tools", "retrieve_first"]
"""``tools``: the model calls the read tools itself. ``retrieve_first``: the agent retrieves the question, puts
the numbered evidence in the prompt and the model only drafts (for models without reliable tool calling)."""

Drafting = Literal["structured", "text"]
"""``structured``: a JSON reply (short answer + evidence numbers) rendered to a cited draft; ``text``: the
model writes the cited sentences itself."""

MODES: tuple[AgentMode, ...] = ("tools", "retrieve_first")


@dataclass(frozen=True)
class AgentOptions:
    """How the reference agent drafts, checks and serves (:func:`~graphrag_agents.agent.build_grounded_agent`).

    The defaults are the measured ones (``docs/agent.md``). Options that apply only to one mode or drafting are
    ignored elsewhere (:meth:`for_mode` says which run); :meth:`validate` refuses values no mode can run.
    """

    max_revisions: int = 1
    """Revision turns after a draft fails the check, before the refusal (0 or more)."""
    refusal: str = REFUSAL
    """The fixed text of every abstention."""
    min_score: float | None = None
    """The pre-generation gate: abstain without calling the model when the best passage or fact score of
    ``retrieve(question)`` is under it (None: no gate). Entity scores do not count: an exact name match scores 1
    whether or not the graph holds the answer. Scores depend on the corpus and the embedder: read real ones off
    your own questions first."""
    accept: AcceptRule = strictly_grounded
    """Which checked drafts pass; default :func:`~graphrag_agents.agent.strictly_grounded`."""
    system_prompt: str | None = None
    """Replaces the mode's system prompt (None: the mode's own)."""
    max_tool_rounds: int = 6
    """``tools`` mode: rounds of model tool calls per run (1 or more); after that the draft goes to ``verify`` as
    it is."""
    retrieve_options: Mapping[str, Any] = field(default_factory=dict)
    """Options of the agent's own retrieve (``top_k``, ``expand_hops``, ``paths``, ...; the agent passes the
    question itself)."""
    evidence_chars: int = 8000
    """Size of the evidence text the agent's own retrieve shows the model in ``text`` drafting (structured
    drafting shows ``reader``'s view instead)."""
    text_tool_calls: bool = True
    """``tools`` mode: run tool calls a model wrote as bare JSON text (small local models do) as real ones."""
    repair_citations: bool = False
    """When a draft fails the check, first cite the evidence the check suggests (items holding all the figures and
    names of its uncited sentences, or of the structured short answer) and check again; a repaired draft that
    passes is served (``repaired`` in the final state) without a revision turn. Off by default: with the local
    models the revision turn refuses most of the drafts repair would serve, and those were wrong."""
    drafting: Drafting | None = None
    """``"structured"`` or ``"text"`` (see :data:`Drafting`); None: structured in ``retrieve_first``, text in
    ``tools``."""
    reader: ReaderView = field(default_factory=ReaderView)
    """The evidence the structured drafting turn shows (default: 4 passages, then 2 facts, no entity cards)."""
    answer_fit: bool = True
    """Structured drafting: a short answer that passes the check must also fit the question
    (:func:`~graphrag_agents.agent.answer_fit`: not an echo of it, evidence about each side of a comparison, cited
    evidence tied to its names), else a revision turn and then the refusal (``abstain_reason="off_question"``)."""
    confirm: bool = False
    """Structured drafting: before serving, ask the model once more, shown only the question, the answer and the
    items it cited, whether they state it; no is the refusal (``abstain_reason="not_confirmed"``). One extra
    call per served answer."""
    supporting_sentence: bool = False
    """Structured drafting: the reply format asks for the evidence sentence that states the answer (copied)
    before the answer itself."""
    min_confidence: float | None = None
    """Structured drafting: refuse an answer the model itself gave a probability under this (0-1, read from the
    reply's token log-probabilities; ``abstain_reason="low_confidence"``). The model must return
    log-probabilities (OpenAI, llama.cpp, vLLM). None: no threshold."""
    hops: bool = True
    """``retrieve_first`` with structured drafting: answer a multi-hop question as a chain of single-hop steps,
    each retrieved, drafted and checked; a hop no evidence answers ends in the refusal
    (``abstain_reason="missing_hop"``). False: one retrieve for every question."""
    choice_check: bool = False
    """``retrieve_first`` with structured drafting: before serving, the model picks its answer again among
    alternatives from its cited evidence plus "none of these"; another pick is the refusal
    (``abstain_reason="not_chosen"``). One call when there is an alternative to show. Off by default: on four
    sets it refused about as many right answers as wrong ones (docs/agent-measured.md)."""

    def drafting_for(self, mode: str) -> Drafting:
        """The drafting a run in ``mode`` uses: ``drafting``, else the mode's default."""
        return self.drafting or ("structured" if mode == "retrieve_first" else "text")

    def for_mode(self, mode: str) -> AgentOptions:
        """These options as a run in ``mode`` applies them: ``drafting`` filled in, and ``hops`` and
        ``choice_check`` off where they do not run (outside ``retrieve_first`` with structured drafting)."""
        drafting = self.drafting_for(mode)
        chained = mode == "retrieve_first" and drafting == "structured"
        return replace(self, drafting=drafting, hops=self.hops and chained, choice_check=self.choice_check and chained)

    def validate(self, mode: str) -> None:
        """Refuse options no run in ``mode`` can use, naming the value and the fix.

        Raises:
            ConfigurationError: a bad mode, count, drafting, probability or retrieve option.
        """
        if mode not in MODES:
            raise ConfigurationError(f"mode must be 'tools' or 'retrieve_first', not {mode!r}. Fix: pass one of "
                                     "them (retrieve_first for models without reliable tool calling), or resolve "
                                     "'auto' for the model first with choose_mode.")
        if self.max_revisions < 0:
            raise ConfigurationError(f"max_revisions must be >= 0, not {self.max_revisions!r}. Fix: pass 0 to "
                                     "refuse at the first failed draft.")
        if self.max_tool_rounds < 1:
            raise ConfigurationError(f"max_tool_rounds must be >= 1, not {self.max_tool_rounds!r}. Fix: pass 1 "
                                     "or more.")
        if self.drafting not in (None, "structured", "text"):
            raise ConfigurationError(f"drafting must be 'structured' or 'text', not {self.drafting!r}. Fix: pass "
                                     "one of them, or None for the mode's default.")
        self._validate_confidence(mode)
        _check_retrieve_options(self.retrieve_options)

    def _validate_confidence(self, mode: str) -> None:
        value = self.min_confidence
        if value is None:
            return
        if math.isnan(value) or not 0.0 <= value <= 1.0:
            raise ConfigurationError(f"min_confidence must be a probability from 0 to 1, not {value!r}. Fix: "
                                     "pass a value such as 0.3, or None for no threshold.")
        if self.drafting_for(mode) != "structured":
            raise ConfigurationError("min_confidence reads the short answer of a structured draft. Fix: build the "
                                     "agent with drafting='structured', or min_confidence=None.")


def option_names() -> tuple[str, ...]:
    """The names of :class:`AgentOptions`' fields, in order."""
    return tuple(f.name for f in fields(AgentOptions))


def _check_retrieve_options(options: Mapping[str, Any]) -> None:
    """Refuse an option ``GraphRAGToolkit.retrieve`` does not take when the agent is built, not at its first run."""
    known = [name for name in inspect.signature(GraphRAGToolkit.retrieve).parameters
             if name not in ("self", "question")]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ConfigurationError(f"retrieve_options has no option {', '.join(map(repr, unknown))}. Fix: use "
                                 f"{', '.join(known)} (the agent passes the question itself).")
