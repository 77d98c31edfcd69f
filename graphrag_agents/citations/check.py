"""The deterministic citation check: an answer's ``[n]`` markers against the evidence a session returned.

``check_citations(answer, evidence)`` needs no graph and no LLM. It reads markers ``[3]``, ``[1, 4]`` and
``[1-3]`` (also ``[ 3 ]``, ``[3,4]``, ``[1–3]`` and full-width ``［3］`` / ``【3】``); markers inside
Markdown code are not citations. Then, as the reference's "Evidence and citations" section says:

* ``invalid``: numbers that point at no evidence (never issued, or dropped from the session). They are removed
  from the returned ``answer``: a marker with only invalid numbers disappears, one with some keeps the others.
  A range over more than 100 numbers (``[1-100000]``) cites nothing checkable and is removed as invalid,
  its two ends listed.
* ``uncited``: sentences that state a figure or a name with no marker of their own (a marker that only held
  invalid numbers does not count). A sentence saying the graph, the evidence or a lookup lacks something
  ("The graph does not say who founded Globex.") needs none; a negative claim about the world does.
* ``unsupported``: cited sentences whose figures or names the text of the evidence they cite does not contain.
  A figure is a number written with digits; it must appear as a number in that text, with trailing zeros,
  leading zeros and thousands separators ignored (``2.80`` = ``2.8``, ``1,000`` = ``1000``, ``45%`` = ``45
  percent``); number words are not numbers, so a ``2`` backed only by "two" is reported. A name is a run of
  capitalised words; it is found when each of its words of three or more letters is a whole word of that text,
  ignoring case and accents. The sentence's first word counts only when it starts a run or the sentence names
  something else, and never when it is an opener ("The", "However", "He") or a label ("Answer:").
  The evidence's ``source`` (its file path or document id) is not searched.
* ``suggested``: for each uncited sentence (the first 20), up to three evidence numbers (newest first) whose
  text holds all of its figures and names by the rule above, so the revision can cite them; the check never adds
  a citation itself.
* ``grounded``: our reading of the reference is literal: "An answer that cites no real evidence is not
  grounded" and "the claim checks are warnings and never change grounded". So ``grounded`` is true exactly
  when the answer cites at least one number that is real evidence; invalid numbers (removed from ``answer``),
  uncited and unsupported sentences leave it unchanged. A caller that wants a stricter gate combines the
  fields itself.

Headings and table header rows make no claims and are not checked. Run time is linear in the answer's length.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from pydantic import BaseModel, Field

from ..tools.evidence import Evidence, EvidenceKind, EvidenceLedger
from ..tools.results import ToolResult
from ._claims import EvidenceIndex, Name, claim_text, extract_figures, extract_names, is_lack_statement
from ._sentences import INLINE_CODE_RE, MARKER_RE, code_spans, split_sentences

__all__ = ["CitationCheck", "CitationSuggestion", "CitedSource", "UnsupportedClaim", "check_citations"]

MAX_RANGE = 100
"""The widest range a marker may cite (``[1-100]``); wider ones are invalid."""
_SEPARATORS = str.maketrans({sep: "," for sep in "，、;；"})
_DASHES = str.maketrans({dash: "-" for dash in "–—~〜"})
_SENTENCE_CHARS = 300
_MAX_SUGGESTED = 3
# Suggestions are searched for the first uncited sentences only: each search may read every evidence item, and
# the check must stay linear in the answer's length.
_MAX_SUGGESTED_SENTENCES = 20
# Pathologically nested markers could need one pass per level; past this, what is left stays in the text but is
# never cited (a sentence only cites numbers that are real evidence).
_MAX_PASSES = 4


class CitedSource(BaseModel):
    """One piece of evidence the answer cites."""

    n: int = Field(description="The evidence number cited as [n].")
    tool: str = Field(description="The tool that returned the evidence.")
    kind: EvidenceKind = Field(description="entity, relation, fact, passage, status or ontology.")
    content: str = Field(description="The evidence text the citation check searched.")


class UnsupportedClaim(BaseModel):
    """A cited sentence whose figures or names the evidence it cites does not contain."""

    sentence: str = Field(description="The sentence, as it reads in the checked answer.")
    cited: list[int] = Field(description="The valid evidence numbers the sentence cites.")
    missing_figures: list[str] = Field(
        default_factory=list, description="Figures of the sentence (2.80 written as 2.8) not in that evidence."
    )
    missing_names: list[str] = Field(
        default_factory=list, description="Names of the sentence with a 3+ letter word not in that evidence."
    )


class CitationSuggestion(BaseModel):
    """Evidence that holds every figure and name of a sentence the answer left uncited."""

    sentence: str = Field(description="The uncited sentence, as it reads in the checked answer.")
    evidence: list[int] = Field(description="Numbers of evidence holding all its figures and names (newest first).")


class CitationCheck(ToolResult):
    """The result of checking an answer's [n] citations against the session's evidence."""

    answer: str = Field(description="The answer with invalid citation numbers removed.")
    grounded: bool = Field(description="True when the answer cites at least one piece of real evidence.")
    cited: list[int] = Field(default_factory=list, description="Valid evidence numbers the answer cites.")
    invalid: list[int] = Field(
        default_factory=list, description="Cited numbers that point at no evidence; removed from answer."
    )
    sources: list[CitedSource] = Field(default_factory=list, description="The cited evidence, by number.")
    uncited: list[str] = Field(
        default_factory=list, description="Sentences stating a figure or a name with no [n] of their own."
    )
    unsupported: list[UnsupportedClaim] = Field(
        default_factory=list, description="Cited sentences whose figures or names their evidence lacks."
    )
    suggested: list[CitationSuggestion] = Field(
        default_factory=list,
        description="For uncited sentences: evidence that holds all their figures and names, to cite as [n].",
    )

    def to_llm_text(self, max_chars: int = 8000) -> str:
        """A compact summary a model can act on: grounded or not, what to remove, cite or correct."""
        if self.grounded:
            head = [f"Citation check: grounded (cites {_numbers(self.cited)})."]
        else:
            head = ["Citation check: NOT grounded: the answer cites no evidence returned in this session."]
        if self.invalid:
            head.append(f"Removed invalid citations {_numbers(self.invalid)}: no such evidence in this "
                        "session; cite only numbers a tool returned.")
        if not self.uncited and not self.unsupported:
            head.append("Every cited figure and name was found in its evidence." if self.grounded else
                        "Cite evidence as [n] after each claim, or say the graph does not have the answer.")
        hints = {suggestion.sentence: suggestion.evidence for suggestion in self.suggested}
        sections = [
            ("Sentences stating a figure or name without an [n] of their own (cite or remove):",
             [f'- "{_clip(s)}"' + (f" (evidence {_numbers(hints[s])} holds its figures and names)" if s in hints
                                   else "") for s in self.uncited]),
            ("Cited sentences whose evidence lacks a figure or name (correct the claim or the citation):",
             [_unsupported_line(c) for c in self.unsupported]),
        ]
        text = "\n".join(head)
        live = [(title, lines) for title, lines in sections if lines]
        for i, (title, lines) in enumerate(live):
            budget = (max_chars - len(text)) // (len(live) - i)
            text += "\n" + _section(title, lines, budget)
        return text[:max_chars]


def check_citations(
    answer: str, evidence: Mapping[int, Evidence] | Iterable[Evidence] | EvidenceLedger
) -> CitationCheck:
    """Check the ``[n]`` citations of ``answer`` against ``evidence`` (no LLM, no graph).

    Args:
        answer: The draft answer, plain text or Markdown.
        evidence: The session's evidence: a mapping from number to item, any iterable of items, or the ledger.
            A number it does not hold (never issued, or dropped) is invalid.

    Returns:
        The check; see the module docstring for every rule.

    Example:
        >>> ev = [Evidence(n=1, tool="retrieve", kind="fact", content="Alice works at Acme Corp.")]
        >>> check_citations("Alice works at Acme Corp [1].", ev).grounded
        True
    """
    items = _as_mapping(evidence)
    cleaned, cited, invalid = _clean(answer, lambda n: items.get(n) is not None)
    cited_set = set(cited)
    indexes: dict[int, EvidenceIndex] = {}
    uncited: list[str] = []
    unsupported: list[UnsupportedClaim] = []
    suggested: list[CitationSuggestion] = []
    finder = _Holders(items, indexes)
    for sentence in split_sentences(cleaned):
        if not sentence.checked:
            continue
        raw = cleaned[sentence.start:sentence.end]
        without_code = INLINE_CODE_RE.sub(" ", raw)
        found = {n for m in MARKER_RE.finditer(without_code) for n in _parse(m.group(), _always)[0]}
        numbers = sorted(n for n in found if n in cited_set)
        claims = claim_text(MARKER_RE.sub(" ", without_code))
        figures = extract_figures(claims)
        if not numbers:
            lone_names = extract_names(claims, lone_first=True)
            if (figures or lone_names) and not is_lack_statement(claims):
                uncited.append(_display(raw))
                holders = finder.holding(figures, lone_names) if len(uncited) <= _MAX_SUGGESTED_SENTENCES else []
                if holders:
                    suggested.append(CitationSuggestion(sentence=_display(raw), evidence=holders))
            continue
        names = extract_names(claims)
        evid = [indexes.setdefault(n, EvidenceIndex(items[n].content)) for n in numbers]
        missing_figures = [f for f in figures if not any(f in e.figures for e in evid)]
        missing_names = [nm.text for nm in names if not all(any(w in e.words for e in evid) for w in nm.words)]
        if missing_figures or missing_names:
            unsupported.append(UnsupportedClaim(sentence=_display(raw), cited=numbers,
                                                missing_figures=missing_figures,
                                                missing_names=list(dict.fromkeys(missing_names))))
    sources = [CitedSource(n=n, tool=items[n].tool, kind=items[n].kind, content=items[n].content)
               for n in cited]
    return CitationCheck(answer=cleaned, grounded=bool(cited), cited=cited, invalid=invalid, sources=sources,
                         uncited=uncited, unsupported=unsupported, suggested=suggested)


class _Holders:
    """Finds the evidence items that hold all of a sentence's figures and names (indexes built on demand)."""

    def __init__(self, items: Mapping[int, Evidence], indexes: dict[int, EvidenceIndex]) -> None:
        self.items, self.indexes = items, indexes
        self._newest_first: list[int] | None = None  # sorted on the first search, reused for the next ones

    def holding(self, figures: list[str], names: list[Name]) -> list[int]:
        if self._newest_first is None:
            # Newest first: the latest retrieval is the likeliest source.
            self._newest_first = sorted(self.items, reverse=True)
        found: list[int] = []
        for n in self._newest_first:
            index = self.indexes.get(n)
            if index is None:
                index = self.indexes[n] = EvidenceIndex(self.items[n].content)
            if all(f in index.figures for f in figures) and all(w in index.words for nm in names for w in nm.words):
                found.append(n)
                if len(found) == _MAX_SUGGESTED:
                    break
        return found


def _as_mapping(
    evidence: Mapping[int, Evidence] | Iterable[Evidence] | EvidenceLedger,
) -> Mapping[int, Evidence]:
    if isinstance(evidence, Mapping):
        return evidence
    if isinstance(evidence, EvidenceLedger):
        return {item.n: item for item in evidence.items()}
    return {item.n: item for item in evidence}


def _always(_: int) -> bool:
    return True


def _parse(marker: str, valid: Callable[[int], bool]) -> tuple[list[int], list[int]]:
    """The valid and invalid numbers of one marker, in the order written."""
    good: list[int] = []
    bad: list[int] = []
    body = marker[1:-1].translate(_SEPARATORS).translate(_DASHES)
    for item in body.split(","):
        low_text, _, high_text = item.partition("-")
        low = int(low_text)
        high = int(high_text) if high_text else low
        low, high = min(low, high), max(low, high)
        if high - low >= MAX_RANGE:
            bad.extend((low, high))
            continue
        for n in range(low, high + 1):
            (good if valid(n) else bad).append(n)
    return good, bad


def _clean(answer: str, valid: Callable[[int], bool]) -> tuple[str, list[int], list[int]]:
    """:func:`_resolve_markers`, repeated while removing a marker splices a new one (``[5[9]]`` -> ``[5]``)."""
    cited: set[int] = set()
    invalid: set[int] = set()
    for _ in range(_MAX_PASSES):
        answer, good, bad = _resolve_markers(answer, valid)
        cited.update(good)
        invalid.update(bad)
        if not bad:
            break
    return answer, sorted(cited), sorted(invalid)


def _resolve_markers(answer: str, valid: Callable[[int], bool]) -> tuple[str, list[int], list[int]]:
    """The answer with invalid numbers removed, and the sorted valid and invalid numbers it cites."""
    spans = code_spans(answer)
    span_i = 0
    pieces: list[str] = []
    tail = "\n"  # the last character written so far
    pos = 0
    cited: set[int] = set()
    invalid: set[int] = set()
    for m in MARKER_RE.finditer(answer):
        while span_i < len(spans) and spans[span_i][1] <= m.start():
            span_i += 1
        if span_i < len(spans) and spans[span_i][0] <= m.start():
            continue
        good, bad = _parse(m.group(), valid)
        cited.update(good)
        invalid.update(bad)
        if not bad:
            continue
        before = answer[pos:m.start()]
        if good:
            pieces += [before, m.group()[0] + _format(good) + m.group()[-1]]
            tail, pos = "]", m.end()
            continue
        kept = before.rstrip(" \t")
        pieces.append(kept)
        tail = kept[-1:] or tail
        pos = m.end()
        nxt = answer[pos:pos + 1]
        if tail == "\n":
            while pos < len(answer) and answer[pos] in " \t":
                pos += 1
        elif len(kept) < len(before) and (nxt.isalnum() or nxt in "([\"'“"):
            pieces.append(" ")
            tail = " "
    pieces.append(answer[pos:])
    return "".join(pieces), sorted(cited), sorted(invalid)


def _format(numbers: list[int]) -> str:
    """``[1, 2, 3, 5]`` -> ``1-3, 5``."""
    parts: list[str] = []
    ordered = sorted(set(numbers))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{ordered[i]}-{ordered[j]}")
        else:
            parts.extend(str(n) for n in ordered[i:j + 1])
        i = j + 1
    return ", ".join(parts)


def _display(sentence: str) -> str:
    return " ".join(sentence.split())


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
    return f'- "{_clip(claim.sentence)}" {_numbers(claim.cited)} lacks {"; ".join(lacks)}'


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
