"""Whether two names trade places without changing the fact: joined by coordination or stated as equal (private).

English coordination is symmetric: "`npm edit` and `npm config edit`" says what "`npm config edit` and `npm edit`"
says, and so does a list ("`ls`, `search`, and `help-search`") or coordinated phrases of one shape ("the `A`
endpoint and the `B` endpoint"). A coordinator joins the two names only when nothing
but names and coordinators stands between them; inside a longer stretch it joins clauses or verb phrases ("When
`npm` creates or updates `package-lock.json`", "`npm-shrinkwrap.json` will take precedence and `package-lock.json`
will be ignored"), and the names on either side keep their roles, so exchanging them changes the fact. A relation
of equality ("the same as", "an alias for", "equivalent to") or "between" / "both" before the first name is
symmetric wherever it stands. Two names of one thing (`--json` and "JSON") trade places without a change too (the
moved-name rule's own reading).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["ENABLED", "symmetric"]

ENABLED = True
"""The reading's switch: off, any coordinator between two names makes them symmetric, as the moved-name rule read
them before (the perturbation benchmark scores both in the same run)."""

_COORDINATORS = frozenset("and or nor vs versus".split())
"""Words that join two names as equals when nothing else stands between them."""
_EQUAL = frozenset("same equal equals equivalent identical similar alias aliases both between".split())
"""Words of a symmetric relation: the names on either side trade places without changing it."""


def symmetric(before: Sequence[str], between: Sequence[str], after: Sequence[str],
              is_name: Callable[[int], bool]) -> bool:
    """Whether exchanging two names leaves the fact as it was.

    Args:
        before: The folded words before the first name, in order.
        between: The folded words between the two names, in order.
        after: The folded words after the second name, in order.
        is_name: Whether the ``i``-th word of ``between`` is (part of) a name.
    """
    last = before[-1] if before else ""
    if last in _EQUAL or last in _COORDINATORS or any(w in _EQUAL for w in between):
        return True
    if not ENABLED:
        return any(w in _COORDINATORS for w in between)
    # coordinated phrases of one shape ("the `A` endpoint and the `B` endpoint"): the words after the second name
    # open what stands between, the words before the first name close it
    trail = _common(after, between)
    lead = _common(before[::-1], between[::-1], limit=len(between) - trail)
    core = range(trail, len(between) - lead)
    # a list: names and coordinators only ("`ls`, `search`, and `help-search`")
    return any(between[i] in _COORDINATORS for i in core) and all(
        between[i] in _COORDINATORS or is_name(i) for i in core)


def _common(a: Sequence[str], b: Sequence[str], limit: int | None = None) -> int:
    """The length of the common start of ``a`` and ``b`` (at most ``limit``)."""
    top = min(len(a), len(b), len(b) if limit is None else limit)
    size = 0
    while size < top and a[size] == b[size]:
        size += 1
    return size
