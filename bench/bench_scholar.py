"""Scholar parse speed against two floors measured in the same run: ``lxml.html.fromstring`` of the same
bytes (the bare tree), and that tree plus the XPaths that read the same fields (``xpath_floor``).

    PUBHARVEST_CORPUS=../shared/research python bench/bench_scholar.py [--repeat 201] [--pages DIR...]

Prints, per real profile page and for the 1,114-row fragment, the parse and each floor run in turn
(``figures.interleaved``: CPU time, min and median) and their ratios (goals: 2x the bare tree and 1.3x
the XPath floor for a profile page, 2.5x the bare tree for the fragment); then every saved Scholar page
under ``--pages`` (default: the corpus's and the fixtures' Scholar folders), parsed one after another in
one process beside ``fromstring`` of each (goal 2x: a whole collection of saved pages, refusals included);
then the start-up time of ``pubharvest --help`` beside a bare ``python -c pass``. Nothing here is a timed
test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import lxml.html
from figures import HEADER, interleaved
from lxml import etree

import pubharvest.parsers as parsers

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("PUBHARVEST_CORPUS", ROOT.parent / "shared" / "research"))
FRAGMENT = CORPUS / "scholar" / "fragment_rows_qc6CJjYAAAAJ_einstein_gssa_2021.html"
PAGES = [*sorted((CORPUS / "scholar").glob("profile_*.html")), FRAGMENT]
GOALS = {"profile": 2.0, "rows": 2.5}
XPATH_GOAL = 1.3
COLLECTION_GOAL = 2.0
SAVED_SUFFIXES = (".html", ".htm", ".txt")


def median_seconds(work, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def raw_lxml(data: bytes) -> lxml.html.HtmlElement:
    if data.lstrip().startswith(b"<tr"):  # a bare row fragment needs a table around it, as the parser gives it
        return lxml.html.fromstring(b"<table><tbody>" + data + b"</tbody></table>")
    return lxml.html.fromstring(data)


# What the parser reads of a profile page, by the quickest XPaths: its parts by id (libxml2 indexes ids), then
# within each the header's lines and links, the metrics cells, the chart's labels and bars, the public-access
# counts, the co-authors, and per row its title link, grey lines, count and year with the links' addresses.
_PARTS = etree.XPath("id('gsc_prf_in gsc_prf_i gsc_prf_ivh gsc_prf_pu gsc_rsb_st gsc_rsb_mnd gsc_rsb_co gsc_g "
                     "gsc_rsb_cit gsc_a_nn gsc_bpf_more') | /html/head/link[@rel='canonical']/@href")
_IN_PARTS = etree.XPath(".//div[@class='gsc_prf_il'] | .//a | .//a/@href | .//img/@src | .//td | .//th"
                        " | .//span[@class='gsc_g_t'] | .//a[@class='gsc_g_a']/@style | .//li//span")
_ROWS = etree.XPath("id('gsc_a_b')/tr")
_ROW = etree.XPath("td/a | td/a/@href | td/div | td/span")


def xpath_floor(data: bytes) -> int:
    """The bare tree plus every field the parser reads, each by an XPath, its text taken: the floor a
    parser that checks nothing would have. Returns how many values were read."""
    root = raw_lxml(data)
    values = []
    for part in _found(_PARTS(root)):
        values.append(_text(part))
        if isinstance(part, lxml.html.HtmlElement):
            values += [_text(found) for found in _found(_IN_PARTS(part))]
    for row in _found(_ROWS(root)):
        if isinstance(row, etree._Element):
            values += [_text(found) for found in _found(_ROW(row))]
    return len(values)


def _found(result: object) -> list[object]:
    """What an XPath of elements and attributes found (lxml types its answer as any XPath value)."""
    return list(result) if isinstance(result, list) else []


def _text(found: object) -> str:
    return found.text_content() if isinstance(found, lxml.html.HtmlElement) else str(found)


def against_lxml(data: bytes, goal: float, repeat: int = 201) -> str:
    """The columns of ``figures.HEADER`` for one page: its parse beside a raw lxml parse of the same bytes."""
    return interleaved(partial(parsers.parse, data), partial(raw_lxml, data), repeat).line(goal)


def saved_pages(folders: list[Path]) -> list[bytes]:
    """Every saved page under ``folders`` (any depth), in a stable order."""
    return [path.read_bytes() for folder in folders for path in sorted(folder.rglob("*"))
            if path.is_file() and path.suffix.lower() in SAVED_SUFFIXES]


def parse_all(pages: list[bytes]) -> None:
    """Each page parsed as ``parse`` would, a refusal counting as the page's answer."""
    for data in pages:
        try:
            parsers.parse(data)
        except parsers.ParseError:
            pass


def fromstring_all(pages: list[bytes]) -> None:
    for data in pages:
        try:
            raw_lxml(data)
        except (etree.ParserError, ValueError):  # an empty or text page has no tree: the parse refuses it too
            pass


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--repeat", type=int, default=201, help="runs of each (31 for pages over 500 KB)")
    options.add_argument("--pages", type=Path, nargs="*", metavar="DIR",
                         default=[CORPUS / "scholar", ROOT / "fixtures" / "scholar"],
                         help="folders of saved Scholar pages for the collection figure")
    args = options.parse_args()
    repeat = args.repeat
    print(f"{'page':46} {'rows':>5} {'floor':>6} {HEADER}")
    for page in PAGES:
        data = page.read_bytes()
        result = parsers.parse(data)
        runs = min(repeat, 31) if len(data) > 500_000 else repeat
        floors = [("lxml", raw_lxml, GOALS[result.page])]
        if result.page == "profile":
            floors.append(("xpath", xpath_floor, XPATH_GOAL))
        for name, floor, goal in floors:
            paired = interleaved(partial(parsers.parse, data), partial(floor, data), runs)
            print(f"{page.name[:46]:46} {len(result.publications):5d} {name:>6} {paired.line(goal)}")
    collection = saved_pages(args.pages)
    if collection:
        paired = interleaved(partial(parse_all, collection), partial(fromstring_all, collection), 11)
        size = sum(map(len, collection)) / 1e6
        rate = len(collection) / paired.work[1]
        print(f"{f'{len(collection)} saved pages, {size:.1f} MB, one process':46} {'':5} {'lxml':>6} "
              f"{paired.line(COLLECTION_GOAL)}  ({rate:.0f} pages/s)")
    cli = [sys.executable, "-m", "pubharvest.cli", "--help"]
    bare = [sys.executable, "-c", "pass"]
    run = lambda cmd: subprocess.run(cmd, capture_output=True, check=True)  # noqa: E731
    help_time = median_seconds(lambda: run(cli), 9)
    bare_time = median_seconds(lambda: run(bare), 9)
    verdict = "ok" if help_time < 0.2 else "MISSED"
    print(f"pubharvest --help: {help_time * 1e3:.0f} ms "
          f"(bare python: {bare_time * 1e3:.0f} ms; goal < 200 ms) {verdict}")


if __name__ == "__main__":
    main()
