"""The ``hugo`` target: a HugoBlox (Hugo Academic) site, one bundle per paper.

A bundle is ``content/publication/<slug>/index.md`` (``content/publications/`` where the site uses
the plural) with ``cite.bib`` beside it. The front matter's synced fields are ``title``, ``authors``
(a cut list ends in ``et al.``), ``date`` (``YYYY-MM-DD``, ``01`` for a month or day the record
lacks), ``publication_types`` (one CSL type in a list, as current HugoBlox writes it),
``publication`` (the venue as written), ``doi`` (bare), ``links`` (arXiv and the paper's URL) and
``google_scholar_id`` (which tells apart two papers of a profile with one title and year);
``cite.bib`` is the paper's BibTeX entry. No ``publishDate``: Hugo takes ``date`` for it, and a
run's time would change every file on every run. Pages are filled, never overwritten
(``pubharvest.sync.sites``); a new bundle's folder is the paper's key slugified as academic's
``slugify(ID)`` does (``rajbhandari2020zero`` -> ``rajbhandari-2020-zero``), and a matched bundle
keeps its folder, whatever its name.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..bibtex import bibtex_entry
from ..citable import csl_type, shown_title
from ..errors import BadTarget
from ..merge import MergedProfile, Paper
from . import FileChange, SyncOptions, SyncPlan
from .frontmatter import yaml_flow_list, yaml_list, yaml_scalar
from .sites import (
    Field,
    Page,
    fill,
    free_name,
    full_date,
    new_page,
    page_facts,
    plan_pages,
    read_page,
    scholar_field,
    shown_authors,
    shown_venue,
    slug,
)

SECTIONS = ("publication", "publications")  # content/<section>/, HugoBlox's classic and newer names
LINK_KEYS = ("url_pdf", "url_source", "url_preprint", "url")


class HugoTarget:
    """``pubharvest sync hugo SITE ...``: SITE is the Hugo site's root (where ``content/`` is)."""

    name = "hugo"

    def plan(self, root: Path, papers: Sequence[Paper], profiles: Sequence[MergedProfile],
             options: SyncOptions) -> SyncPlan:
        if not root.is_dir():
            raise BadTarget(f"{root}: not a folder (the Hugo site's root, which holds content/)")
        section = _section(root)
        pages = [read_page(path, root) for path in _page_files(root)]
        # a new bundle's folder is none the section has, page or not (a folder without index.md, a file)
        taken = {path.stem for path in section.iterdir()} if section.is_dir() else set()

        def create(paper: Paper) -> list[FileChange]:
            folder = section / free_name(slug(paper.key), taken)
            return [FileChange(folder / "index.md", None, new_index(paper)),
                    FileChange(folder / "cite.bib", None, cite_bib(paper))]

        return plan_pages(pages, papers, options, root, lambda page: page_facts(page.front.values, LINK_KEYS),
                          _update, create, lambda page: _page_name(page.path))


def _section(root: Path) -> Path:
    """Where new bundles go: the section folder the site has (the singular when it has both or none)."""
    found = [root / "content" / name for name in SECTIONS if (root / "content" / name).is_dir()]
    return found[0] if found else root / "content" / SECTIONS[0]


def _page_files(root: Path) -> list[Path]:
    """Every publication page: bundles' ``index.md`` and lone ``<name>.md`` files (older sites),
    not the section's own ``_index.md``."""
    files: list[Path] = []
    for name in SECTIONS:
        section = root / "content" / name
        if section.is_dir():
            files += [path for path in section.glob("*/index.md") if path.is_file()]
            files += [path for path in section.glob("*.md") if path.is_file() and path.name != "_index.md"]
    return sorted(files)


def _page_name(path: Path) -> str:
    return path.parent.name if path.name == "index.md" else path.stem


def _update(page: Page, paper: Paper) -> list[FileChange]:
    """The matched page with the fields it lacks, and its bundle's ``cite.bib`` when it has none."""
    fill(page.front, front_fields(paper))
    changes = [FileChange(page.path, page.before, page.front.render())]
    bib = page.path.parent / "cite.bib"
    if page.path.name == "index.md" and not bib.exists():
        changes.append(FileChange(bib, None, cite_bib(paper)))
    return changes


def front_fields(paper: Paper) -> list[Field]:
    """The synced fields, in the order a new page lists them."""
    authors = shown_authors(paper)
    kind = csl_type(paper)
    date = full_date(paper)
    title = shown_title(paper)
    venue = shown_venue(paper)
    return [
        ("title", yaml_scalar(title) if title else None),
        ("authors", yaml_list(authors) if authors else None),
        ("date", yaml_scalar(date) if date else None),
        ("publication_types", yaml_flow_list([kind]) if kind else None),
        ("publication", yaml_scalar(venue) if venue else None),
        ("doi", yaml_scalar(paper.ids.doi) if paper.ids.doi else None),
        ("links", _links(paper)),
        scholar_field(paper),
    ]


def _links(paper: Paper) -> str | None:
    """``links``: the arXiv abstract page and the paper's own URL (once when they are the same page)."""
    links = []
    if paper.ids.arxiv:
        links.append(("arXiv", f"https://arxiv.org/abs/{paper.ids.arxiv}"))
    if paper.url and all(url != paper.url for _, url in links):
        links.append(("URL", paper.url))
    if not links:
        return None
    return "".join(f"\n- name: {yaml_scalar(name)}\n  url: {yaml_scalar(url)}" for name, url in links)


def new_index(paper: Paper) -> bytes:
    """A new bundle's ``index.md``: the synced fields, and no body."""
    return new_page(front_fields(paper))


def cite_bib(paper: Paper) -> bytes:
    """A bundle's ``cite.bib``: the paper's entry, keyed by its key."""
    return (bibtex_entry(paper, paper.key) + "\n").encode()
