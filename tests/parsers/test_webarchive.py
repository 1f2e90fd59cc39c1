"""Pages saved by Safari as a Web Archive (a binary or XML property list) read as the page they hold: every
HTML page of the fixtures and the corpus gives the records of the page itself saved from the same address,
in the encoding the archive names; a cut or empty archive is one line, never a traceback."""

from __future__ import annotations

import plistlib

import pytest
from conftest import FIXTURES
from singlefile import damaged_copies, web_archive
from test_mhtml import URL, html_pages, outcome

import pubharvest.parsers as parsers
from pubharvest.cli import main
from pubharvest.errors import ParseError, Unrecognised
from pubharvest.parsers.page import Document
from pubharvest.parsers.webarchive import is_webarchive


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "XML"])
def test_every_html_page_saved_as_a_web_archive_reads_as_the_page_itself(binary: bool) -> None:
    pages = list(html_pages())
    assert len(pages) >= 10
    for name, site, page in pages:
        encoding = Document.from_input(page).encoding
        saved = web_archive(page, URL[site], encoding, binary)
        assert is_webarchive(saved), name
        assert outcome(saved) == outcome(page, URL[site], encoding), name


def test_a_web_archive_naming_no_encoding_reads_as_the_page_does() -> None:
    for name, site, page in html_pages():
        assert outcome(web_archive(page, URL[site], None)) == outcome(page, URL[site]), name


@pytest.mark.parametrize("share", [0.2, 0.5, 0.99])
def test_a_cut_web_archive_is_one_unrecognised_line(share: float) -> None:
    page = next(iter(sorted((FIXTURES / "scholar").glob("*.html")))).read_bytes()
    for binary in (True, False):
        saved = web_archive(page, URL["scholar"], binary=binary)
        with pytest.raises(Unrecognised, match="Web Archive"):
            parsers.parse(saved[:int(len(saved) * share)])


def test_a_property_list_without_a_page_is_refused() -> None:
    with pytest.raises(Unrecognised, match="holds no page"):
        parsers.parse(plistlib.dumps({"WebMainResource": {"WebResourceURL": "https://x.org/"}},
                                     fmt=plistlib.FMT_BINARY))
    other = plistlib.dumps({"CFBundleName": "not a page"}, fmt=plistlib.FMT_BINARY)
    assert not is_webarchive(other)
    with pytest.raises(ParseError):
        parsers.parse(other)


def test_parse_reads_web_archives_in_a_folder(tmp_path, capsys) -> None:
    page = next(iter(sorted((FIXTURES / "scholar").glob("*.html")))).read_bytes()
    (tmp_path / "profile.webarchive").write_bytes(web_archive(page, URL["scholar"]))
    assert main(["parse", str(tmp_path), "-f", "jsonl"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "XML"])
def test_a_damaged_web_archive_is_refused_or_read_never_a_traceback(binary: bool) -> None:
    page = (FIXTURES / "scholar" / "handwritten_ja_profile.html").read_bytes()
    saved = web_archive(page, URL["scholar"], binary=binary)
    for damaged in damaged_copies(saved, int(binary), start=8 if binary else 60):  # past the list's own mark
        try:
            parsers.parse(damaged)
        except ParseError:
            pass
