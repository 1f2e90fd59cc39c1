r"""The BibTeX and CSL-JSON of every fixture and corpus page, and of generated variants, read by the
real tools that consume them (Debian's packages; each test skips, saying which package, when its
tool is absent, and the versions that ran are printed at the start):

- classic ``bibtex`` with ``plain.bst``: no warning in the .blg; the .bbl shows arXiv ids and month names;
- ``pdflatex`` with ``\usepackage[T1]{fontenc}\usepackage[utf8]{inputenc}``: no error
  (``-halt-on-error``). Letters of scripts T1 cannot typeset (CJK, Cyrillic, ...) are kept as UTF-8
  on purpose (docs/exports.md#bibtex): the document declares exactly those, so every other
  character is checked as pdflatex reads it;
- ``biber`` with biblatex: no warning, no error;
- ``pandoc --citeproc``: every cut author list renders "et al.".
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import sys
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, corpus_dir
from lxml import html as lxml_html
from test_fixtures import PAIRS

import pubharvest.parsers as parsers
from pubharvest.bibtex import bibtex
from pubharvest.citable import PREPRINT, Citable, csl_type, issued_parts
from pubharvest.csl import csl_items
from pubharvest.errors import PubharvestError
from pubharvest.keys import Keys
from pubharvest.latex import is_other_script
from pubharvest.parsers.records import Publication, PublicationIds

pytestmark = pytest.mark.slow

# tool -> the Debian package that brings it (.ci/run installs them)
PACKAGES = {"bibtex": "texlive-binaries", "pdflatex": "texlive-latex-base", "biber": "biber", "pandoc": "pandoc"}
PREAMBLE = r"\documentclass{article}\usepackage[T1]{fontenc}\usepackage[utf8]{inputenc}\usepackage{lmodern}"
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December")
# What pdflatex's log says of a character it cannot typeset, or an error of any kind
LATEX_ERROR = re.compile(r"^! .*(?:\n.*){0,2}", re.M)  # with the lines that say where


# --- the pages ---------------------------------------------------------------------------------


def corpus_pages() -> list[str]:
    """Every saved page of the corpus (its notes, in capitals, are not pages)."""
    folder = corpus_dir()
    if folder is None:
        return []
    return sorted(str(page.relative_to(folder)) for page in folder.rglob("*")
                  if page.suffix in (".html", ".htm", ".txt", ".md") and not page.stem.isupper()
                  and page.parent.name != "reference")


PAGES = [pytest.param(page, id=str(page.relative_to(FIXTURES))) for page, _ in PAIRS]
PAGES += [pytest.param(Path(corpus_dir() or ".") / name, id=name, marks=pytest.mark.corpus) for name in corpus_pages()]


@functools.lru_cache(maxsize=None)
def publications(page: Path) -> tuple[Publication, ...]:
    try:
        result = parsers.parse(page.read_bytes())
    except PubharvestError as error:
        pytest.skip(f"{page.name}: refused as {error.code}, no records to export")
    if not result.publications:
        pytest.skip(f"{page.name}: a {result.page} page without publications")
    return tuple(result.publications)


# --- the tools ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def version(tool: str) -> str:
    flag = "-v" if tool == "biber" else "--version"
    return subprocess.run([tool, flag], capture_output=True, text=True).stdout.splitlines()[0].strip()


@pytest.fixture(scope="session")
def tools(request: pytest.FixtureRequest) -> dict[str, str]:
    """The consumers installed, by name; their versions printed once."""
    found = {tool: version(tool) for tool in PACKAGES if shutil.which(tool)}
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("consumers: " + "; ".join(found.values()) if found else "consumers: none installed")
    return found


def need(tools: dict[str, str], *names: str) -> None:
    for name in names:
        if name not in tools:
            pytest.skip(f"{name} is not installed (Debian package {PACKAGES[name]}; .ci/run installs it)")


def run(command: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, errors="replace", timeout=300,
                          stdin=subprocess.DEVNULL)


# --- bibtex + plain.bst, pdflatex -----------------------------------------------------------


def plain_bibliography(bib: str, folder: Path) -> tuple[str, str]:
    """The .blg and .bbl that ``bibtex`` with ``plain.bst`` writes for every entry of ``bib``."""
    (folder / "refs.bib").write_text(bib, encoding="utf-8")
    (folder / "doc.aux").write_text("\\relax\n\\citation{*}\n\\bibstyle{plain}\n\\bibdata{refs}\n")
    result = run(["bibtex", "doc"], folder)
    blg = (folder / "doc.blg").read_text(encoding="utf-8", errors="replace")
    assert result.returncode == 0, blg
    return blg, (folder / "doc.bbl").read_text(encoding="utf-8")


def other_script_declarations(text: str) -> str:
    """``\\DeclareUnicodeCharacter`` for the letters of scripts T1 cannot set that ``text`` holds, which
    the export keeps on purpose; any other character must be one pdflatex reads."""
    kept = sorted({char for char in text if not char.isascii() and is_other_script(char)})
    return "".join(f"\\DeclareUnicodeCharacter{{{ord(char):04X}}}{{?}}\n" for char in kept)


def pdflatex_errors(body: str, folder: Path, preamble: str = PREAMBLE, text: str | None = None) -> list[str]:
    """The errors pdflatex gives for ``body`` (``-halt-on-error``: the first one stops it), the letters
    of other scripts in ``text`` (by default ``body``) declared."""
    declarations = other_script_declarations(body if text is None else text)
    tex = f"{preamble}\n{declarations}\n\\begin{{document}}\n{body}\n\\end{{document}}\n"
    (folder / "doc.tex").write_text(tex, encoding="utf-8")
    result = run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-draftmode", "doc.tex"], folder)
    log = (folder / "doc.log").read_text(encoding="utf-8", errors="replace")
    errors = LATEX_ERROR.findall(log)
    assert result.returncode == 0 or errors, log[-2000:]
    return errors


def assert_plain_and_pdflatex_read(pubs: Sequence[Citable], tools: dict[str, str], folder: Path) -> str:
    """``bibtex`` + ``plain.bst`` without a warning, the arXiv ids and months printed, pdflatex
    without an error; the .bbl."""
    need(tools, "bibtex", "pdflatex")
    blg, bbl = plain_bibliography(bibtex(pubs), folder)
    assert "Warning--" not in blg and "error message" not in blg, blg
    text = " ".join(bbl.split())
    for pub in pubs:
        if csl_type(pub) == PREPRINT and pub.ids.arxiv:
            assert f"arXiv:{pub.ids.arxiv}" in text, pub
        date = issued_parts(pub) or []
        if len(date) > 1:
            assert f"{MONTH_NAMES[date[1] - 1]} {date[0]}" in text, pub
    assert pdflatex_errors(bbl, folder) == []
    return bbl


@pytest.mark.parametrize("page", PAGES)
def test_plain_bibtex_and_pdflatex_read_the_bibtex_of_every_page(page: Path, tools: dict[str, str],
                                                                tmp_path: Path) -> None:
    assert_plain_and_pdflatex_read(publications(page), tools, tmp_path)


# --- biber -----------------------------------------------------------------------------------


def assert_biber_reads(pubs: Sequence[Citable], tools: dict[str, str], folder: Path) -> None:
    need(tools, "pdflatex", "biber")
    bib = bibtex(pubs)
    (folder / "refs.bib").write_text(bib, encoding="utf-8")
    body = r"\nocite{*}\printbibliography"
    preamble = PREAMBLE + r"\usepackage[backend=biber]{biblatex}\addbibresource{refs.bib}"
    assert pdflatex_errors(body, folder, preamble, bib) == []  # writes doc.bcf
    result = run(["biber", "doc"], folder)
    blg = (folder / "doc.blg").read_text(encoding="utf-8", errors="replace")
    assert result.returncode == 0 and not re.search(r"> (WARN|ERROR) - ", blg), blg


@pytest.mark.parametrize("page", PAGES)
def test_biber_reads_the_bibtex_of_every_page(page: Path, tools: dict[str, str], tmp_path: Path) -> None:
    assert_biber_reads(publications(page), tools, tmp_path)


# --- pandoc ----------------------------------------------------------------------------------


def pandoc_entries(items: list[dict], tools: dict[str, str], folder: Path) -> dict[str, str]:
    """Each item's bibliography entry as pandoc's citeproc renders it (its default, Chicago author-date)."""
    need(tools, "pandoc")
    (folder / "refs.json").write_text(json.dumps(items), encoding="utf-8")
    (folder / "doc.md").write_text('---\nnocite: "@*"\n---\n', encoding="utf-8")
    result = run(["pandoc", "--citeproc", "--bibliography=refs.json", "-t", "html", "doc.md"], folder)
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr
    tree = lxml_html.fromstring(f"<div>{result.stdout}</div>")
    return {(div.get("id") or "").removeprefix("ref-"): " ".join(str(div.xpath("string()")).split())
            for div in tree.iterfind(".//div[@class='csl-entry']")}


def assert_pandoc_says_et_al(pubs: Sequence[Citable], tools: dict[str, str], folder: Path) -> None:
    items = csl_items(pubs)
    cut = [item["id"] for pub, item in zip(pubs, items, strict=True) if pub.authors_truncated and pub.authors]
    if not cut:
        pytest.skip("no cut author list on this page")
    entries = pandoc_entries(items, tools, folder)
    assert len(entries) == len(items)
    for key in cut:
        assert "et al." in entries[key] and "others" not in entries[key].split("et al.")[0], entries[key]


@pytest.mark.parametrize("page", PAGES)
def test_pandoc_renders_et_al_for_every_cut_author_list(page: Path, tools: dict[str, str], tmp_path: Path) -> None:
    assert_pandoc_says_et_al(publications(page), tools, tmp_path)


# --- generated variants ------------------------------------------------------------------------

# Every hard letter of the issue, invisible characters inside names and titles, TeX's specials,
# Greek, a Vietnamese name, CJK and Cyrillic (kept), an emoji, combining accents
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\ufe0f", "\ufe01", "\ufeff", "\u00ad", "\u202e", "\u2066", "\u2069"]
HARD_NAMES = ["K Sørensen", "Đ Đorđević", "J Straße", "Æ Læssøe", "Œ Cœur", "Ł Łukasiewicz", "Þ Þórsson",
              "I I\u015f\u0131k", "N Nguyễn", "S Ilić", "Ḳ Ḳhan"]


def variants() -> list[Publication]:
    pubs = [Publication(title=f"Graphs{INVISIBLE[i % len(INVISIBLE)]} of {name.split()[1]}: α ≤ β",
                        authors=[name[:2] + INVISIBLE[i % len(INVISIBLE)] + name[2:], "A Other"],
                        authors_truncated=i % 2 == 0, venue="Journal of Graphs 3 (2), 1-9", year=2000 + i,
                        date=f"{2000 + i}-{i % 12 + 1:02d}-03")
            for i, name in enumerate(HARD_NAMES)]
    pubs += [
        Publication(title="ZeRO-Offload", authors=["J Ren"], authors_truncated=True, type="article",
                    venue="arXiv preprint arXiv:2101.06840", year=2021, ids=PublicationIds(arxiv="2101.06840")),
        Publication(title="A preprint", authors=["J Ren"], type="article", venue="arXiv", year=2024, date="2024-05",
                    ids=PublicationIds(arxiv="2405.00001v2")),
        Publication(title="An old one", authors=["J Ren"], venue="arXiv preprint hep-th/9901001", year=1999),
        Publication(title="Cooling", authors=["R Kumar"], type="patent", venue="US Patent 10,438,946",
                    year=2019, date="2019-10-08", ids=PublicationIds(patent_number="US 10438946")),
        Publication(title="Heating", authors=["R Kumar"], type="patent", year=2020,
                    ids=PublicationIds(patent_number="US 11234567")),
        Publication(title="A report", authors=["J Ren"], type="report", venue="MSR-TR-2022-21", year=2022,
                    ids=PublicationIds(report_number="MSR-TR-2022-21")),
        Publication(title="No year", authors=["J Ren"], venue="Proceedings of SC, 1-9"),
        Publication(title="No authors", venue="Nature 45 (1), 2-9", year=2017),
        Publication(title="Vol and issue", authors=["J Ren"], venue="Proceedings of the AAAI Conference 35 (12), 1-9",
                    year=2021),
        Publication(title="深層学習による自然言語処理 🚀 and Физика ə ŉ \U0001d400", authors_truncated=True,
                    authors=["山田 花子", "Иван Петров"], year=2022, date="2022-12"),
        Publication(title="50% of R&D_1 {x} ~ $5 ``Zur'' 1--2 \\ x^2 #1 e\u0301 q\u0303\ttab",
                    authors=["T Le Scao", "BigScience Workshop"], authors_truncated=True, year=2023),
    ]
    return pubs


def test_variants_keys_are_transliterated_ascii_and_unique() -> None:
    pubs = variants()
    keys = [Keys().key(pub) for pub in pubs]
    assert all(key.isascii() and key.isalnum() for key in keys)
    assert keys[:4] == ["sorensen2000graphs", "dordevic2001graphs", "strasse2002graphs", "laessoe2003graphs"]
    assert keys[4:8] == ["coeur2004graphs", "lukasiewicz2005graphs", "thorsson2006graphs", "isik2007graphs"]
    assert keys[8] == "nguyen2008graphs" and keys[-2].startswith("shantian2022")
    many = Keys()
    assert len({many.key(pub) for pub in pubs + pubs}) == 2 * len(pubs)


def test_variants_bibtex_has_no_invisible_character() -> None:
    text = bibtex(variants())
    assert not [char for char in text if unicodedata.category(char) in ("Cf", "Cc") and char != "\n"]
    assert not re.search("[\ufe00-\ufe0f\u034f]", text)
    for kept in ("Sørensen", "Đorđević", "Straße", "Læssøe", "Cœur", "Łukasiewicz", "Þórsson", "I\u015f\u0131k",
                 "深層学習"):
        assert kept in text


def test_variants_read_by_plain_bibtex_and_pdflatex(tools: dict[str, str], tmp_path: Path) -> None:
    bbl = " ".join(assert_plain_and_pdflatex_read(variants(), tools, tmp_path).split())
    for shown in ("Sørensen", "Đorđević", "Straße", "Łukasiewicz", "Þórsson", r"Nguy{\~{\^{e}}}n", "et~al.",
                  "arXiv preprint arXiv:2101.06840", "arXiv preprint arXiv:2405.00001v2", "US Patent 10,438,946",
                  "Patent US 11234567", "MSR-TR-2022-21", "May 2024", "October 2019",
                  "December 2022", r"{\ensuremath{\alpha}}", r"{\d{K}}"):
        assert shown in bbl, shown
    assert "\\bibitem{ren2021zero}" in bbl


def test_variants_read_by_biber(tools: dict[str, str], tmp_path: Path) -> None:
    assert_biber_reads(variants(), tools, tmp_path)


def test_variants_rendered_by_pandoc_with_et_al(tools: dict[str, str], tmp_path: Path) -> None:
    pubs = variants()
    assert_pandoc_says_et_al(pubs, tools, tmp_path)
    entries = pandoc_entries(csl_items(pubs), tools, tmp_path)
    assert "et al." not in entries["ren2024preprint"] and "et al." not in entries["kumar2019cooling"]


def test_every_character_escaped_is_one_pdflatex_reads(tools: dict[str, str], tmp_path: Path) -> None:
    """Each code point of Latin-1 to the CJK symbols, the presentation forms and the maths letters,
    as ``escape`` writes it, in one document: no error (letters of other scripts declared, see above)."""
    need(tools, "pdflatex")
    from pubharvest.latex import escape

    chars = (chr(code) for code in (*range(0xA0, 0x3400), *range(0xFB00, 0x10000), *range(0x1D400, 0x1D800))
             if unicodedata.category(chr(code)) not in ("Cs", "Cn", "Co"))
    body = "\n".join(f"{escape('x' + char + 'y')}\\par" for char in chars)
    assert pdflatex_errors(body, tmp_path) == []


def test_the_characters_pdflatex_reads_are_as_latex_says(tools: dict[str, str]) -> None:
    """``pubharvest/texchars.py`` is what ``tools/texchars.py`` reads from the installed LaTeX."""
    need(tools, "pdflatex")
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "texchars.py"), "--check"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_merged_seeds_read_by_every_consumer(tools: dict[str, str], tmp_path: Path) -> None:
    """Merged papers (``pubharvest.merge.Paper``) go through the same exporters: the same checks."""
    from test_merge import merged_seeds

    papers = merged_seeds().papers
    for consumer in (assert_plain_and_pdflatex_read, assert_biber_reads, assert_pandoc_says_et_al):
        folder = tmp_path / consumer.__name__
        folder.mkdir()
        consumer(papers, tools, folder)
