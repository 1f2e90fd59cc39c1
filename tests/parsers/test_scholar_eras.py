"""Scholar pages of every layout era read whole: the 2014–2017 profile (the real page of the corpus,
values typed from the page), and generated variants of every real profile and row fragment
(cut marks spelt ``...``, ``…``, after a no-break space; parts an era has, removed) on which the
cut-mark and self-check rules must hold."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

import pubharvest.parsers as parsers
from pubharvest.parsers.records import PageResult, Profile, Publication
from pubharvest.parsers.text import clean_title, split_names

PROFILE_2017 = "scholar/profile_kQqERkIAAAAJ_en_2017_bowding.html"
WITH_ROWS = [PROFILE_2017, "scholar/fragment_rows_qc6CJjYAAAAJ_einstein_gssa_2021.html",
             "scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html",
             "scholar/profile_LZ5D_p4AAAAJ_scholar-scraper_2026.html",
             "scholar/profile_P1RwlvoAAAAJ_scholar-scraper_2026.html",
             "scholar/profile_amIMrIEAAAAJ_scholar-scraper_2026.html",
             "scholar/profile_8daWuo4AAAAJ_fr_bborrel_2019.html"]


def profile_of(result: PageResult) -> Profile:
    assert result.profile is not None
    return result.profile


def codes(result: PageResult) -> list[str]:
    return [w.code for w in result.warnings]


# --- the real 2017 page -------------------------------------------------------------------------


def test_2017_profile_reads_its_interests_photo_and_every_part_without_undeserved_warnings(read_corpus) -> None:
    result = parsers.parse(read_corpus(PROFILE_2017))
    profile = profile_of(result)
    assert profile.interests == ["Bioinformatics", "Cheminformatics", "Medical Image/Signal Processing/Analysis",
                                 "Medical Physics"]
    assert profile.photo_url is not None
    assert "view_op=view_photo&user=kQqERkIAAAAJ&citpid=2" in profile.photo_url
    assert profile.affiliation == "Associate Researcher at Department of Haematology, University of Cambridge"
    assert len(result.publications) == 20
    # The page says "Show more" is enabled (partial) and declares ISO-8859-1 over UTF-8 bytes: both
    # are true of this page. Nothing else is: no part of its layout is missing.
    assert sorted(codes(result)) == ["charset_mismatch", "partial"]


def test_2017_cut_venues_are_flagged_and_lose_their_mark(read_corpus) -> None:
    pubs = parsers.parse(read_corpus(PROFILE_2017)).publications
    cut = {p.title[:30]: p.venue for p in pubs if p.venue_truncated and p.title}
    assert cut == {
        "Mammographic image enhancement": "1st International Conference “From Scientific Computing to Computational",
        "Statistical Versus Wavelet-Bas": "1st International Conference “From Scientific Computing to Computational",
        "Designing a pattern recognitio": "The International Journal of High Performance Computing Applications 27 (3",
    }
    assert not any((p.venue or "").endswith((".", "…")) and p.venue_truncated for p in pubs)
    first = pubs[0]
    assert first.authors == ["P Georgiadis", "D Cavouras", "I Kalatzis", "D Glotsos", "E Athanasiadis"]
    assert first.authors_truncated


def test_2017_sidebar_coauthor_cut_short_is_flagged(read_corpus) -> None:
    coauthors = profile_of(parsers.parse(read_corpus(PROFILE_2017))).coauthors
    assert len(coauthors) == 20
    cut = [c for c in coauthors if c.name_truncated]
    assert [(c.name, c.ids.scholar) for c in cut] == [("Associate Professor George C. Kagadi", "Moomp2gAAAAJ")]


# --- cut marks in every spelling, on every real page with rows ----------------------------------

_GRAY_OR_TITLE = re.compile(rb'(<(?:div class="gs_gray"|a [^>]*class="gsc_a_at")[^>]*>)(.*?)(</(?:div|a)>)', re.S)


def in_row_texts(page: bytes, change: Callable[[bytes], bytes]) -> bytes:
    """``page`` with ``change`` applied to the text of each row's title link and grey lines only."""
    return _GRAY_OR_TITLE.sub(lambda m: m.group(1) + change(m.group(2)) + m.group(3), page)


def row_values(pub: Publication) -> tuple[object, ...]:
    return (pub.title, pub.title_truncated, pub.authors, pub.authors_truncated, pub.venue, pub.venue_truncated,
            pub.year, pub.citations)


_END_MARK = re.compile(rb"( ?)(\.\.\.|\xe2\x80\xa6)(\s*)$")


def at_the_end(replace: Callable[[bytes, bytes], bytes]) -> Callable[[bytes], bytes]:
    """A change of the cut mark that ends a text (space before it, mark): a mark inside a title is text."""
    return lambda text: _END_MARK.sub(lambda m: replace(m.group(1), m.group(2)) + m.group(3), text)


SPELLINGS: dict[str, Callable[[bytes], bytes]] = {
    "ascii dots": at_the_end(lambda space, _: space + b"..."),
    "ellipsis": at_the_end(lambda space, _: space + "…".encode()),
    "entity": at_the_end(lambda space, mark: space + (b"&hellip;" if mark == b"..." else b"&#x2026;")),
    "no-break space": at_the_end(lambda space, mark: (b"&nbsp;" if space else b"") + mark),
}


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("name", WITH_ROWS)
def test_a_cut_mark_reads_the_same_in_every_spelling(read_corpus, name: str, spelling: str) -> None:
    page = read_corpus(name)
    original = [row_values(p) for p in parsers.parse(page).publications]
    variant = parsers.parse(in_row_texts(page, SPELLINGS[spelling]))
    assert [row_values(p) for p in variant.publications] == original


@pytest.mark.parametrize("mark", [" ...", "...", " …", "\u00a0…", "&nbsp;..."])
@pytest.mark.parametrize("name", WITH_ROWS)
def test_a_value_cut_by_the_page_is_flagged_and_keeps_its_text(read_corpus, name: str, mark: str) -> None:
    page = read_corpus(name)
    original = parsers.parse(page).publications

    def cut(text: bytes) -> bytes:
        """The text with ``mark`` at its end, before the phone-only year (``<span class="gs_oph">``)."""
        value, year, rest = text.partition(b'<span class="gs_oph"')
        if not value.strip() or value.rstrip().endswith((b"...", "…".encode())):
            return text
        return value + mark.encode() + year + rest

    variant = parsers.parse(in_row_texts(page, cut)).publications
    assert len(variant) == len(original)
    for before, after in zip(original, variant, strict=True):
        assert (after.title, after.title_truncated) == (before.title, True)
        assert after.authors == before.authors and (after.authors_truncated or not before.authors)
        assert (after.venue, after.venue_truncated) == (before.venue, bool(before.venue))


# --- what each era has, and only that, is asked of it -------------------------------------------

_PHOTO_IMG = re.compile(rb'<img[^>]*id="gsc_prf_pup(?:-img)?"[^>]*>')


@pytest.mark.parametrize("name", [PROFILE_2017, "scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html"])
def test_a_missing_photo_is_a_warning_in_every_era(read_corpus, name: str) -> None:
    page = read_corpus(name)
    assert _PHOTO_IMG.search(page)
    result = parsers.parse(_PHOTO_IMG.sub(b"", page))
    unreadable = [w.message for w in result.warnings if w.code == "profile_unreadable"]
    assert unreadable and "photo" in unreadable[0]


def test_a_2026_page_without_the_2018_citations_box_is_read_and_not_warned_about(read_corpus) -> None:
    page = read_corpus("scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html")
    unboxed = page.replace(b'id="gsc_rsb_cit"', b'id="x_box"')
    result = parsers.parse(unboxed)
    assert "profile_unreadable" not in codes(result)
    assert profile_of(result).metrics == profile_of(parsers.parse(page)).metrics


def test_interests_shown_but_not_linked_any_more_are_a_warning(read_corpus) -> None:
    page = read_corpus("scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html")
    unlinked = page.replace(b"mauthors=label:", b"q=")
    result = parsers.parse(unlinked)
    assert profile_of(result).interests == []
    assert any(w.code == "profile_unreadable" and "interests" in w.message for w in result.warnings)


# --- author lists and LaTeX ---------------------------------------------------------------------


@pytest.mark.parametrize(("text", "names", "cut"), [
    ("E Demir, T Van Woensel, and et al.", ["E Demir", "T Van Woensel"], True),
    ("E Demir, T Van Woensel, and ...", ["E Demir", "T Van Woensel"], True),
    ("E Demir, T Van Woensel & …", ["E Demir", "T Van Woensel"], True),
    ("E Demir, and T Van Woensel", ["E Demir", "T Van Woensel"], False),
    ("E Demir, T Van Woensel,\u00a0...", ["E Demir", "T Van Woensel"], True),
    ("Y Li, A Andersson", ["Y Li", "A Andersson"], False),
])
def test_author_lists_end_without_a_conjunction_or_cut_mark(text: str, names: list[str], cut: bool) -> None:
    assert split_names(text) == (names, cut)


@pytest.mark.parametrize(("title", "clean"), [
    ("Observation of $B\\ to\\ mathrm {J}/\\ psi K$ decays", "Observation of B→J/ψK decays"),
    ("Die {\\ it Planck} sche Theorie", "Die Planck sche Theorie"),
    ("{\\ em In vivo} imaging at 50% dose", "In vivo imaging at 50% dose"),
    ("A study of {\\\"u}ber-graphs", "A study of über-graphs"),
    ("Plain title, no LaTeX: 100% cotton", "Plain title, no LaTeX: 100% cotton"),
])
def test_latex_in_titles_becomes_text_without_gluing_words(title: str, clean: str) -> None:
    assert clean_title(title) == clean
