"""Opposites written with affixes: a claim word whose affixed opposite is what the evidence sentence says (private).

English forms many opposites from one base with a prefix or a suffix of opposite meaning: "enable" / "disable",
"include" / "exclude", "install" / "uninstall", "valid" / "invalid", "upload" / "download", "input" / "output",
"preinstall" / "postinstall", "useful" / "useless". The opposite table (:mod:`._opposites`) lists words; this
reads the derivation, so it covers words no table lists. It is general morphology, not a vocabulary: a pair of
prefixes (or suffixes) of opposite meaning on the same base, or a negating prefix on a base.

Derivations that look like negations and are not ("unless" / "less", "install" / "stall", "inform" / "form",
"discover" / "cover", "display" / "play") are kept out by the shape of the base: a negating ``un-`` / ``non-``
needs a base of four letters, an ``in-`` (``im-``, ``il-``, ``ir-``) one of an adjective's endings ("invalid",
"incorrect", "inactive", "impossible"), and ``dis-`` is read only against ``en-`` ("disable" / "enable"). The
opposite rule reports a word only when the sentence it restates holds the opposite and not the word itself.
"""

from __future__ import annotations

__all__ = ["ENABLED", "affix_opposites", "negated_word"]

ENABLED = True
"""The reading's switch (the perturbation benchmark scores the check with it off, in the same run)."""

_PREFIX_PAIRS = (("dis", "en"), ("in", "ex"), ("im", "ex"), ("up", "down"), ("in", "out"), ("over", "under"),
                 ("pre", "post"), ("inter", "intra"))
"""Prefixes of opposite meaning on one base ("include" / "exclude")."""
_SUFFIX_PAIRS = (("ful", "less"),)
"""Suffixes of opposite meaning on one base ("useful" / "useless")."""
_NEGATING = ("un", "non")
"""Prefixes that negate any base of four or more letters ("unknown", "nonexistent")."""
_NEGATING_ADJECTIVE = ("in", "im", "il", "ir")
"""Prefixes that negate an adjective ("invalid", "impossible", "illegal", "irregular")."""
_ADJECTIVE_ENDS = ("ble", "al", "ive", "ent", "ant", "ete", "ect", "id", "ure", "ic", "ous", "ar", "ite", "ional")
"""Endings of the adjectives an ``in-`` negates (the inflected forms of "incorrect" -> "correct" follow)."""
_NOT_NEGATED = frozenset({"unless", "until", "under", "understand", "understood", "uniform", "union", "unique",
                          "unit", "unite", "united", "unity", "universe", "universal", "university", "unix"})
"""Words that open with ``un`` and negate nothing."""
_MIN_BASE = 4
_MIN_PAIRED_BASE = 3
"""A base between two prefixes (or suffixes) of opposite meaning may be shorter: "input" / "output"."""


def affix_opposites(word: str, *, negations: bool = True) -> frozenset[str]:
    """The words that ``word`` (folded) is the affixed opposite of: "disabled" -> {"enabled"}, "invalid" ->
    {"valid"}, "valid" -> {"invalid"}, "uninstall" -> {"install"}, "install" -> {"uninstall"}; without
    ``negations``, only the pairs of opposite prefixes or suffixes ("disabled" -> {"enabled"})."""
    out: set[str] = set()
    if not ENABLED:
        return frozenset()
    for a, b in _PREFIX_PAIRS:
        for have, other in ((a, b), (b, a)):
            if word.startswith(have) and len(word) - len(have) >= _MIN_PAIRED_BASE:
                out.add(other + word[len(have):])
    for a, b in _SUFFIX_PAIRS:
        for have, other in ((a, b), (b, a)):
            if word.endswith(have) and len(word) - len(have) >= _MIN_PAIRED_BASE:
                out.add(word[:-len(have)] + other)
    if negations:
        out |= _negations(word)
    return frozenset(out - {word})


def _negations(word: str) -> set[str]:
    """The base of a negated word, and the negated forms of a base."""
    out: set[str] = set()
    if len(word) < _MIN_BASE:
        return out
    for prefix in _NEGATING:
        if word.startswith(prefix) and len(word) - len(prefix) >= _MIN_BASE and word not in _NOT_NEGATED:
            out.add(word[len(prefix):])
        elif prefix + word not in _NOT_NEGATED:
            out.add(prefix + word)
    for prefix in _NEGATING_ADJECTIVE:
        base = word[len(prefix):] if word.startswith(prefix) else word
        if not _adjective(base):
            continue
        if base is word:
            out.add(prefix + word)
        elif len(base) >= _MIN_BASE:
            out.add(base)
    return out


def _adjective(base: str) -> bool:
    """Whether ``base`` (its plural or adverb ending aside) ends like an adjective an ``in-`` can negate."""
    for ending in ("ly", "s"):
        if base.endswith(ending) and len(base) - len(ending) >= _MIN_BASE:
            base = base[:-len(ending)]
            break
    return base.endswith(_ADJECTIVE_ENDS)


def negated_word(word: str) -> bool:
    """Whether ``word`` (folded) is a base with a negating ``un-`` or ``non-`` ("unable", "unlikely"): a negation
    written in the word."""
    return any(word.startswith(p) and len(word) - len(p) >= _MIN_BASE for p in _NEGATING) and word not in _NOT_NEGATED
