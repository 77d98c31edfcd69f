"""What ``check_citations`` returns: the cited sources, its findings, the two verdicts, each sentence's verdict with
the evidence spans behind it, and the text a model reads.

Two verdicts, because they answer different questions. ``grounded`` is the reference's literal rule: the answer
cites at least one number that is real evidence. ``verified`` is what a reader wants to know: grounded, and every
claim checked out (no invalid number, no uncited claim, no unsupported one). ``to_llm_text`` never calls a draft
"grounded" alone when a claim failed: it leads with the ``verified`` verdict and says what ``grounded`` means.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, model_validator

from ..evidence import EvidenceKind, ToolResult

__all__ = ["CheckedClaim", "CitationCheck", "CitationSuggestion", "CitedSource", "ClaimConflict", "ClaimVerdict",
           "EvidenceSpan", "UnsupportedClaim"]

_SENTENCE_CHARS = 300

ConflictRule = Literal["together", "negation", "opposite", "direction", "subject", "record", "hours", "support",
                       "judge"]
ClaimVerdict = Literal["verified", "unsupported", "uncited", "no_claim"]
"""A sentence's verdict: its cited evidence supports it, does not, it states a figure or a name with no citation of
its own, or it states neither (a heading, a sentence saying the graph lacks something, ordinary prose)."""


class CitedSource(BaseModel):
    """One piece of evidence the answer cites."""

    n: int = Field(description="The evidence number cited as [n].")
    tool: str = Field(description="The tool that returned the evidence.")
    kind: EvidenceKind = Field(description="entity, relation, fact, passage, status or ontology.")
    content: str = Field(description="The evidence text the citation check searched.")
    sources: list[str] = Field(default_factory=list, description="Every document id or file the evidence came "
                               "from, when it stands in several (a repeated passage): the citation holds for each.")


class ClaimConflict(BaseModel):
    """Something a cited sentence says that its evidence does not: a meaning rule's finding."""

    rule: ConflictRule = Field(
        description="together (names or figures the evidence never states together), negation (a negation one "
                    "side has and the other lacks), opposite (an opposite word or another rank), direction (relation "
                    "roles reversed), subject (a subject paired with the value a cited passage gives for another), "
                    "record (an attribute of a cited record given another value), hours (days or times against a "
                    "record's opening hours, with the records pack), support "
                    "(content words no cited sentence says, listed in unsupported_words), "
                    "judge (the "
                    "entailment judge passed to check_citations).")
    detail: str = Field(description='What was found, e.g. \'"died" where the evidence says "born"\'.')


class UnsupportedClaim(BaseModel):
    """A cited sentence whose figures or names the evidence it cites lacks, or whose meaning it contradicts."""

    sentence: str = Field(description="The sentence, as it reads in the checked answer.")
    cited: list[int] = Field(description="The valid evidence numbers the sentence cites.")
    missing_figures: list[str] = Field(
        default_factory=list, description="Figures of the sentence (2.80 written as 2.8) not in that evidence."
    )
    missing_names: list[str] = Field(
        default_factory=list, description="Names of the sentence with a 3+ letter word not in that evidence."
    )
    conflicts: list[ClaimConflict] = Field(
        default_factory=list,
        description="Checked when every figure and name was found: names not stated together, a negation or an "
                    "opposite word that the evidence sentence does not share, reversed roles, unsupported content.",
    )
    unsupported_words: list[str] = Field(
        default_factory=list,
        description="Content words of the sentence that no cited evidence says in any form: what to drop or "
                    "correct (the support rule).",
    )


class CitationSuggestion(BaseModel):
    """Evidence that holds every figure and name of a sentence the answer left uncited."""

    sentence: str = Field(description="The uncited sentence, as it reads in the checked answer.")
    evidence: list[int] = Field(description="Numbers of evidence holding all its figures and names (newest first).")


class EvidenceSpan(BaseModel):
    """One sentence of an evidence item, as character offsets into that item's ``content``."""

    n: int = Field(description="The evidence number.")
    start: int = Field(description="Offset of the span's first character in the item's content.")
    end: int = Field(description="Offset just past its last character: the span is content[start:end], one "
                                 "sentence of the item, never more.")


class CheckedClaim(BaseModel):
    """One sentence of the answer: its verdict, and the evidence spans behind it."""

    text: str = Field(description="The sentence, as it reads in the checked answer (as uncited and unsupported "
                                  "give it).")
    start: int = Field(description="Offset of the sentence in the returned answer.")
    end: int = Field(description="Offset just past its end in the returned answer.")
    cited: list[int] = Field(default_factory=list, description="The valid evidence numbers the sentence cites.")
    verdict: ClaimVerdict = Field(
        description="verified (its cited evidence supports it), unsupported (listed in unsupported), uncited "
                    "(listed in uncited) or no_claim (a heading, a lack statement, prose with no figure or name).")
    support: list[EvidenceSpan] = Field(
        default_factory=list,
        description="For a verified sentence: the sentences of its cited evidence that hold its words, best first "
                    "(a further one only when it holds words the ones before lack).")
    closest: EvidenceSpan | None = Field(
        default=None, description="For an unsupported sentence: the sentence of its cited evidence holding most "
                                  "of its words (None when none holds any).")
    missing: list[str] = Field(
        default_factory=list,
        description="For an unsupported sentence: the figures, names and words its cited evidence lacks; for a "
                    "meaning finding, its words (and a negation) the closest sentence lacks, empty when the finding "
                    "is in how the words relate (see the claim's conflicts).")


class CitationCheck(ToolResult):
    """The result of checking an answer's [n] citations against the session's evidence."""

    answer: str = Field(description="The answer with invalid citation numbers removed.")
    grounded: bool = Field(description="True when the answer cites at least one piece of real evidence (only that: "
                                       "see verified for whether its claims checked out).")
    verified: bool = Field(default=False,
                           description="True when the answer is grounded and every claim checked out: no invalid "
                                       "number, no uncited sentence, no unsupported claim.")
    cited: list[int] = Field(default_factory=list, description="Valid evidence numbers the answer cites.")
    invalid: list[int] = Field(
        default_factory=list, description="Cited numbers that point at no evidence; removed from answer."
    )
    sources: list[CitedSource] = Field(default_factory=list, description="The cited evidence, by number.")
    uncited: list[str] = Field(
        default_factory=list, description="Sentences stating a figure or a name with no [n] of their own."
    )
    unsupported: list[UnsupportedClaim] = Field(
        default_factory=list,
        description="Cited sentences whose figures or names their evidence lacks, or whose meaning it contradicts.",
    )
    suggested: list[CitationSuggestion] = Field(
        default_factory=list,
        description="For uncited sentences: evidence that holds all their figures and names, to cite as [n].",
    )
    claims: list[CheckedClaim] = Field(
        default_factory=list,
        description="Every sentence of the answer in order, with its verdict and the spans of evidence behind it.",
    )

    @model_validator(mode="after")
    def _verdict(self) -> CitationCheck:
        # derived, so a check built or stored by hand (or by an older version, without the field) reads the same
        self.verified = bool(self.grounded and not self.invalid and not self.uncited and not self.unsupported)
        return self

    def to_llm_text(self, max_chars: int = 8000) -> str:
        """A compact summary a model can act on: verified or not, what to remove, cite or correct."""
        failed = len(self.uncited) + len(self.unsupported)
        if not self.grounded:
            head = ["Citation check: NOT grounded and NOT verified: the answer cites no evidence returned in this "
                    "session."]
        elif self.verified:
            head = [f"Citation check: grounded and verified (cites {_numbers(self.cited)}): every cited figure, "
                    "name and statement was found in its evidence."]
        else:
            what = f"{failed} sentence{'s' if failed != 1 else ''} failed the check" if failed else \
                "it cited numbers that are no evidence"
            head = [f"Citation check: NOT verified: {what}. (It cites real evidence {_numbers(self.cited)}, which "
                    "is all that grounded means.)"]
        if self.invalid:
            head.append(f"Removed invalid citations {_numbers(self.invalid)}: no such evidence in this "
                        "session; cite only numbers a tool returned.")
        if not self.grounded and not failed:
            head.append("Cite evidence as [n] after each claim, or say the graph does not have the answer.")
        hints = {suggestion.sentence: suggestion.evidence for suggestion in self.suggested}
        sections = [
            ("Sentences stating a figure or name without an [n] of their own (cite or remove):",
             [f'- "{_clip(s)}"' + (f" (evidence {_numbers(hints[s])} holds its figures and names)" if s in hints
                                   else "") for s in self.uncited]),
            ("Cited sentences their evidence does not support (correct the claim or the citation):",
             [_unsupported_line(c) for c in self.unsupported]),
        ]
        text = "\n".join(head)
        live = [(title, lines) for title, lines in sections if lines]
        for i, (title, lines) in enumerate(live):
            budget = (max_chars - len(text)) // (len(live) - i)
            text += "\n" + _section(title, lines, budget)
        return text[:max_chars]


def _numbers(numbers: list[int]) -> str:
    return "[" + ", ".join(str(n) for n in numbers) + "]"


def _clip(text: str) -> str:
    return text if len(text) <= _SENTENCE_CHARS else text[:_SENTENCE_CHARS - 1] + "…"


def _unsupported_line(claim: UnsupportedClaim) -> str:
    lacks = []
    if claim.missing_figures:
        lacks.append("figures " + ", ".join(claim.missing_figures))
    if claim.missing_names:
        lacks.append("names " + ", ".join(claim.missing_names))
    parts = [f"lacks {'; '.join(lacks)}"] if lacks else []
    parts += [c.detail for c in claim.conflicts]
    return f'- "{_clip(claim.sentence)}" {_numbers(claim.cited)} ' + "; ".join(parts)


def _section(title: str, lines: list[str], budget: int) -> str:
    """``title`` and as many ``lines`` as fit in ``budget`` characters, then ``…(N more omitted)``."""
    out = [title]
    used = len(title) + 1
    for i, line in enumerate(lines):
        rest = len(lines) - i - 1
        tail = len(f"\n…({len(lines)} more omitted)") if rest else 0
        if used + len(line) + 1 + tail > budget:
            out.append(f"…({len(lines) - i} more omitted)")
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)
