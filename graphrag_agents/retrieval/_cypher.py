"""Cypher pieces shared by the retrieval queries."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["QueryVector", "VectorParam", "cosine", "vector_param"]


class VectorParam:
    """The question vector as a query parameter, formatted once per retrieve instead of once per query.

    The FalkorDB client writes parameters into the query's ``CYPHER`` header and formats any value it does
    not know with ``str()``; a 384-float list costs ~1,000 Python calls to format each time, this costs none.
    It is still a parameter (the query text never contains it) and holds only floats.
    """

    __slots__ = ("_text",)

    def __init__(self, values: Iterable[float]) -> None:
        # 9 significant digits round-trip a float32 exactly, at half the length of a float64 repr
        self._text = "[" + ",".join(f"{float(x):.9g}" for x in values) + "]"

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"VectorParam({self._text[:40]}...)"


def cosine(var: str) -> str:
    """Cypher for the cosine similarity of ``var``'s stored embedding to ``$v`` (0 while it has none).

    FalkorDB returns cosine *distance*; similarity = 1 - distance.
    """
    assert var.isidentifier()
    return (f"CASE WHEN {var}.embedding IS NULL THEN 0.0 "
            f"ELSE 1 - vec.cosineDistance({var}.embedding, vecf32($v)) END")


QueryVector = Sequence[float] | VectorParam
"""The question's embedding, as floats or already formatted."""


def vector_param(vector: QueryVector) -> VectorParam:
    """``vector`` as a :class:`VectorParam` (formatted once; a VectorParam passes through)."""
    return vector if isinstance(vector, VectorParam) else VectorParam(vector)
