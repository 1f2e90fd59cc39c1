"""Histories of real Scholar profile pages for ``pubharvest changes``: a corpus page edited as Scholar
would show it a week later, and saved into a store as a run at a capture time."""

from __future__ import annotations

import re

from pubharvest.errors import PubharvestError
from pubharvest.parsers import parse
from pubharvest.store import Store

ED = "scholar/profile_P1RwlvoAAAAJ_scholar-scraper_2026.html"  # 5 rows, complete ("Articles 1–5")
LZ = "scholar/profile_LZ5D_p4AAAAJ_scholar-scraper_2026.html"  # 12 rows, complete
RX = "scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html"  # first 20 rows of more: partial; 7 co-authors
WEEK = ["2026-11-13T09:00:00Z", "2026-11-20T09:00:00Z", "2026-11-27T09:00:00Z", "2026-12-04T09:00:00Z",
        "2026-12-11T09:00:00Z"]


class Page:
    """A saved Scholar profile page's HTML, edited row by row as the profile changes."""

    def __init__(self, text: str) -> None:
        self.text = text

    def row(self, pub: str) -> str:
        [row] = [r for r in re.findall(r'<tr class="gsc_a_tr">.*?</tr>', self.text) if f":{pub}\"" in r]
        return row

    def _rows_stated(self, change: int) -> None:
        self.text = re.sub(r'(gsc_a_nn">Articles 1&ndash;)(\d+)', lambda m: m[1] + str(int(m[2]) + change),
                           self.text)

    def count(self, pub: str, value: int) -> Page:
        row = self.row(pub)
        self.text = self.text.replace(row, re.sub(r'(class="gsc_a_ac gs_ibl">)\d*(</a>)', rf"\g<1>{value}\2", row))
        return self

    def drop(self, pub: str) -> Page:
        self.text = self.text.replace(self.row(pub), "")
        self._rows_stated(-1)
        return self

    def add(self, like: str, pub: str, title: str, count: int, cluster: str) -> Page:
        """A new row on top, made from the row of ``like``: its own id, title, count and cluster."""
        row = self.row(like)
        new = row.replace(f":{like}\"", f":{pub}\"")
        new = re.sub(r'(class="gsc_a_at">)[^<]*', lambda m: m[1] + title, new)
        new = re.sub(r'cites=\d+', f"cites={cluster}", new)
        new = re.sub(r'(class="gsc_a_ac gs_ibl">)\d*(</a>)', rf"\g<1>{count}\2", new)
        self.text = self.text.replace('<tr class="gsc_a_tr">', new + '<tr class="gsc_a_tr">', 1)
        self._rows_stated(+1)
        return self

    def merge(self, keep: str, into_it: str, count: int) -> Page:
        """Scholar's merged versions: ``into_it``'s row is gone, ``keep``'s count is the merged one, its
        "Cited by" link names both clusters, and a ``*`` follows it."""
        absorbed = re.search(r"cites=([\d,]+)", self.row(into_it))
        assert absorbed
        self.drop(into_it)
        row = self.row(keep)
        merged = re.sub(r"cites=([\d,]+)", lambda m: f"cites={m[1]},{absorbed[1]}", row)
        merged = re.sub(r'(class="gsc_a_ac gs_ibl">)\d*(</a>)',
                        rf'\g<1>{count}\2<span class="gsc_a_m"><a href="javascript:void(0)" class="gsc_a_am">*</a>'
                        "</span>", merged)
        self.text = self.text.replace(row, merged)
        return self

    def metric(self, index: int, value: int) -> Page:
        """The ``index``-th cell of the "Cited by" table (0: citations, 1: since, 2: h-index, ...)."""
        cells = list(re.finditer(r'<td class="gsc_rsb_std">(\d+)</td>', self.text))
        cell = cells[index]
        self.text = self.text[:cell.start(1)] + str(value) + self.text[cell.end(1):]
        return self

    def coauthor(self, user: str, name: str) -> Page:
        """A co-author more, on top of the box, made from the first one's item."""
        start = self.text.index('<ul class="gsc_rsb_a"><li>') + len('<ul class="gsc_rsb_a">')
        end = self.text.index("</li>", start) + len("</li>")
        first = self.text[start:end]
        old_user = re.search(r"user=([\w-]{12})", first)
        old_name = re.search(r'alt="([^"]+)"', first)
        assert old_user and old_name
        new = first.replace(old_user[1], user).replace(old_name[1], name)
        self.text = self.text[:start] + new + self.text[start:]
        return self

    def without_first_coauthor(self) -> Page:
        start = self.text.index('<ul class="gsc_rsb_a"><li>') + len('<ul class="gsc_rsb_a">')
        self.text = self.text[:start] + self.text[self.text.index("</li>", start) + len("</li>"):]
        return self

    def bar(self, index: int, value: int) -> Page:
        """The ``index``-th bar of the citations-per-year chart (oldest first; -1: the latest) set to ``value``."""
        bars = list(re.finditer(r'<span class="gsc_g_al">(\d+)<', self.text))
        self.text = self.text[:bars[index].start(1)] + str(value) + self.text[bars[index].end(1):]
        return self

    def affiliation(self, new: str) -> Page:
        self.text = re.sub(r'(<div class="gsc_prf_il">).*?(</div>)', lambda m: m[1] + new + m[2], self.text, count=1)
        return self


def save(store: Store, run: str, page: Page | str, at: str, fallback: str = "") -> None:
    result = parse((page.text if isinstance(page, Page) else page).encode())
    store.save(run, fallback, result, taken_at=at)





def save_refusal(store: Store, run: str, data: bytes, profile_id: str, at: str) -> str:
    """A page pubharvest refuses (a CAPTCHA, a sign-in page) kept as a job keeps it: a failure of ``run``
    for the profile; its code."""
    try:
        parse(data)
    except PubharvestError as error:
        store.save_failure(run, "scholar", profile_id, "failed", error.code, error.message, taken_at=at)
        return error.code
    raise AssertionError("the page parsed: no refusal")
