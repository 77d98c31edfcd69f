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
  ("The graph does not say who founded Globex.") needs none; a negative claim about the world does
  ("The election results were not certified until 2021.").
* ``unsupported``: cited sentences whose figures or names the text of the evidence they cite does not contain
  (``missing_figures``, ``missing_names``; see :mod:`._figures` and :mod:`._names`), or, when all are there,
  whose meaning that evidence contradicts (``conflicts``): names and figures never stated together in one
  sentence (:mod:`._together`), a negation one side has and the other lacks (:mod:`._polarity`,
  :mod:`._negation`), an opposite word or another rank (:mod:`._opposites`), roles reversed (:mod:`._direction`),
  an attribute of a cited record given another value (:mod:`._record_values`), content words no cited sentence
  says in any form (:mod:`._support`, listed in ``unsupported_words``) or a count in words it does not give
  (:mod:`._number_words`), a pack's findings (``packs``, :mod:`._packs`), or the verdict of the ``judge``
  passed in. The rules run as an ordered list (:mod:`._rules`). The evidence's ``source`` (its file path or
  document id) is not searched.
* ``suggested``: for each uncited sentence (the first 20), up to three evidence numbers (newest first) that
  would support it if cited (:mod:`._suggest`); the check never adds a citation itself.
* ``grounded``: the reference's literal rule: the answer cites at least one number that is real evidence.
  ``verified``: grounded, and no invalid number, uncited sentence or unsupported claim.

The default reads real answers (``support=True``): claim support and relation direction run, the sentence rules
compare a clause only with an evidence sentence it restates, and ordinary prose is no claim: a sentence's first
capital that the evidence writes as an ordinary word or that is no proper noun (:mod:`._opening`), an acronym's
expansion, a plural, a US state for its postal code, a step number, a reference to the evidence ("passage 2"), a
clock time in am/pm, an instruction, a greeting, a line introducing the answer or a title (:mod:`._prose`,
:mod:`._acronyms`). ``support=False`` gives the rule book before them; ``meaning=False`` runs
the literal rules only. Headings and table header rows make no claims and are not checked. Run time is linear in
the answer's length; a session passes its :class:`IndexCache` so each evidence item is read once.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import ConfigurationError
from ..evidence import Evidence, EvidenceLedger
from ..text.markers import INLINE_CODE_RE, MARKER_RE, parse_marker, resolve_markers
from ..text.names import Name, extract_names
from ..text.sentences import Sentence, split_sentences
from ..text.words import claim_text
from ._cache import IndexCache
from ._claim_spans import closest_span, lacking, support_spans
from ._evidence import EvidenceIndex
from ._figures import extract_figures
from ._lack import is_lack_statement
from ._meaning import meaning_findings
from ._packs import PackRules, check_packs, pack_rules
from ._rules import ClaimReading, Lacking, run_rules
from ._suggest import Holders
from .result import CheckedClaim, CitationCheck, CitationSuggestion, CitedSource, ClaimConflict, UnsupportedClaim

__all__ = ["EntailmentJudge", "IndexCache", "check_citations"]

EntailmentJudge = Callable[[str, Sequence[Evidence]], "str | None"]
"""An optional judge: ``(sentence, cited evidence) -> None`` when the evidence entails the sentence, else a short
reason (reported as a ``judge`` conflict). It is called only for cited sentences every deterministic rule passed."""

# Suggestions are searched for the first uncited sentences only: each search may read every evidence item, and
# the check must stay linear in the answer's length.
_MAX_SUGGESTED_SENTENCES = 20
# The meaning rules compare a claim with evidence sentences; a "sentence" longer than this is no claim (a pasted
# document, a hostile input), and only the literal rules read it, so the check stays fast on any input.
_MEANING_CHARS = 2000

def check_citations(
    answer: str, evidence: Mapping[int, Evidence | str] | Iterable[Evidence] | EvidenceLedger, *,
    meaning: bool = True, support: bool = True, judge: EntailmentJudge | None = None,
    cache: IndexCache | None = None, packs: Iterable[str] | None = None,
) -> CitationCheck:
    """Check the ``[n]`` citations of ``answer`` against ``evidence`` (no LLM, no graph).

    Args:
        answer: The draft answer, plain text or Markdown.
        evidence: The session's evidence: a mapping from number to item (or to its text, read as a passage), any
            iterable of items, or the ledger. A number it does not hold (never issued, or dropped) is invalid.
        meaning: Also run the meaning rules (names stated together, polarity, opposites, and with ``support``
            claim support and relation direction); False gives the literal rules alone.
        support: The rules for real answers (the default): claim support (:mod:`._support`), relation
            direction (:mod:`._direction`), and the meaning rules only against an evidence sentence the claim
            restates; a sentence's first capital, an acronym's expansion and a step number are no missing name
            or figure (:mod:`._prose`, :mod:`._acronyms`). False gives the rule book before them.
        judge: An optional entailment judge (e.g. your own LLM call) for cited sentences that passed every
            deterministic rule; the default is none, so the check stays deterministic.
        cache: Where to keep each evidence item's index (its words, sentences and parses) between checks, e.g.
            a session's :class:`IndexCache`; None builds them for this check only.
        packs: Rule packs to add to the general rules, by name (see :mod:`._packs`): ``["records"]`` reads
            business records with reviews (RAGTruth's Data2txt schema: yes/no attributes in groups, opening
            hours, amenities, descriptions, review summaries). An unknown name raises ConfigurationError.

    Returns:
        The check; see the module docstring for every rule.

    Example:
        >>> ev = [Evidence(n=1, tool="retrieve", kind="fact", content="Alice works at Acme Corp.")]
        >>> check_citations("Alice works at Acme Corp [1].", ev).verified
        True
    """
    readings = pack_rules(check_packs(packs))
    items = _as_mapping(evidence)
    cleaned, cited, invalid = resolve_markers(answer, lambda n: items.get(n) is not None)
    run = _Sentences(items=items, cited=set(cited), readings=readings, meaning=meaning,
                     support=support, judge=judge, finder=Holders(items, {}, EvidenceIndex if cache is None
                                                                  else cache.index))
    for sentence in split_sentences(cleaned):
        run.check(cleaned, sentence)
    sources = [CitedSource(n=n, tool=items[n].tool, kind=items[n].kind, content=items[n].content,
                           sources=list(items[n].sources)) for n in cited]
    return CitationCheck(answer=cleaned, grounded=bool(cited), cited=cited, invalid=invalid, sources=sources,
                         uncited=run.uncited, unsupported=run.unsupported, suggested=run.suggested,
                         claims=run.claims)


@dataclass
class _Sentences:
    """The check of an answer's sentences, one at a time, and what it found."""

    items: Mapping[int, Evidence]
    cited: set[int]
    """The valid numbers the answer cites."""
    readings: PackRules
    meaning: bool
    support: bool
    judge: EntailmentJudge | None
    finder: Holders
    uncited: list[str] = field(default_factory=list)
    unsupported: list[UnsupportedClaim] = field(default_factory=list)
    suggested: list[CitationSuggestion] = field(default_factory=list)
    claims: list[CheckedClaim] = field(default_factory=list)

    def check(self, cleaned: str, sentence: Sentence) -> None:
        """Check one sentence of the answer and add its entry to :attr:`claims`."""
        raw = cleaned[sentence.start:sentence.end]
        shown = _display(raw)
        entry = CheckedClaim(text=shown, start=sentence.start, end=sentence.end, verdict="no_claim")
        self.claims.append(entry)
        if not sentence.checked:
            return
        without_code = INLINE_CODE_RE.sub(" ", raw)
        found = {n for m in MARKER_RE.finditer(without_code) for n in parse_marker(m.group(), _always)[0]}
        numbers = sorted(n for n in found if n in self.cited)
        claims = claim_text(MARKER_RE.sub(" ", without_code))
        if not numbers:
            if self._uncited(shown, claims):
                entry.verdict = "uncited"
            return
        entry.cited = numbers
        evid = [self.finder.index(n) for n in numbers]
        keyed = unicodedata.normalize("NFKC", MARKER_RE.sub(" ", raw))
        reading = ClaimReading(text=claims, evid=evid, meaning=self.meaning and len(claims) <= _MEANING_CHARS,
                               support=self.support, raw=keyed, owned=self.readings.owns,
                               figures_text=self.readings.figures_text)
        claim = run_rules(reading, self.readings.rules)
        if claim is None and self.judge is not None:
            reason = self.judge(shown, [self.items[n] for n in numbers])
            claim = None if reason is None else Lacking(conflicts=[ClaimConflict(rule="judge", detail=reason)])
        if claim is None:
            entry.verdict = "verified"
            # the spans read each cited item's sentences, which the literal rules alone (meaning=False) never split
            entry.support = support_spans(keyed[:_MEANING_CHARS], numbers, evid) if self.meaning else []
            return
        self.unsupported.append(UnsupportedClaim(sentence=shown, cited=numbers, missing_figures=claim.figures,
                                                 missing_names=claim.names, conflicts=claim.conflicts,
                                                 unsupported_words=claim.words))
        entry.verdict = "unsupported"
        entry.missing = list(dict.fromkeys([*claim.figures, *claim.names, *claim.words]))
        if self.meaning:
            closest = closest_span(keyed[:_MEANING_CHARS], numbers, evid)
            entry.closest = None if closest is None else closest[0]
            entry.missing = entry.missing or lacking(keyed[:_MEANING_CHARS], closest)

    def _uncited(self, shown: str, claims: str) -> bool:
        """Whether a sentence with no valid marker states a figure or a name (listed in uncited, with the evidence
        that would support it for the first ones)."""
        figures = extract_figures(claims)
        lone_names = extract_names(claims, lone_first=True)
        if not (figures or lone_names) or is_lack_statement(claims):
            return False
        self.uncited.append(shown)
        if len(self.uncited) <= _MAX_SUGGESTED_SENTENCES:
            agrees = (_agrees(claims, lone_names, self.support) if self.meaning and len(claims) <= _MEANING_CHARS
                      else None)
            holders = self.finder.holding(figures, lone_names, agrees)
            if holders:
                self.suggested.append(CitationSuggestion(sentence=shown, evidence=holders))
        return True


def _agrees(claims: str, names: list[Name], support: bool) -> Callable[[EvidenceIndex], bool]:
    """Whether citing one item would give the uncited sentence no meaning conflict."""
    return lambda index: not meaning_findings(claims, names, [index], anchored=support)


def _as_mapping(
    evidence: Mapping[int, Evidence | str] | Iterable[Evidence] | EvidenceLedger,
) -> Mapping[int, Evidence]:
    """The items by number; a mapping's plain text is an item of its own (a passage); anything else is refused
    naming the item and the fix."""
    if isinstance(evidence, EvidenceLedger):
        return {item.n: item for item in evidence.items()}
    if isinstance(evidence, Mapping):
        return {n: _item(n, value) for n, value in evidence.items()}
    if isinstance(evidence, str):
        raise ConfigurationError("evidence is one str; pass a mapping from number to text ({1: \"...\"}), "
                                 "Evidence items, or the session's ledger")
    items = list(evidence)
    for item in items:
        if not isinstance(item, Evidence):
            raise ConfigurationError(f"evidence holds a {type(item).__name__}, not an Evidence item. Fix: pass "
                                     "Evidence items, or a mapping from number to text ({1: \"...\"})")
    return {item.n: item for item in items}


def _item(n: object, value: object) -> Evidence:
    if not isinstance(n, int) or isinstance(n, bool):
        raise ConfigurationError(f"evidence key {n!r} is not an evidence number. Fix: key each item by the int "
                                 "an answer cites as [n]")
    if isinstance(value, Evidence):
        return value
    if isinstance(value, str):
        return Evidence(n=n, tool="caller", kind="passage", content=value)
    raise ConfigurationError(f"evidence[{n}] is a {type(value).__name__}. Fix: pass its text (str) or an "
                             "Evidence item")


def _always(_: int) -> bool:
    return True


def _display(sentence: str) -> str:
    return " ".join(sentence.split())
