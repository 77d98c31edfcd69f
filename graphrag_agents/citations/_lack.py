"""Lack statements: a sentence saying the graph, the evidence or a lookup lacks something needs no citation (private).

"The graph does not say who founded Globex." reports on the evidence; "The election results were not certified
until 2021." is a negative claim about the world and needs a citation like any other. The patterns below tell
them apart: the negation must be about the evidence (an evidence word with a verb of saying or holding, a failed
lookup in the first person, "there is no information", a participle such as "not mentioned" that ends its
clause). They are English only and run in linear time.
"""

from __future__ import annotations

import re

__all__ = ["is_lack_statement"]

_NEG = r"(?:not\b|\w{0,20}n['’]t\b|never\b|cannot\b)"
_EVID = (r"(?:knowledge\s+graph|graph|knowledge\s+base|evidence|sources?|passages?|documents?|context|"
         r"search(?:es)?|results?|excerpts?|texts?|corpus|tools?|look-?ups?|retrieval|data(?:set)?|"
         r"snippets?|facts|information\s+(?:provided|retrieved|available|given|returned)|citations?)")
# What evidence does or fails to do: say, mention, hold... ("The election results were not certified" is not).
_SAY = (r"(?:say|said|mention|state|specif|contain|includ|give|gave|given|provid|show|list|name|cover|indicat|"
        r"tell|told|answer|offer|hold|held|have|has|had|describ|identif|reveal|report|confirm|support|address|"
        r"clarif|return|discuss|explain|establish|note|record|detail|refer|yield|find|found|lack)\w{0,4}\b")
_ADVERB = r"(?:explicitly\s+|directly\s+|clearly\s+|actually\s+|really\s+|specifically\s+)?"
_AUX = r"(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would)"
_LACK_PATTERNS = [
    # "The graph does not say ...", "the retrieved passages don't mention ...", "the evidence lacks ..."
    rf"\b{_EVID}\s+(?:\w+\s+){{0,2}}?(?:{_AUX}\s*{_NEG}\s*{_ADVERB}(?:(?:seem|appear)\s+to\s+)?{_SAY}|"
    rf"(?:seems?|appears?)\s+{_NEG}\s*to\s+{_SAY}|lacks?\b|"
    r"(?:contains?|includes?|gives?|provides?|offers?|returned|found|yielded|shows?|mentions?|says?)\s+"
    r"(?:no|nothing)\b|(?:has|have|had|holds?)\s+(?:no|nothing)\s+(?:\w+\s+)?(?:information|mention|indication|"
    r"details?|data|answer|record)|(?:is|are)\s+silent\b)",
    # "... is not mentioned in the passages", "no information about X in the graph", "nothing in the evidence"
    rf"\b(?:not|no|nothing|none)\s+(?:\w+\s+){{0,4}}?(?:in|from|within|among|across|of|by)\s+(?:the\s+|my\s+|"
    rf"these\s+|this\s+|our\s+|any\s+)?(?:\w+\s+)?{_EVID}\b",
    # "I could not find ...", "we were unable to determine ...", "I found no ..."
    rf"\b(?:i|we)\s+(?:\w+\s+){{0,2}}?(?:{_NEG}|unable\s+to\b|no\s+longer\b)\s*(?:\w+\s+){{0,2}}?"
    r"(?:find|found|locate|determine|confirm|identify|verify|see|tell|answer|know|retrieve)\b",
    r"\b(?:i|we)\s+(?:found|find|see|saw|have|had)\s+(?:no|nothing)\b",
    # "There is no information on ...", "No mention of ..." (sentence-initial)
    r"(?:\bthere\s+(?:is|are|was|were|seems\s+to\s+be)\s+|^\W*)no\s+(?:\w+\s+)?"
    r"(?:information|mention|indication|details|record)s?\b",
    # "Its founder is not mentioned." (the verbs must be lowercase: "Doctors Don't Tell" is a title, and the
    # participle must end its clause: "was not named chief executive in 2015" is a claim)
    r"\b(?:not|never)\s+(?:explicitly\s+|directly\s+|clearly\s+)?(?-i:mentioned|stated|specified|indicated|"
    r"addressed|covered|named|given|provided|listed|known)\s*(?:[.;,!?)]|$|\b(?:anywhere|here|explicitly)\b)",
    rf"\b(?:it|this|that|they|these|which)\s+(?:does|do|did)\s*{_NEG}\s*{_ADVERB}(?-i:say|mention|specify|"
    r"state|indicate|tell)\b",
    rf"\b(?:unclear|unknown|not\s+clear)\s+(?:from|in|based\s+on)\s+(?:the\s+|these\s+|this\s+|my\s+|any\s+)?"
    rf"(?:\w+\s+)?{_EVID}\b",
]
_LACK = re.compile("|".join(f"(?:{p})" for p in _LACK_PATTERNS), re.IGNORECASE)


def is_lack_statement(text: str) -> bool:
    """Whether the sentence says the graph / evidence / lookup lacks something (it then needs no citation)."""
    return _LACK.search(text) is not None
