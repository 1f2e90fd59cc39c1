"""The site registry: one module per site, asked in this order; the first that recognises a page wins.

Adding a site is adding its module and its name here (see docs/adding-a-site.md). A leaf: the
package's ``__init__`` (which asks the sites) and the record model (which checks a record's
``site`` against them) both read it, so that imports run one way. ``pubharvest.parsers.SITES``
is this tuple, read and written here.

>>> SITES
('scholar', 'msr', 'elamur')
"""

from __future__ import annotations

SITES: tuple[str, ...] = ("scholar", "msr", "elamur")
