"""Layout drift: every real Scholar page of the corpus and every Scholar fixture page, with each
class and id the parser relies on renamed in turn (the names are read from the parser's source, so
a new selector is covered without editing this file), emptied, cut and enlarged; and with the
generic variants of ``tests/helpers/drift.py`` (Scholar's query parameters renamed in its links,
addresses removed, links made text, tags changed, class names upper-cased, each class dropped from
the elements that carry it, the authors and venue lines swapped, counts and years written as
words). Each variant must give a ``ParseError``, a warning the original lacks, or the same records.
Every variant of every page is tried (no sampling); the session's closing line counts them.
MSR and Elamur cases live in their own file and use the same harness.
"""

from __future__ import annotations

import doctest
from collections.abc import Callable
from pathlib import Path

import drift
import pytest
from conftest import FIXTURES, ROOT, corpus_dir, from_corpus
from drift import (
    Variant,
    check_variant,
    class_text,
    emptied,
    html_variants,
    nested,
    numbers_as_words,
    rename_token,
    repeated,
    swapped_neighbours,
    tokens_in_source,
    truncations,
    variant_outcome,
)

import pubharvest.parsers as parsers

SCHOLAR_SOURCE = "\n".join(path.read_text(encoding="utf-8")
                           for path in sorted((ROOT / "parsers" / "scholar").glob("*.py")))
# Scholar's ids and classes all start gsc_ / gs_ (ids like gsc_prf_pup-img carry a hyphen); the
# pre-2014 layout's start cit-.
SCHOLAR_TOKENS = tokens_in_source(SCHOLAR_SOURCE, r"gsc?_[\w-]*[A-Za-z0-9]|cit-[a-z][\w-]*[A-Za-z0-9]")


def scholar_pages() -> list[Path]:
    """The Scholar pages that parse today: the corpus's (when ``PUBHARVEST_CORPUS`` is set) and the fixtures'."""
    corpus = corpus_dir()
    found = sorted((corpus / "scholar").glob("*.htm*")) if corpus else []
    found += sorted((FIXTURES / "scholar").glob("*.html"))
    return [page for page in found if _parses(page)]


def _parses(page: Path) -> bool:
    try:
        parsers.parse(page.read_bytes())
    except parsers.ParseError:
        return False
    return True


PAGES = [page if page.is_relative_to(FIXTURES) else from_corpus(page) for page in scholar_pages()]


def test_the_token_list_covers_the_parsers_selectors() -> None:
    for token in ("gsc_a_tr", "gsc_a_b", "gsc_a_at", "gsc_a_ac", "gsc_a_h", "gs_gray", "gsc_rsb_st", "gsc_g_a",
                  "gsc_g_t", "gsc_a_nn", "gsc_rsb_co", "gsc_prf_pup-img", "gs_oph"):
        assert token in SCHOLAR_TOKENS
    assert len(PAGES) >= 3


def page_text(data: bytes) -> tuple[str, Callable[[bytes], parsers.PageResult]]:
    """The page as text, and a parse that gives a variant back its page's own encoding (the 2020
    crayfish page is ISO-8859-1, as it declares): variants are handed over as UTF-8."""
    try:
        return data.decode("utf-8"), parsers.parse
    except UnicodeDecodeError:
        return data.decode("iso-8859-1"), lambda variant: parsers.parse(variant.decode("utf-8").encode("iso-8859-1"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name[:40])
def test_every_renamed_selector_is_flagged(page: Path) -> None:
    data = page.read_bytes()
    original, (text, parse) = parsers.parse(data), page_text(data)
    outcomes, silent = {}, []
    for token in SCHOLAR_TOKENS:
        if rename_token(text, token) != text:
            try:
                outcomes[token] = check_variant(parse, original, rename_token(text, token), token)
            except AssertionError as exc:
                silent.append(str(exc).splitlines()[0])
    assert outcomes and not silent


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name[:40])
def test_cut_enlarged_and_emptied_pages_are_flagged(page: Path) -> None:
    data = page.read_bytes()
    original, (text, parse) = parsers.parse(data), page_text(data)
    for label, variant in truncations(text):
        check_variant(parse, original, variant, f"{page.name}: {label}")
    if '<tr class="gsc_a_tr"' in text:
        end = "</tbody>" if "</tbody>" in text[text.index('<tr class="gsc_a_tr"'):] else "\x00"
        enlarged = repeated(text + "\x00", '<tr class="gsc_a_tr"', end)[:-1] if end == "\x00" else \
            repeated(text, '<tr class="gsc_a_tr"', end)
        assert check_variant(parsers.parse, original, enlarged, f"{page.name}: rows repeated") != "same"
    if 'id="gsc_a_b">' in text and original.publications:
        assert check_variant(parsers.parse, original, emptied(text, 'id="gsc_a_b">', "</tbody>"),
                             f"{page.name}: #gsc_a_b emptied") != "same"


@pytest.mark.parametrize("depth", [300, 3000])
def test_deep_nesting_parses_fully_or_is_truncated(read_corpus, depth: int) -> None:
    text = read_corpus("scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html").decode("utf-8")
    row = text.index('<tr class="gsc_a_tr"')
    for variant in (nested(text, '<table id="gsc_a_t"', "</table>", depth),
                    text[:row] + "<div>" * depth + text[row:]):
        try:
            result = parsers.parse(variant.encode("utf-8"))
        except parsers.Truncated:
            continue
        assert len(result.publications) == 20


# The query parameters Scholar's links carry ids and counts in.
SCHOLAR_PARAMETERS = ("user", "cites", "citation_for_view", "cluster", "org")
# The classes of the elements whose whole text is a count or a year.
NUMBER_CLASSES = ("gsc_a_ac", "gsc_a_h", "gsc_rsb_std", "gsc_g_al", "gsc_g_t", "gsc_oci_g_al", "gsc_oci_g_t",
                  "gs_ai_cby", "gsc_rsb_m_a")


def scholar_variants(text: str) -> list[Variant]:
    """Every generic variant of a Scholar page, and Scholar's own: the grey lines swapped, numbers in words."""
    found = list(html_variants(text, SCHOLAR_TOKENS, SCHOLAR_PARAMETERS))
    found.append(("authors and venue lines swapped", swapped_neighbours(text, '<div class="gs_gray">'), None))
    found += [(f"{name} in words", numbers_as_words(text, class_text(name)), None) for name in NUMBER_CLASSES]
    return [(label, variant, restore) for label, variant, restore in found if variant != text]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name[:40])
def test_every_generic_variant_is_met_honestly(page: Path) -> None:
    data = page.read_bytes()
    original, (text, parse) = parsers.parse(data), page_text(data)
    silent = []
    for label, variant, restore in scholar_variants(text):
        try:
            check_variant(parse, original, variant, label, restore)
        except AssertionError as exc:
            silent.append(str(exc).splitlines()[0])
    assert not silent


def test_the_drift_cases_once_silent_are_met(read_corpus) -> None:
    """Drift that once gave wrong data silently, each with its outcome now: a refusal, a warning, or the
    record swapped back."""
    einstein = read_corpus("scholar/fragment_rows_qc6CJjYAAAAJ_einstein_gssa_2021.html").decode("utf-8")
    with pytest.raises(parsers.LayoutChanged, match="none is a publication row"):
        parsers.parse(drift.class_names_upper_cased(einstein))
    profile = read_corpus("scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html").decode("utf-8")
    swapped = parsers.parse(swapped_neighbours(profile, '<div class="gs_gray">'))
    assert [w.code for w in swapped.warnings if w.code == "lines_swapped"] == ["lines_swapped"]
    assert [(p.authors, p.venue) for p in swapped.publications] == [
        (p.authors, p.venue) for p in parsers.parse(profile).publications]
    for key, field in (("citation_for_view", "publication id"), ("cites", "cluster ids")):
        result = parsers.parse(drift.renamed_parameter(profile, key))
        (message,) = [w.message for w in result.warnings if w.code == "column_unreadable"]
        assert field in message
    for name, field in (("gsc_a_ac", "citation count"), ("gsc_a_y", "year"), ("gs_gray", "authors and venue")):
        result = parsers.parse(drift.class_dropped(profile, name))
        assert any(field in w.message for w in result.warnings if w.code == "column_unreadable"), name


def test_a_silent_variant_is_caught() -> None:
    """The harness can fail: a parse that drops a row without a word is a silent wrong record."""
    original = parsers.parse((FIXTURES / "scholar" / "handwritten_ja_profile.html").read_bytes())

    def dropping(data: bytes) -> parsers.PageResult:
        result = parsers.parse(data)
        result.publications = result.publications[1:]
        return result
    assert variant_outcome(dropping, original, (FIXTURES / "scholar" / "handwritten_ja_profile.html").read_text(
        encoding="utf-8"), "a row dropped") == "silent"


def test_the_drift_helpers_doctests_pass() -> None:
    assert doctest.testmod(drift).failed == 0
