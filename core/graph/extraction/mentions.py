"""Where each kept entity is mentioned: its names looked up in every sentence by word n-grams."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.graph.extraction.drafts import EntityDraft, Sentence
from core.text import normalize_name, strip_josa, words

MAX_LOOKUP_WORDS = 8


_CLAUSE_BREAK = re.compile(r"[,;:!?()\[\]{}<>|\"“”]+")


class MentionMatcher:
    """Finds known entity names in sentences by word n-grams of normalised keys.

    A name written with a leading capital (``Markdown``, ``HDMI``) only matches text that also starts with a
    capital, so the common noun "markdown" does not mention the product Markdown.
    """

    def __init__(self, drafts: dict[str, EntityDraft]) -> None:
        self.keys: set[str] = set()
        self.first: dict[str, int] = {}  # first-word key -> longest name length in words
        self.needs_capital: set[str] = set()
        for key, draft in drafts.items():
            for name in draft.names:
                if _CLAUSE_BREAK.search(name):
                    continue  # never matched inside one clause: found by its extracted occurrences instead
                toks = words(name)
                if not toks or len(toks) > MAX_LOOKUP_WORDS:
                    continue
                first = normalize_name(toks[0])
                if not first or "".join(normalize_name(t) for t in toks) != key:
                    continue
                self.keys.add(key)
                self.first[first] = max(self.first.get(first, 0), len(toks))
            names = list(draft.names)
            if names and all(n[:1].isascii() and n[:1].isupper() for n in names):
                self.needs_capital.add(key)

    def find(self, text: str) -> list[str]:
        """Keys of the names in ``text``, longest match first: "Nova 32UX" hides "Nova" and "32UX" inside it.

        A name never spans a clause break (``NEW: Snippets`` does not mention "New Snippets").
        """
        found: list[str] = []
        for clause in _CLAUSE_BREAK.split(text):
            for key in self._find(clause):
                if key not in found:
                    found.append(key)
        return found

    def _find(self, text: str) -> list[str]:
        toks = words(text)
        keys = [normalize_name(t) for t in toks]
        stripped = [normalize_name(strip_josa(t)) for t in toks]
        found: list[str] = []
        i = 0
        while i < len(toks):
            longest = max(self.first.get(keys[i], 0), self.first.get(stripped[i], 0))
            best: tuple[int, str] | None = None
            acc = ""
            for n in range(1, min(longest, len(toks) - i) + 1):
                last = i + n - 1
                for candidate in (acc + keys[last], acc + stripped[last]):
                    if candidate in self.keys:
                        if candidate in self.needs_capital and not toks[i][:1].isupper():
                            continue
                        best = (n, candidate)
                acc += keys[last]
            if best is None:
                i += 1
                continue
            if best[1] not in found:
                found.append(best[1])
            i += best[0]
        return found


def find_mentions(
    sentences: Sequence[Sentence], drafts: dict[str, EntityDraft], occurrences: set[tuple[str, int]] | None = None
) -> dict[str, list[int]]:
    """Sentence indices mentioning each kept entity: name look-ups (longest match), plus the extracted
    occurrences of names the look-up cannot match (over-long names, Korean runs cut inside a word)."""
    matcher = MentionMatcher(drafts)
    found: dict[str, set[int]] = {key: set() for key in drafts}
    for key, index in occurrences or ():
        if key in found and key not in matcher.keys:
            found[key].add(index)
    for s in sentences:
        for key in matcher.find(s.text):
            found[key].add(s.index)
    return {key: sorted(indices) for key, indices in found.items()}
