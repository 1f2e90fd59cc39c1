"""The front-matter editor: any text written as a value reads back as that text (PyYAML, YAML 1.1
as Hugo's and Jekyll's parsers read it), and every byte not set stays as it was."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from pubharvest.errors import BadTarget
from pubharvest.sync.frontmatter import FrontMatter, yaml_flow_list, yaml_list, yaml_scalar

# The HugoBlox example of FORMATS.md §2 with the numeric legend comment older sites keep, odd quoting,
# a comment after a value, CRLF line endings nowhere (see test_crlf) and a body
HUGO_PAGE = b"""---
title: 'Region-of-Interest based Neural Video Compression'
authors:
- Yura Perugachi-Diaz
- admin

date: '2022-03-01'

# Publication type.
# Legend: 0 = Uncategorized; 1 = Conference paper; 2 = Journal article;
# 3 = Preprint / Working Paper; 4 = Report; 5 = Book; 6 = Book section;
# 7 = Thesis; 8 = Patent
publication_types: ["1"]
publication: "*BMVC*"   # short
tags: [Genertaive Modeling, Video Compression]
featured: false
---
Body with --- and title: text.
"""


@pytest.mark.parametrize("text", [
    "no", "Yes", "y", "N", "off", "null", "~", "true", "2020-01-01", "2018-4-10", "1:20", "0x1F", "1_000",
    ".inf", "1e3", "#1", "a #b", "a: b", "*ref", "&anchor", "!tag", "- item", "? key", "| x", "> x", "@x",
    "`x", "%x", "[x]", "{x}", "x,", "'quoted'", '"quoted"', "it's", " lead", "trail ", "", "a\nb", "tab\t",
    "\x00\x07\x1b", "\u2028\u2029\x85", "\ufeffbom", "é ñ 山田", "back\\slash", "<<", "=", "Ünïcode: yes",
])
def test_tricky_values_read_back(text: str) -> None:
    assert yaml.safe_load(f"k: {yaml_scalar(text)}\n") == {"k": text}


@given(st.text())
def test_any_text_reads_back(text: str) -> None:
    assert yaml.safe_load(f"k: {yaml_scalar(text)}\n") == {"k": text}
    assert yaml.safe_load(f"k:{yaml_list([text, text])}\n") == {"k": [text, text]}
    assert yaml.safe_load(f"k: {yaml_flow_list([text])}\n") == {"k": [text]}


@given(st.text(), st.sampled_from(["title", "doi", "new_key"]))
def test_set_changes_only_that_key(text: str, key: str) -> None:
    page = FrontMatter.parse(HUGO_PAGE)
    page.set(key, yaml_scalar(text))
    after = FrontMatter.parse(page.render())
    assert after.values == {**FrontMatter.parse(HUGO_PAGE).values, key: text}
    assert page.render().endswith(b"---\nBody with --- and title: text.\n")
    assert b"# 7 = Thesis; 8 = Patent\npublication_types: [\"1\"]\n" in page.render()


def test_untouched_page_is_byte_identical() -> None:
    assert FrontMatter.parse(HUGO_PAGE).render() == HUGO_PAGE


def test_set_in_place_and_appended() -> None:
    page = FrontMatter.parse(HUGO_PAGE)
    page.set("authors", yaml_list(["A B"]))
    page.set("doi", yaml_scalar("10.1/x"))
    expected = HUGO_PAGE.replace(b"authors:\n- Yura Perugachi-Diaz\n- admin\n", b"authors:\n- A B\n").replace(
        b"featured: false\n---", b'featured: false\ndoi: "10.1/x"\n---')
    assert page.render() == expected


def test_crlf_kept() -> None:
    data = HUGO_PAGE.replace(b"\n", b"\r\n")
    page = FrontMatter.parse(data)
    page.set("doi", yaml_scalar("x"))
    assert page.render() == data.replace(b"featured: false\r\n", b"featured: false\r\ndoi: x\r\n")


def test_commented_out_key_counts_as_present() -> None:
    page = FrontMatter.parse(b"---\ntitle: x\n#citation: 'Your Name'\n---\n")
    assert page.has("citation") and not page.has("venue")


@pytest.mark.parametrize(("data", "message"), [
    (b"title: x\n", "no front matter"),
    (b"---\ntitle: x\n", "no closing"),
    (b"---\ntitle: [x\n---\n", r"not valid YAML \(line 3\)"),
    (b"---\n- a\n---\n", "not a mapping"),
    (b"---\na: 1\na: 2\n---\n", "not a single plain key"),
    (b"---\n\xff: 1\n---\n", "not UTF-8"),
])
def test_bad_front_matter(data: bytes, message: str) -> None:
    with pytest.raises(BadTarget, match=message):
        FrontMatter.parse(data)
