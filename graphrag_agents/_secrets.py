"""Masking of secrets in any text shown to users, models or logs: URL passwords, API keys, bearer tokens and the
values of secret-looking environment variables.

Known secret values (the caller's, and those of ``*KEY*`` / ``*TOKEN*`` / ``*SECRET*`` / ``*PASSWORD*`` environment
variables) are masked wherever they occur. Shapes are masked only where they carry a secret: ``api_key=value`` and
``"token": "value"`` always; ``token: value`` and ``Bearer value`` only when the value looks like one (a digit or
a symbol such as ``-`` ``_`` ``.`` ``/`` ``+`` ``=`` in it, a lower-to-upper case change, or 16 characters and
more), so prose such as "bearer token: anyone who can reach the port" stays as it is.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

__all__ = ["mask_secrets"]

# A URL's user information runs to the LAST "@" before the host part ends ("/", "?", "#"), as browsers read it,
# so a password holding an unencoded "@" is masked whole; quotes and whitespace end a URL in running text.
_URL_USERINFO = re.compile(r"(://)([^\s\"'<>/?#]*)@")
_API_KEY = re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{8,}")
_BEARER = re.compile(r"(?i)\b(bearer\s+)([A-Za-z0-9._~+/\-]{6,}=*)")
_NAMES = r"(?:api[_-]?key|token|secret|password)"
_ASSIGNED = re.compile(rf"(?i)\b({_NAMES}\s*=\s*[\"']?)[^\s\"',;&]{{4,}}")
_QUOTED = re.compile(rf"(?i)\b({_NAMES}[\"']\s*:\s*[\"'])[^\"']{{4,}}")
_COLON = re.compile(rf"(?i)\b({_NAMES}\s*:\s*)([^\s\"',;&]{{4,}})")
_SECRET_CHARS = re.compile(r"[0-9_\-./+=~]|[a-z][A-Z]")
_SECRET_ENV = re.compile(r"(?i)(KEY|TOKEN|SECRET|PASSWORD)")


def _looks_secret(value: str) -> bool:
    return len(value) >= 16 or (len(value) >= 6 and _SECRET_CHARS.search(value) is not None)


def _mask_userinfo(match: re.Match[str]) -> str:
    userinfo = match.group(2)
    if "@" in userinfo:  # where the user name ends is ambiguous: hide all of it
        return match.group(1) + "***@"
    user, colon, _ = userinfo.partition(":")
    return f"{match.group(1)}{user}:***@" if colon else match.group(0)  # no colon: a user name, no password


def _mask_if_secret(match: re.Match[str]) -> str:
    return match.group(1) + "***" if _looks_secret(match.group(2)) else match.group(0)


def mask_secrets(text: str, extra: Sequence[str] = ()) -> str:
    """``text`` with URL passwords, API keys, bearer tokens, secret environment values and ``extra`` as ``***``."""
    # Values named by the caller are known secrets: masked from 4 characters (shorter ones would mask words).
    secrets = [value for value in extra if value and len(value) >= 4]
    secrets += [v for k, v in os.environ.items() if _SECRET_ENV.search(k) and len(v) >= 8]
    for secret in sorted(set(secrets), key=len, reverse=True):
        text = text.replace(secret, "***")
    text = _URL_USERINFO.sub(_mask_userinfo, text)
    text = _API_KEY.sub("***", text)
    text = _BEARER.sub(_mask_if_secret, text)
    text = _ASSIGNED.sub(lambda m: m.group(1) + "***", text)
    text = _QUOTED.sub(lambda m: m.group(1) + "***", text)
    return _COLON.sub(_mask_if_secret, text)
