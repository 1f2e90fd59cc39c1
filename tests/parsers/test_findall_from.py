"""``text.findall_from`` jumps between occurrences of a literal with ``str.find``; it must find what
``re.findall`` finds, for the patterns the Scholar checks scan whole pages with, over any text."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from pubharvest.parsers.scholar._base import _USER_LINK
from pubharvest.parsers.scholar.profile import _PROFILE_LINK
from pubharvest.parsers.text import findall_from

PIECES = st.sampled_from(["citations?", "user=", "citations?user=", "&amp;", "&", "hl=en", "x-Y_1", "é", "山",
                          " ", '"', "<a href=", "=", "?"])


@given(st.lists(PIECES, max_size=30).map("".join))
@example('<a href="/citations?hl=en&amp;user=AB-c_1">')
@example("citations?citations?user=x")
def test_findall_from_finds_what_findall_finds(text: str) -> None:
    for pattern, literal in ((_PROFILE_LINK, "citations?user="), (_USER_LINK, "citations?"),
                             (re.compile(r"citations\?"), "citations?")):
        assert findall_from(pattern, literal, text) == pattern.findall(text)
