"""Identifiers of papers and people, recognised by what they are: DOIs, arXiv ids, ORCID iDs, OpenAlex and
Wikidata ids, read from a link's address, a page's meta data or its text, and written with their provenance.

Each value is normalised as the record holds it: a DOI in lower case without its resolver or the parts a
publisher's address adds around it, an arXiv id without its version.

>>> doi_in_url("https://onlinelibrary.wiley.com/doi/abs/10.1002/JQS.691")
'10.1002/jqs.691'
>>> doi_in_url("https://www.tandfonline.com/doi/abs/10.1577/1548-8446(1979)004%3C0005%3ARASOFP%3E2.0.CO%3B2")
'10.1577/1548-8446(1979)004<0005:rasofp>2.0.co;2'
>>> arxiv_in_url("https://arxiv.org/pdf/2312.03687v2.pdf"), find_arxiv_id("arXiv preprint arXiv:2201.11990, 2022")
('2312.03687', '2201.11990')
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal
from urllib.parse import parse_qsl, unquote, urlsplit

from .records import Ids, PageResult, Profile, Provenance, Publication, PublicationIds
from .warning_codes import Warn

__all__ = [
    "normal_doi", "doi_in_url", "find_doi", "normal_arxiv", "arxiv_in_url", "arxiv_of_doi", "find_arxiv_id",
    "valid_orcid", "orcid_in_url", "openalex_in_url", "wikidata_in_url", "PAPER_LINK_KINDS", "PageMethod",
    "give_id", "ids_from_links", "ids_from_meta", "ids_from_text",
]

# The kinds of ``Link`` that lead to the paper itself (``ids_from_links``): Scholar's title link
# ("publisher") and full-text badges ("pdf", "html", ...), MSR's external and PDF buttons.
PAPER_LINK_KINDS = frozenset({"publisher", "external", "pdf", "html", "fulltext", "doc", "ps", "epub"})
# The meta tags (Highwire Press, Dublin Core, PRISM) that name a paper's DOI or arXiv id, in lower case.
DOI_META = frozenset({"citation_doi", "dc.identifier", "dc.identifier.doi", "prism.doi", "bepress_citation_doi"})
ARXIV_META = frozenset({"citation_arxiv_id"})
# How a page gave a value (``Provenance.method`` of ``source="page"``).
PageMethod = Literal["link", "meta", "text", "venue"]

# A DOI: the directory indicator 10, a registrant code of 4 to 9 digits, a slash, a suffix of printable
# characters (ISO 26324; Crossref's own pattern). CiteSeerX's "10.1.1.x" ids are no DOIs and fail it.
_DOI_START = re.compile(r"10\.\d{4,9}/")
_DOI_WHOLE = re.compile(r"10\.\d{4,9}/\S+\Z")
# In text, a DOI is named as one: "doi:10.…", "DOI 10.…", "https://doi.org/10.…"
_DOI_IN_TEXT = re.compile(r"(?:\bdoi\b\s*[:=]?\s*|\bdoi\.org/)(10\.\d{4,9}/\S+)", re.I)
_DOI_RESOLVERS = ("doi.org", "dx.doi.org", "www.doi.org", "hdl.handle.net")
_DOI_SCHEME = re.compile(r"\A(?:doi:\s*|urn:doi:|info:doi/)", re.I)
# Path segments a publisher's address puts before a DOI (ACM, Wiley, Taylor & Francis, SAGE, Science,
# Royal Society: /doi/[abs|full|pdf|epdf|...]/; Springer: /article|chapter|book|content/pdf/; Frontiers:
# /articles/; bioRxiv: /content/), and the query keys that hold one (PLOS: ?id=).
_BEFORE_DOI = frozenset({"doi", "abs", "full", "pdf", "epdf", "pdfdirect", "epub", "reader", "book", "books",
                         "article", "articles", "chapter", "content", "referenceworkentry", "protocol", "fulltext"})
_DOI_QUERY_KEYS = frozenset({"doi", "id", "rft_id"})
# What a publisher's address adds after the DOI: a view of the paper (/abstract, /full, .full.pdf, ...)
_AFTER_DOI = re.compile(r"(?:/(?:abstract|full|fulltext|pdf|epdf|html|meta|references|figures|tables|summary|"
                        r"citedby|metrics|info|suppl|supplemental)|\.full\.pdf|\.full|\.abstract|\.pdf|/)\Z", re.I)
# bioRxiv and medRxiv address a paper's versions by its DOI and a version ("...123456v2"); the DOI has none.
_RXIV_VERSION = re.compile(r"\A(10\.1101/(?:\d{4}\.\d{2}\.\d{2}\.)?\d{6,})v\d+\Z")
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}
_TRAILING = ".,;:'\"!?"

# arXiv: new style YYMM.NNNN (April 2007 to 2014) or YYMM.NNNNN (2015 on), old style archive[.XX]/YYMMNNN
# (1991 to March 2007); an optional version.
_ARXIV_NEW = re.compile(r"(\d{2})(0[1-9]|1[0-2])\.(\d{4,5})(?:v\d+)?")
_OLD_ARCHIVES = ("acc-phys", "adap-org", "alg-geom", "ao-sci", "astro-ph", "atom-ph", "bayes-an", "chao-dyn",
                 "chem-ph", "cmp-lg", "comp-gas", "cond-mat", "cs", "dg-ga", "funct-an", "gr-qc", "hep-ex",
                 "hep-lat", "hep-ph", "hep-th", "math", "math-ph", "mtrl-th", "nlin", "nucl-ex", "nucl-th",
                 "patt-sol", "physics", "plasm-ph", "q-alg", "q-bio", "quant-ph", "solv-int", "supr-con")
_ARXIV_OLD = re.compile(r"(" + "|".join(_OLD_ARCHIVES) + r")(\.[A-Za-z]{2})?/(\d{2})(0[1-9]|1[0-2])(\d{3})(?:v\d+)?",
                        re.I)
# In text, an arXiv id is named as such: "arXiv:2201.11990", "arXiv preprint arXiv:...", "arxiv.org/abs/..."
_ARXIV_NAMED = re.compile(r"\barxiv(?:\.org/(?:abs|pdf)/|[:\s/]*(?:abs/)?)(\S+)", re.I)
_ARXIV_HOSTS = ("arxiv.org", "www.arxiv.org", "export.arxiv.org")
_ARXIV_DOI = re.compile(r"\A10\.48550/arxiv\.(.+)\Z")

_ORCID = re.compile(r"\A(\d{4})-?(\d{4})-?(\d{4})-?(\d{3}[\dX])\Z", re.I)
_OPENALEX_AUTHOR = re.compile(r"\A/(?:authors/)?(A\d+)\Z", re.I)
_WIKIDATA = re.compile(r"\A/(?:wiki|entity)/(Q\d+)\Z")


# --- DOIs --------------------------------------------------------------------------------------


def normal_doi(text: str | None) -> str | None:
    """The DOI ``text`` is, in lower case (DOIs are case-insensitive), without a resolver's address, a
    ``doi:`` scheme or the punctuation of a sentence around it; None when it is no DOI.

    >>> normal_doi("https://doi.org/10.1145/3458817.3476205."), normal_doi("doi: 10.1371/journal.PONE.0033693")
    ('10.1145/3458817.3476205', '10.1371/journal.pone.0033693')
    >>> normal_doi("(see 10.1016/0021-9991(79)90051-5)"), normal_doi("10.1.1.123.4567"), normal_doi("10.1234/")
    (None, None, None)
    >>> normal_doi("10.1016/0021-9991(79)90051-5)")
    '10.1016/0021-9991(79)90051-5'
    """
    value = _DOI_SCHEME.sub("", (text or "").strip())
    if value.lower().startswith(("http://", "https://")):
        parts = urlsplit(value)
        if (parts.hostname or "") not in _DOI_RESOLVERS:
            return None
        value = unquote(parts.path).lstrip("/")
    value = _without_trailing_punctuation(value)
    return value.lower() if _DOI_WHOLE.match(value) else None


def _without_trailing_punctuation(value: str) -> str:
    """``value`` without the sentence's punctuation after it and closing brackets it did not open.

    >>> _without_trailing_punctuation("10.1/x(1)).;"), _without_trailing_punctuation("10.1002/(sici)1-j>2.0.co;2")
    ('10.1/x(1)', '10.1002/(sici)1-j>2.0.co;2')
    """
    while value:
        last = value[-1]
        if last in _TRAILING:
            value = value[:-1]
        elif last in _CLOSERS and value.count(_CLOSERS[last]) < value.count(last):
            value = value[:-1]
        else:
            return value
    return value


def doi_in_url(url: str | None) -> str | None:
    """The DOI a link's address names: a resolver's (``doi.org``), a publisher's path that holds one after
    a marker segment (``/doi/abs/``, ``/article/``, ``/content/pdf/``, ...), or a query value (PLOS's
    ``?id=``); without the view the publisher adds (``/full``, ``.pdf``) and a bioRxiv version. None for
    an address that holds no DOI (ScienceDirect's ``pii``, IEEE's document numbers).

    >>> doi_in_url("https://link.springer.com/content/pdf/10.1186/s40854-021-00321-6.pdf")
    '10.1186/s40854-021-00321-6'
    >>> doi_in_url("https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0033693")
    '10.1371/journal.pone.0033693'
    >>> doi_in_url("https://www.biorxiv.org/content/10.1101/2020.03.01.972133v2.full.pdf")
    '10.1101/2020.03.01.972133'
    >>> doi_in_url("https://www.frontiersin.org/articles/10.3389/fpsyg.2020.01234/full")
    '10.3389/fpsyg.2020.01234'
    >>> doi_in_url("https://www.sciencedirect.com/science/article/pii/S0021999179900515")
    >>> doi_in_url("https://example.org/files/10.2000/x") is None
    True
    """
    if not url:
        return None
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    if host in _DOI_RESOLVERS:
        return normal_doi(_without_view(unquote(parts.path).lstrip("/")))
    for key, value in parse_qsl(parts.query):
        if key.lower() in _DOI_QUERY_KEYS and _DOI_START.match(value):
            return normal_doi(value)
    segments = unquote(parts.path).split("/")
    for at, segment in enumerate(segments[1:], 1):
        if segments[at - 1].lower() in _BEFORE_DOI and _DOI_START.match(segment + "/"):
            return normal_doi(_without_view("/".join(segments[at:])))
    return None


def _without_view(path: str) -> str:
    """A DOI taken from an address without the publisher's view after it and a bioRxiv version.

    >>> _without_view("10.1002/etc.5620131212/abstract"), _without_view("10.1101/123456v3.full")
    ('10.1002/etc.5620131212', '10.1101/123456')
    """
    while (shorter := _AFTER_DOI.sub("", path)) != path and _DOI_START.match(shorter + "/"):
        if not _DOI_WHOLE.match(shorter):
            break
        path = shorter
    match = _RXIV_VERSION.match(path)
    return match.group(1) if match else path


def find_doi(text: str | None) -> str | None:
    """The first DOI ``text`` names as one (``doi:10.…``, ``DOI 10.…``, ``https://doi.org/10.…``), normalised; a
    bare ``10.…/…`` is not taken from text, where it may be anything.

    >>> find_doi("Nature 521, 436 (2015). doi:10.1038/nature14539."), find_doi("DOI: 10.1145/3458817.3476205")
    ('10.1038/nature14539', '10.1145/3458817.3476205')
    >>> find_doi("Table 10.1234/5678"), find_doi("version 10.2 of 2020/21")
    (None, None)
    """
    for match in _DOI_IN_TEXT.finditer(text or ""):
        if found := normal_doi(match.group(1)):
            return found
    return None


# --- arXiv -------------------------------------------------------------------------------------


def normal_arxiv(text: str | None) -> str | None:
    """The arXiv id ``text`` is (new or old style, a version dropped), checked by what it is: a real
    month, new-style ids from April 2007 with four digits to 2014 and five from 2015, old-style from
    1991 to 2007 in a known archive.

    >>> normal_arxiv("2101.06840v3"), normal_arxiv("hep-th/9901001"), normal_arxiv("math.gt/0309136v1")
    ('2101.06840', 'hep-th/9901001', 'math.GT/0309136')
    >>> normal_arxiv("2113.01234"), normal_arxiv("1412.12345"), normal_arxiv("0612.1234"), normal_arxiv("foo/9901001")
    (None, None, None, None)
    """
    value = (text or "").strip()
    if match := _ARXIV_NEW.fullmatch(value):
        return _new_style(match)
    if match := _ARXIV_OLD.fullmatch(value):
        return _old_style(match)
    return None


def _new_style(match: re.Match[str]) -> str | None:
    year, month, number = int(match.group(1)), int(match.group(2)), match.group(3)
    if (year, month) < (7, 4) or len(number) != (4 if year < 15 else 5):
        return None
    return f"{match.group(1)}{match.group(2)}.{number}"


def _old_style(match: re.Match[str]) -> str | None:
    year = int(match.group(3))
    if not (year >= 91 or year <= 7):
        return None
    subject = (match.group(2) or "").upper()
    return f"{match.group(1).lower()}{subject}/{match.group(3)}{match.group(4)}{match.group(5)}"


def arxiv_in_url(url: str | None) -> str | None:
    """The arXiv id an address names: arXiv's own (``/abs/``, ``/pdf/``, ``/html/``, with or without
    ``.pdf`` and a version) or arXiv's DOI (``10.48550/arXiv.…``).

    >>> arxiv_in_url("https://arxiv.org/abs/hep-th/9901001v2"), arxiv_in_url("https://doi.org/10.48550/arXiv.2101.06840")
    ('hep-th/9901001', '2101.06840')
    >>> arxiv_in_url("https://example.org/abs/2101.06840") is None
    True
    """
    path = _path_on(url, _ARXIV_HOSTS)
    if path is not None:
        kind, _, rest = path.lstrip("/").partition("/")
        if kind in ("abs", "pdf", "html", "format", "ps"):
            return normal_arxiv(rest.removesuffix(".pdf").rstrip("/"))
        return None
    return arxiv_of_doi(doi_in_url(url))


def arxiv_of_doi(doi: str | None) -> str | None:
    """The arXiv id that arXiv's own DOI (``10.48550/arXiv.…``, DataCite's since 2022) names.

    >>> arxiv_of_doi("10.48550/arxiv.2101.06840"), arxiv_of_doi("10.1145/3458817.3476205")
    ('2101.06840', None)
    """
    match = _ARXIV_DOI.match((doi or "").lower())
    return normal_arxiv(match.group(1)) if match else None


def find_arxiv_id(text: str | None) -> str | None:
    """The arXiv id ``text`` names as one (``arXiv:2201.11990``, ``arXiv preprint arXiv:…``,
    ``arxiv.org/abs/…``), checked by ``normal_arxiv``.

    >>> find_arxiv_id("arXiv preprint arXiv:2201.11990, 2022"), find_arxiv_id("arXiv: hep-th/9901001v1")
    ('2201.11990', 'hep-th/9901001')
    >>> find_arxiv_id("arXiv preprint, 2022") is None, find_arxiv_id("in 2201.11990") is None
    (True, True)
    """
    for match in _ARXIV_NAMED.finditer(text or ""):
        candidate = match.group(1).rstrip(".,;:)]")
        for form in (candidate, candidate.removesuffix(".pdf")):
            if found := normal_arxiv(form):
                return found
    return None


# --- people ------------------------------------------------------------------------------------


def valid_orcid(text: str | None) -> str | None:
    """The ORCID iD ``text`` is, as ``0000-0002-5508-0728``, when its check digit (ISO 7064 11,2) is right.

    >>> valid_orcid("0000-0002-5508-0728"), valid_orcid("0000000255080728"), valid_orcid("0000-0002-5508-0729")
    ('0000-0002-5508-0728', '0000-0002-5508-0728', None)
    >>> valid_orcid("0000-0002-1694-233x")
    '0000-0002-1694-233X'
    """
    match = _ORCID.match((text or "").strip())
    if not match:
        return None
    digits = "".join(match.groups()).upper()
    total = 0
    for digit in digits[:-1]:
        total = (total + int(digit)) * 2
    check = (12 - total % 11) % 11
    if digits[-1] != ("X" if check == 10 else str(check)):
        return None
    return "-".join(digits[i:i + 4] for i in range(0, 16, 4))


def orcid_in_url(url: str | None) -> str | None:
    """The ORCID iD of an ``orcid.org`` address.

    >>> orcid_in_url("https://orcid.org/0000-0002-5508-0728"), orcid_in_url("https://orcid.org/my-orcid")
    ('0000-0002-5508-0728', None)
    """
    path = _path_on(url, ("orcid.org", "www.orcid.org", "sandbox.orcid.org"))
    return valid_orcid(path.strip("/")) if path is not None else None


def openalex_in_url(url: str | None) -> str | None:
    """The OpenAlex author id of an ``openalex.org`` author address (``/A…`` or ``/authors/A…``).

    >>> openalex_in_url("https://openalex.org/A5022644245"), openalex_in_url("https://openalex.org/W2741809807")
    ('A5022644245', None)
    """
    match = _OPENALEX_AUTHOR.match(_path_on(url, ("openalex.org", "api.openalex.org", "www.openalex.org")) or "")
    return match.group(1).upper() if match else None


def wikidata_in_url(url: str | None) -> str | None:
    """The Wikidata item of a ``wikidata.org`` address.

    >>> wikidata_in_url("https://www.wikidata.org/wiki/Q131023905"), wikidata_in_url("https://www.wikidata.org/wiki/P31")
    ('Q131023905', None)
    """
    match = _WIKIDATA.match(_path_on(url, ("www.wikidata.org", "wikidata.org", "m.wikidata.org")) or "")
    return match.group(1) if match else None


def _path_on(url: str | None, hosts: tuple[str, ...]) -> str | None:
    """The path of ``url``, decoded, when its host is one of ``hosts`` (lower case); else None.

    >>> _path_on("https://ORCID.org/0000%2D0002", ("orcid.org",)), _path_on("https://orcid.org.evil/x", ("orcid.org",))
    ('/0000-0002', None)
    """
    parts = urlsplit((url or "").strip())
    return unquote(parts.path) if (parts.hostname or "").lower() in hosts else None


# --- recording ---------------------------------------------------------------------------------


def give_id(record: Publication | Profile, kind: str, value: str | None, method: PageMethod, where: str | None,
            result: PageResult | None = None) -> bool:
    """Give ``record`` the id ``value`` of ``kind`` (``doi``, ``arxiv``, ``orcid``, ...) that its page states,
    with its provenance; whether it was taken. The first value read stays: a different one is kept in the
    provenance as not accepted, and warned about (``id_conflict``) on ``result``; the same one again adds
    nothing.

    >>> pub = Publication()
    >>> give_id(pub, "doi", "10.1/a", "link", "https://doi.org/10.1/a"), give_id(pub, "doi", "10.1/a", "meta", "m")
    (True, False)
    >>> give_id(pub, "doi", "10.1/b", "text", None), pub.ids.doi, [p.accepted for p in pub.provenance]
    (False, '10.1/a', [True, False])
    """
    if not value:
        return False
    ids: Ids | PublicationIds = record.ids
    have = getattr(ids, kind)
    field = f"ids.{kind}"
    if have == value:
        return False
    if have is not None:
        record.provenance.append(Provenance(field=field, value=value, source="page", method=method, where=where,
                                            accepted=False, reason=f"the page gave {have} first"))
        if result is not None:
            what = repr(record.title) if isinstance(record, Publication) else f"the profile of {record.name!r}"
            result.warn(Warn.id_conflict, f"{what}: the {kind} {value} ({_how(method, where)}) differs from {have}, "
                                          f"read first: {have} is kept")
        return False
    setattr(ids, kind, value)
    record.provenance.append(Provenance(field=field, value=value, source="page", method=method, where=where))
    return True


def _how(method: PageMethod, where: str | None) -> str:
    """How a value was read, for a message: ``link https://…``, ``text``."""
    return f"{method} {where}" if where else method


def ids_from_links(pub: Publication, result: PageResult | None = None) -> None:
    """The DOI and arXiv id that the addresses of ``pub``'s own links name: its ``url``, then its links to
    the paper itself (``PAPER_LINK_KINDS``: the publisher's page, the full text), in page order, each given
    with the address it was read from (``give_id``). Links to other things (citing papers, versions, a
    library, the BibTeX) are not read.

    >>> from pubharvest.parsers.records import Link
    >>> pub = Publication(url="https://dl.acm.org/doi/abs/10.1145/3458817.3476205",
    ...                   links=[Link(kind="pdf", url="https://arxiv.org/pdf/2104.07857v1.pdf")])
    >>> ids_from_links(pub); pub.ids.doi, pub.ids.arxiv, [p.method for p in pub.provenance]
    ('10.1145/3458817.3476205', '2104.07857', ['link', 'link'])
    """
    urls = [pub.url] + [link.url for link in pub.links if link.kind in PAPER_LINK_KINDS]
    for url in urls:
        if not url:
            continue
        give_id(pub, "arxiv", arxiv_in_url(url), "link", url, result)
        doi = doi_in_url(url)
        if not arxiv_of_doi(doi):  # arXiv's DOI names the preprint: its arXiv id says as much
            give_id(pub, "doi", doi, "link", url, result)


def ids_from_meta(pub: Publication, meta: Iterable[tuple[str, str]], result: PageResult | None = None) -> None:
    """The DOI and arXiv id that a paper page's meta tags (``name``, ``content`` pairs) state: ``citation_doi``,
    ``dc.identifier``, ``prism.doi``, ``citation_arxiv_id`` (``DOI_META``, ``ARXIV_META``); a ``dc.identifier``
    that is no DOI (an ISBN, an address) gives nothing.

    >>> pub = Publication()
    >>> ids_from_meta(pub, [("DC.identifier", "ISBN 978-1-4503-8442-1"),
    ...                     ("citation_doi", "doi:10.1145/3458817.3476205")])
    >>> pub.ids.doi, pub.provenance[0].where
    ('10.1145/3458817.3476205', 'meta[name=citation_doi]')
    """
    for name, content in meta:
        key = name.strip().lower()
        if key in DOI_META:
            give_id(pub, "doi", normal_doi(content), "meta", f"meta[name={name}]", result)
        elif key in ARXIV_META:
            give_id(pub, "arxiv", normal_arxiv(content) or find_arxiv_id(content), "meta", f"meta[name={name}]",
                    result)


def ids_from_text(pub: Publication, text: str, result: PageResult | None = None) -> None:
    """The DOI and arXiv id that a paper's text names as such (``find_doi``, ``find_arxiv_id``: ``DOI: 10.…``,
    ``arXiv:2101.06840``), given with ``method="text"``.

    >>> pub = Publication()
    >>> ids_from_text(pub, "Nature 639, 624-632 (2025). DOI: 10.1038/s41586-025-08628-5"); pub.ids.doi
    '10.1038/s41586-025-08628-5'
    """
    give_id(pub, "doi", find_doi(text), "text", None, result)
    give_id(pub, "arxiv", find_arxiv_id(text), "text", None, result)
