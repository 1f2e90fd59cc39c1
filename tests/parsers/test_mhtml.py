"""Pages saved as MHTML (a browser's "Webpage, single file": Chrome's and Edge's .mhtml, Internet Explorer's
.mht) read as the page they hold: every HTML page of the fixtures and the corpus, wrapped as each browser
writes it (quoted-printable or base64, CRLF or LF, images and frames beside it, the page named by ``start``),
gives the records of the page itself saved from the same address; a wrapper without a page, a cut one, and
text that only looks like mail headers are refused or read as they should be."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import FIXTURES, corpus_dir
from singlefile import damaged_copies, wrapped

import pubharvest.parsers as parsers
from pubharvest.cli import main
from pubharvest.errors import ParseError, Unrecognised
from pubharvest.parsers.mhtml import is_mhtml, saved_page
from pubharvest.parsers.page import Document
from pubharvest.parsers.records import to_builtins

URL = {"scholar": "https://scholar.google.com/citations?user=AAAAAAAAAAAA&hl=en",
       "msr": "https://www.microsoft.com/en-us/research/people/someone/"}
def html_pages() -> Iterator[tuple[str, str, bytes]]:
    corpus = corpus_dir()
    for root in [FIXTURES, *([corpus] if corpus is not None else [])]:
        for site in URL:
            for path in sorted((root / site).glob("*")):
                if path.suffix in (".html", ".htm"):
                    yield f"{root.name}/{site}/{path.name}", site, path.read_bytes()


def outcome(data: bytes, url: str | None = None, charset: str | None = None) -> object:
    try:
        result = to_builtins(parsers.parse(data, url, charset))
    except ParseError as error:
        return type(error).__name__, str(error)
    result.pop("source")
    return result


SAVES: dict[str, dict[str, Any]] = {
    "Chrome (quoted-printable, CRLF)": {"coding": "quoted-printable", "newline": b"\r\n"},
    "Internet Explorer (base64, LF, the page named by start)": {"coding": "base64", "newline": b"\n",
                                                                "frame_first": True},
    "8bit (the page's own bytes, any script)": {"coding": "8bit", "newline": b"\r\n"},
}


@pytest.mark.parametrize("save", SAVES, ids=list(SAVES))
def test_every_html_page_saved_as_mhtml_reads_as_the_page_itself(save: str) -> None:
    pages = list(html_pages())
    assert len(pages) >= 10
    for name, site, page in pages:
        assert outcome(wrapped(page, URL[site], **SAVES[save])) == outcome(page, URL[site]), name


def test_the_charset_of_the_page_part_is_the_one_its_header_names() -> None:
    for name, site, page in html_pages():
        encoding = Document.from_input(page).encoding
        saved = wrapped(page, URL[site], coding="quoted-printable", newline=b"\r\n", charset=encoding)
        assert outcome(saved) == outcome(page, URL[site], encoding), name


def test_a_page_re_encoded_by_the_browser_reads_as_the_original() -> None:
    # Chrome writes the page as it holds it; a latin-1 part declared as such gives the same text
    page = (FIXTURES / "scholar").glob("*.html").__next__().read_bytes()
    text = page.decode("utf-8")
    if not all(ord(c) < 256 for c in text):
        text = "".join(c if ord(c) < 256 else "?" for c in text)
    latin1 = text.encode("latin-1")
    saved = wrapped(latin1, URL["scholar"], coding="quoted-printable", newline=b"\r\n", charset="iso-8859-1")
    assert outcome(saved) == outcome(latin1, URL["scholar"], "iso-8859-1")


def test_an_mhtml_file_without_a_page_is_unrecognised() -> None:
    saved = wrapped(b"", URL["scholar"], coding="base64", newline=b"\r\n").replace(b"text/html", b"text/css")
    with pytest.raises(Unrecognised, match="MHTML"):
        parsers.parse(saved)


@pytest.mark.parametrize("coding", ["quoted-printable", "base64"])
def test_an_mhtml_file_cut_in_its_page_reads_as_the_page_cut_there(coding: str) -> None:
    # What a cut part decodes to is the page's start (bar a cut escape at its very end), read as that start is
    for name, site, page in html_pages():
        saved = wrapped(page, URL[site], coding=coding, newline=b"\r\n")
        body = saved.index(b"\r\n\r\n", saved.index(b"Content-ID: <page@mhtml>")) + 4
        for share in (0.3, 0.6, 0.97):
            cut = saved[:body + int((len(saved) - body) * share * len(page) / (len(saved) - body))]
            start = saved_page(cut)[0]
            lines = start.replace(b"\r\n", b"\n")  # quoted-printable's line breaks are CRLF, as mail's are
            assert len(lines) < len(page) and page.startswith(lines[:-3]), (name, share)
            assert outcome(cut) == outcome(start, URL[site]), (name, share)


@pytest.mark.parametrize("text", [
    b"Title: A page\nAuthor: someone\n\n# Heading\n",
    b"From: a@b.org\nContent-Type: text/plain\n\nmultipart/related\n",
    b"Content-Type: multipart/related; boundary=x\n<html><body>no blank line after the headers</body></html>",
    b'<!-- Content-Type: multipart/related; boundary="b" -->\n\n<html></html>',
])
def test_text_that_only_looks_like_mail_is_not_mhtml(text: bytes) -> None:
    assert not is_mhtml(text)


def test_parse_reads_mhtml_and_mht_files_in_a_folder(tmp_path, capsys) -> None:
    page = (FIXTURES / "scholar").glob("*.html").__next__().read_bytes()
    (tmp_path / "profile.mhtml").write_bytes(wrapped(page, URL["scholar"], coding="quoted-printable",
                                                     newline=b"\r\n"))
    (tmp_path / "profile.mht").write_bytes(wrapped(page, URL["scholar"], coding="base64", newline=b"\n"))
    assert main(["parse", str(tmp_path), "-f", "jsonl"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


@pytest.mark.parametrize("coding", ["quoted-printable", "base64", "8bit"])
def test_a_damaged_single_file_save_is_refused_or_read_never_a_traceback(coding: str) -> None:
    # bytes of a save overwritten at random (a bad disk, a bad copy): only pubharvest's own errors come out
    page = (FIXTURES / "scholar" / "handwritten_ja_profile.html").read_bytes()
    saved = wrapped(page, URL["scholar"], coding=coding)
    for damaged in damaged_copies(saved, coding, likely=b"=\n-\r"):
        try:
            parsers.parse(damaged)
        except ParseError:
            pass
