"""What a site is, declared once in its own module (``SITE = SiteInfo(...)``); everything else that
needs to know the sites (record validation, the scrapers, the store, merge, CSV columns, messages)
reads the registry in ``pubharvest.parsers`` instead of naming them.

>>> info = SiteInfo(name="toy", title="Toy Research", base_url="https://toy.example.org",
...                 hosts=("toy.example.org",), id_pattern=r"[a-z]+", id_example="ada",
...                 profile_path="/people/{id}/", page_kinds=("profile",))
>>> info.profile_url("ada"), info.serves("https://www.toy.example.org/people/ada/")
('https://toy.example.org/people/ada/', True)
>>> info.check_id("Ada!")
Traceback (most recent call last):
...
ValueError: 'Ada!' is not a toy id (like 'ada')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

__all__ = ["SiteInfo"]


@dataclass(frozen=True)
class SiteInfo:
    """One site's identity: its name in records, where it lives, what its ids and pages look like."""

    name: str  # the ``site`` value of its records and the name of its id field in ``Ids``
    title: str  # how messages name it ("Google Scholar")
    base_url: str  # scheme and host a scraper fetches from, without a trailing slash
    hosts: tuple[str, ...]  # host name parts that serve it ("scholar.google." matches every country)
    id_pattern: str  # a whole profile id (regular expression)
    id_example: str
    profile_path: str  # a profile's path under ``base_url``, with ``{id}`` where its id goes
    page_kinds: tuple[str, ...]  # the ``page`` values its parser can give
    block_markers: tuple[str, ...] = ()  # markup only its CAPTCHA / "unusual traffic" pages hold
    # Markup its HTML pages hold near their start, before any content (their inline style sheet's
    # first rules): what tells a page of the site cut short before its content.
    head_markers: tuple[str, ...] = ()
    # A regular expression whose first group, in a paper's own id on this site, is the id of the
    # profile listing it (Scholar's ``UID:PUBID``); empty when the site's paper ids name no profile.
    paper_id_profile: str = ""

    def check_id(self, value: str) -> None:
        """Raise ``ValueError`` when ``value`` cannot be a profile id on this site."""
        if not re.fullmatch(self.id_pattern, value):
            raise ValueError(f"{value!r} is not a {self.name} id (like {self.id_example!r})")

    def profile_of_paper(self, paper_id: str | None) -> str | None:
        """The id of the profile whose listing the paper id ``paper_id`` belongs to, when the site's
        paper ids name one (``paper_id_profile``), else None.

        >>> SiteInfo(name="toy", title="", base_url="", hosts=(), id_pattern="", id_example="", profile_path="",
        ...          page_kinds=(), paper_id_profile=r"([a-z]+):").profile_of_paper("ada:p1")
        'ada'
        """
        found = re.match(self.paper_id_profile, paper_id) if self.paper_id_profile and paper_id else None
        return found.group(1) if found else None

    def profile_url(self, ident: str, base_url: str | None = None) -> str:
        """The URL of the profile ``ident``, on ``base_url`` (a mirror or test server) or the site."""
        return (base_url or self.base_url).rstrip("/") + self.profile_path.format(id=quote(ident))

    def serves(self, url: str) -> bool:
        """Whether ``url`` is on one of this site's hosts."""
        host = urlsplit(url).hostname or ""
        return any(part in host for part in self.hosts)
