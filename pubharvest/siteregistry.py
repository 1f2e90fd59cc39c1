"""The site registry: one module per site, asked in this order; the first that recognises a page wins;
and how messages and help name each site.

Adding a site is adding its module and its line here (see docs/adding-a-site.md). A leaf outside
``pubharvest.parsers``, so that ``pubharvest --help`` names the sites without importing the parsers:
the parsers' ``__init__`` (which asks the sites), the record model (which checks a record's ``site``
against them) and each site's ``SITE`` (its ``title``) read it, so that imports run one way.
``pubharvest.parsers.SITES`` is this tuple, read and written here.

>>> SITES
('scholar', 'msr', 'elamur')
>>> TITLES["msr"]
'Microsoft Research'
"""

from __future__ import annotations

SITES: tuple[str, ...] = ("scholar", "msr", "elamur")
# how messages name each site ("Google Scholar"): its ``SiteInfo.title``
TITLES: dict[str, str] = {"scholar": "Google Scholar", "msr": "Microsoft Research", "elamur": "Elamur Research"}
