"""Listings that repeat an earlier one's markup are read once (``parsers/msr.py``, ``_Papers``): on random
people pages, that gives the records and warnings of reading every listing in full, which a comment
inside each article forces (it makes every article's markup its own, and is no text of the card)."""

from __future__ import annotations

import re

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_msr import _page_of_groups

import pubharvest.parsers as parsers

pytestmark = pytest.mark.slow  # hundreds of random people pages
_TITLES = ("Deep Widgets", "Deep widgets", "Sparse Nets", "<b>Sparse</b> <i>Nets</i>", "<b>Sparse</b><i>Nets</i>")
_LINKS = ("/en-us/research/publication/deep-widgets/", "/en-us/research/publication/sparse-nets/",
          "https://example.org/elsewhere/", None)
_AUTHORS = ("Ada Example", "Ada Example, Ben Sample", "Ada Example, ...")
_DETAILS = ("SC | May 2024", "SC'24 | May 2024", "MSR-TR-2024-1 | June 2024", "2023", "Published by ACM", "Keynote")
_GROUPS = (("year", "2024"), ("year", "2023"), ("research_area", "Systems"), ("type", "Inproceedings"),
           ("type", "Techreport"), ("type", "Article"))

_cards = st.builds(
    lambda title, link, authors, details, indent: (
        (f'<h5><a href="{link}">{title}</a></h5>' if link else f"<h5>{title}</h5>")
        + f'{indent}<p class="content-excerpt__people">{authors}</p>'
        + "".join(f"{indent}<p>{detail}</p>" for detail in details)),
    st.sampled_from(_TITLES), st.sampled_from(_LINKS), st.sampled_from(_AUTHORS),
    st.lists(st.sampled_from(_DETAILS), max_size=2), st.sampled_from(("", "\n\t")))
_pages = st.lists(st.tuples(st.sampled_from(_GROUPS), st.lists(_cards, min_size=1,
                                                                max_size=6)), min_size=1, max_size=6)


def _each_article_its_own(page: str) -> str:
    numbers = iter(range(1_000_000))
    return re.sub(r"<article>", lambda _: f"<article><!-- {next(numbers)} -->", page)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_pages, st.data())
def test_repeats_read_once_give_what_every_listing_read_in_full_gives(groups, data):
    # Repeats are drawn from the cards drawn so far, so that most pages list a card several times.
    drawn = [card for _, cards in groups for card in cards]
    groups = [(facet, label, [data.draw(st.sampled_from(drawn)) if data.draw(st.booleans()) else card
                              for card in cards]) for (facet, label), cards in groups]
    page = _page_of_groups(*groups)
    once, in_full = parsers.parse(page), parsers.parse(_each_article_its_own(page))
    assert msgspec.to_builtins(once.publications) == msgspec.to_builtins(in_full.publications)
    assert [(w.code, w.message) for w in once.warnings] == [(w.code, w.message) for w in in_full.warnings]
