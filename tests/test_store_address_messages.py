"""A store address is shown as the user wrote it, and its fix names the setting that was actually used."""

from __future__ import annotations

from graphrag_agents.store.connection import remote_fix, resolve_address


def test_a_falkor_url_is_shown_as_written_and_the_fix_names_the_flag_used() -> None:
    given = resolve_address("falkor://127.0.0.1:1", env={})
    # Before: shown as redis://127.0.0.1:1, and the fix said to unset FALKOR_URL although --url was passed.
    assert given.describe() == "falkor://127.0.0.1:1"
    fix = remote_fix(given, ConnectionRefusedError("refused"))
    assert "drop --url (url=)" in fix and "FALKOR_URL" not in fix, fix
    from_env = resolve_address(None, env={"FALKOR_URL": "falkor://db:6379"})
    assert from_env.describe() == "falkor://db:6379" and "unset FALKOR_URL" in remote_fix(from_env, OSError("x"))
    from_host = resolve_address(None, env={"FALKOR_HOST": "db"})
    assert "unset FALKOR_HOST" in remote_fix(from_host, OSError("x"))
    assert resolve_address("falkor://:secret@db:6379", env={}).describe().count("secret") == 0
