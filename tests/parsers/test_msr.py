"""What the MSR parser must show, beyond the whole-record fixture comparisons.

Everything here goes through ``parsers.parse`` / ``parsers.msr`` directly, not through the CLI.
"""

from __future__ import annotations

import pytest
from conftest import FIXTURES

import pubharvest.parsers as parsers
from pubharvest.parsers import msr
from pubharvest.parsers.page import Document

MSR = FIXTURES / "msr"
SEED = MSR / "001_0be51d225ce2b3fb.txt"
PEOPLE = MSR / "010_people_publications.html"
MATTERGEN = "msr/publication_mattergen_990378_2026-08-26.excerpt.html"


def by_title(result: parsers.PageResult) -> dict:
    return {pub.title: pub for pub in result.publications}


@pytest.fixture(scope="module")
def seed() -> parsers.PageResult:
    return parsers.parse(SEED.read_bytes())


@pytest.fixture(scope="module")
def people() -> parsers.PageResult:
    return parsers.parse(PEOPLE.read_bytes())


# --- the saved text (the user's seed) ---------------------------------------------------------

def test_seed_yields_each_distinct_publication_once(seed):
    titles = [pub.title for pub in seed.publications]
    assert len(titles) == 20
    assert len(set(titles)) == 20
    assert seed.site == "msr" and seed.page == "publication_list"
    assert seed.profile.name == "Olatunji Ruwase" and seed.profile.position == "Team Lead"


def test_zero_plus_plus_listed_only_outside_the_year_groups_is_kept_once(seed):
    zero_pp = [pub for pub in seed.publications if pub.title.startswith("ZeRO++")]
    assert len(zero_pp) == 1
    pub = zero_pp[0]
    assert pub.facets.years == []
    assert pub.year == 2024 and pub.date == "2024-05" and pub.venue == "ICLR 2024"
    assert pub.facets.research_areas == ["#1"] and pub.facets.types == ["#2"]
    assert seed.publications[0] is pub  # the featured item comes first, in page order


def test_seed_values_as_printed(seed):
    pubs = by_title(seed)
    phi3 = pubs["Phi-3 Technical Report: A Highly Capable Language Model Locally on Your Phone"]
    assert len(phi3.authors) == 84
    assert phi3.authors[0] == "Marah I Abdin" and phi3.authors[-1] == "Xiren Zhou"
    assert "Xihui (Eric) Lin" in phi3.authors and "Sébastien Bubeck" in phi3.authors
    assert (phi3.venue, phi3.date, phi3.publisher) == ("MSR-TR-2024-12", "2024-04", "Microsoft")
    assert phi3.ids.report_number == "MSR-TR-2024-12" and phi3.type == "report"
    serf = pubs["SERF: Efficient Scheduling for Fast Deep Neural Network Serving via Judicious Parallelism"]
    assert (serf.venue, serf.date, serf.ids.isbn) == ("SC'16", "2016-11", "978-1-4673-8815-3")
    bare = pubs["ZeRO-Infinity: Breaking the GPU Memory Wall for Extreme Scale Deep Learning"]
    assert (bare.venue, bare.date, bare.year) == (None, "2021-04", 2021)


def test_seed_facets_from_the_groups(seed):
    pubs = by_title(seed)
    assert pubs["Accelerating Deep Convolutional Neural Networks Using Specialized Hardware"].facets.research_areas == [
        "#1", "#3", "#4", "#5"]
    assert pubs["Optimizing CNNs on Multicores for Scalability, Performance and Goodput"].facets.research_areas == [
        "#1", "#2", "#3"]
    assert sorted({area for pub in seed.publications for area in pub.facets.research_areas}) == [
        "#1", "#2", "#3", "#4", "#5"]
    assert sorted({kind for pub in seed.publications for kind in pub.facets.types}) == ["#1", "#2", "#3", "#4"]
    for pub in seed.publications[1:]:  # every paper but ZeRO++ sits in exactly one year group: its own year
        assert pub.facets.years == [pub.year], pub.title
    assert [w.code for w in seed.warnings] == ["group_names_lost"]


# --- the hand-written people page -------------------------------------------------------------

def test_people_page_yields_each_paper_once_with_all_its_facets(people):
    assert len(people.publications) == 5
    assert people.profile.ids.msr == "adaexample"
    pubs = by_title(people)
    report = pubs["Widget Systems Technical Report"]
    assert report.facets.years == [2023]
    assert report.facets.research_areas == ["Artificial intelligence", "Systems and networking"]
    assert report.facets.types == ["Techreport"] and report.type == "report"
    featured = pubs["Sparse Widgets for Fast Inference"]
    assert featured.facets.years == [] and featured.year == 2024
    unlinked = pubs["An Unlinked Workshop Note"]  # no link: merged on its title
    assert unlinked.ids.msr is None
    assert (unlinked.facets.years, unlinked.facets.research_areas, unlinked.facets.types) == (
        [2021], ["Artificial intelligence"], ["Inproceedings"])


def test_disagreeing_listings_keep_the_fuller_value_and_warn(people):
    paper = by_title(people)["Scheduling Widgets at Scale"]
    assert paper.authors == ["Ada Example", "Carla Placeholder", "Dan Dummy"]
    assert paper.venue == "SC'23"
    disagreements = [w.message for w in people.warnings if w.code == "listings_disagree"]
    assert len(disagreements) == 2
    assert all("Scheduling Widgets at Scale" in message for message in disagreements)


def test_a_paper_under_two_types_keeps_the_first_and_warns():
    page = PEOPLE.read_text(encoding="utf-8")
    extra = ('<article><h5><a href="https://www.microsoft.com/en-us/research/publication/memory-walls-revisited/">'
             'Memory Walls, Revisited</a></h5><p class="base m-0 content-excerpt__people">Dan Dummy, Ada Example</p>'
             '<p class="base m-0 content-excerpt__journal-and-issue">June 2021</p></article>')
    anchor = '<div id="collapse-group-type_filter-publications-3-techreport" class="collapse">'
    result = parsers.parse(page.replace(anchor, anchor + extra))
    paper = by_title(result)["Memory Walls, Revisited"]
    assert paper.type == "report"  # listed under Techreport before Article: the first type wins
    assert paper.facets.types == ["Techreport", "Article"]
    assert any(w.code == "listings_disagree" and "two types" in w.message for w in result.warnings)


def test_a_page_cut_after_its_main_content_is_a_warning_not_an_error(people):
    page = PEOPLE.read_text(encoding="utf-8")
    cut = page[: page.index("</main>") + len("</main>") + 20]
    result = parsers.parse(cut)
    assert [w.code for w in result.warnings if w.code == "truncated"] == ["truncated"]
    assert result.publications == people.publications


# --- the real publication page (PUBHARVEST_CORPUS) --------------------------------------------

def test_real_publication_page(read_corpus):
    result = parsers.parse(read_corpus(MATTERGEN))
    assert (result.site, result.page) == ("msr", "publication")
    (pub,) = result.publications
    url = "https://www.microsoft.com/en-us/research/publication/mattergen-a-generative-model-for-inorganic-materials-design/"
    assert result.url == url and pub.url == url
    assert pub.ids.msr == "mattergen-a-generative-model-for-inorganic-materials-design"
    assert pub.title == "MatterGen: a generative model for inorganic materials design"
    assert len(pub.authors) == 12
    assert pub.authors[:3] == ["Claudio Zeni", "Robert Pinsler", "Daniel Zügner"]
    assert pub.authors[7] == "Jonathan Crabbé"  # written " Jonathan Crabb&eacute;" in the page
    assert pub.authors[-1] == "Tian Xie"
    linked = {author.name: author for author in pub.author_links}
    assert len(linked) == 8
    assert linked["Ryota Tomioka"].ids.msr == "ryoto"
    assert linked["Sasha Shysheya"].ids.msr is None and "linkedin.com" in linked["Sasha Shysheya"].url
    assert "Matthew Horton" not in linked
    assert (pub.date, pub.year) == ("2023-12-06", 2023)  # <time datetime>, not the WordPress post date
    assert pub.summary.startswith("The design of functional materials with desired properties")
    assert "Opens in a new tab" not in pub.summary
    assert pub.facets.research_areas == ["Artificial intelligence"]
    assert pub.ids.arxiv == "2312.03687"
    kinds = {link.kind: link.url for link in pub.links}
    assert kinds["pdf"] == "https://arxiv.org/pdf/2312.03687.pdf"
    assert kinds["external"] == "https://arxiv.org/abs/2312.03687"
    assert kinds["bibtex"] == url + "bibtex/"
    assert (pub.venue, pub.type, pub.publisher) == (None, None, None)  # not on this arXiv-only page
    assert result.warnings == []


def test_citation_meta_tags_are_the_fallback():
    page = """<html><head>
    <meta name="awa-pageType" content="Publication">
    <link rel="canonical" href="https://www.microsoft.com/en-us/research/publication/some-paper/">
    <meta name="citation_title" content="Some Paper">
    <meta name="citation_author" content=" Ana Gonz&aacute;lez"><meta name="citation_author" content="Bo Li">
    <meta name="citation_publication_date" content="2021/03/04">
    <meta name="research-area" content="Systems and networking">
    </head><body><main class="single-publication"></main></body></html>"""
    (pub,) = parsers.parse(page).publications
    assert (pub.title, pub.authors, pub.date) == ("Some Paper", ["Ana González", "Bo Li"], "2021-03-04")
    assert pub.facets.research_areas == ["Systems and networking"] and pub.ids.msr == "some-paper"


# --- who claims what --------------------------------------------------------------------------

@pytest.mark.parametrize("name,kind", [
    ("001_0be51d225ce2b3fb.txt", "publication_list"),
    ("010_people_publications.html", "publication_list"),
    ("020_faceted_search.page.json", "publication_list"),
    ("../../tests/data/msr/032_wrong_site.html", None),
])
def test_sniff(name, kind):
    assert msr.sniff(Document.from_input((MSR / name).read_bytes())) == kind


@pytest.mark.parametrize("other", ["elamur/000_e63c2e80f8ecde3e.txt", "scholar/003_9ea93ed9343d2054.txt"])
def test_other_sites_pages_are_not_claimed(other):
    assert msr.sniff(Document.from_input((FIXTURES / other).read_bytes())) is None


def test_real_publication_page_is_sniffed_as_a_publication(read_corpus):
    assert parsers.detect(read_corpus(MATTERGEN)) == parsers.Detection(site="msr", page="publication")


@pytest.mark.parametrize("keep_lines", [60, 150, 226])
def test_saved_text_cut_short_is_refused(keep_lines):
    # 60: inside the year groups; 150: inside the area groups; 226: just after a "-" in the type groups
    cut = "\n".join(SEED.read_text(encoding="utf-8").split("\n")[:keep_lines])
    with pytest.raises(parsers.Truncated):
        parsers.parse(cut)


# --- listings that repeat an earlier one (read once: parsers/msr.py, _Papers) -----------------

def _page_of_groups(*groups: tuple[str, str, list[str]]) -> str:
    """A people page, the fixture's head and person without its featured item, whose one accordion holds
    ``groups``: each a facet name of the group-body id (``year``, ``research_area``, ``type``), its heading
    and its article bodies."""
    page = PEOPLE.read_text(encoding="utf-8")
    head = page[: page.index("<section")] + page[page.index("<header"): page.index("<h3>Publications by Year</h3>")]
    items = "".join(
        f'<li><h4><button data-target="#collapse-group-{facet}_filter-publications-1-{n}">{label}</button></h4>'
        f'<div id="collapse-group-{facet}_filter-publications-1-{n}" class="collapse">'
        + "".join(f"<article>{body}</article>" for body in bodies) + "</div></li>"
        for n, (facet, label, bodies) in enumerate(groups))
    return f'{head}<ul class="accordion">{items}</ul></section></main></body></html>'


def _card(venue: str, title: str = "Deep Widgets") -> str:
    return (f'<h5><a href="/en-us/research/publication/deep-widgets/">{title}</a></h5>'
            f'<p class="content-excerpt__people">Ada Example</p><p>{venue} | May 2024</p>')


def _disagreements(result: parsers.PageResult) -> list[str]:
    return [w.message for w in result.warnings if w.code == "listings_disagree"]


def test_a_listing_repeated_after_others_changed_its_paper_is_compared_again():
    # The fourth listing repeats the first, but the paper kept the third's venue meanwhile: the fourth
    # disagrees with what the paper now says, which no earlier listing did.
    result = parsers.parse(_page_of_groups(
        ("year", "2024", [_card("A"), _card("CC"), _card("BBB")]),
        ("type", "Inproceedings", [_card("A")])))
    assert [pub.venue for pub in result.publications] == ["BBB"]
    assert _disagreements(result) == [
        "the listings of 'Deep Widgets' disagree on the venue: kept 'CC', not 'A'",
        "the listings of 'Deep Widgets' disagree on the venue: kept 'BBB', not 'CC'",
        "the listings of 'Deep Widgets' disagree on the venue: kept 'BBB', not 'A'",
    ]


def test_listings_of_one_markup_under_two_types_keep_the_first_type_and_warn():
    result = parsers.parse(_page_of_groups(
        ("type", "Techreport", [_card("MSR-TR-2024-1")]), ("type", "Article", [_card("MSR-TR-2024-1")]),
        ("research_area", "Systems", [_card("MSR-TR-2024-1")])))
    paper, = result.publications
    assert paper.type == "report"
    assert (paper.facets.types, paper.facets.research_areas) == (["Techreport", "Article"], ["Systems"])
    assert _disagreements(result) == ["'Deep Widgets' is listed under two types: kept 'report', not 'article-journal'"]


def test_repeated_listings_in_other_indents_and_article_classes_are_one_paper_with_every_group():
    indented = _card("ICML").replace("<p", "\n\t\t<p")
    page = _page_of_groups(("year", "2024", [_card("ICML")]), ("research_area", "Systems", [indented]),
                           ("type", "Inproceedings", [indented]))
    result = parsers.parse(page.replace("<article>", '<article class="featured-publication">', 1))
    paper, = result.publications
    assert (paper.venue, paper.date, paper.year, paper.type) == ("ICML", "2024-05", 2024, "paper-conference")
    assert (paper.facets.years, paper.facets.research_areas, paper.facets.types) == ([2024], ["Systems"],
                                                                                      ["Inproceedings"])
    assert not _disagreements(result)


def test_titles_that_differ_only_by_a_blank_between_tags_are_not_taken_for_repeats():
    spaced, joined = "<b>Deep</b> <i>Widgets</i>", "<b>Deep</b><i>Widgets</i>"
    result = parsers.parse(_page_of_groups(("year", "2024", [_card("ICML", spaced)]),
                                           ("type", "Inproceedings", [_card("ICML", joined)])))
    assert [pub.title for pub in result.publications] == ["Deep Widgets"]
    assert _disagreements(result) == [
        "the listings of 'Deep Widgets' disagree on the title: kept 'Deep Widgets', not 'DeepWidgets'"]
