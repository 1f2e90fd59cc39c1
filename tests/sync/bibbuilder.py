"""A realistic hand-edited ``.bib`` (about 100 entries) and the Scholar profile page it goes with, built
deterministically: comments, ``@string`` macros and references to them, ``@preamble``, ``@comment``,
Jekyll front matter, a byte order mark, a CRLF section, aligned ``=`` columns, upper-case field names,
one-line entries, quotes, braces spanning lines, HTML inside fields, a ``%`` comment inside an entry,
an entry without a key, and other people's papers.

Which entry stands for which paper is known by construction (``Built.expected``), never read back
from the code under test.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

from pubharvest.parsers.records import Ids, PageResult, Profile, Publication, PublicationIds

USER = "Tst4UsrAAAAJ"
WORDS = ("graph", "neural", "sparse", "kernel", "memory", "scaling", "robust", "quantum", "protein", "causal",
         "learning", "inference", "models", "networks", "systems", "transformers", "attention", "retrieval",
         "compilers", "storage", "privacy", "federated", "vision", "language", "speech", "energy")
OTHER = ("Cartography of tidal flats", "On the flora of Svalbard", "A survey of cuneiform tablets",
         "Bridges of K{\\\"o}nigsberg revisited", "Medieval trade routes", "Glacial erosion in the Alps")


@dataclass
class Built:
    text: bytes
    page: PageResult
    expected: dict[str, int] = field(default_factory=dict)  # entry key -> index of its publication
    unmatched: list[str] = field(default_factory=list)  # keys of entries no paper is
    conflicts: list[str] = field(default_factory=list)  # keys whose own DOI differs from the records'
    stale: str = ""  # the key whose count field holds an old value


def title_of(n: int) -> str:
    rng = random.Random(n)
    words = rng.sample(WORDS, 5)
    return f"{words[0].capitalize()} {words[1]} for {words[2]} {words[3]}: the {words[4]} case {n}"


def publications(count: int) -> list[Publication]:
    pubs = []
    for n in range(count):
        ids = PublicationIds(scholar=f"{USER}:P{n:03d}xx_Ab-C")
        if n % 5 == 0:
            ids = PublicationIds(scholar=ids.scholar, doi=f"10.5555/tst.{n}")
        if n % 7 == 0:
            ids = PublicationIds(scholar=ids.scholar, doi=ids.doi, arxiv=f"2{n % 10}01.{10000 + n}")
        pubs.append(Publication(title=title_of(n), authors=["A Tester", f"B Other{n}"], year=2000 + n % 24,
                                venue="Journal of Tests 3 (1), 1-9", type="article-journal",
                                citations=n * 3, ids=ids))
    return pubs


def profile_page(pubs: list[Publication]) -> PageResult:
    return PageResult(site="scholar", page="profile", url=f"https://scholar.google.com/citations?user={USER}",
                      profile=Profile(name="Ada Tester", ids=Ids(scholar=USER)), publications=pubs)


def entry_text(rng: random.Random, style: str, key: str, fields: list[tuple[str, str]], nl: str) -> str:
    """One entry in ``style``; ``fields`` are (name, value as written, with its delimiters)."""
    if style == "oneline":
        return f"@misc{{{key}, " + ", ".join(f"{n}={v}" for n, v in fields) + "}"
    if style == "aligned":
        width = max(len(n) for n, _ in fields) + 1
        body = f",{nl}".join(f"  {n.ljust(width)}= {v}" for n, v in fields)
        return f"@article{{{key},{nl}{body}{nl}}}"  # no trailing comma
    if style == "upper":
        body = "".join(f"\t{n.upper()} = {v},{nl}" for n, v in fields)
        return f"@ARTICLE{{{key},{nl}{body}}}"
    if style == "paren":
        body = "".join(f"    {n}={v},{nl}" for n, v in fields)
        return f"@inproceedings({key},{nl}{body})"
    body = "".join(f"  {n} = {v},{nl}" for n, v in fields)
    if rng.random() < 0.3:
        body = body.replace(f",{nl}", f", % checked by hand{nl}", 1)
    return f"@article{{{key},{nl}{body}}}"


def mangled_title(rng: random.Random, title: str) -> str:
    """The title as a person types it into a .bib: case protected, in another case, HTML or quotes."""
    first, rest = title.split(" ", 1)
    choice = rng.randrange(4)
    if choice == 0:
        return "{{" + first + "} " + rest + "}"
    if choice == 1:
        return '"' + title.upper() + '"'
    if choice == 2:
        return "{" + first + " <i>" + rest + "</i>}"
    return "{" + first + "\n      " + rest.replace(" ", "\n      ", 1) + "}"


def build(count: int = 100, seed: int = 21, keyless: bool = True) -> Built:
    rng = random.Random(seed)
    pubs = publications(70)
    built = Built(text=b"", page=profile_page(pubs))
    parts = ["---\n---\n", "% My publications, kept by hand since 2009.\n% Do not sort.\n\n",
             '@string{jtest = "Journal of Tests"}\n@string{acm = {ACM}}\n',
             "@preamble{ \"\\newcommand{\\noop}[1]{}\" }\n\n", "@comment{ old entries below were imported }\n\n"]
    styles = ["plain", "aligned", "upper", "paren", "oneline"]
    mine = list(range(60))
    rng.shuffle(mine)
    others = itertools.count()
    for at in range(count):
        nl = "\r\n" if 40 <= at < 55 else "\n"  # a section pasted from a Windows editor
        style = rng.choice(styles)
        if at % 5 == 4:  # someone else's paper
            n = next(others)
            key = f"other{n}"
            title = OTHER[n % len(OTHER)] + f", part {n}"
            fields = [("title", "{" + title + "}"), ("author", "{Someone Else and Another One}"),
                      ("journal", "jtest # \" Letters\""), ("year", str(1990 + n % 20))]
            built.unmatched.append(key)
        else:
            if not mine:
                n = next(others)
                key = f"other{n}"
                fields = [("title", "{" + OTHER[n % len(OTHER)] + f", part {n}" + "}"), ("year", "1995")]
                built.unmatched.append(key)
                parts.append(entry_text(rng, style, key, fields, nl) + nl + nl)
                continue
            n = mine.pop()
            pub = pubs[n]
            key = f"tester{pub.year}{n}"
            fields = [("title", mangled_title(rng, str(pub.title))),
                      ("author", "{Tester, Ada and Other" + str(n) + ", B<sup>&dagger;</sup>}"),
                      ("journal", rng.choice(["jtest", "{Journal of Tests}", '"J. Tests"'])),
                      ("year", rng.choice([str(pub.year), "{" + str(pub.year) + "}"])),
                      ("month", "jan")]
            if n % 10 == 0 and pub.ids.doi:
                fields.append(("doi", "{" + pub.ids.doi.upper() + "}"))  # the same DOI, another case
            if n == 15:
                fields.append(("doi", "{10.9999/a.typo}"))
                built.conflicts.append(key)
            if n == 33:  # an entry known by its Scholar id only (al-folio's form), title changed since
                fields[0] = ("title", "{An early title}")
                fields.append(("google_scholar_id", "{P033xx_Ab-C}"))
            if n == 12:
                fields.append(("pubharvest_citations", "{1 (scholar, 2020-01-01)}"))
                built.stale = key
            if n == 21:
                fields.append(("note", "{Also in\n  the <a href=\"https://x.org\">workshop</a>}"))
            built.expected[key] = n
        parts.append(entry_text(rng, style, key, fields, nl) + nl + nl)
        if at == 50 and keyless:  # biber stops at it (bibtexparser skips it)
            parts.append("@misc{ title = {An entry without a key}, year = 2001 }\n\n")
    built.text = "".join(parts).encode()
    return built
