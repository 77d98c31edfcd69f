"""Clause-scoped negation: a claim clause that negates what the evidence clause it restates affirms, or the
reverse, whatever the tense or the form of the verb (private).

"Bob Jones never lived in Paris." against "Bob Jones lives in Paris." and "Bob Jones didn't live in Paris in
2001." against "Bob Jones lived in Paris in 2001." keep every name and figure; only a negation differs. Negation
is closed-class grammar, so the cues are a list of function words (:data:`CUES`: not, n't, never, no, none, nobody,
nothing, nowhere, neither, nor, without, cannot, and "no longer"; "not only" is no negation). The rule:

1. **Clauses.** The claim and each evidence sentence (inline code left out, as the check leaves it out of the
   claim) are cut into clauses at ``;``, ``:``, commas, dashes, parentheses and before a conjunction or
   subordinator (and, but, or, if, when, because, which, who, until, ...), so a cue stays with the clause it is in:
   "If no package name is specified, all packages ... will be updated" (npm-update.md) has a negated "if" clause
   and an affirmed main clause. A part of fewer than two content words joins the next one ("Note: ...").
2. **Scope.** A cue covers the first content word after it in its clause, skipping auxiliaries and adverbs: its
   target (``not be rebuilt`` -> rebuilt, ``didn't live`` -> live, ``no package`` -> package). Words are compared
   by a light lemma key (:func:`lemma_key`: "live", "lives", "lived" and "living" are one key; "ran" is "run"). Two
   cues on one target cancel ("cannot not install" affirms it). A part after a comma that is "not" and at most
   four more words, none a verb, is an elliptical contrast: "He lived in Paris, not Rome" negates Rome, not living
   in Paris (the case the scope rule came from). The claim's own "not Rome" denies nothing its evidence "He lived in
   Paris" says (the literal rules read its name); an evidence contrast also holds the keys of the clause before it,
   so a claim "He lived in Rome" restates its negated "not Rome".
3. **Restating.** A claim clause is compared with the evidence clauses that hold at least two of its content keys
   and at least :data:`RESTATES` of them (a summary's clause that paraphrases or merges facts restates none); the
   best of them (most keys shared, then fewest extra) is the one it restates.
4. **Finding.** The claim negates a word the restated clause says without a negation ("negation not in
   evidence"), or the restated clause negates a word the claim says without one ("negation missing"). No finding
   when another clause that restates the claim as closely agrees, or when any evidence clause sharing two content
   keys with the claim negates one of the two content words after a claim's cue ("not being a fan" beside "wasn't
   a huge fan"): real prose says a fact twice, and a summary moves a
   negation to another sentence. An evidence negation of a noun phrase ("no flavor", "without fees") that the
   claim drops is no finding: a claim restates it with a word of lack ("criticized the flavor", RAGTruth
   Data2txt), which is no cue. A cue whose word the evidence does not say at all is left to the other rules (on
   RAGTruth summaries such claims were paraphrases: "denied" for "does not consider", "refused" for "couldn't").

Set :data:`ENABLED` to False to switch the rule off (the benchmarks do, to measure what it adds).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..text.markers import INLINE_CODE_RE
from ..text.words import claim_text, fold
from ._evidence import FUNCTION_WORDS, EvidenceIndex
from ._lemmas import NUMBER_WORDS

__all__ = ["CUES", "ENABLED", "RESTATES", "Clause", "clauses", "lemma_key", "negation_clause_finding"]

ENABLED = True
"""Whether :func:`negation_clause_finding` runs (the benchmarks switch it off to measure it)."""
RESTATES = 0.8
"""The least share of a claim clause's content keys an evidence clause must hold to be compared with it."""
CUES = frozenset({"not", "never", "no", "none", "nobody", "nothing", "nowhere", "neither", "nor", "without",
                  "cannot"})
"""Negation function words; a word ending in ``n't`` is a cue too."""
_MAY_CUE = re.compile(r"n['’]t|(?<![^\W_])(?:" + "|".join(sorted(CUES)) + r")(?![^\W_])", re.IGNORECASE)
"""Matches wherever a cue token may be: a text it does not match has no cue, so no clause of it negates."""

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W\d_]+)?")
_BREAK = re.compile(
    r"[;:()\[\]—–]|,|\s-\s"
    r"|\s(?=(?:and|but|or|while|whereas|although|though|because|since|unless|if|when|whenever|where|which|who"
    r"|whom|whose|until|yet)\s)",
    re.IGNORECASE,
)
# Words a cue's scope skips to reach what it covers: auxiliaries, copulas, adverbs of degree and time, articles.
_SKIP = frozenset("""
a an the be been being is are was were am do does did have has had having will would shall should can could may
might must to yet even ever always also just really quite very only necessarily actually all any every such so
currently longer more much any anything
""".split())
# Cues that negate a noun phrase, not a verb: a claim may restate them with a word of lack, which is no cue.
_DETERMINERS = frozenset({"no", "none", "nobody", "nothing", "nowhere", "without"})
_VERBS = frozenset("be is are was were been do does did have has had will would can could shall should may might must"
                   .split())
# "not only" adds, "no." / "no-" is no cue; "no longer" is one (its target is the verb after it).
_NOT_CUE_AFTER = {"not": frozenset({"only", "just", "merely"})}
_IRREGULAR = {
    "is": "be", "are": "be", "was": "be", "were": "be", "been": "be", "am": "be", "has": "have", "had": "have",
    "does": "do", "did": "do", "done": "do", "went": "go", "gone": "go", "goes": "go", "ran": "run", "took": "take",
    "taken": "take", "gave": "give", "given": "give", "made": "make", "said": "say", "found": "find",
    "bought": "buy", "sold": "sell", "won": "win", "lost": "lose", "left": "leave", "told": "tell", "held": "hold",
    "brought": "bring", "thought": "think", "built": "build", "sent": "send", "spent": "spend", "led": "lead",
    "kept": "keep", "met": "meet", "paid": "pay", "began": "begin", "begun": "begin", "wrote": "write",
    "written": "write", "knew": "know", "known": "know", "grew": "grow", "grown": "grow", "shown": "show",
    "saw": "see", "seen": "see", "got": "get", "gotten": "get", "came": "come", "became": "become", "stood": "stand",
    "understood": "understand", "fell": "fall", "fallen": "fall", "rose": "rise", "risen": "rise", "chose": "choose",
    "chosen": "choose", "broke": "break", "broken": "break", "spoke": "speak", "spoken": "speak", "drove": "drive",
    "driven": "drive", "ate": "eat", "eaten": "eat", "flew": "fly", "flown": "fly", "drew": "draw", "drawn": "draw",
    "children": "child", "men": "man", "women": "woman", "people": "person", "born": "bear", "died": "die",
}
_ENDINGS = ("ings", "ing", "ied", "ies", "ed", "es", "s", "d")


@lru_cache(maxsize=65_536)
def lemma_key(word: str) -> str:
    """One key for a word's inflections: folded, an irregular form to its base, then ``-ing``, ``-ed``, ``-es``,
    ``-s`` and a final ``e`` cut and a doubled final consonant made single ("lived", "lives", "living", "live" ->
    "liv"; "ran", "running" -> "run"; "installs", "installed" -> "install")."""
    folded = fold(word)
    if folded in NUMBER_WORDS:
        return NUMBER_WORDS[folded]
    folded = _IRREGULAR.get(folded, folded)
    for ending in _ENDINGS:
        if folded.endswith(ending) and len(folded) - len(ending) >= 3 and not folded.endswith("ss"):
            folded = folded[:-len(ending)] + ("y" if ending in ("ied", "ies") else "")
            break
    if len(folded) > 3 and folded.endswith("e"):
        folded = folded[:-1]
    if len(folded) > 3 and folded[-1] == folded[-2] and folded[-1] not in "aeiousl":
        folded = folded[:-1]
    return folded


@dataclass(frozen=True)
class Clause:
    """One clause: its content keys, the keys its cues negate, and whether it holds a cue."""

    text: str
    """The clause as written."""
    keys: frozenset[str]
    """The :func:`lemma_key` of its content words (names and figures too; no cue, no function word)."""
    negated: frozenset[str]
    """The keys an odd number of its cues cover."""
    cue: str | None
    """Its first cue (lowercase), or None."""
    fragment: bool = False
    """Whether it is only a cue and what it covers ("not Rome" after a comma): an elliptical contrast."""
    near: frozenset[str] = frozenset()
    """The keys of the first two content words after each cue ("wasn't a huge fan" -> huge, fan)."""


def _is_cue(token: str, following: str | None) -> bool:
    low = token.casefold().replace("’", "'")
    if low.endswith("n't"):
        return True
    if low not in CUES:
        return False
    return following is None or following.casefold() not in _NOT_CUE_AFTER.get(low, frozenset())


def _content(low: str) -> bool:
    return (len(low) >= 3 or low.isdigit()) and low not in FUNCTION_WORDS and low not in _SKIP and low not in CUES


@lru_cache(maxsize=65_536)
def clauses(text: str) -> tuple[Clause, ...]:
    """``text`` cut into clauses (see the module docstring), each with its content keys and negated targets; a
    part of fewer than two content words joins the part after it ("Note: Globally installed packages ...")."""
    spans: list[tuple[int, int]] = []
    fragments: list[bool] = []
    start = 0
    after_comma = False
    for m in [*_BREAK.finditer(text), None]:
        end = len(text) if m is None else m.start()
        tokens = _TOKEN.findall(text[start:end])
        if tokens:
            spans.append((start, end))
            fragments.append(after_comma and _elliptical(tokens))
            after_comma = False
        if m is not None:
            after_comma = after_comma or m.group() == ","
            start = m.end()
    merged: list[tuple[int, int, bool]] = []
    carry: int | None = None
    for (a, b), fragment in zip(spans, fragments, strict=True):
        if fragment:
            merged.append((a, b, True))
            continue
        if carry is not None:
            a, carry = carry, None
        if sum(_content(t.casefold()) for t in _TOKEN.findall(text[a:b])) < 2:
            carry = a
            continue
        merged.append((a, b, False))
    if carry is not None:
        last = next((i for i in range(len(merged) - 1, -1, -1) if not merged[i][2]), None)
        if last is None:
            merged.append((carry, len(text), False))
        else:
            merged[last] = (merged[last][0], len(text), False)
    return tuple(_clause(text[a:b], fragment) for a, b, fragment in merged)


def _elliptical(tokens: list[str]) -> bool:
    """Whether a part after a comma is a contrast with no verb of its own: "not" and a few words ("not Rome",
    "not to npx itself")."""
    low = [t.casefold() for t in tokens]
    return low[0] == "not" and len(low) <= 5 and not any(t in _VERBS for t in low)


def _clause(text: str, fragment: bool) -> Clause:
    tokens = _TOKEN.findall(text)
    keys: set[str] = set()
    counts: dict[str, int] = {}
    cue: str | None = None
    pending = 0
    near: set[str] = set()
    window = 0
    for i, token in enumerate(tokens):
        low = token.casefold().replace("’", "'")
        if _is_cue(token, tokens[i + 1] if i + 1 < len(tokens) else None):
            cue = cue or low
            pending += 1
            window = 2
            continue
        if not _content(low):
            continue
        key = lemma_key(low)
        keys.add(key)
        if window:
            near.add(key)
            window -= 1
        if pending:
            counts[key] = counts.get(key, 0) + pending
            pending = 0
    negated = frozenset(k for k, n in counts.items() if n % 2)
    return Clause(text=text, keys=frozenset(keys), negated=negated, cue=cue, fragment=fragment,
                  near=frozenset(near))


def _restated(claim: Clause, options: Sequence[Clause]) -> list[tuple[int, int, Clause]]:
    """(shared keys, extra keys, clause) for each of ``options`` that ``claim`` restates, best first."""
    out = []
    for option in options:
        shared = len(claim.keys & option.keys)
        if shared >= 2 and shared >= RESTATES * len(claim.keys):
            out.append((shared, len(option.keys - claim.keys), option))
    out.sort(key=lambda t: (-t[0], t[1]))
    return out


def _evidence_clauses(items: Sequence[EvidenceIndex]) -> list[Clause]:
    return [c for item in items for c in _item_clauses(item.text, item.bounds)]


@lru_cache(maxsize=4096)
def _item_clauses(text: str, bounds: tuple[tuple[int, int], ...]) -> tuple[Clause, ...]:
    """The clauses of an evidence text's sentences (its index's :attr:`~._evidence.EvidenceIndex.bounds`, split
    once for every rule), read as a claim is: inline code left out, as the check leaves it out of the claim."""
    out: list[Clause] = []
    for start, end in bounds:
        out += _with_context(clauses(claim_text(INLINE_CODE_RE.sub(" ", text[start:end]))))
    return tuple(out)


@lru_cache(maxsize=4096)
def _may_negate(text: str, bounds: tuple[tuple[int, int], ...]) -> bool:
    """Whether a sentence of an evidence text, read as :func:`_item_clauses` reads it, may hold a cue."""
    return any(_MAY_CUE.search(claim_text(INLINE_CODE_RE.sub(" ", text[start:end]))) for start, end in bounds)


@lru_cache(maxsize=16_384)
def _with_context(parts: tuple[Clause, ...]) -> tuple[Clause, ...]:
    """Evidence clauses, an elliptical contrast ("..., not Rome") also holding the keys of the clause before it:
    what it denies is that clause's statement with its own words ("lived in Rome")."""
    out: list[Clause] = []
    for i, part in enumerate(parts):
        if part.fragment and i:
            part = Clause(text=part.text, keys=part.keys | parts[i - 1].keys, negated=part.negated, cue=part.cue,
                          fragment=True)
        out.append(part)
    return tuple(out)


def _agrees(claim: Clause, option: Clause) -> bool:
    """Whether ``option`` says none of the words the claim clause negates without a negation, and negates none of
    the words the claim clause says without one."""
    if any(key in option.keys and key not in option.negated for key in claim.negated):
        return False
    return not any(key in claim.keys and key not in claim.negated for key in option.negated)


def _negated_elsewhere(claim: Clause, options: Sequence[Clause]) -> bool:
    """Whether an evidence clause sharing two content keys with the claim clause negates one of the two words after
    a cue of the claim clause ("not being a fan" beside "wasn't a huge fan"): real prose says a fact twice, and a
    summary moves a negation to another sentence."""
    return any(claim.near & option.near and len(claim.keys & option.keys) >= 2 for option in options)


def negation_clause_finding(claim: str, items: Sequence[EvidenceIndex]) -> str | None:
    """The clause-scoped negation finding of a cited sentence against its evidence, or None (see the module
    docstring)."""
    if not ENABLED:
        return None
    if _MAY_CUE.search(claim) is None and not any(_may_negate(item.text, item.bounds) for item in items):
        return None  # no cue on either side: every clause agrees, so no clause is parsed
    options = _evidence_clauses(items)
    if not options:
        return None
    for part in clauses(claim):
        if part.fragment:
            continue  # "..., not Rome" denies only what it names: the literal rules read its names
        restated = _restated(part, options)
        if not restated:
            continue
        best_shared, _, best = restated[0]
        peers = [c for shared, _, c in restated if shared == best_shared]
        if any(_agrees(part, c) for c in peers) or _negated_elsewhere(part, options):
            continue
        if any(key in best.keys and key not in best.negated for key in part.negated):
            return f'negation not in evidence: the claim says "{part.cue}", the evidence does not'
        if best.cue in _DETERMINERS:
            continue  # "no flavor", "without fees" are restated with a word of lack ("criticized the flavor")
        return f'negation missing: the evidence says "{best.cue}", the claim does not'
    return None
