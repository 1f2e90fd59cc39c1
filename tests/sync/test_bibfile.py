"""The .bib model: parsing keeps every byte, and a field added follows the entry's own style (expected
texts written by hand)."""

from __future__ import annotations

import pytest

from pubharvest.errors import BadTarget
from pubharvest.sync.bibfile import BOM, BibDocument

ODD = (b"\xef\xbb\xbf---\r\n---\r\n% a comment with an @ sign: me@example.org\r\n"
       b"@String{ieee = \"IEEE\"}\n@preamble{\"\\newcommand{\\x}{}\"}\n@comment{anything {at} all}\n"
       b"@article{a,\n  title = \"A {\"}quoted{\"} title\",\n  journal = ieee # { Trans.},\n"
       b"  note = {spans\n    two {lines}},\n  year = 2020\n}\n\xff\xfe latin-1 bytes\n")


def test_parsing_keeps_every_byte_and_reads_each_block() -> None:
    doc = BibDocument.parse(ODD)
    assert doc.to_bytes() == ODD and doc.bom
    assert [kind for kind, _, _ in doc.blocks] == ["text", "text", "string", "text", "preamble", "text", "comment",
                                                  "text", "entry", "text"]
    (entry,) = doc.entries()
    assert [f.name for f in entry.fields] == ["title", "journal", "note", "year"]
    assert doc.value_text(entry.fields[1]) == "ieee # { Trans.}" and doc.literal(entry.fields[1]) is None
    assert doc.literal(entry.fields[0]) == 'A {"}quoted{"} title'


def add(text: str, *pairs: tuple[str, str]) -> str:
    doc = BibDocument.parse(text.encode())
    return doc.edited({doc.entries()[0]: list(pairs)}).decode()


@pytest.mark.parametrize(("before", "after"), [
    ("@article{k,\n  title = {A},\n}\n", "@article{k,\n  title = {A},\n  doi = {10.1/x},\n}\n"),
    ("@article{k,\n\ttitle={A}\n}\n", "@article{k,\n\ttitle={A},\n\tdoi={10.1/x}\n}\n"),
    ("@article{k,\r\n  title = {A},\r\n}\r\n", "@article{k,\r\n  title = {A},\r\n  doi = {10.1/x},\r\n}\r\n"),
    ("@ARTICLE{k,\n  TITLE = {A},\n  YEAR = 1999,\n}\n",
     "@ARTICLE{k,\n  TITLE = {A},\n  YEAR = 1999,\n  DOI = {10.1/x},\n}\n"),
    ("@misc{k, title={A}, year=2001}\n", "@misc{k, title={A}, year=2001, doi={10.1/x}}\n"),
    ("@article{k,\n  year = 2020, % checked\n}\n", "@article{k,\n  year = 2020, % checked\n  doi = {10.1/x},\n}\n"),
    ("@article{k,\n  title     = {A},\n  journal   = {B},\n  year = 2000,\n}\n",
     "@article{k,\n  title     = {A},\n  journal   = {B},\n  year = 2000,\n  doi = {10.1/x},\n}\n"),
    ("@article{k,\n  title     = {A},\n  journal   = {B},\n  year      = 2000,\n}\n",
     "@article{k,\n  title     = {A},\n  journal   = {B},\n  year      = 2000,\n  doi       = {10.1/x},\n}\n"),
    ("@misc{k}\n", "@misc{k,\n  doi = {10.1/x},\n}\n"),
    ("@inproceedings(k,\n  title = {A},\n)\n", "@inproceedings(k,\n  title = {A},\n  doi = {10.1/x},\n)\n"),
])
def test_an_added_field_follows_the_entrys_style(before: str, after: str) -> None:
    assert add(before, ("doi", "10.1/x")) == after


def test_an_update_replaces_the_value_only() -> None:
    doc = BibDocument.parse(b"@a{k,\n  pubharvest_citations   =   {3 (scholar)}  ,\n}\n")
    field = doc.entries()[0].fields[0]
    assert doc.edited(updates={field: "4 (scholar)"}) == b"@a{k,\n  pubharvest_citations   =   {4 (scholar)}  ,\n}\n"


def test_entries_appended_take_the_files_style() -> None:
    doc = BibDocument.parse(b"@a{k,\r\n    title    = {A},\r\n    year     = 1,\r\n}")
    out = doc.edited(appended=["@misc{n,\n  title = {New},\n  year = {2024},\n}"])
    assert out == (b"@a{k,\r\n    title    = {A},\r\n    year     = 1,\r\n}\r\n\r\n"
                   b"@misc{n,\r\n    title    = {New},\r\n    year     = {2024},\r\n}\r\n")


def test_an_entry_without_a_key_is_read_and_never_edited() -> None:
    doc = BibDocument.parse(b"@misc{ title = {No key}, year = 2001 }\n")
    assert doc.entries()[0].key is None and doc.entries()[0].fields[0].name == "title"


@pytest.mark.parametrize("data", [b"\x00binary", b"@article{k, title = {A}", b"@article{k title = {A}}",
                                  b'@article{k, title = "A}', b"@article{k, title = {A} {B}}"])
def test_what_bibtex_cannot_read_is_refused_with_its_line(data: bytes) -> None:
    with pytest.raises(BadTarget, match=r"line 1|binary"):
        BibDocument.parse(data)


def test_a_bom_alone_round_trips() -> None:
    assert BibDocument.parse(BOM).to_bytes() == BOM
