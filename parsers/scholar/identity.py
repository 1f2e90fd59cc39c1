"""What Google Scholar is (``SITE``), apart from the lxml toolkit of ``_base``: the registry asks the
site of every page, a Markdown or JSON page included, and that question imports nothing more."""

from __future__ import annotations

from pubharvest.siteregistry import TITLES

from ..site import SiteInfo

__all__ = ["SITE"]

SITE = SiteInfo(
    name="scholar", title=TITLES["scholar"], base_url="https://scholar.google.com", hosts=("scholar.google.",),
    id_pattern=r"[A-Za-z0-9_-]{8,20}", id_example="qc6CJjYAAAAJ",
    profile_path="/citations?user={id}&hl=en&pagesize=100",
    page_kinds=("profile", "rows", "publication_list", "publication", "coauthors", "search"),
    paper_id_profile=r"([A-Za-z0-9_-]{8,20}):",  # a row's citation_for_view: UID:PUBID
    block_markers=('id="gs_captcha_ccl"', "id=gs_captcha_ccl", 'id="captcha-form"', "id=captcha-form",
                   "rc-doscaptcha-body"),
    head_markers=("#gs_top",),  # the first rules of every Scholar page's style sheet since 2013
)
