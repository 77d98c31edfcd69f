"""Rule packs: rules for one kind of data that a caller enables by name (private).

The default rule set is general: figures, names, meaning, direction, a record's attributes, counts and claim
support, on any text. A rule written for one data set's schema reads that schema everywhere it runs, so it lives
in a pack instead, and runs only where a caller asks for it: ``check_citations(..., packs=["records"])``, the
toolkit's ``citation_packs=["records"]`` or ``graphrag-mcp --citation-packs records``. A pack adds its rules at
named places of the ordered list (:func:`~._rules.claim_rules`), may claim the records it reads (the general
record rule leaves those alone) and may adjust how the figure rule reads a claim.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..errors import ConfigurationError
from . import _pack_records
from ._evidence import EvidenceIndex
from ._rules import Rule, Slot, claim_rules

__all__ = ["KNOWN_PACKS", "Pack", "PackRules", "check_packs", "pack_rules"]


@dataclass(frozen=True)
class Pack:
    """A named family of rules for one kind of data."""

    name: str
    """What a caller passes to enable it."""
    about: str
    """What data it is for (shown when an unknown name is asked for)."""
    rules: Mapping[Slot, Sequence[Rule]]
    """Its rules, by the place they take in the ordered list."""
    owns: Callable[[EvidenceIndex], bool]
    """The records its own rules read (the general record rule leaves them alone)."""
    figures_text: Callable[[str, Sequence[EvidenceIndex]], str] | None = None
    """How the figure rule reads a claim when the pack is on, or None."""


KNOWN_PACKS: dict[str, Pack] = {
    "records": Pack(
        name="records", about="business records with reviews (RAGTruth's Data2txt / Yelp schema)",
        rules=_pack_records.RULES, owns=_pack_records.owns, figures_text=_pack_records.figures_text),
}
"""Every pack by name."""


def check_packs(packs: Iterable[str] | None) -> tuple[str, ...]:
    """The pack names asked for, in a fixed order, each once; ConfigurationError for a name no pack has."""
    if packs is None:
        return ()
    if isinstance(packs, str):
        packs = [packs]  # "records" alone means the pack, not its letters
    names: list[str] = []
    for raw in packs:
        name = str(raw).strip().casefold()
        if name not in KNOWN_PACKS:
            known = ", ".join(f"{k} ({p.about})" for k, p in KNOWN_PACKS.items())
            raise ConfigurationError(f"Unknown citation rule pack {raw!r}. Fix: pass one of the known packs: {known}.")
        if name not in names:
            names.append(name)
    return tuple(sorted(names))


@dataclass(frozen=True)
class PackRules:
    """The ordered rules and the readings of a set of packs."""

    rules: tuple[Rule, ...]
    owns: Callable[[EvidenceIndex], bool]
    figures_text: Callable[[str, Sequence[EvidenceIndex]], str] | None


@lru_cache(maxsize=16)
def pack_rules(names: tuple[str, ...]) -> PackRules:
    """The rule list with the packs ``names`` (from :func:`check_packs`) in their places."""
    packs = [KNOWN_PACKS[name] for name in names]
    added: dict[Slot, list[Rule]] = {}
    for pack in packs:
        for slot, rules in pack.rules.items():
            added.setdefault(slot, []).extend(rules)
    readers = [p.figures_text for p in packs if p.figures_text is not None]

    def owns(item: EvidenceIndex) -> bool:
        return any(p.owns(item) for p in packs)

    def figures_text(claim: str, evid: Sequence[EvidenceIndex]) -> str:
        for read in readers:
            claim = read(claim, evid)
        return claim

    return PackRules(rules=claim_rules(dict(added)), owns=owns, figures_text=figures_text if readers else None)
