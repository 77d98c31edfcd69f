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


def test_url_user_information_is_masked_up_to_the_host() -> None:
    # The host follows the LAST "@" of the host part, as browsers read it: the whole user information is hidden.
    # Before: "falkor://user:***@ss-Secret@db:6379", the password shown from its "@" on.
    assert mask_secrets("falkor://user:p@ss-Secret@db:6379") == "falkor://***@db:6379"
    assert (mask_secrets("error at 'falkor://:p@ss-Secret@db:6379/0?x=1': refused")
            == "error at 'falkor://***@db:6379/0?x=1': refused")
    assert mask_secrets("sentinel://u:p@ss-Secret@a:26379,b:26379/svc") == "sentinel://***@a:26379,b:26379/svc"
    assert mask_secrets("redis://user:hunter2@db:6379") == "redis://user:***@db:6379"
    # Not user information: an "@" after the host part, or a user name without a password.
    for kept in ("falkor://db:1?ssl_ca_certs=/certs/ca@2024.pem", "https://example.com/@alice", "redis://user@db:6379"):
        assert mask_secrets(kept) == kept
