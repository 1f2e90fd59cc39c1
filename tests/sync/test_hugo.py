"""The ``hugo`` target: HugoBlox bundles written from merged records, read back by Debian's hugo,
synced twice without change, and a user's bundle kept byte for byte outside the fields it lacked."""

from __future__ import annotations

import html
from pathlib import Path

import msgspec
import pytest
from sitesync import corpus_pages, fixture_pages, papers_of, plan, run_consumer, sync, tree

from pubharvest.citable import csl_type
from pubharvest.errors import BadTarget
from pubharvest.merge import Paper
from pubharvest.parsers.records import PublicationIds
from pubharvest.sync import SyncOptions
from pubharvest.sync.apply import apply
from pubharvest.sync.bib import addable
from pubharvest.sync.registry import target

BLOOM = b"""---
title: "BLOOM: A 176B-Parameter Open-Access Multilingual Language Model"
authors:
- BigScience Workshop
- et al.
date: "2022-01-01"
publication_types: ["article"]
links:
- name: arXiv
  url: "https://arxiv.org/abs/2211.05100"
---
"""

# FORMATS.md section 2's real bundle, as a user keeps it: the numeric legend comment, odd quoting, a
# comment after a value, tags, an extra key and a body
USER_INDEX = b"""---
title: Region-of-Interest based Neural Video Compression
authors:
- Yura Perugachi-Diaz
- Guillaume Sauti\xc3\xa8re
- admin

date: '2022-03-01'

publishDate: '2022-10-07T11:50:19.097855Z'

# Publication type.
# Legend: 0 = Uncategorized; 1 = Conference paper; 2 = Journal article;
# 3 = Preprint / Working Paper; 4 = Report; 5 = Book; 6 = Book section;
# 7 = Thesis; 8 = Patent
publication_types: ["1"]

publication: '*BMVC*'    # as the proceedings say
tags: [Genertaive Modeling, Video Compression]
featured: false
my_note: "keep: me"
url_pdf: 'https://arxiv.org/pdf/2203.01978.pdf'
---
My own words about **this** paper.
"""

ROI = Paper(key="perugachidiaz2022region", title="Region-of-interest based neural video compression", year=2022,
            authors=["Y Perugachi-Diaz", "G Sautière", "D Abati"], authors_truncated=True, venue="BMVC 2022",
            type="paper-conference", ids=PublicationIds(arxiv="2203.01978", doi="10.48550/arXiv.2203.01978"),
            sources=[])


@pytest.fixture(scope="module")
def papers() -> list[Paper]:
    return papers_of(fixture_pages())


def test_new_site_has_a_bundle_per_paper(tmp_path: Path, papers: list[Paper]) -> None:
    done = sync("hugo", tmp_path, papers)
    files = tree(tmp_path)
    assert len(files) == 2 * len(papers) == 2 * len(done.added)
    assert files["content/publication/bigscienceworkshop-2022-bloom/index.md"] == BLOOM
    assert files["content/publication/bigscienceworkshop-2022-bloom/cite.bib"].startswith(
        b"@misc{bigscienceworkshop2022bloom,\n  author = {{BigScience Workshop} and others},\n")


def test_papers_without_bundle_wait_for_add_missing(tmp_path: Path, papers: list[Paper]) -> None:
    done = plan("hugo", tmp_path, papers, add_missing=False)
    assert done.changes == [] and sorted(done.missing) == sorted(p.key for p in papers)


def test_one_paper_more_adds_that_bundle(tmp_path: Path, papers: list[Paper]) -> None:
    sync("hugo", tmp_path, papers[1:])
    done = plan("hugo", tmp_path, papers)
    assert done.added == [papers[0].key]
    folder = tmp_path / "content/publication" / papers[0].key.replace("2024", "-2024-")
    assert sorted(c.path for c in done.changes) == [folder / "cite.bib", folder / "index.md"]
    assert all(c.before is None for c in done.changes)


def test_a_new_field_changes_only_that(tmp_path: Path, papers: list[Paper]) -> None:
    sync("hugo", tmp_path, papers)
    before = tree(tmp_path)
    bloom = next(p for p in papers if p.key == "bigscienceworkshop2022bloom")
    doi = msgspec.structs.replace(bloom, ids=msgspec.structs.replace(bloom.ids, doi="10.48550/arXiv.2211.05100"))
    done = plan("hugo", tmp_path, [doi if p is bloom else p for p in papers])
    [change] = done.changes
    assert change.path == tmp_path / "content/publication/bigscienceworkshop-2022-bloom/index.md"
    assert change.after == BLOOM.replace(b'2211.05100"\n---\n', b'2211.05100"\ndoi: "10.48550/arXiv.2211.05100"\n---\n')
    apply(done)
    assert {k: v for k, v in tree(tmp_path).items() if not k.startswith("content/publication/bigscience")} == \
        {k: v for k, v in before.items() if not k.startswith("content/publication/bigscience")}


@pytest.mark.parametrize("section", ["publication", "publications"])
def test_user_bundle_kept_byte_for_byte(tmp_path: Path, section: str) -> None:
    folder = tmp_path / "content" / section / "roi-2022"
    folder.mkdir(parents=True)
    (folder / "index.md").write_bytes(USER_INDEX)
    done = sync("hugo", tmp_path, [ROI])
    assert done.matched == [(f"content/{section}/roi-2022/index.md", "perugachidiaz2022region")]
    # only what the bundle lacked: the DOI and the links; its cite.bib; no new bundle
    assert (folder / "index.md").read_bytes() == USER_INDEX.replace(b".pdf'\n---\n", b""".pdf'
doi: "10.48550/arXiv.2203.01978"
links:
- name: arXiv
  url: "https://arxiv.org/abs/2203.01978"
---
""")
    assert (folder / "cite.bib").read_bytes().startswith(b"@inproceedings{perugachidiaz2022region,\n")
    assert sorted(tree(tmp_path)) == [f"content/{section}/roi-2022/cite.bib", f"content/{section}/roi-2022/index.md"]
    assert plan("hugo", tmp_path, [ROI]).changes == []


def test_user_cite_bib_and_unmatched_pages_left_alone(tmp_path: Path, papers: list[Paper]) -> None:
    folder = tmp_path / "content/publication/other"
    folder.mkdir(parents=True)
    (folder / "index.md").write_bytes(b"---\ntitle: Someone else's paper\n---\n")
    (folder / "cite.bib").write_bytes(b"@misc{mine}\n")
    done = plan("hugo", tmp_path, papers)
    assert done.unmatched == ["content/publication/other/index.md"]
    assert all(c.path.parent != folder for c in done.changes)


def test_bad_page_refuses_the_whole_sync(tmp_path: Path, papers: list[Paper]) -> None:
    folder = tmp_path / "content/publication/broken"
    folder.mkdir(parents=True)
    (folder / "index.md").write_bytes(b"---\ntitle: [unclosed\n---\n")
    with pytest.raises(BadTarget, match=r"^content/publication/broken/index\.md: the front matter is not valid YAML"):
        plan("hugo", tmp_path, papers)
    with pytest.raises(BadTarget, match="not a folder"):
        target("hugo").plan(folder / "index.md", papers, [], SyncOptions())


# a field a line (no record's text holds a line break)
LAYOUT = ('{{ .Title }}\n{{ .Date.Format "2006-01-02" }}\n{{ with .Params.authors }}{{ delimit . ";" }}{{ end }}\n'
          '{{ with .Params.publication_types }}{{ delimit . "," }}{{ end }}\n{{ .Params.doi }}\n'
          '{{ .Params.publication }}')


@pytest.mark.slow
@pytest.mark.corpus
def test_hugo_renders_the_records(tmp_path: Path, papers: list[Paper], corpus: Path) -> None:
    every = [paper for paper in [*papers, *papers_of(corpus_pages(corpus)), ROI] if addable(paper)]
    site = tmp_path / "site"
    sync("hugo", site, every)
    (site / "hugo.toml").write_text('baseURL = "http://example.org/"\ndisableKinds = ["taxonomy", "term", '
                                    '"RSS", "sitemap", "home", "section"]\n')
    (site / "layouts/_default").mkdir(parents=True)
    (site / "layouts/_default/single.html").write_text(LAYOUT)
    run_consumer("hugo", "--quiet", "--destination", str(tmp_path / "out"), cwd=site)
    for paper in every:
        slug = next(name for name, key in plan("hugo", site, every).matched if key == paper.key).split("/")[2]
        shown = html.unescape((tmp_path / "out/publication" / slug / "index.html").read_text())
        title, date, authors, types, doi, venue = shown.split("\n")
        assert title == (paper.title or "") + ("…" if paper.title_truncated else "")
        known = paper.date or (str(paper.year) if paper.year else None)  # a month or day unknown is 01
        assert date == (f"{known}{'-01-01'[len(known) - 4:]}" if known else "0001-01-01")  # Hugo's zero date
        assert authors.split(";") == paper.authors + (["et al."] if paper.authors_truncated else []) or \
            (authors == "" and not paper.authors)
        assert types == (csl_type(paper) or "")
        assert doi == (paper.ids.doi or "")
        assert venue == (paper.venue or "") + ("…" if paper.venue_truncated else "")


def test_a_different_doi_is_kept_and_reported(tmp_path: Path) -> None:
    folder = tmp_path / "content/publication/roi"
    folder.mkdir(parents=True)
    own = USER_INDEX.replace(b"featured: false\n", b"featured: false\ndoi: https://doi.org/10.9999/Mine\n")
    (folder / "index.md").write_bytes(own)
    done = sync("hugo", tmp_path, [ROI])  # matched by the arXiv id of its url_pdf
    assert done.conflicts == ["content/publication/roi/index.md: doi: kept https://doi.org/10.9999/Mine, "
                              "the records say 10.48550/arXiv.2203.01978"]
    assert (folder / "index.md").read_bytes() == own.replace(b".pdf'\n---\n", b""".pdf'
links:
- name: arXiv
  url: "https://arxiv.org/abs/2203.01978"
---
""")


def test_toml_page_is_matched_and_left_alone(tmp_path: Path) -> None:
    folder = tmp_path / "content/publication/roi"
    folder.mkdir(parents=True)
    own = b'+++\ntitle = "Region-of-Interest based Neural Video Compression"\ndate = 2022-03-01\n+++\nBody\n'
    (folder / "index.md").write_bytes(own)
    done = sync("hugo", tmp_path, [ROI])
    assert done.matched == [("content/publication/roi/index.md", "perugachidiaz2022region")] and not done.added
    assert (folder / "index.md").read_bytes() == own
    assert sorted(tree(tmp_path)) == ["content/publication/roi/cite.bib", "content/publication/roi/index.md"]


def test_a_taken_folder_name_gets_a_number(tmp_path: Path, papers: list[Paper]) -> None:
    (tmp_path / "content/publication/ren-2021-zero").mkdir(parents=True)  # a folder of the user's, no page
    sync("hugo", tmp_path, papers)
    assert tree(tmp_path / "content/publication/ren-2021-zero-2")["index.md"].startswith(
        b'---\ntitle: "ZeRO-Offload: Democratizing Billion-Scale Model Training"\n')
    assert not any((tmp_path / "content/publication/ren-2021-zero").iterdir())
