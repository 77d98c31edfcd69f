"""Masking of secrets in any text shown to users, models or logs: URL passwords, API keys, bearer tokens and the
values of secret-looking environment variables."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

__all__ = ["mask_secrets"]

_URL_PASSWORD = re.compile(r"(://[^:/@\s]*:)[^@\s]+@")
_SECRET_PATTERNS = (
    re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/\-]{6,}=*"),
    re.compile(r"(?i)\b((?:api[_-]?key|token|secret|password)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;&]{4,}"),
)
_SECRET_ENV = re.compile(r"(?i)(KEY|TOKEN|SECRET|PASSWORD)")


def mask_secrets(text: str, extra: Sequence[str] = ()) -> str:
    """``text`` with URL passwords, API keys, bearer tokens, secret environment values and ``extra`` as ``***``."""
    # Values named by the caller are known secrets: masked from 4 characters (shorter ones would mask words).
    secrets = [value for value in extra if value and len(value) >= 4]
    secrets += [v for k, v in os.environ.items() if _SECRET_ENV.search(k) and len(v) >= 8]
    for secret in sorted(set(secrets), key=len, reverse=True):
        text = text.replace(secret, "***")
    text = _URL_PASSWORD.sub(r"\1***@", text)
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + "***", text)
    return text
