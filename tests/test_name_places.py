"""Names in a document's structure (headings, table rows, field values) and names its code writes: each case is a
real span of the shared ``techdocs_a`` corpus (npm 11.19.1's docs) or of the Node.js docs, named in its test."""

from __future__ import annotations

import pytest

from graphrag_agents.ingest.extract_ner import NerExtractor, spacy_available, states_something
from graphrag_agents.ingest.name_places import code_words, in_structure, structure_spans
from graphrag_agents.ingest.ontology_store import DEFAULT_ONTOLOGY

# techdocs_a, "commands/npm-stage.md › Token Behavior" (a table after a paragraph)
STAGE = ("The key difference with staged publishing is that `npm stage publish` never\nrequires a 2FA prompt, "
         "regardless of token type.\n\n| Token Type | `npm stage publish` | `npm publish` |\n| --- | --- | --- |\n"
         "| GAT with bypass | Can stage | Can publish (if allowed by package publishing access) |\n"
         "| GAT without bypass | Can stage | 2FA prompt (if allowed by package publishing access) |\n")
# techdocs_a, "commands/npm-init.md › Examples" (its first lines)
INIT = ("Create a new React-based project using [`create-react-app`](https://npm.im/create-react-app):\n\n"
        "```bash\n$ npm init react-app ./my-react-app\n```\n")
# Node.js docs, api/esm.md: a heading, a setext-free table of import attributes
ESM = ("## Import attributes\n\n| Attribute `type` | Needed for       |\n| ---------------- | ---------------- |\n"
       "| `'json'`         | [JSON modules][] |\n")


def test_headings_and_table_rows_are_structure() -> None:
    """api/esm.md: the heading line and every row of the table are structure; nothing else is."""
    spans = structure_spans(ESM)
    lines = ESM.split("\n")
    assert [ESM[a:b] for a, b in spans] == [lines[0], lines[2], lines[3], lines[4]]
    gat = STAGE.index("GAT with")
    assert in_structure(structure_spans(STAGE), gat, gat + 3)
    assert not in_structure(structure_spans(STAGE), 4, 7)  # "key" in the paragraph before the table


def test_a_short_field_value_is_structure_and_a_sentence_is_not() -> None:
    """techdocs_a, "commands/npm-diff.md › Configuration › `diff-unified`": ``* Type: Number`` is a field
    and the paragraph after it prose; a list item whose value is a sentence stays prose."""
    text = "* Default: 3\n* Type: Number\n\nThe number of lines of context to print in `npm diff`."
    assert [text[a:b] for a, b in structure_spans(text)] == ["* Default: 3", "* Type: Number"]
    assert not structure_spans("* Note: npm installs the peer dependencies of a package.\n")


def test_code_words_are_what_the_mask_blanked() -> None:
    """commands/npm-init.md › Examples: the link target and the fence give ``react`` as a word of code."""
    from graphrag_agents.ingest.code_spans import mask_chunks

    (masked,) = mask_chunks([INIT])
    words = code_words(INIT, masked)
    assert "react" in words and "new" not in words  # "Create a new" is prose


def test_a_sentence_states_something_a_list_of_names_does_not() -> None:
    """A fact is a sentence with a predicate: techdocs_a's "commands/npm-diff.md › Configuration ›
    `diff-unified`" field line ``Type: Number`` (masked) holds no lower-case word; its sentence holds "print"."""
    assert not states_something("  Type: Number")
    assert states_something("The number of lines of context to print in            .")


@pytest.mark.skipif(not spacy_available(), reason="needs the ner extra")
async def test_the_ner_extractor_reads_structure_and_code() -> None:
    """No name from the table of commands/npm-stage.md (spaCy tags ``GAT`` an Organization there), and
    ``React``, which spaCy types a Location in commands/npm-init.md, is Unknown: the page writes it in code."""
    (stage, init) = await NerExtractor().extract([[STAGE], [INIT]], DEFAULT_ONTOLOGY)
    assert not isinstance(stage, Exception) and not isinstance(init, Exception)
    assert "GAT" not in {e.name for e in stage.entities}, stage.entities
    assert {(e.name, e.type) for e in init.entities if e.name == "React"} <= {("React", "Unknown")}
    (old_stage, old_init) = await NerExtractor(skip_code=False).extract([[STAGE], [INIT]], DEFAULT_ONTOLOGY)
    assert not isinstance(old_stage, Exception) and not isinstance(old_init, Exception)
    assert "GAT" in {e.name for e in old_stage.entities}  # what the reading removes


def test_a_field_value_running_on_to_the_next_line_is_structure() -> None:
    """techdocs_a, "commands/npm-config.md › Configuration › `editor`" (row techdocs_a-7ea00fda3dd8): the
    ``Default`` field's value runs over two lines and ends no sentence, so ``EDITOR`` and ``VISUAL`` stand in a
    field, not in prose; the paragraph after the fields stays prose."""
    text = ("* Default: The EDITOR or VISUAL environment variables, or\n  '%SYSTEMROOT%\\notepad.exe' on Windows, or "
            "'vi' on Unix systems\n* Type: String\n\nThe command to run for `npm edit` and `npm config edit`.")
    spans = structure_spans(text)
    assert [text[a:b] for a, b in spans] == [text[:text.index("\n* Type")], "* Type: String"]
    assert in_structure(spans, text.index("EDITOR"), text.index("EDITOR") + 6)
    assert not in_structure(spans, text.index("The command"), text.index("The command") + 3)


def test_a_list_or_an_options_fields_is_no_sentence() -> None:
    """What a co-mention fact must be: configuring-npm/install.md (techdocs_a-f88ed6b22c63) lists two installers as
    two items the splitter keeps together, and the `editor` option (techdocs_a-7ea00fda3dd8) gives its Default and
    Type fields as one; the same page's "If you use Linux, ..." is a sentence."""
    from graphrag_agents.ingest.fact_sentences import reads_as_sentence

    assert not reads_as_sentence("* [Node.js installer](https://nodejs.org/en/download/)\n"
                                 "* [NodeSource installer](https://github.com/nodesource/distributions).")
    assert not reads_as_sentence("* Default: The EDITOR or VISUAL environment variables, or\n  "
                                 "'%SYSTEMROOT%\\notepad.exe' on Windows, or 'vi' on Unix systems\n* Type: String")
    assert reads_as_sentence("If you use Linux, we recommend that you use a NodeSource installer.")


def test_a_stored_list_fact_with_its_spacing_collapsed_is_no_sentence() -> None:
    """Facts are stored with their spacing collapsed, so a graph built before the list rule holds techdocs_a's
    `editor` fields (techdocs_a-7ea00fda3dd8) as one line: ``* Default: ... * Type: String``; retrieve's
    evidence reads it as a list too. A sentence holding a dash (configuring-npm/install.md) is not one."""
    from graphrag_agents.ingest.fact_sentences import reads_as_sentence

    assert not reads_as_sentence("* Default: The EDITOR or VISUAL environment variables, or "
                                 "'%SYSTEMROOT%\\notepad.exe' on Windows, or 'vi' on Unix systems * Type: String")
    assert reads_as_sentence("Also, in some cases – especially on Windows – you may have Git set up in such a way "
                             "that it's not accessible via your `PATH` so that npm can find it.")


def test_a_one_line_field_value_ending_no_sentence_is_structure() -> None:
    """techdocs_a, "commands/npm-help.md › Configuration › `viewer`" (techdocs_a-f5e2ca028a54): ``* Default: "man"
    on Posix, "browser" on Windows`` is a field's value, six words, no sentence; "Posix" there is no place."""
    text = '* Default: "man" on Posix, "browser" on Windows\n* Type: String\n\nThe program to use to view help content.'
    assert [text[a:b] for a, b in structure_spans(text)] == [text.split("\n")[0], "* Type: String"]


def test_a_piece_of_a_word_and_a_link_to_a_section_are_no_names() -> None:
    """The Node.js docs: api/crypto.md's "Returns the Diffie-Hellman generator" (spaCy names "Diffie"), api/esm.md's
    ``**ESM\\_FILE\\_FORMAT**`` (spaCy names "FORMAT"), and api/diagnostics_channel.md's reference link
    ``[TracingChannel Channels][]`` defined as ``#tracingchannel-channels``, a link to its own section; techdocs_a's
    using-npm/registry.md › Description (techdocs_a-3cb41a08a4ee) links "Auth Related Configuration" to
    ``/configuring-npm/npmrc#auth-related-configuration``. "Paris" of "a Paris-based" is a name."""
    from graphrag_agents.ingest.name_places import glued, section_links

    crypto = "Returns the Diffie-Hellman generator in the specified `encoding`."
    esm = "module format of a resolved URL is\nprovided by **ESM\\_FILE\\_FORMAT**, which returns the unique module"
    assert glued(crypto, crypto.index("Diffie"), crypto.index("Diffie") + 6)
    assert not glued(crypto, crypto.index("Diffie"), crypto.index("Diffie") + 14)
    assert glued(esm, esm.index("FORMAT"), esm.index("FORMAT") + 6)
    assert not glued("a Paris-based firm", 2, 7)
    channels = ("object containing all the [TracingChannel Channels][]\n\n"
                "[TracingChannel Channels]: #tracingchannel-channels\n[`TracingChannel`]: #class-tracingchannel\n")
    registry = "See [Auth Related Configuration](/configuring-npm/npmrc#auth-related-configuration)"
    assert section_links(channels) == {"tracingchannel channels"}  # the class links to "Class: TracingChannel"
    assert section_links(registry) == {"auth related configuration"}
    assert not section_links("[Node.js installer](https://nodejs.org/en/download/)")


def test_a_link_to_a_page_of_the_same_docs_names_a_heading() -> None:
    """The Node.js docs' api/n-api.md:18 points at "the section titled [C++ Addons][]", defined at :6678 as
    ``addons.md`` (spaCy names "C++ Addons" a work); an external link's text ("AppVeyor", :6677) is a name."""
    from graphrag_agents.ingest.name_places import section_links

    text = ("titled [C++ Addons][]. The only difference is the set of APIs that are used by\n\n"
            "[AppVeyor]: https://www.appveyor.com\n[C++ Addons]: addons.md\n")
    assert section_links(text) == {"c++ addons"}
    assert not section_links("[Xcode]: https://developer.apple.com/xcode/\n[LLVM]: https://llvm.org\n")


N_API_LINKS = ("titled [C++ Addons][]. The only difference is the set of APIs that are used by\n"  # n-api.md:18
               "the native code. Instead of using the V8 or [Native Abstractions for Node.js][]\n"  # :19
               "APIs, the functions available in Node-API are used.\n\n"  # :20
               "[C++ Addons]: addons.md\n[Native Abstractions for Node.js]: https://github.com/nodejs/nan\n")


def test_a_name_cut_inside_a_link_is_the_links_whole_text() -> None:
    """The Node.js docs' api/n-api.md:19 links "[Native Abstractions for Node.js][]", which spaCy cuts at "for"; a
    link whose text is no name ("[the docs for npm]") or is the span itself gives nothing."""
    from graphrag_agents.ingest.name_places import link_text_around

    at = N_API_LINKS.index("Native")
    assert link_text_around(N_API_LINKS, at, at + len("Native Abstractions")) == "Native Abstractions for Node.js"
    assert link_text_around(N_API_LINKS, at, at + len("Native Abstractions for Node.js")) is None
    assert link_text_around("see [the docs for npm](x)", 17, 20) is None


@pytest.mark.skipif(not spacy_available(), reason="needs the ner extra")
async def test_the_extractor_names_the_whole_link_and_no_page_title() -> None:
    (got,) = await NerExtractor().extract([[N_API_LINKS]], DEFAULT_ONTOLOGY)
    assert not isinstance(got, Exception)
    names = {e.name for e in got.entities}
    assert "Native Abstractions for Node.js" in names and "Native Abstractions" not in names
    assert "C++ Addons" not in names  # a page title (n-api.md:6678 links it to addons.md)


@pytest.mark.skipif(not spacy_available(), reason="needs the ner extra")
async def test_a_line_of_its_own_is_not_joined_to_the_name_below_it() -> None:
    """Debian's /usr/share/doc/libnghttp2-14/AUTHORS lists one author a line, "Don" above "Dylan Plecki"
    (lines 48-49), and /usr/share/doc/libgnutls30/copyright "Milo Casagrande" above "Mingye Wang (Arthur2e5)"
    (lines 230-231): spaCy joins each pair into one name across the line break. The name below stands alone; a
    name wrapped inside a line of prose (the Node.js docs' api/n-api.md:11-12) stays whole."""
    authors = "Don\nDylan Plecki\n"
    translators = "Milo Casagrande\nMingye Wang (Arthur2e5)\n"
    wrapped = ("maintained as part of Node.js itself. This API will be Application Binary\n"
               "Interface (ABI) stable across versions of Node.js.")
    got = await NerExtractor().extract([[authors], [translators], [wrapped]], DEFAULT_ONTOLOGY)
    names = [{e.name for e in g.entities} for g in got if not isinstance(g, Exception)]
    assert all("\n" not in n and not n.startswith(("Don ", "Milo Casagrande ")) for n in set().union(*names))
    assert "Application Binary Interface" in names[2]
