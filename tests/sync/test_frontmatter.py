"""The front-matter editor: any text written as a value reads back as that text (PyYAML, YAML 1.1
as Hugo's and Jekyll's parsers read it), and every byte not set stays as it was."""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path

import pytest
import yaml
from hypothesis import find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample
from sitesync import run_consumer

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
    (b"+++\ntitle = 1\n", "no closing \\+\\+\\+"),
    (b"---\ntitle: x\n", "no closing"),
    (b"---\ntitle: [x\n---\n", r"not valid YAML \(line 2\)"),
    (b"---\n- a\n---\n", "not a mapping"),
    (b"---\na: 1\na: 2\n---\n", "not a single plain key"),
    (b"---\n\xff: 1\n---\n", "not UTF-8"),
])
def test_bad_front_matter(data: bytes, message: str) -> None:
    with pytest.raises(BadTarget, match=message):
        FrontMatter.parse(data)


# Texts YAML 1.1 parsers misread, and texts hypothesis drew: written as values and read back by the
# real consumers' parsers (Hugo's go-yaml, Jekyll's Psych), as one build each
CONSUMER_TEXTS = [
    "no", "Yes", "y", "N", "off", "null", "~", "true", "2020-01-01", "2018-4-10", "1:20", "0x1F", "1_000", "0o17",
    ".inf", "1e3", "#1", "a #b", "a: b", "*ref", "&anchor", "!tag", "- item", "? key", "| x", "> x", "@x", "`x",
    "%x", "[x]", "{x}", "x,", "'quoted'", '"quoted"', "it's", " lead", "trail ", "a\nb", "tab\there", "\x07bell",
    "\u2028\u2029\x85", "é ñ 山田", "back\\slash", "<<", "=", "Ünïcode: yes", "ZeRO-Offload: Democratizing",
    "Q&A <i>x</i>", "{{ .Title }}", "{% raw %}", "---", "...", "—", "\U0001f600 emoji", "a  b", "x:y", "-",
]


def consumer_texts() -> list[str]:
    """``CONSUMER_TEXTS`` and texts hypothesis draws (the same on every run); not the NUL character and
    not leading or trailing whitespace, which the consumers themselves strip from a title."""
    drawn = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1)
    found: list[str] = []

    def keep(text: str) -> bool:
        found.append(text)
        return len(found) >= 150

    try:
        find(drawn, keep, settings=settings(database=None, derandomize=True, max_examples=1000))
    except NoSuchExample:
        pass
    return [text for text in CONSUMER_TEXTS + found if text == text.strip() and text]


@pytest.mark.slow
def test_hugo_and_jekyll_read_the_values_back(tmp_path: Path) -> None:
    texts = consumer_texts()
    hugo, jekyll = tmp_path / "hugo", tmp_path / "jekyll"
    (hugo / "content/p").mkdir(parents=True)
    (hugo / "layouts/_default").mkdir(parents=True)
    (hugo / "hugo.toml").write_text('baseURL = "http://example.org/"\ndisableKinds = ["taxonomy", "term", "RSS", '
                                    '"sitemap", "home", "section"]\n')
    (hugo / "layouts/_default/single.html").write_text("{{ .Params.t | base64Encode }}")
    (jekyll / "_p").mkdir(parents=True)
    (jekyll / "_layouts").mkdir()
    (jekyll / "_config.yml").write_text("collections:\n  p:\n    output: true\ndefaults:\n"
                                        "  - scope: {path: '', type: p}\n    values: {layout: v}\n")
    (jekyll / "_layouts/v.html").write_text("{{ page.t | jsonify }}")
    for n, text in enumerate(texts):
        page = FrontMatter.parse(b"---\ntitle: x\n---\n")
        page.set("t", yaml_scalar(text))
        (hugo / f"content/p/{n}.md").write_bytes(page.render())
        (jekyll / f"_p/{n}.md").write_bytes(page.render())
    run_consumer("hugo", "--quiet", "--destination", str(tmp_path / "hugo-out"), cwd=hugo)
    run_consumer("jekyll", "build", "--strict_front_matter", "--destination", str(tmp_path / "jekyll-out"), cwd=jekyll)
    for n, text in enumerate(texts):
        shown = html.unescape((tmp_path / f"hugo-out/p/{n}/index.html").read_text())  # "+" is written "&#43;"
        assert base64.b64decode(shown).decode() == text, n
        assert json.loads((tmp_path / f"jekyll-out/p/{n}.html").read_text()) == text, n


def test_toml_front_matter_is_read_not_edited() -> None:
    page = FrontMatter.parse(b'+++\ntitle = "x"\ndate = 2021-05-01\n+++\n')
    assert page.values["title"] == "x" and not page.editable
    with pytest.raises(BadTarget, match="not edited"):
        page.set("doi", "x")
    with pytest.raises(BadTarget, match="not valid TOML"):
        FrontMatter.parse(b"+++\ntitle = \n+++\n")


def test_a_list_in_brackets_is_always_quoted() -> None:
    # found by hypothesis: "A?" is a plain scalar in a block, but not inside brackets
    assert yaml_flow_list(["A?", "paper-conference"]) == '["A?", "paper-conference"]'
    assert yaml_scalar("Why?") == '"Why?"'
