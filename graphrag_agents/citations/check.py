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
  sentence (:mod:`._together`), a negation one side has and the other lacks (:mod:`._polarity`), an opposite
  word or another rank (:mod:`._opposites`), roles reversed (:mod:`._direction`), a record's yes/no attribute or
  opening hours said otherwise (:mod:`._records`, :mod:`._hours`), or said to be left out (:mod:`._amenities`),
  a description of a business that neither its record nor a cited review gives (:mod:`._descriptions`), content
  words no cited sentence says in any form (:mod:`._support`, listed in ``unsupported_words``) or a count in
  words it does not give (:mod:`._number_words`), or the verdict of the ``judge`` passed in. The
  evidence's ``source`` (its file path or document id) is not searched.
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

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..tools.evidence import Evidence, EvidenceLedger
from ._acronyms import (
    TITLE_WORDS,
    alias_forms,
    defined_acronyms,
    name_forms,
    place_word_found,
    same_spelling,
    spelled_initials,
)
from ._amenities import unstated_amenity, withheld_amenity
from ._cache import IndexCache
from ._descriptions import unstated_descriptions
from ._direction import direction_finding
from ._evidence import FUNCTION_WORDS, EvidenceIndex
from ._figures import extract_figures, missing_figures
from ._hours import hours_finding
from ._lack import is_lack_statement
from ._lemmas import word_key
from ._markers import INLINE_CODE_RE, MARKER_RE, parse_marker, resolve_markers
from ._meaning import meaning_findings
from ._names import Name, extract_names
from ._negation import negation_clause_finding
from ._number_words import missing_count_words
from ._opening import opens_with_common_word
from ._prose import (
    blank_evidence_references,
    is_about_answer,
    is_instruction,
    is_sentence_start,
    is_title,
    strip_list_marker,
    to_24_hours,
)
from ._records import record_finding
from ._reviews import (
    RECORD_MAX_SHARE,
    RECORD_MIN_UNSUPPORTED,
    is_business_record,
    key_words,
    review_words,
    without_rating_scale,
)
from ._sentences import split_sentences
from ._suggest import Holders
from ._support import GLUE_WORDS, unsupported_words
from ._text import claim_text
from .result import CitationCheck, CitationSuggestion, CitedSource, ClaimConflict, UnsupportedClaim

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
# Endings of ordinary words, not names: a sentence-initial "Individuals" or "Politically" is no missing name.
_INFLECTIONS = ("s", "es", "ed", "ing", "ly")
_OPENING_MARKS = "\"'([{*_“‘«<-–—•· \t"
# "Don't miss out", "Let's": a contraction opens an instruction or a clause, not a name ("Denny's" is one)
_CONTRACTIONS = ("n't", "n’t")
_OPENERS = frozenset({"let's", "let’s", "here's", "here’s", "there's", "there’s", "it's", "it’s", "that's",
                      "that’s", "what's", "what’s"})
_FORMATS = frozenset({"json"})
_ORDINARY_ENDINGS = ("ly", "ing", "ed", "ness", "tion", "tions", "als", "ity", "ment", "ments", "ous", "ive",
                     "ful", "less", "able", "ists", "ers", "ies")


def check_citations(
    answer: str, evidence: Mapping[int, Evidence] | Iterable[Evidence] | EvidenceLedger, *,
    meaning: bool = True, support: bool = True, judge: EntailmentJudge | None = None,
    cache: IndexCache | None = None,
) -> CitationCheck:
    """Check the ``[n]`` citations of ``answer`` against ``evidence`` (no LLM, no graph).

    Args:
        answer: The draft answer, plain text or Markdown.
        evidence: The session's evidence: a mapping from number to item, any iterable of items, or the ledger.
            A number it does not hold (never issued, or dropped) is invalid.
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

    Returns:
        The check; see the module docstring for every rule.

    Example:
        >>> ev = [Evidence(n=1, tool="retrieve", kind="fact", content="Alice works at Acme Corp.")]
        >>> check_citations("Alice works at Acme Corp [1].", ev).verified
        True
    """
    items = _as_mapping(evidence)
    cleaned, cited, invalid = resolve_markers(answer, lambda n: items.get(n) is not None)
    cited_set = set(cited)
    indexes: dict[int, EvidenceIndex] = {}
    uncited: list[str] = []
    unsupported: list[UnsupportedClaim] = []
    suggested: list[CitationSuggestion] = []
    finder = Holders(items, indexes, EvidenceIndex if cache is None else cache.index)
    for sentence in split_sentences(cleaned):
        if not sentence.checked:
            continue
        raw = cleaned[sentence.start:sentence.end]
        without_code = INLINE_CODE_RE.sub(" ", raw)
        found = {n for m in MARKER_RE.finditer(without_code) for n in parse_marker(m.group(), _always)[0]}
        numbers = sorted(n for n in found if n in cited_set)
        claims = claim_text(MARKER_RE.sub(" ", without_code))
        if not numbers:
            figures = extract_figures(claims)
            lone_names = extract_names(claims, lone_first=True)
            if (figures or lone_names) and not is_lack_statement(claims):
                uncited.append(_display(raw))
                if len(uncited) <= _MAX_SUGGESTED_SENTENCES:
                    agrees = _agrees(claims, lone_names, support) if meaning and len(claims) <= _MEANING_CHARS else None
                    holders = finder.holding(figures, lone_names, agrees)
                    if holders:
                        suggested.append(CitationSuggestion(sentence=_display(raw), evidence=holders))
            continue
        evid = [finder.index(n) for n in numbers]
        claim = _claim(claims, evid, meaning and len(claims) <= _MEANING_CHARS, support)
        if claim is None and judge is not None:
            reason = judge(_display(raw), [items[n] for n in numbers])
            claim = None if reason is None else _Lacking(conflicts=[ClaimConflict(rule="judge", detail=reason)])
        if claim is not None:
            unsupported.append(UnsupportedClaim(sentence=_display(raw), cited=numbers,
                                                missing_figures=claim.figures, missing_names=claim.names,
                                                conflicts=claim.conflicts, unsupported_words=claim.words))
    sources = [CitedSource(n=n, tool=items[n].tool, kind=items[n].kind, content=items[n].content,
                           sources=list(items[n].sources)) for n in cited]
    return CitationCheck(answer=cleaned, grounded=bool(cited), cited=cited, invalid=invalid, sources=sources,
                         uncited=uncited, unsupported=unsupported, suggested=suggested)


@dataclass
class _Lacking:
    """What a cited sentence's evidence does not support."""

    figures: list[str] = field(default_factory=list)
    """Its figures the evidence lacks."""
    names: list[str] = field(default_factory=list)
    """Its names the evidence lacks."""
    conflicts: list[ClaimConflict] = field(default_factory=list)
    """The meaning rules' findings (or the judge's)."""
    words: list[str] = field(default_factory=list)
    """Its content words no cited sentence says (the support rule)."""


def _claim(claims: str, evid: list[EvidenceIndex], meaning: bool, support: bool) -> _Lacking | None:
    """What the evidence of a cited sentence does not support, or None when it supports all of it."""
    if support:
        if is_about_answer(claims) or is_title(claims):
            return None
        claims = blank_evidence_references(strip_list_marker(claims))
    names = extract_names(claims)
    if support:
        names = known_names(claims, names, evid)
    figures_missing = missing_figures(without_rating_scale(to_24_hours(claims), evid) if support else claims,
                                      [e.figures for e in evid], [e.runs for e in evid])
    defined = _defined_acronyms(claims, evid) if support else []
    names_missing = list(dict.fromkeys(nm.text for nm in names if not _name_found(nm, evid, support)
                                       and not any(a <= nm.start < b for a, b in defined)))
    if support and not figures_missing and len(names_missing) == 1 and _common_opening(claims, names_missing[0]):
        names, names_missing = [n for n in names if n.text != names_missing[0]], []
    if figures_missing or names_missing:
        return _Lacking(figures=figures_missing, names=names_missing)
    withheld = withheld_amenity(claims, evid) if meaning and support else None
    if withheld is not None:
        return _Lacking(conflicts=[ClaimConflict(
            rule="record", detail=f"the claim says the data leaves out {withheld}; the record gives it")])
    if not meaning or is_lack_statement(claims):
        return None
    # the support rule skips every name's words: the literal rule found each name (as an alias too)
    checked_words = frozenset(w for n in names for w in n.words)
    if support:
        # a name found as an acronym or a plural is checked; the sentence rules look for names word by word
        names = [n for n in names if all(any(w in e.words for e in evid) for w in n.words)]
    conflicts = [ClaimConflict(rule=rule, detail=detail)  # type: ignore[arg-type]
                 for rule, detail in meaning_findings(claims, names, evid, anchored=support)]
    if support and not conflicts:
        # the sentence rules compare a clause only with a sentence holding most of its stems; a negation is read
        # clause by clause with lemma keys, so "never lived" meets "lives" (:mod:`._negation`)
        negated = negation_clause_finding(claims, evid)
        if negated is not None:
            conflicts.append(ClaimConflict(rule="negation", detail=negated))
    if conflicts or not support:
        return _Lacking(conflicts=conflicts) if conflicts else None
    name_words = frozenset(w for n in names for w in n.words)
    together = [s.text for e in evid for s in e.sentences if len(s.words & name_words) >= 2]
    reversed_roles = (direction_finding(claims, [n.words for n in names], together)
                      if len(names) >= 2 and together else None)
    if reversed_roles is not None:
        return _Lacking(conflicts=[ClaimConflict(rule="direction", detail=reversed_roles)])
    attributes = tuple(a for e in evid for a in e.attributes)
    reviewed = frozenset().union(*(e.words for e in evid if not is_business_record(e))) if attributes else frozenset()
    against_record = record_finding(claims, attributes, reviewed)
    if against_record is not None:
        return _Lacking(conflicts=[ClaimConflict(rule="record", detail=against_record)])
    amenity = unstated_amenity(claims, evid)
    if amenity is not None:
        return _Lacking(conflicts=[ClaimConflict(
            rule="record", detail=f"the claim names {amenity}; neither the record nor a cited review mentions it")],
            words=[amenity])
    described = unstated_descriptions(claims, evid)
    if described:
        shown = ", ".join(f'"{w}"' for w in described)
        return _Lacking(conflicts=[ClaimConflict(
            rule="record", detail=f"the claim says {shown}; neither the record nor a cited review says so")],
            words=described)
    against_hours = next((f for e in evid if (f := hours_finding(claims, e.hours)) is not None), None)
    if against_hours is not None:
        return _Lacking(conflicts=[ClaimConflict(rule="hours", detail=against_hours)])
    counts = missing_count_words(claims, evid)
    if counts:
        shown = ", ".join(f'"{w}"' for w in counts)
        return _Lacking(conflicts=[ClaimConflict(rule="support", detail=f"no cited sentence gives {shown} (as "
                                                 "a word or in digits)")], words=counts)
    if any(is_business_record(e) for e in evid):
        words = unsupported_words(claims, checked_words | review_words(claims, evid), evid,
                                  least=RECORD_MIN_UNSUPPORTED, share=RECORD_MAX_SHARE)
    else:
        words = unsupported_words(claims, checked_words, evid)
    if words:
        shown = ", ".join(f'"{w}"' for w in words[:8])
        return _Lacking(conflicts=[ClaimConflict(rule="support", detail=f"no cited sentence says {shown}")],
                       words=words)
    return None


def _name_found(name: Name, evid: list[EvidenceIndex], support: bool) -> bool:
    """Every 3+ letter word of ``name`` is a word of the evidence; with ``support`` also as a plural, a place's
    adjective or a title word, or the whole name as an acronym the evidence spells out (or the reverse), a
    US state's postal code, or another name of the same thing (see :mod:`._acronyms`)."""
    if all(any(w in e.words for e in evid) for w in name.words):
        return True
    if not support:
        return False
    # a plural ("Sundays" for "Sunday"; over a business record also the singular: "Restaurant" for the category
    # "Restaurants", "Michelada" for a review's "Micheladas"), a place's adjective ("Chinese" for China) and a title
    # are the same name
    record = any(is_business_record(e) for e in evid)
    if all(w in TITLE_WORDS
           or any(w in e.words or (w.endswith("s") and w[:-1] in e.words) or (record and w + "s" in e.words)
                  or place_word_found(w, e.capitalised_words) for e in evid) for w in name.words):
        return True
    if all(w in _FORMATS for w in name.words) and any(is_business_record(e) for e in evid):
        return True  # "the structured data in JSON format" names the record's format
    forms = name_forms(name.text)
    spelled = spelled_initials(name.text)
    if any(forms & e.acronyms or (spelled and _expands(name.text, spelled, e)) for e in evid):
        return True
    # another name of the same thing ("ISIL" where the evidence says ISIS)
    return any(all(w in e.words for w in alias.replace("+", "").split()) or alias in e.acronyms
               for alias in alias_forms(name.text) for e in evid)


def _expands(name: str, spelled: str, item: EvidenceIndex) -> bool:
    """Whether ``name``, of initials ``spelled`` (:func:`~._acronyms.spelled_initials`), spells out an acronym
    ``item`` writes, in the item's own words where it spells it out too."""
    if spelled not in item.written_acronyms:
        return False
    runs = item.spelled_runs.get(spelled, ())
    return not runs or any(same_spelling(name, run) for run in runs)


def _common_opening(claims: str, name: str) -> bool:
    """Whether ``name``, the claim's only missing name, is its one-word, unaccented opening that the tagger reads
    as no proper noun ("Prior to the change, ...", "Similar incidents ..."). The tagger is the costly step, so it
    is asked only when its answer alone decides the claim."""
    first = claims.lstrip(_OPENING_MARKS)
    return (" " not in name and name.isascii() and first.startswith(name)
            and (len(first) == len(name) or not first[len(name)].isalnum()) and opens_with_common_word(claims))


def _defined_acronyms(claims: str, evid: list[EvidenceIndex]) -> list[tuple[int, int]]:
    """The spans of the claim's names spelled out before an acronym in parentheses that the evidence writes
    (or another name of it): "US Citizenship and Immigration Services (USCIS)" where the evidence says USCIS."""
    return [(start, end) for start, end, acronym in defined_acronyms(claims)
            if any(form in e.acronyms or form in e.words for form in {acronym, *alias_forms(acronym)} for e in evid)]


def known_names(claims: str, names: list[Name], evid: list[EvidenceIndex]) -> list[Name]:
    """``names`` without a sentence-initial capitalised word that is only how the sentence starts: the evidence
    never writes it capitalised mid-sentence, and it reads as an ordinary word (one the evidence writes in
    lowercase, or, absent from it, a word with an ordinary ending or a comma after it: "Politically, ...")."""
    out: list[Name] = []
    for name in names:
        if not name.words or not is_sentence_start(claims, name.start):
            out.append(name)
            continue
        first = name.words[0]
        if any(first in e.capitalised for e in evid) or not _ordinary(first, claims, name, evid):
            out.append(name)
            continue
        rest = name.words[1:]
        if rest:
            out.append(Name(text=name.text, words=rest, start=name.start))
    return out


def _ordinary(word: str, claims: str, name: Name, evid: list[EvidenceIndex]) -> bool:
    if (word in GLUE_WORDS or word in FUNCTION_WORDS or name.text.endswith(_CONTRACTIONS)
            or name.text.casefold() in _OPENERS):
        return True
    if any(word in key_words(e) for e in evid):
        return True  # a record's key ("Outdoor" of OutdoorSeating) is an ordinary word
    forms = {word, *(word[:-len(end)] for end in _INFLECTIONS if word.endswith(end) and len(word) > len(end) + 3)}
    if any(forms & e.lowercase_words for e in evid):
        return True
    if any(word in e.words for e in evid):
        return False  # the evidence writes it only capitalised: a name
    if word.endswith(_ORDINARY_ENDINGS) or claims[name.start + len(word):].startswith(","):
        return True
    if any(word_key(word) in e.lowercase_keys for e in evid):
        return True  # another form of a word the evidence writes in lowercase ("Survivor" for "survivors")
    return word.isascii() and is_instruction(claims.lstrip())  # "Check out the solution video ..."


def _agrees(claims: str, names: list[Name], support: bool) -> Callable[[EvidenceIndex], bool]:
    """Whether citing one item would give the uncited sentence no meaning conflict."""
    return lambda index: not meaning_findings(claims, names, [index], anchored=support)


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


def _display(sentence: str) -> str:
    return " ".join(sentence.split())
