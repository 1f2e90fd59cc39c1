"""The ``academicpages`` target: a Jekyll site on the academicpages theme, a file per paper in
``_publications/<date>-<slug>.md``.

The front matter is the theme's generator's (``markdown_generator/publications.py``): ``title``,
``collection: publications``, ``permalink: /publication/<date>-<slug>`` (singular, as the theme
has it), ``date`` (a YAML date, ``01`` for a month or day the record lacks), ``venue``,
``paperurl`` (the DOI's page, else arXiv's, else the paper's URL), ``citation`` (an HTML string,
its text escaped as the generator does: ``& < > " '`` as entities), and ``category`` when the
site's ``_config.yml`` has ``publication_category`` (the category for the paper's type), and
``google_scholar_id`` (which tells apart two papers of a profile with one title and year). Pages are
filled, never overwritten (``pubharvest.sync.sites``): a ``#citation:`` line the user commented out
keeps the citation out, and a page without a ``permalink`` gets none (it would move the page).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from pathlib import Path

import yaml

from ..citable import csl_type, shown_title
from ..errors import BadTarget
from ..merge import MergedProfile, Paper
from . import FileChange, SyncOptions, SyncPlan
from .frontmatter import yaml_scalar
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

FOLDER = "_publications"
_DATED = re.compile(r"^\d{4}-\d\d?-\d\d?-")  # a file name's date, before its slug
LINK_KEYS = ("paperurl", "slidesurl", "bibtexurl")
# the theme's categories (its _config.yml's publication_category keys) by CSL type
CATEGORIES = {"paper-conference": "conferences", "article-journal": "manuscripts", "book": "books",
              "chapter": "books"}
DEFAULT_CATEGORY = "manuscripts"  # the theme lists a page under its category only: none would hide it


class AcademicPagesTarget:
    """``pubharvest sync academicpages SITE ...``: SITE is the Jekyll site's root (``_config.yml``)."""

    name = "academicpages"

    def plan(self, root: Path, papers: Sequence[Paper], profiles: Sequence[MergedProfile],
             options: SyncOptions) -> SyncPlan:
        if not root.is_dir():
            raise BadTarget(f"{root}: not a folder (the Jekyll site's root, which holds _publications/)")
        folder = root / FOLDER
        pages = [read_page(path, root) for path in sorted(folder.glob("*.md")) if path.is_file()]
        taken = {path.stem for path in folder.iterdir()} if folder.is_dir() else set()
        categories = site_categories(root)

        def update(page: Page, paper: Paper) -> list[FileChange]:
            # a permalink added to a page the user has would move it (Jekyll's default is /publications/<name>/)
            fill(page.front, [(key, value) for key, value in front_fields(paper, page.path.stem, categories)
                              if key != "permalink"])
            return [FileChange(page.path, page.before, page.front.render())]

        def create(paper: Paper) -> list[FileChange]:
            name = free_name(f"{full_date(paper) or '1900-01-01'}-{slug(paper.key)}", taken)
            return [FileChange(folder / f"{name}.md", None, new_page(front_fields(paper, name, categories)))]

        return plan_pages(pages, papers, options, root,
                          lambda page: page_facts(page.front.values, LINK_KEYS), update, create,
                          lambda page: _DATED.sub("", page.path.stem))


def site_categories(root: Path) -> list[str]:
    """The keys of ``_config.yml``'s ``publication_category`` (none when it has none or cannot be read)."""
    try:
        config = yaml.safe_load((root / "_config.yml").read_bytes())
    except (OSError, yaml.YAMLError):
        return []
    found = config.get("publication_category") if isinstance(config, dict) else None
    return [str(key) for key in found] if isinstance(found, dict) else []


def front_fields(paper: Paper, name: str, categories: Sequence[str]) -> list[Field]:
    """The synced fields, in the order the theme's generator writes them; ``name`` is the file's
    name without ``.md``, which the permalink repeats."""
    title = shown_title(paper)
    date = full_date(paper)
    venue = shown_venue(paper)
    url = paper_url(paper)
    return [
        ("title", yaml_scalar(title) if title else None),
        ("collection", "publications"),
        ("permalink", yaml_scalar(f"/publication/{name}")),
        ("category", _category(paper, categories)),
        ("date", date),  # a YAML date, as the theme's files have it
        ("venue", yaml_scalar(venue) if venue else None),
        ("paperurl", yaml_scalar(url) if url else None),
        ("citation", yaml_scalar(citation(paper))),
        scholar_field(paper),
    ]


def _category(paper: Paper, categories: Sequence[str]) -> str | None:
    if not categories:
        return None
    wanted = CATEGORIES.get(csl_type(paper) or "", DEFAULT_CATEGORY)
    return yaml_scalar(wanted if wanted in categories else categories[0])


def paper_url(paper: Paper) -> str | None:
    """Where the paper is read: its DOI's page, else its arXiv page, else its URL."""
    if paper.ids.doi:
        return f"https://doi.org/{paper.ids.doi}"
    if paper.ids.arxiv:
        return f"https://arxiv.org/abs/{paper.ids.arxiv}"
    return paper.url


def citation(paper: Paper) -> str:
    """The theme's citation: ``Authors. (Year). &quot;Title.&quot; <i>Venue</i>.`` as HTML, a cut
    author list ending in ``et al.``.

    >>> from pubharvest.merge import Paper
    >>> print(citation(Paper(key="k", title="Q&A", authors=["A O'Neil", "B C"], authors_truncated=True,
    ...                      venue="<SC>", year=2020, sources=[])))
    A O&#x27;Neil, B C, et al. (2020). &quot;Q&amp;A.&quot; <i>&lt;SC&gt;</i>.
    """
    authors = shown_authors(paper)
    parts = []
    if authors:
        joined = ", ".join(authors)
        parts.append(html.escape(joined) + ("" if joined.endswith(".") else "."))
    if paper.year:
        parts.append(f"({paper.year}).")
    if title := shown_title(paper):
        parts.append(f"&quot;{html.escape(title.rstrip('.'))}.&quot;")
    if venue := shown_venue(paper):
        parts.append(f"<i>{html.escape(venue)}</i>.")
    return " ".join(parts)
