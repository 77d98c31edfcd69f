"""A name moved in a sentence the claim repeats: put in another name's place, or exchanged with another (private).

"Run `npm ci` to install from the lockfile" where the passage says "Run `npm install` ..." and names `npm ci`
in another sentence keeps every name and every word the literal and support rules read, and states another fact.
So does a sentence whose two names trade places ("A depends on B" for "B depends on A"). The sentence rules
(:mod:`._meaning`) compare names only when they are capitalised words and one clause restates most of one
sentence's content; this reads the claim's frame instead: the claim is one evidence sentence, word for word,
except for one name put in another name's place, or two names exchanged (their roles swapped). A name may come
with a few words of its own ("is a 1954 Altid ballade, edited by" for "is a 1954 Norwegian comedy- drama film,
edited by") when each side holds a name the other lacks; a day or a month is no name there (a time dropped and a
place added is a summary's rewording). The claim may be a cut of the sentence: its words after the change go on as
the sentence's do.

A name here is a code span or a capitalised word that the evidence writes capitalised inside a sentence (or
that does not open the sentence). Another name for the same thing is no move: one name's words inside the
other's ("Warner Bros" / "Warner Bros Pictures", `npm` / `npm install`), or an acronym of the other. Names joined
only by "and" / "or" or stated as equal ("the same as", "between") trade places without changing the fact. The
moved name must be in the cited evidence (else the literal rules speak), and the claim must keep
:data:`KEPT_FRAME` of its words as the sentence's start and end around the change.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._coordination import symmetric
from ._evidence import FUNCTION_WORDS, EvidenceIndex
from ._tokens import Token, repeated_sentences, tokens

__all__ = ["ENABLED", "KEPT_FRAME", "moved_name_finding"]

ENABLED = True
"""The rule's switch (the perturbation benchmark scores the check with it off, in the same run)."""

KEPT_FRAME = 0.6
"""The share of the claim's words that must be the evidence sentence's start and end around a replaced name."""
_MIN_TOKENS = 4
_MAX_NAME = 4
_MAX_REGION = 6
"""The most words a change of a name and the words around it may span on either side."""
_JOINING = frozenset("of the and de da von van del la le du".split())
_TIMES = frozenset("monday tuesday wednesday thursday friday saturday sunday january february march april may june "
                   "july august september october november december".split())
_Token = Token
_tokens = tokens


def _is_name(token: _Token, index: int, known: frozenset[str]) -> bool:
    """A code span, or a capitalised word that is no function word and, opening the sentence, a word the evidence
    writes capitalised inside one."""
    key, written = token
    if written.startswith("`"):
        return True
    return written[0].isupper() and key not in FUNCTION_WORDS and (index > 0 or key in known)


def _name_run(tokens: Sequence[_Token], start: int, end: int, known: frozenset[str]) -> bool:
    """Whether ``tokens[start:end]`` is one name: names, capitalised function words ("All About Eve") and, inside,
    the lowercase words that join a title's words ("The Sound of Music"), with at least one name among them."""
    if not 0 < end - start <= _MAX_NAME:
        return False
    run = range(start, end)
    return any(_is_name(tokens[i], i, known) for i in run) and all(
        _is_name(tokens[i], i, known) or (tokens[i][1][0].isupper() and i > 0)
        or (start < i < end - 1 and tokens[i][0] in _JOINING) for i in run)


def _same_thing(a: Sequence[_Token], b: Sequence[_Token]) -> bool:
    """Two names of one thing: one's words inside the other's, or one the other's acronym."""
    words_a = {w for key, _ in a for w in re.findall(r"[^\W_]+", key.casefold())}
    words_b = {w for key, _ in b for w in re.findall(r"[^\W_]+", key.casefold())}
    if words_a <= words_b or words_b <= words_a:
        return True
    initials_a = "".join(w[0] for w in re.findall(r"[^\W_]+", " ".join(k for k, _ in a)))
    initials_b = "".join(w[0] for w in re.findall(r"[^\W_]+", " ".join(k for k, _ in b)))
    return initials_a in words_b or initials_b in words_a


def _words(name: Sequence[_Token]) -> frozenset[str]:
    """A name's words without code marks and case: `--json` and "JSON" are one name written two ways."""
    return frozenset(w for key, _ in name for w in re.findall(r"[^\W_]+", key.casefold()))


def _frame(claim: Sequence[_Token], other: Sequence[_Token]) -> tuple[int, int]:
    """The lengths of the common start and end of two token lists (not overlapping)."""
    limit = min(len(claim), len(other))
    head = 0
    while head < limit and claim[head][0] == other[head][0]:
        head += 1
    tail = 0
    while tail < limit - head and claim[-1 - tail][0] == other[-1 - tail][0]:
        tail += 1
    return head, tail


def _finding(claim: Sequence[_Token], other: Sequence[_Token], known: frozenset[str],
             cited: str) -> str | None:
    head, tail = _frame(claim, other)
    middle, said = claim[head:len(claim) - tail], other[head:len(other) - tail]
    if not middle or not said:
        return None
    found = _replaced(claim, (head, len(claim) - tail), other, (head, len(other) - tail), known, cited)
    found = found or _exchanged(claim, head, middle, said, known)
    # the claim may be a cut of the sentence (or the splitter joined the sentence to the next): its rest then
    # follows the changed name
    return found or _cut(claim, other, head, known, cited)


def _replaced(claim: Sequence[_Token], changed: tuple[int, int], other: Sequence[_Token], said: tuple[int, int],
              known: frozenset[str], cited: str) -> str | None:
    """The finding for the claim's name ``changed`` where the sentence says the name ``said``, around a frame of
    :data:`KEPT_FRAME` of the claim's words."""
    middle, stated = claim[changed[0]:changed[1]], other[said[0]:said[1]]
    names = ((_name_run(claim, *changed, known) and _name_run(other, *said, known))
             or _names_traded(claim, changed, other, said, known))
    if (names and len(claim) - len(middle) >= KEPT_FRAME * len(claim) and not _same_thing(middle, stated)
            and all(written in cited for _, written in middle)):
        return (f"the claim puts {' '.join(w for _, w in middle)} where the evidence sentence says "
                f"{' '.join(w for _, w in stated)}")
    return None


def _names_traded(claim: Sequence[_Token], changed: tuple[int, int], other: Sequence[_Token], said: tuple[int, int],
                  known: frozenset[str]) -> bool:
    """Whether a few changed words put a name of the claim's own in place of a name of the sentence ("is a 1954
    Altid ballade, edited by" for "is a 1954 Norwegian drama film directed by"), each absent from the other side."""
    if changed[1] - changed[0] > _MAX_REGION or said[1] - said[0] > _MAX_REGION:
        return False
    mine = {claim[i][0] for i in range(*changed)}
    theirs = {other[i][0] for i in range(*said)}
    # a day or a month says when, not who: "arrived in Tikrit" for "arrived Wednesday" drops a time, adds a place
    return (any(_is_name(claim[i], i, known) and claim[i][0] not in theirs | _TIMES for i in range(*changed))
            and any(_is_name(other[i], i, known) and other[i][0] not in mine | _TIMES for i in range(*said)))


def _cut(claim: Sequence[_Token], other: Sequence[_Token], head: int, known: frozenset[str],
         cited: str) -> str | None:
    """A moved name in a claim whose words after the change go on as the sentence's do, to the claim's end."""
    keys, other_keys = [k for k, _ in claim], [k for k, _ in other]
    for size in range(1, min(_MAX_REGION, len(claim) - head) + 1):
        rest = keys[head + size:]
        for said in range(1, _MAX_REGION + 1):
            if rest and other_keys[head + said:head + said + len(rest)] == rest:
                found = _replaced(claim, (head, head + size), other, (head, head + said), known, cited)
                if found:
                    return found
    for span in range(3, len(claim) - head):
        rest = keys[head + span:]
        if other_keys[head + span:head + span + len(rest)] == rest:
            found = _exchanged(claim, head, claim[head:head + span], other[head:head + span], known)
            if found:
                return found
    return None


def _exchanged(claim: Sequence[_Token], head: int, middle: Sequence[_Token], said: Sequence[_Token],
               known: frozenset[str]) -> str | None:
    """Two names of the evidence sentence in each other's places, with the same words between them."""
    if len(middle) != len(said) or len(middle) < 3:
        return None
    keys, said_keys = [k for k, _ in middle], [k for k, _ in said]
    for a in range(1, _MAX_NAME + 1):
        for b in range(1, min(_MAX_NAME, len(middle) - a - 1) + 1):
            end = len(middle) - b
            if keys[:a] != said_keys[-a:] or keys[end:] != said_keys[:b] or keys[a:end] != said_keys[b:-a]:
                continue
            if _trade(claim, (head, head + a), (head + end, head + len(middle)), known):
                return (f"roles reversed: the claim exchanges {' '.join(w for _, w in middle[:a])} and "
                        f"{' '.join(w for _, w in middle[end:])} of the evidence sentence")
    return None


def _trade(claim: Sequence[_Token], first: tuple[int, int], last: tuple[int, int], known: frozenset[str]) -> bool:
    """Whether the claim's token runs ``first`` and ``last`` are two different names whose exchange changes the
    fact: not joined by "and" / "or" or stated as equal ("the same as", "between A and B")."""
    keys = [k for k, _ in claim]
    between = keys[first[1]:last[0]]
    return (_name_run(claim, *first, known) and _name_run(claim, *last, known)
            and keys[first[0]:first[1]] != keys[last[0]:last[1]] and bool(between)
            and _words(claim[first[0]:first[1]]) != _words(claim[last[0]:last[1]])
            and not symmetric(keys[:first[0]], between, keys[last[1]:],
                              lambda i: _is_name(claim[first[1] + i], first[1] + i, known)))


def moved_name_finding(raw: str, items: Sequence[EvidenceIndex]) -> str | None:
    """The finding for a claim that is an evidence sentence with a name moved, or None.

    Args:
        raw: The claim with its code spans (NFKC-normalised, markers removed).
        items: The cited evidence.
    """
    claim = _tokens(raw)
    if not ENABLED or len(claim) < _MIN_TOKENS:
        return None
    known = frozenset().union(*(item.capitalised for item in items))
    cited = "\n".join(item.text for item in items)
    # the sentences as written: their code spans are names
    others = [_tokens(item.text[start:end]) for item, start, end, _ in repeated_sentences(raw, items)]
    keys = [k for k, _ in claim]
    # a claim one sentence says word for word is no move, however like another sentence it is ("If there is a
    # `server.js` file ..." where the next sentence says "If there is a `binding.gyp` file ...")
    if any(_holds_run([k for k, _ in other], keys) for other in others):
        return None
    for other in others:
        found = _finding(claim, other, known, cited)
        if found is not None:
            return found
    return None


def _holds_run(words: Sequence[str], run: Sequence[str]) -> bool:
    """Whether ``run`` is a contiguous part of ``words``."""
    size = len(run)
    return any(words[i:i + size] == run for i in range(len(words) - size + 1) if words[i] == run[0])
