"""The English reader: how the package reads a sentence of English, shared by the check, the agent and the eval.

A floor of its own, below ``citations``, ``agent``, ``cli``, ``evaluation`` and ``retrieval``, which all read
answers, evidence and questions the same way:

* :mod:`.markers`: the ``[n]`` citation markers, code spans and fences;
* :mod:`.sentences`: splitting text into sentences and lines, with each sentence's markers;
* :mod:`.names`: the names a sentence writes (capitalised spans, with their words);
* :mod:`.words`: word folding (case, accents), stems and the claim text without Markdown;
* :mod:`.acronyms`: acronyms and the names they stand for;
* :mod:`.keyword_terms`: the keyword index's terms (Snowball stems, identifiers whole and by their parts);
* :mod:`.statements`: whether a query states a claim to check rather than asking or listing keywords;
* :mod:`.wordnet`: WordNet 3.0's opposites and adjective-to-noun readings, from the ``lexicon`` extra's files.

Every pattern here runs in linear time (``tests/test_regex_linear.py``). Nothing here reads the graph or a model.
"""
