"""The ``academicpages`` target: ``_publications/<date>-<slug>.md`` written from merged records, read
back by ``jekyll build --strict_front_matter``, synced twice without change, and a user's file kept
byte for byte outside the fields it lacked."""

from __future__ import annotations

import html
from pathlib import Path

import msgspec
import pytest
from sitesync import corpus_pages, fixture_pages, papers_of, plan, run_consumer, sync, tree

from pubharvest.merge import Paper
from pubharvest.parsers.records import PublicationIds
from pubharvest.sync.academicpages import citation
from pubharvest.sync.bib import addable

ZERO_OFFLOAD = b"""---
title: "ZeRO-Offload: Democratizing Billion-Scale Model Training"
collection: publications
permalink: "/publication/2021-01-01-ren-2021-zero"
date: 2021-01-01
paperurl: "https://arxiv.org/abs/2101.06840"
citation: "Jie Ren, Samyam Rajbhandari, Reza Yazdani Aminabadi, et al. (2021). &quot;ZeRO-Offload: \
Democratizing Billion-Scale Model Training.&quot;"
---
"""

# FORMATS.md section 3's real file: the template's file name, an unpadded date, the citation commented out
USER_FILE = b"""---
title: "Variational Inference based on Robust Divergences"
collection: publications
permalink: /publication/2010-10-01-paper-title-number-2
excerpt: 'This paper is about the outlier-robust variational inference.'
date: 2018-4-10
venue: 'AISTATS'
paperurl: 'https://arxiv.org/abs/1710.06595'
#citation: 'Your Name, You. (2010). &quot;Paper Title Number 2.&quot; <i>Journal 1</i>. 1(2).'
---
This paper is about the outlier-robust variational inference.
"""
VI = Paper(key="futami2018variational", title="Variational inference based on robust divergences", year=2018,
           authors=["F Futami", "I Sato", "M Sugiyama"], venue="International Conference on Artificial Intelligence "
           "and Statistics, 2018", ids=PublicationIds(arxiv="1710.06595"), sources=[])
# a file matched by title and year alone: odd quoting, a comment, an extra key, a body
OWN_FILE = b"""---
title:   'Memory walls, revisited'   # my casing
date: 2021
tags: [memory, "walls"]
---
Notes.
"""


@pytest.fixture(scope="module")
def papers() -> list[Paper]:
    return papers_of(fixture_pages())


def test_new_site_has_a_file_per_paper(tmp_path: Path, papers: list[Paper]) -> None:
    done = sync("academicpages", tmp_path, papers)
    files = tree(tmp_path)
    assert len(files) == len(papers) == len(done.added)
    assert files["_publications/2021-01-01-ren-2021-zero.md"] == ZERO_OFFLOAD


def test_one_paper_more_adds_that_file(tmp_path: Path, papers: list[Paper]) -> None:
    sync("academicpages", tmp_path, papers[1:])
    done = plan("academicpages", tmp_path, papers)
    assert done.added == [papers[0].key] == ["example2024sparse"]
    assert [(c.path, c.before) for c in done.changes] == [
        (tmp_path / "_publications/2024-05-01-example-2024-sparse.md", None)]


def test_a_new_field_changes_only_that(tmp_path: Path, papers: list[Paper]) -> None:
    sync("academicpages", tmp_path, papers)
    offload = next(p for p in papers if p.key == "ren2021zero")
    published = msgspec.structs.replace(offload, venue="USENIX ATC 21")
    [change] = plan("academicpages", tmp_path, [published if p is offload else p for p in papers]).changes
    # a key a page lacks goes last, before the closing fence
    assert change.after == ZERO_OFFLOAD.replace(b'"\n---\n', b'"\nvenue: USENIX ATC 21\n---\n')


def test_user_files_kept_byte_for_byte(tmp_path: Path, papers: list[Paper]) -> None:
    folder = tmp_path / "_publications"
    folder.mkdir()
    (folder / "2010-10-01-paper-title-number-2.md").write_bytes(USER_FILE)
    (folder / "memory.md").write_bytes(OWN_FILE)
    done = sync("academicpages", tmp_path, [VI, *papers], add_missing=False)
    assert sorted(done.matched) == [("_publications/2010-10-01-paper-title-number-2.md", "futami2018variational"),
                                    ("_publications/memory.md", "dummy2021memory")]
    # the commented-out citation stays out; the file lacked nothing else; no permalink is added (it would
    # move the page), only the fields the other file lacked
    assert (folder / "2010-10-01-paper-title-number-2.md").read_bytes() == USER_FILE
    assert (folder / "memory.md").read_bytes() == OWN_FILE.replace(b"---\nNotes.", b"""\
collection: publications
paperurl: "https://www.microsoft.com/en-us/research/publication/memory-walls-revisited/"
citation: Dan Dummy, Ada Example. (2021). &quot;Memory Walls, Revisited.&quot;
---
Notes.""")
    assert sorted(tree(tmp_path)) == ["_publications/2010-10-01-paper-title-number-2.md", "_publications/memory.md"]
    assert plan("academicpages", tmp_path, [VI, *papers], add_missing=False).changes == []


def test_category_from_the_sites_config(tmp_path: Path) -> None:
    (tmp_path / "_config.yml").write_text("publication_category:\n  books:\n    title: 'Books'\n"
                                          "  conferences:\n    title: 'Conference Papers'\n")
    (tmp_path / "_publications").mkdir()
    (tmp_path / "_publications/vi.md").write_bytes(USER_FILE)
    sync("academicpages", tmp_path, [msgspec.structs.replace(VI, type="paper-conference")])
    assert (tmp_path / "_publications/vi.md").read_bytes() == USER_FILE.replace(
        b"1(2).'\n---\n", b"1(2).'\ncategory: conferences\n---\n")


@pytest.mark.slow
@pytest.mark.corpus
def test_jekyll_renders_the_records(tmp_path: Path, papers: list[Paper], corpus: Path) -> None:
    every = [paper for paper in [*papers, *papers_of(corpus_pages(corpus))] if addable(paper)]
    site = tmp_path / "site"
    sync("academicpages", site, every)
    (site / "_config.yml").write_text("collections:\n  publications:\n    output: true\ndefaults:\n"
                                      "  - scope: {path: '', type: publications}\n    values: {layout: pub}\n")
    (site / "_layouts").mkdir()
    # a field a line (no record's text holds a line break)
    (site / "_layouts/pub.html").write_text('{{ page.title }}\n{{ page.date | date: "%Y-%m-%d" }}\n{{ page.venue }}\n'
                                            "{{ page.paperurl }}\n{{ page.citation }}")
    run_consumer("jekyll", "build", "--strict_front_matter", "--destination", str(tmp_path / "out"), cwd=site)
    names = dict((key, name) for name, key in plan("academicpages", site, every).matched)
    assert len(names) == len(every)
    for paper in every:
        page = tmp_path / "out/publication" / (Path(names[paper.key]).stem + ".html")
        title, date, venue, url, cited = page.read_text().split("\n")
        assert title == (paper.title or "") + ("…" if paper.title_truncated else "")
        known = paper.date or (str(paper.year) if paper.year else None)  # a month or day unknown is 01
        if known:  # else the date of the file's name, the theme's 1900-01-01
            assert date == f"{known}{'-01-01'[len(known) - 4:]}"
        assert venue == (paper.venue or "") + ("…" if paper.venue_truncated else "")
        doi, arxiv = paper.ids.doi, paper.ids.arxiv
        assert url == (f"https://doi.org/{doi}" if doi else f"https://arxiv.org/abs/{arxiv}" if arxiv else
                       paper.url or "")
        assert cited == citation(paper)
        assert html.unescape(cited).count(paper.title or "") == 1


def test_a_file_without_front_matter_is_left_alone(tmp_path: Path, papers: list[Paper]) -> None:
    (tmp_path / "_publications").mkdir()
    (tmp_path / "_publications/README.md").write_bytes(b"# My papers\n\nOne file each.\n")
    done = sync("academicpages", tmp_path, papers)
    assert done.unmatched == ["_publications/README.md"] and len(done.added) == len(papers)
    assert (tmp_path / "_publications/README.md").read_bytes() == b"# My papers\n\nOne file each.\n"
