"""The coverage rule (``agent.fit.coverage``): a single-path answer's cited evidence, with the items linked to it,
names everything the question names. The questions and passages are written for these tests; the rule's case is a
HotpotQA-mix draft named in the module."""

from __future__ import annotations

from graphrag_agents.agent import ShownItem, answer_fit
from graphrag_agents.agent.fit.coverage import heading_name_link, question_spans
from graphrag_agents.agent.fit.names import words

QUESTION = "Which river flows past Port Halden, the town where Edda Morvane was born?"
RIVER = ShownItem(1, "Sull (river)", "The Sull is a river of the north; it flows past Port Halden and Lindby.")
BIRTH = ShownItem(2, "Edda Morvane", "Edda Morvane (1931-2004) was a painter, born in Port Halden.")
OTHER = ShownItem(3, "Lindby", "Lindby is a village on the Sull with a Norman church.")


def rules(question: str, answer: str, cited: list[int], shown: list[ShownItem]) -> list[str]:
    return [p.rule for p in answer_fit(question, answer, cited, shown)]


def test_a_name_that_no_cited_item_holds_is_a_gap_though_another_name_is_held() -> None:
    # the anchor rule passes it (the cited passage names Port Halden); nothing shown names Edda Morvane
    found = answer_fit(QUESTION, "Sull", [1], [RIVER, OTHER])
    assert [p.rule for p in found] == ["coverage"]
    assert "'Edda Morvane'" in found[0].detail


def test_a_name_held_by_a_shown_item_linked_to_the_cited_one_is_covered() -> None:
    # the bridge passage is read, not cited; it names the cited passage's heading term only through the town, so it
    # is linked when the cited passage is titled by the town
    town = ShownItem(4, "Port Halden", "Port Halden is a market town on the river Sull.")
    assert rules(QUESTION, "Sull", [4], [town, BIRTH]) == []
    # an item that holds the name but shares nothing with the cited one does not cover it
    assert rules(QUESTION, "Sull", [1], [RIVER, BIRTH]) == ["coverage"]


def test_a_manual_page_named_by_its_file_names_the_command() -> None:
    question = "Our build runs `tool sync-all`. What does it do with a stale cache folder?"
    page = ShownItem(1, "commands/tool-sync-all.md › Description", "Runs a sync of every `cache_dir` entry.")
    cited = ShownItem(2, "commands/tool-sync.md › Description", "A stale `cache_dir` is removed before the sync.")
    assert rules(question, "removed", [2], [cited, page]) == []  # linked by the identifier cache_dir
    assert rules(question, "removed", [2], [cited]) == ["coverage"]


def test_a_capitalised_word_that_only_opens_a_sentence_is_not_a_name() -> None:
    assert question_spans("The docs mention a flag. According to them, what does `--force` skip?") == ["--force"]
    assert "Port Halden" in question_spans(QUESTION)


def test_a_nationality_adjective_is_not_looked_for() -> None:
    question = "Which Danish painter was born in Port Halden?"
    cited = ShownItem(1, "Edda Morvane", "Edda Morvane was a painter, born in Port Halden.")
    assert rules(question, "Edda Morvane", [1], [cited]) == []


def test_comparisons_and_yes_no_answers_are_left_to_their_own_rules() -> None:
    question = "Who was born first, Edda Morvane or Piet Lund?"
    assert "coverage" not in rules(question, "Edda Morvane", [2], [BIRTH])
    assert "coverage" not in rules("Was Edda Morvane born in Lindby?", "no", [2], [BIRTH])


def test_a_heading_that_ends_in_an_abbreviation_links_without_it() -> None:
    # the HotpotQA sample's second question has this shape: the player's passage names "Tottenham Hotspur", the
    # cited club passage is titled "Tottenham Hotspur F.C."
    question = "What is the football club Harbour Rovers that Edda Morvane played for called?"
    club = ShownItem(1, "Harbour Rovers F.C.", "Harbour Rovers Football Club, known as the Gulls, plays by the sea.")
    player = ShownItem(2, "Edda Morvane", "Edda Morvane played for Harbour Rovers and Lindby Town.")
    assert rules(question, "the Gulls", [1], [club, player]) == []
    assert rules(question, "the Gulls", [1], [club]) == ["coverage"]


def test_sections_of_one_document_are_linked() -> None:
    # the model cited another section of the page that writes the command (as on npm's docs, `techdocs_a` row s31)
    question = "What does `tool init @team` turn into under the hood?"
    table = ShownItem(1, "commands/tool-init.md › Description", "`tool init @team` -> `tool exec @team/create`")
    option = ShownItem(2, "commands/tool-init.md › Configuration › `init-module`", "A module loaded by tool init.")
    other = ShownItem(3, "commands/tool-exec.md › Configuration › `init-module`", "A module loaded by tool exec.")
    assert rules(question, "tool exec @team/create", [2], [table, option]) == []
    assert rules(question, "tool exec @team/create", [3], [table, other]) == ["coverage"]


def test_a_code_span_naming_the_askers_own_project_is_not_looked_for() -> None:
    question = "If my config has no `entry` key, which file does `load('my-app')` read first?"
    cited = ShownItem(1, "config.md › entry", "Without an `entry` key, the loader reads `start.js` first.")
    assert question_spans(question) == ["entry"]
    assert rules(question, "start.js", [1], [cited]) == []
    # a code span with another name still is, and "my" must stand as a word of its own
    assert question_spans("What does `enemy-cache` or `myapp` store?") == ["enemy-cache", "myapp"]
    assert rules("What does `load('app-x')` read first?", "start.js", [1], [cited]) == ["coverage"]


# a bridge named inside the cited item's heading: the item the question's name stands in names it too
BRIDGE_QUESTION = "Which regiment held the fort in the birthplace of the weaver Ora Lindqvist?"
WEAVER = ShownItem(5, "Ora Lindqvist", "Ora Lindqvist (1901-1977) was a weaver born in Kessby, a harbour town.")
SIEGE = ShownItem(6, "Siege of Kessby and Varn", "In 1710 the Marsh Regiment held the fort against the fleet.")


def test_a_name_inside_the_cited_items_heading_links_the_item_that_writes_it() -> None:
    assert answer_fit(BRIDGE_QUESTION, "Marsh Regiment", [6], [WEAVER, SIEGE]) == []
    # the same items without the bridge: the weaver's passage names another town
    elsewhere = ShownItem(5, "Ora Lindqvist", "Ora Lindqvist (1901-1977) was a weaver born in Orrvik.")
    found = answer_fit(BRIDGE_QUESTION, "Marsh Regiment", [6], [elsewhere, SIEGE])
    assert [p.rule for p in found] == ["anchor"] and "'Ora Lindqvist'" in found[0].detail


def test_a_heading_name_the_question_writes_or_a_lowercase_word_is_no_bridge() -> None:
    # "Kessby" written by the question: the rule asks where the question's names stand, so it links nothing
    asked = "Which regiment held the fort at Kessby, where the weaver Ora Lindqvist was born?"
    apart = ShownItem(6, "Siege of Kessby and Varn", "In 1710 the Marsh Regiment held the fort against the fleet.")
    weaver = ShownItem(5, "Ora Lindqvist", "Ora Lindqvist (1901-1977) was a weaver born in Kessby.")
    assert heading_name_link(weaver, apart, words(asked)) is None
    # a heading's opening words are not a name inside it, and the other item must write the name capitalised
    assert heading_name_link(ShownItem(7, "Harbour towns", "Harbour towns of the coast."), WEAVER,
                             words(BRIDGE_QUESTION)) is None
    lowercase = ShownItem(8, "Ora Lindqvist", "Ora Lindqvist wove a kessby pattern.")
    assert heading_name_link(lowercase, SIEGE, words(BRIDGE_QUESTION)) is None
