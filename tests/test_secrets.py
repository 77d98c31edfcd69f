"""The secret masker: known values and secret-shaped text are masked, ordinary words are not."""

from __future__ import annotations

import pytest

from graphrag_agents._secrets import mask_secrets
from graphrag_agents.adapters.mcp._http import check_binding
from graphrag_agents.errors import ConfigurationError

PROSE = [
    "Refusing to serve without a bearer token: anyone who can reach the port could read the whole graph.",
    "bearer token: one who can reach the port",
    "Send the bearer token with every request; the token: configured by the operator.",
    "password: required for remote servers",
    "Bearer tokens are masked in logs.",
]


@pytest.mark.parametrize("text", PROSE)
def test_ordinary_words_after_secret_names_stay(text: str) -> None:
    # Before: "bearer token: anyone who ..." became "bearer token: *** who ...".
    assert mask_secrets(text) == text


def test_the_server_refusal_reads_as_written() -> None:
    with pytest.raises(ConfigurationError) as caught:
        check_binding("0.0.0.0", None)
    assert "anyone who can reach the port" in mask_secrets(str(caught.value))


@pytest.mark.parametrize(("text", "secret"), [
    ("redis://admin:hunter2@db:6379", "hunter2"),
    ("Authorization: Bearer abcdef123456", "abcdef123456"),
    ("header Bearer abc.def-ghijkl", "abc.def-ghijkl"),
    ("password: hunter22", "hunter22"),
    ("token: ghp_abcdEFGH1234", "ghp_abcdEFGH1234"),
    ("secret: correcthorsebatterystaple", "correcthorsebatterystaple"),
    ("api_key=supersecretvalue", "supersecretvalue"),
    ('{"api_key": "plainletters"}', "plainletters"),
    ("bad key sk-abcdefghijklmnop", "sk-abcdefghijklmnop"),
])
def test_secret_shapes_are_masked(text: str, secret: str) -> None:
    masked = mask_secrets(text)
    assert secret not in masked and "***" in masked, masked


def test_known_values_are_masked_wherever_they_occur(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "plainwordtoken")
    assert mask_secrets("the value plainwordtoken leaked") == "the value *** leaked"
    assert mask_secrets("key k3y9 rejected", ["k3y9"]) == "key *** rejected"
