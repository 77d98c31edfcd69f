"""Whether a FalkorDB the user runs logs its writes in a form that always replays, and the warning when not.

FalkorDB logs a write that ran faster than ``EFFECTS_THRESHOLD`` (300 µs by default) as its verbatim query, and a
slower one as its effects. A file (or a replica's stream) that mixes the two can fail to replay after an
append-only rewrite or a full resynchronisation that overlapped writes: FalkorDB 4.16 then crashes at every start.
The embedded server is started with the threshold at 0 (:data:`~.embedded.DURABLE_MODULE_ARGS`); a server reached
by URL is the user's, so its configuration is read at open and a warning names the fix, but nothing is changed.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["durability_warning", "effects_threshold"]

_log = logging.getLogger(__name__)


async def effects_threshold(server: Any) -> int | None:
    """The server's ``EFFECTS_THRESHOLD`` in microseconds, or None when it cannot be read (an older FalkorDB, or
    ``GRAPH.CONFIG`` not permitted for this user)."""
    try:
        reply = await server.execute_command("GRAPH.CONFIG", "GET", "EFFECTS_THRESHOLD")
    except Exception as exc:  # a refusal is no reason to refuse the open: the check is advice
        _log.debug("GRAPH.CONFIG GET EFFECTS_THRESHOLD was refused: %s", exc)
        return None
    if isinstance(reply, (list, tuple)) and len(reply) == 2 and not isinstance(reply[0], (list, tuple)):
        value = reply[1]
    elif isinstance(reply, (list, tuple)) and reply and isinstance(reply[0], (list, tuple)):
        value = reply[0][1]
    else:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def durability_warning(where: str, threshold: int | None) -> str | None:
    """The warning for a server whose writes may be logged as verbatim queries, with the fix; None when every
    write is logged as its effects (or the setting could not be read)."""
    if threshold is None or threshold == 0:
        return None
    return (f"The FalkorDB at {where} logs writes faster than EFFECTS_THRESHOLD={threshold} µs as their verbatim "
            "queries. After an append-only rewrite (or a replica's resynchronisation) that overlaps writes, such a "
            "file can fail to replay and the server then crashes at every start (FalkorDB issues 2201 and 2235). "
            "Fix: run GRAPH.CONFIG SET EFFECTS_THRESHOLD 0 on each server, and add EFFECTS_THRESHOLD 0 to its "
            "loadmodule line (or FALKORDB_ARGS) so that it holds after a restart; the embedded default does this.")
