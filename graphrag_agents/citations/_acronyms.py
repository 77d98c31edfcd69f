"""Acronyms and their expansions: "FLSA" and "Fair Labor Standards Act" name one thing (private).

An answer often spells out what the evidence abbreviates, or abbreviates what it spells out. A name of the claim
is found when its initials (of its capitalised words; "of", "and", "for", "the" skipped) are an acronym of the
evidence, or when it is an acronym the evidence spells out as a run of capitalised words with those initials.
"""

from __future__ import annotations

import re

from ._text import fold

__all__ = ["US_STATES", "acronym_forms", "initials", "name_forms"]

US_STATES = {
    "alabama": "al", "alaska": "ak", "arizona": "az", "arkansas": "ar", "california": "ca", "colorado": "co",
    "connecticut": "ct", "delaware": "de", "florida": "fl", "georgia": "ga", "hawaii": "hi", "idaho": "id",
    "illinois": "il", "indiana": "in", "iowa": "ia", "kansas": "ks", "kentucky": "ky", "louisiana": "la",
    "maine": "me", "maryland": "md", "massachusetts": "ma", "michigan": "mi", "minnesota": "mn",
    "mississippi": "ms", "missouri": "mo", "montana": "mt", "nebraska": "ne", "nevada": "nv",
    "new hampshire": "nh", "new jersey": "nj", "new mexico": "nm", "new york": "ny", "north carolina": "nc",
    "north dakota": "nd", "ohio": "oh", "oklahoma": "ok", "oregon": "or", "pennsylvania": "pa",
    "rhode island": "ri", "south carolina": "sc", "south dakota": "sd", "tennessee": "tn", "texas": "tx",
    "utah": "ut", "vermont": "vt", "virginia": "va", "washington": "wa", "west virginia": "wv",
    "wisconsin": "wi", "wyoming": "wy", "district of columbia": "dc",
}
"""US states and their postal codes: a business record writes "CA" where an answer says "California"."""

_ACRONYM = re.compile(r"\b[A-Z][A-Z&]{1,7}s?\b")
_RUN = re.compile(r"[A-Z][\w'’\-]*(?:\s+(?:(?:of|and|for|the|on|in|&)\s+)*[A-Z][\w'’\-]*)+")
_SMALL = frozenset({"of", "and", "for", "the", "on", "in", "&"})


def initials(words: list[str]) -> str:
    """The folded initials of the capitalised words of a name ("Fair Labor Standards Act" -> "flsa")."""
    return "".join(fold(w[0]) for w in words if w and w not in _SMALL and w[0].isupper())


def name_forms(name: str) -> frozenset[str]:
    """The acronym forms of one name of a claim: itself folded without dots or a plural "s" ("TVs" -> "tv"),
    its initials, and a US state's postal code."""
    bare = name.replace(".", "").replace("’s", "").replace("'s", "")
    folded = fold(bare)
    forms = {folded, initials(bare.split())}
    if bare.endswith("s") and bare[:-1].isupper():
        forms.add(folded[:-1])
    if folded in US_STATES:
        forms.add(US_STATES[folded])
    return frozenset(f for f in forms if len(f) >= 2)


def acronym_forms(text: str) -> frozenset[str]:
    """The acronyms ``text`` writes and the initials of its runs of capitalised words, folded."""
    forms = {fold(m.group().rstrip("s").replace("&", "")) for m in _ACRONYM.finditer(text)}
    for m in _RUN.finditer(text):
        words = m.group().split()
        forms.add(initials(words))
        # a run may carry a leading word that is not part of the name ("The Centers for Disease Control")
        forms.add(initials(words[1:]))
    return frozenset(f for f in forms if len(f) >= 2)
