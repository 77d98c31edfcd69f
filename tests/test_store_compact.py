"""The lean read path (store/_compact.py) writes and reads exactly what the falkordb driver does."""

from __future__ import annotations

import re
from typing import Any

import pytest
from falkordb.graph import Graph

from graphrag_agents._keys import check_params
from graphrag_agents.errors import ToolError
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.retrieval._cypher import VectorParam
from graphrag_agents.store._compact import params_header, scalar_rows

PARAMS: dict[str, Any] = {
    "int": 1, "float": 2.5, "quoted": 'a "b" \\ c', "empty": "", "names": ["x", 'y"', ""], "none": None,
    "flag": True, "nested": [[1, 0.5, ["q"]], ["s", 2]], "map": {"k": "v", "n": [1]}, "pairs": ("t", "u"),
    "vector": VectorParam([0.1, 0.25]), "unicode": "é\nü", "nothing": [],
}


def test_the_header_is_the_drivers_byte_for_byte() -> None:
    driver = Graph.__new__(Graph)
    assert params_header(PARAMS) == Graph._build_params_header(driver, PARAMS)
    assert params_header(None) == ""
    with pytest.raises(ValueError, match="backtick"):
        params_header({"a`b": 1})


_QUERY = ("RETURN $int, $float, $quoted, $empty, $names, $none, $flag, $nested, $map.k, $pairs, $unicode, "
          "$nothing, 1 > 2, -7, 1.0 / 3")


async def test_rows_are_the_drivers_rows(kg: KnowledgeGraph) -> None:
    await kg.store.query("CREATE (:Probe {name: 'p', n: 3})")
    driver = kg.store._graph()  # the falkordb graph handle the store queries through
    for query in (_QUERY, "MATCH (p:Probe) RETURN p.name, p.n, [p.name, null]", "MATCH (p:Probe) RETURN p",
                  "MATCH (p:Probe) WHERE p.n > 5 RETURN p.name", "MATCH (p:Probe) RETURN {a: p.n}"):
        expected = list((await driver.ro_query(query, params=PARAMS)).result_set)
        assert await kg.store.ro_query(query, PARAMS) == expected, query
    rows = await kg.store.ro_query(_QUERY, PARAMS)
    assert rows[0][:8] == [1, 2.5, 'a "b" \\ c', "", ["x", 'y"', ""], None, True, [[1, 0.5, ["q"]], ["s", 2]]]
    node = (await kg.store.ro_query("MATCH (p:Probe) RETURN p"))[0][0]
    assert node.properties == {"name": "p", "n": 3}  # a node: parsed by the driver, as before


def test_a_reply_with_a_node_or_an_error_is_left_to_the_driver() -> None:
    header = [[1, "x"]]
    stats = ["Cached execution: 0"]
    assert scalar_rows([header, [[[2, "a"], [3, 4]]], stats]) == [["a", 4]]
    assert scalar_rows([header, [[[8, [1, [0], []]]]], stats]) is None
    assert scalar_rows([stats]) == []
    assert scalar_rows([header, [], ValueError("boom")]) is None


def test_parameter_checks_still_find_a_nul_or_a_lone_surrogate_in_a_list() -> None:
    check_params({"ids": ["a", "b", 1, 2.5, True], "seeds": [["c", 0.5, ["x", "y"]]]})  # nothing to refuse
    for bad, where in ((["a", "b\x00"], "ids[1]"), ([["c", 0.5, ["x", "\ud800"]]], "ids[0][2][1]"),
                       (["é", 3, "b\x00"], "ids[2]")):
        with pytest.raises(ToolError, match=re.escape(where)):
            check_params({"ids": bad})
