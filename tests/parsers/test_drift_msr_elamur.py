"""Drift variants of every MSR and Elamur page: each class, id, key, heading, list-item
shape or link pattern the parsers rely on is renamed, one at a time, and each page is cut short and
enlarged; the MSR pages also get the generic HTML variants of ``tests/helpers/drift.py`` (addresses
removed, links made text, tags changed, class names upper-cased, each class dropped, years in
words), the Elamur pages their labels changed or in Spanish, their numbers in words, their front
matter removed, their link addresses changed. Every variant must give a ``ParseError``, a warning
the original has not, or the same records, never an unflagged record that differs from the
original's (``check_variant``, which counts each outcome for the session's closing line).

The pages: the real MSR publication page of the corpus (``PUBHARVEST_CORPUS``; research/elamur
holds notes only), and the fixture pages of both sites (the seeds among them).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest
from conftest import FIXTURES, ROOT
from drift import (
    ELAMUR_LABELS,
    Variant,
    check_variant,
    classes_of,
    comparable,
    elamur_reordered,
    elamur_translated,
    elamur_variants,
    html_variants,
    numbers_as_words,
    without_front_matter,
)

import pubharvest.parsers as parsers
from pubharvest.errors import ParseError
from pubharvest.parsers.elamur.kinds import ENGLISH_TITLES
from pubharvest.parsers.records import to_builtins

sys.path.insert(0, str(ROOT / "bench"))
from bench_size_msr_elamur import enlarged_elamur, enlarged_msr, one_line

MATTERGEN = "msr/publication_mattergen_990378_2026-08-26.excerpt.html"
MSR_HTML = ["msr/010_people_publications.html"]
MSR_TEXT = ["msr/001_0be51d225ce2b3fb.txt"]
MSR_JSON = ["msr/020_faceted_search.page.json"]
ELAMUR = ["elamur/000_e63c2e80f8ecde3e.txt", "elamur/000_multiline.md", "elamur/010_handwritten_quintero.txt"]

# (what is renamed, a regex, its replacement): each mark one parser step relies on.
Rename = tuple[str, str, str]
MSR_HTML_MARKS: list[Rename] = [
    ("group body id", r"collapse-group-", "collapse-grp-"),
    ("authors line class", r"content-excerpt__people", "content-excerpt__persons"),
    ("accordion class", r'class="accordion"', 'class="accordeon"'),
    ("group heading target", r"data-target=", "data-goal="),
    ("group heading tag", r"<(/?)h4\b", r"<\1h6"),
    ("listing title tag", r"<(/?)h5\b", r"<\1h6"),
    ("name heading tag", r"<(/?)h1\b", r"<\1div"),
    ("publication link pattern", r"/research/publication/", "/research/pub/"),
    ("venue | date separator", r" \| ", " · "),
    ("canonical link", r'rel="canonical"', 'rel="canon"'),
    ("citation block class", r"publication-citation", "publication-cite"),
    ("person itemtype", r"schema\.org/Person", "schema.org/Human"),
    ("name itemprop", r'itemprop="name"', 'itemprop="nom"'),
    ("url itemprop", r'itemprop="url"', 'itemprop="lien"'),
    ("time datetime", r"<time datetime=", "<time data-time="),
    ("abstract class", r'class="excerpt"', 'class="abstract"'),
    ("main class", r"single-publication", "single-pub"),
    ("button class", r'class="btn ', 'class="button '),
    ("PDF analytics attribute", r"data-bi-cN=", "data-bi-name="),
    ("bibtex block class", r"bibtex-link", "bibtex-lnk"),
    ("bibtex button class", r"type-bibtex", "type-bib"),
    ("research-area link pattern", r"/research-area/", "/area-of-research/"),
    ("citation_title meta", r'name="citation_title"', 'name="dc.title"'),
    ("citation_author meta", r'name="citation_author"', 'name="dc.creator"'),
    ("citation date meta", r'name="citation_publication_date"', 'name="dc.date"'),
    ("research-area meta", r'name="research-area"', 'name="research-field"'),
    ("MSR product meta", r'name="awa-product"', 'name="awa-prod"'),
    ("page type meta", r'name="awa-pageType"', 'name="awa-type"'),
]
MSR_JSON_MARKS: list[Rename] = [(key, f'"{key}"', f'"{key}_v2"') for key in (
    "posts", "data", "post_title", "permalink", "post_excerpt", "meta", "terms", "markup", "msr_published_date",
    "msr_conference_name", "msr_journal", "msr-publication-type", "msr-research-area")] + [
    ("authors line class", r"content-excerpt__people", "content-excerpt__persons")]
MSR_TEXT_MARKS: list[Rename] = [
    ("group marker lines", r"(?m)^-$", "–"),
    ("section headings", r"(?m)^Publications by ", "Publicaciones por "),
]
ELAMUR_MARKS: list[Rename] = [
    ("Papers heading", r"## Papers\b", "## Paper list"),
    ("All works heading", r"## All works\b", "## Every work"),
    ("paper link pattern", r"/papers/", "/paper/"),
    ("author link pattern", r"/authors/", "/people/"),
    ("numbered item shape", r"(?<!\S)(\d+)\. (?=\*\*\[|\[\*\*)", r"\1) "),
    ("bold title link", r"\*\*\[([^\]]*)\]\(([^)]*)\)\*\*", r"[\1](\2)"),
    ("link around bold", r"\[\*\*", "[__"),
    ("italic year span", r"\*\((\d{4} · [\d,]+ citations?)\)\*", r"(\1)"),
    ("italic year line", r"\*(\d{4} · [\d,]+ citations?)\*", r"\1"),
    ("external link marker", r" ↗\]", "]"),
    ("library count link", r"#papers\)", "#works)"),
    ("closing Updated line", r"Updated (\d)", r"Refreshed \1"),
    ("front matter canonical", r'canonical: "', 'canon: "'),
]


def records(result: parsers.PageResult) -> dict[str, Any]:
    got = to_builtins(result)
    got.pop("source")
    got.pop("warnings")
    return got


def renamed(text: str, marks: list[Rename]) -> Iterator[tuple[str, str]]:
    """Each variant of ``text`` with one mark renamed (marks the page does not hold are skipped)."""
    for what, pattern, replacement in marks:
        variant = re.sub(pattern, replacement, text)
        if variant != text:
            yield what, variant


def cuts(text: str) -> Iterator[tuple[str, str]]:
    for share in (0.2, 0.5, 0.8, 0.95):
        yield f"cut at {share:.0%}", text[: int(len(text) * share)]


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def check_all(text: str, marks: list[Rename], more: Iterable[Variant] = ()) -> list[str]:
    """The variants of ``text`` (each of ``marks`` renamed, cuts, and ``more``) that gave a silently wrong record."""
    original = parsers.parse(text)
    variants: list[Variant] = [(what, variant, None) for what, variant in [*renamed(text, marks), *cuts(text)]]
    silent = []
    for what, variant, restore in [*variants, *more]:
        try:
            check_variant(parsers.parse, original, variant, what, restore)
        except AssertionError as exc:
            silent.append(str(exc).splitlines()[0])
    return silent


def msr_variants(text: str) -> list[Variant]:
    """The generic HTML variants of an MSR page (each class it uses dropped in turn), and its years in words."""
    years = numbers_as_words(text, r">[^<]*?\b(?P<n>(?:19|20)\d\d)\b")
    return [*html_variants(text, classes_of(text), ()), *([("years in words", years, None)] if years != text else [])]


@pytest.mark.parametrize("name,marks", [(n, MSR_HTML_MARKS) for n in MSR_HTML] + [(n, MSR_JSON_MARKS) for n in MSR_JSON]
                         + [(n, MSR_TEXT_MARKS) for n in MSR_TEXT] + [(n, ELAMUR_MARKS) for n in ELAMUR])
def test_every_drift_variant_of_a_fixture_page_is_flagged(name: str, marks: list[Rename]) -> None:
    text = fixture_text(name)
    more = msr_variants(text) if name in MSR_HTML else elamur_variants(text) if name in ELAMUR else []
    assert check_all(text, marks, more) == []


def test_every_drift_variant_of_the_real_msr_page_is_flagged(read_corpus: Callable[[str], bytes]) -> None:
    text = read_corpus(MATTERGEN).decode("utf-8")
    assert check_all(text, MSR_HTML_MARKS, msr_variants(text)) == []


@pytest.mark.parametrize("name", ELAMUR)
def test_elamur_metrics_are_read_by_their_links_whatever_the_labels(name: str) -> None:
    """The head's figures, checked by hand against each page's head links (h-index, works, citations,
    works and citations in the library, rank), read the same with every label in Spanish."""
    text = fixture_text(name)
    for old, new in ELAMUR_LABELS:
        text = text.replace(old, new)
    metrics = parsers.parse(text).profile.metrics  # type: ignore[union-attr]
    expected = {"elamur/010_handwritten_quintero.txt": (96, 1318, 48207, 4, 12530, 112)}.get(
        name, (22, 72, 4916, 2, 2743, 3972))
    assert (metrics.h_index, metrics.works, metrics.citations, metrics.library_works, metrics.library_citations,
            metrics.rank) == expected


def test_elamur_title_without_an_affiliation_names_none_and_is_not_warned() -> None:
    page = fixture_text("elamur/000_multiline.md").replace("Olatunji Ruwase · Bellevue College —", "Olatunji Ruwase —")
    result = parsers.parse(page)
    assert result.profile is not None and result.profile.affiliation is None
    assert [w.code for w in result.warnings] == []


def test_elamur_page_without_front_matter_is_warned() -> None:
    result = parsers.parse(without_front_matter(fixture_text("elamur/000_multiline.md")))
    assert result.profile is not None and result.profile.affiliation is None
    (message,) = [w.message for w in result.warnings if w.code == "profile_unreadable"]
    assert "front matter" in message and "affiliation" in message


@pytest.mark.parametrize("name", ["elamur/000_multiline.md"])
def test_each_drift_variant_reads_the_same_with_or_without_newlines(name: str) -> None:
    """The one-line form of every Elamur variant gives what its multi-line form gives (the same
    warning codes: an unknown heading's end is unknown in the one-line form, so its message differs)."""
    text = fixture_text(name)
    for what, variant in [*renamed(text, ELAMUR_MARKS),
                          *((label, page) for label, page, _ in elamur_variants(text) if "section" in label
                            or "heading" in label)]:
        assert outcome(variant) == outcome(one_line(variant)), what


def outcome(page: str) -> Any:
    try:
        result = parsers.parse(page)
    except ParseError as exc:
        return exc.code
    return records(result), [w.code for w in result.warnings]


def test_enlarged_pages_read_every_added_paper_without_a_warning() -> None:
    elamur = fixture_text("elamur/000_multiline.md")
    for page in (enlarged_elamur(elamur, 4), one_line(enlarged_elamur(elamur, 4))):
        result = parsers.parse(page)
        assert (len(result.publications), result.warnings) == (3 + 2 * 4, [])
    people = fixture_text("msr/010_people_publications.html")
    original = parsers.parse(people)
    result = parsers.parse(enlarged_msr(people, 4))
    assert len(result.publications) == 4 * len(original.publications)
    assert {w.code for w in result.warnings} == {w.code for w in original.warnings}


# --- the invariants one at a time, on hand-made breakage -----------------------------------------

def test_msr_listing_without_a_title_is_numbered() -> None:
    page = fixture_text("msr/010_people_publications.html").replace("<h5>An Unlinked Workshop Note</h5>", "", 1)
    result = parsers.parse(page)
    (warning,) = [w for w in result.warnings if w.code == "listings_unreadable"]
    assert "listing 4 of 15" in warning.message


def test_msr_accordions_whose_listings_all_lack_authors_are_layout_changed() -> None:
    page = fixture_text("msr/010_people_publications.html").replace("content-excerpt__people", "people-line")
    with pytest.raises(parsers.LayoutChanged, match="content-excerpt__people"):
        parsers.parse(page)


def test_msr_paper_missing_from_the_type_grouping_is_warned() -> None:
    page = fixture_text("msr/010_people_publications.html")
    start = page.index('<div id="collapse-group-type_filter-publications-3-article"')
    cut = page[:start] + page[start:].replace("<article>", "<div>", 1).replace("</article>", "</div>", 1)
    result = parsers.parse(cut)
    assert [w.code for w in result.warnings if w.code == "groupings_disagree"] == ["groupings_disagree"]


def test_msr_people_page_without_a_name_is_warned() -> None:
    page = fixture_text("msr/010_people_publications.html").replace("<h1 class=\"h2\">Ada Example</h1>", "")
    assert "name_missing" in [w.code for w in parsers.parse(page).warnings]


def test_elamur_papers_item_without_its_link_is_numbered() -> None:
    page = fixture_text("elamur/000_multiline.md").replace(
        "2. **[ZeRO-Infinity: Breaking the GPU Memory Wall for Extreme Scale Deep Learning]"
        "(https://md.research.elamur.ai/free/en/papers/rajbhandari-2021-zero-infinity-breaking-gpu-memory/)**",
        "2. **ZeRO-Infinity: Breaking the GPU Memory Wall for Extreme Scale Deep Learning**")
    codes = [(w.code, w.message) for w in parsers.parse(page).warnings]
    assert ("listings_unreadable", "listing 2 of 2 in 'Papers' could not be read (no a bold "
            "'[title](…/papers/…)' link): skipped") in codes


def test_elamur_papers_list_with_no_readable_item_is_layout_changed() -> None:
    page = re.sub(r"\*\*\[([^\]]*)\]\(([^)]*)\)\*\*", r"**\1**", fixture_text("elamur/000_multiline.md"))
    page = page.replace("## All works", "## Every work")
    with pytest.raises(parsers.LayoutChanged, match="'Papers'"):
        parsers.parse(page)


# --- pages in other languages: the same records, checked by hand against the fixture pages -------

@pytest.mark.parametrize("language", ["es", "de"])
@pytest.mark.parametrize("name", ELAMUR)
def test_an_elamur_page_in_another_language_gives_the_same_records(name: str, language: str) -> None:
    text = fixture_text(name)
    translated = elamur_translated(text, language)
    assert not re.search(r"(?<!\S)## (?:" + "|".join(map(re.escape, ENGLISH_TITLES)) + r")(?![\w,])", translated)
    assert "works of theirs" not in translated and "cite their works" not in translated
    for page in (translated, elamur_reordered(translated)):
        result = parsers.parse(page)
        assert result.warnings == []
        assert comparable(result) == comparable(parsers.parse(text))


RUWASE = {
    "affiliations": [("Snowflake Inc.", 4, True), ("Bellevue College", 1, True),
                     ("Overlake Hospital Medical Center", 1, True), ("Microsoft", 25, False),
                     ("Carnegie Mellon University", 8, False)],
    "topics": [("Computer Science", "field", 2), ("Artificial Intelligence", "subfield", 2),
               ("Hardware and Architecture", "subfield", 2), ("Computer Vision and Pattern Recognition", "subfield", 1),
               ("Information Systems", "subfield", 1), ("GPU & parallel computing", "topic", 1)],
    "works_by_year": [(2021, 2)],
    "coauthors": 8,
    "venues": ["SC 2021"],
    "library": (3, 2743, 149439, 537),
    "publications": [("ZeRO-Offload: Democratizing Billion-Scale Model Training", 2021, 309, None),
                     ("ZeRO-Infinity: Breaking the GPU Memory Wall for Extreme Scale Deep Learning", 2021, 254,
                      "SC 2021"),
                     ("BLOOM: A 176B-Parameter Open-Access Multilingual Language Model", 2022, 1606, None)],
}
QUINTERO = {
    "affiliations": [("Tecnológico de Monterrey", 1204, True)],
    "topics": [("Computer Science", "field", 4), ("Artificial Intelligence", "subfield", 3),
               ("Natural language processing for low-resource languages", "topic", 3),
               ("Speech recognition", "topic", 1)],
    "works_by_year": [(2018, 1), (2021, 2), (2023, 1)],
    "coauthors": 0,
    "venues": ["Interspeech 2021", "LREC 2023"],
    "library": (4, 12530, 149439, 9871),
    "publications": [("Cross-lingual Transfer for Low-Resource Speech Recognition", 2021, 11902, "Interspeech 2021"),
                     ("Tokenisation Matters: Subwords for Agglutinative Languages", 2018, 1025, None),
                     ("A Benchmark for Quechua–Spanish Translation", 2023, 402, "LREC 2023"),
                     ("Speech Corpora for Indigenous Languages of the Americas", 2021, 88, None)],
}


@pytest.mark.parametrize("language", ["es", "de"])
@pytest.mark.parametrize("name", ELAMUR)
def test_an_elamur_page_in_another_language_reads_every_section(name: str, language: str) -> None:
    """Each section's values in Spanish and German, as read by hand from the fixture page."""
    expected = QUINTERO if "quintero" in name else RUWASE
    result = parsers.parse(elamur_translated(fixture_text(name), language))
    profile = result.profile
    assert profile is not None
    assert [(a.name, a.papers, a.current) for a in profile.affiliations] == expected["affiliations"]
    assert [(t.name, t.kind, t.count) for t in profile.topics] == expected["topics"]
    assert [(y.year, y.works) for y in profile.works_by_year] == expected["works_by_year"]
    assert len(profile.coauthors) == expected["coauthors"]
    assert profile.venues == expected["venues"]
    metrics = profile.metrics
    assert (metrics.library_works_all, metrics.library_citations, metrics.library_papers_read,
            metrics.library_citing_papers) == expected["library"]
    assert [(p.title, p.year, p.citations, p.venue) for p in result.publications] == expected["publications"]


def test_an_unreadable_lead_count_is_warned_not_null_silently() -> None:
    text = fixture_text("elamur/000_multiline.md")
    for old, new, code in [("3 works of theirs", "three works of theirs", "profile_unreadable"),
                           ("cite their works 2,743 times", "cite their works many times", "number_unreadable"),
                           ("[537 citing", "[some citing", "number_unreadable"),
                           ("8 co-authors with a page", "eight co-authors with a page", "number_unreadable"),
                           ("📚 Shelves 5", "📚 Shelves five", "number_unreadable"),
                           ("[**2021** 2 papers]", "[**2021** two papers]", "number_unreadable"),
                           ("Computer Science · 2 works", "Computer Science · two works", "number_unreadable")]:
        assert old in text, old
        assert code in [w.code for w in parsers.parse(text.replace(old, new)).warnings], old
