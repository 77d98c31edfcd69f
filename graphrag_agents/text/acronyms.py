"""Other forms of one name: acronyms and expansions, places and their adjectives, titles (private).

An answer often spells out what the evidence abbreviates, or abbreviates what it spells out ("FLSA" and "Fair
Labor Standards Act" name one thing). A name of the claim is found when its initials (of its capitalised words;
"of", "and", "for", "the" skipped) are an acronym of the evidence (``U.S.`` read as ``US``), or when it is an
acronym the evidence spells out as a run of capitalised words with those initials. A word of a name is also
found as the adjective of a place the evidence names ("Chinese" for China, "Pakistani" for Pakistan,
"Scandinavian" for Scandinavia; :func:`place_word_found`), and a title word ("Governor", "President") is how
the answer refers to someone, not a name the evidence must repeat. A few names go by several names that no
rule derives ("ISIL" for ISIS, "LGBTQ" for LGBT, "Britain" for the UK, "America" for the US; :data:`ALIASES`).
An answer that spells out an acronym and gives it in parentheses ("US Citizenship and Immigration Services
(USCIS)") names what the acronym names (:func:`defined_acronyms`).
"""

from __future__ import annotations

import re

from .words import fold

__all__ = ["ALIASES", "TITLE_WORDS", "US_STATES", "acronym_forms", "alias_forms", "defined_acronyms", "initials",
           "name_forms", "place_word_found", "run_initials", "same_spelling", "spelled_initials", "spelled_runs",
           "written_acronyms"]

TITLE_WORDS = frozenset("""
president governor senator representative congressman congresswoman mayor minister prime chancellor secretary
professor doctor judge justice general colonel captain lieutenant sergeant admiral commander officer detective
king queen prince princess duke duchess pope cardinal bishop reverend father sister brother chief director
chairman chairwoman ceo actress actor singer rapper photographer cyclist coach
""".split())
"""Words that say what someone is ("Governor Doug Ducey", "Actress Sofia Vergara"): not checked in a name."""
# Endings that make a place's adjective or its people's name, longest first.
_PLACE_ENDINGS = ("ese", "ians", "ian", "ans", "ity", "ish", "an", "i")

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

ALIASES = tuple(frozenset(group.split(",")) for group in (
    "us,usa,united states,united states of america,america",
    "uk,britain,great britain,united kingdom,british",
    "isis,isil,islamic state,islamic state of iraq,islamic state of iraq and syria,daesh",
    "lgbt,lgbtq,lgbtq+,lgbtqia,lgbtqia+,lgbtqi",
    "eu,european union",
    "un,united nations",
))
"""Names that go by other names no rule derives, folded: each group names one thing."""
_ALIAS_OF = {form: group for group in ALIASES for form in group}

_ACRONYM = re.compile(r"\b[A-Z][A-Z&]{1,7}s?\b")
# A run of one or more capitalised words (small words between them); "*" where "+" would need two words, so a
# search never fails inside a run and restarts at its next capital (quadratic in a long run): callers skip the
# one-word runs they do not want.
_RUN = re.compile(r"[A-Z][\w'’\-]*(?:\s+(?:(?:of|and|for|the|on|in|&)\s+)*[A-Z][\w'’\-]*)*")
_ACRONYM_AFTER = re.compile(r"\s*\(([A-Z][A-Za-z&.]{1,9})\)")
_DOTTED = re.compile(r"(?<=\b[A-Z])\.(?=[A-Z]\b)|(?<=\b[A-Z]\.[A-Z])\.")
_SMALL = frozenset({"of", "and", "for", "the", "on", "in", "&"})


def initials(words: list[str]) -> str:
    """The folded initials of the capitalised words of a name ("Fair Labor Standards Act" -> "flsa")."""
    return "".join(fold(w[0]) for w in words if w and w not in _SMALL and w[0].isupper())


def _bare(name: str) -> str:
    """A name without dots and a possessive ("U.S.'s" -> "US")."""
    return name.replace(".", "").replace("’s", "").replace("'s", "")


def name_forms(name: str) -> frozenset[str]:
    """The acronym forms of one name of a claim: itself folded without dots or a plural "s" ("TVs" -> "tv"),
    and a US state's postal code. Its initials are :func:`spelled_initials`: they stand for the name only where
    the evidence writes them as an acronym."""
    bare = _bare(name)
    folded = fold(bare)
    forms = {folded}
    if bare.endswith("s") and bare[:-1].isupper():
        forms.add(folded[:-1])
    if folded in US_STATES:
        forms.add(US_STATES[folded])
    return frozenset(f for f in forms if len(f) >= 2)


def spelled_initials(name: str) -> str:
    """The initials of a name of two or more capitalised words ("Fair Labor Standards Act" -> "flsa"), else ''.

    Matched only against an acronym an evidence text writes, and where the text also spells it out, only for the
    same words (:func:`same_spelling`): "Mitchells & Bustlers plc" (the question's misspelling) has the initials
    of the evidence's "Mitchells & Butlers plc ... (M&B)", and was verified by them (HotpotQA mixed, the 1.5B
    model's answer)."""
    capitalised = [w for w in _bare(name).split() if w not in _SMALL and w[:1].isupper()]
    return initials(capitalised) if len(capitalised) >= 2 else ""


def alias_forms(name: str) -> frozenset[str]:
    """The other names of ``name`` in :data:`ALIASES` (folded, without a possessive), or none."""
    bare = fold(_bare(name).strip())
    return _ALIAS_OF.get(bare, frozenset()) - {bare}


def place_word_found(word: str, evidence_words: frozenset[str]) -> bool:
    """Whether a folded word of a name is the adjective (or people) of a place the evidence names: its stem
    without the ending equals an evidence word, or that word without a final a/e/y/o, to one letter."""
    for ending in _PLACE_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            stem = word[:-len(ending)]
            break
    else:
        return False
    for other in evidence_words:
        if other[:4] != stem[:4]:
            continue
        base = other[:-1] if other[-1:] in "aeyo" else other
        if stem in (other, base) or (base.startswith(stem) and len(base) - len(stem) <= 1):
            return True
    return False


def defined_acronyms(text: str) -> list[tuple[int, int, str]]:
    """Each spelled-out name followed by its acronym in parentheses: (start, end, the acronym folded), when the
    acronym's letters are the initials of the name's last words (an all-caps word gives all its letters: "US
    Citizenship and Immigration Services (USCIS)")."""
    out: list[tuple[int, int, str]] = []
    for run in _RUN.finditer(text):
        m = _ACRONYM_AFTER.match(text, run.end())
        if m is None:
            continue
        acronym = fold(m.group(1).replace(".", "").replace("&", ""))
        acronym = acronym[:-1] if m.group(1).endswith("s") and len(acronym) > 2 else acronym
        words = list(re.finditer(r"\S+", run.group()))
        letters = ""
        for word in reversed(words):
            if word.group() in _SMALL:
                continue
            letters = (fold(word.group()) if word.group().isupper() and len(word.group()) >= 2
                       else fold(word.group()[0])) + letters
            if letters == acronym:
                out.append((run.start() + word.start(), m.end(), acronym))
                break
    return out


def written_acronyms(text: str) -> frozenset[str]:
    """The acronyms ``text`` writes (dotted ones too: ``U.S.`` is ``us``), folded."""
    text = _DOTTED.sub("", text)
    return frozenset(f for f in (fold(m.group().rstrip("s").replace("&", "")) for m in _ACRONYM.finditer(text))
                     if len(f) >= 2)


def spelled_runs(text: str) -> dict[str, tuple[str, ...]]:
    """``text``'s runs of capitalised words by their initials ("who": ("World Health Organization",))."""
    runs: dict[str, list[str]] = {}
    for m in _RUN.finditer(_DOTTED.sub("", text)):
        words = m.group().split()
        if len(words) < 2:
            continue
        for name in (words, words[1:]):
            key = initials(name)
            if len(key) >= 2:
                runs.setdefault(key, []).append(" ".join(name))
    return {key: tuple(names) for key, names in runs.items()}


def same_spelling(name: str, other: str) -> bool:
    """Whether two names are the same words but for British and American spelling ("World Health Organisation"
    and "World Health Organization"); a misspelt word is another word ("Bustlers" is not "Butlers")."""
    def key(words: str) -> list[str]:
        return [_VARIANT.sub(lambda m: _VARIANTS[m.group()], fold(w)) for w in words.split()
                if w not in _SMALL and w[:1].isupper()]
    return key(name) == key(other)


_VARIANTS = {"isation": "ization", "ise": "ize", "ised": "ized", "our": "or", "tre": "ter", "yse": "yze"}
_VARIANT = re.compile(r"(?:isation|ised|ise|our|tre|yse)(?=s?$)")


def run_initials(text: str) -> frozenset[str]:
    """The initials of ``text``'s runs of capitalised words, folded ("fdic" for "Federal Deposit Insurance
    Corporation")."""
    return frozenset(spelled_runs(text))


def acronym_forms(text: str) -> frozenset[str]:
    """The acronyms ``text`` writes (dotted ones too) and the initials of its runs of capitalised words, folded."""
    return written_acronyms(text) | run_initials(text)
