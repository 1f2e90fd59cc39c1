"""Hostile and unusual charsets: every label a page may declare is read through the WHATWG Encoding
Standard's table, and every failure to decode is a named code, never a bare ``UnicodeDecodeError``.

- Labels of Python codecs that are no page encoding (utf-7, utf-32, idna, punycode, base64, rot13, ...)
  are ignored with ``charset_unsupported``: the page reads as if it declared nothing.
- Stateful ISO-2022 charsets (and HZ) declared over 7-bit bytes are read as declared; ISO-2022-JP escapes
  in a page that declares nothing are read as ISO-2022-JP with ``charset_guessed``; ISO-2022-CN, which
  Python cannot read, is ``undecodable`` once its bytes leave ASCII.
- Real pages and fixtures cut at random offsets in UTF-16, UTF-32 and ISO-2022-JP may only end in
  their whole characters or a named refusal (``test_decoding`` re-encodes every page into every
  encoding whole).
- Through the command line: one line per failure, a named code, exit 1, and ``-o`` keeps what it held.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_decoding import (
    DECODING,
    PAGES,
    can_declare,
    case,
    declared,
    decoded,
    names_page,
    outcome,
    told_by_nuls,
)

from pubharvest import parsers
from pubharvest.parsers.page import _ENCODINGS, decode_page, web_encoding

JA_NAME = "山田 花子"
# Labels Python's codecs module knows (or a browser-era misspelling) that name no encoding of web pages.
NOT_WEB = ["utf-7", "UTF-7", "csUnicode11UTF7", "utf-32", "UTF-32LE", "utf-32be", "ucs-4", "idna", "punycode",
           "rot13", "rot_13", "base64", "base64_codec", "hex", "zlib", "bz2", "uu", "quopri", "unicode_escape",
           "raw_unicode_escape", "undefined", "mbcs", "oem", "utf-8-sig", "utf_16", "cp65001", "latin-1",
           "x-user-defined", "replacement", "no-such-charset"]
# What a page declaring those may hold: the utf-7 trigger (UTF-7 shifts and stray bytes), a stray
# byte in ASCII, and plain UTF-8.
STRAY = "+AGE-\udcff\udcfe+ZeVnLIqe-"


def japanese_page(label: str | None, stray: str = "") -> str:
    """The hand-written Japanese profile declaring ``label`` (None: nothing), ``stray`` in its first title."""
    text = names_page(label) if label else names_page(None)
    return text.replace("{BERT}", stray + "{BERT}", 1)


def page_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def decoding_codes(result: parsers.PageResult) -> list[str]:
    return [w.code for w in result.warnings if w.code in DECODING]


@pytest.mark.parametrize("stray", ["", STRAY], ids=["utf8", "utf7-and-stray-bytes"])
@pytest.mark.parametrize("label", NOT_WEB)
def test_a_label_of_no_page_encoding_is_ignored_with_a_warning(label: str, stray: str) -> None:
    data = page_bytes(japanese_page(label, stray))
    result = parsers.parse(data)
    plain = parsers.parse(page_bytes(japanese_page(None, stray)))
    assert result.profile is not None and result.profile.name == JA_NAME
    assert result.publications == plain.publications  # read exactly as if nothing were declared
    codes = decoding_codes(result)
    assert codes[0] == "charset_unsupported" and "charset_guessed" not in codes
    assert codes[1:] == [c for c in decoding_codes(plain) if c != "charset_guessed"]
    said = next(w.message for w in result.warnings if w.code == "charset_unsupported")
    assert f"declares charset {label}, which is no encoding of web pages" in said


@pytest.mark.parametrize("label", NOT_WEB)
def test_a_label_of_no_page_encoding_over_ascii_and_a_stray_byte_is_never_a_unicode_error(label: str) -> None:
    for data in (f'<meta charset="{label}"><p>a+AGE-b \xff</p>'.encode("latin-1"),
                 f'<meta charset="{label}"><p>plain ascii</p>'.encode("ascii")):
        page = decode_page(data)
        assert page.warnings[0][0] == "charset_unsupported"
        assert "a+AGE-b" in page.text or "plain ascii" in page.text


def test_the_labels_are_the_whatwg_ones_lower_cased_and_trimmed() -> None:
    assert web_encoding("ISO-8859-1") == web_encoding("  latin1 ") == web_encoding("US-ASCII")
    assert web_encoding("ISO-8859-1").name == "windows-1252"  # type: ignore[union-attr]
    assert web_encoding("utf-16").name == "utf-8"  # type: ignore[union-attr]  # a declaration, as browsers read it
    assert web_encoding("x-sjis").codec == "cp932"  # type: ignore[union-attr]
    assert all(web_encoding(label) is None for label in NOT_WEB)
    labels = [label for _, labels in _ENCODINGS for label in labels.split()]
    # each label once: the standard's 228 but "replacement" and "x-user-defined", and 5 of ISO-2022-JP-1/2/3/2004
    assert len(labels) == len(set(labels)) == 228 - 2 + 5


# --- stateful charsets -----------------------------------------------------------------------------


@pytest.mark.parametrize("codec", ["iso2022_jp", "iso2022_jp_ext"])
def test_iso_2022_jp_declared_reads_as_declared(codec: str) -> None:
    text = japanese_page("ISO-2022-JP")
    data = text.encode(codec, "xmlcharrefreplace")
    assert data.isascii() and b"\x1b$B" in data
    result = parsers.parse(data)
    assert result.profile is not None and result.profile.name == JA_NAME
    assert decoding_codes(result) == []
    assert outcome(data) == outcome(text.encode("utf-8"))


def test_iso_2022_jp_katakana_of_jis_x_0201_reads_as_browsers_read_it() -> None:
    page = decode_page(b'<meta charset="iso-2022-jp"><p>\x1b(I12\x1b(B</p>')
    assert page.text.endswith("<p>ｱｲ</p>") and page.warnings == ()


def test_iso_2022_jp_declared_only_by_the_header_reads_as_declared() -> None:
    data = japanese_page(None).encode("iso2022_jp", "xmlcharrefreplace")
    with_header = parsers.parse(data, charset="iso-2022-jp")
    assert with_header.profile is not None and with_header.profile.name == JA_NAME
    assert decoding_codes(with_header) == []


def test_iso_2022_jp_escapes_in_a_page_declaring_nothing_are_read_with_a_warning() -> None:
    data = japanese_page(None).encode("iso2022_jp", "xmlcharrefreplace")
    result = parsers.parse(data)
    assert result.profile is not None and result.profile.name == JA_NAME
    assert decoding_codes(result) == ["charset_guessed"]


def test_iso_2022_jp_declared_over_8_bit_bytes_is_not_what_they_are() -> None:
    result = parsers.parse(japanese_page("ISO-2022-JP").encode("utf-8"))
    assert result.profile is not None and result.profile.name == JA_NAME
    assert decoding_codes(result) == ["charset_mismatch"]


def test_iso_2022_jp_declared_over_broken_escapes_reads_as_ascii_with_a_warning() -> None:
    data = b'<meta charset="iso-2022-jp"><p>' + b"a plain line of text " * 30 + b"\x1b$B\x7f\x7f" * 20 + b"</p>"
    page = decode_page(data)
    assert page.text == data.decode("ascii") and page.warnings[0][0] == "charset_mismatch"


@pytest.mark.parametrize(("label", "codec", "text"), [
    ("ISO-2022-KR", "iso2022_kr", "<p>김민준, 서울대학교 (한국어)</p>"),
    ("csISO2022KR", "iso2022_kr", "<p>이서연 - 카이스트</p>"),
    ("HZ-GB-2312", "hz", "<p>王小明\uff0c清华大学</p>"),
    ("ISO-2022-JP-2", "iso2022_jp_2", "<p>山田 花子, Gödel, Ελληνικά</p>"),
    ("ISO-2022-JP-2004", "iso2022_jp_2004", "<p>森 鷗外 𩸽, 山田 花子</p>"),
])
def test_the_other_stateful_charsets_declared_read_as_declared(label: str, codec: str, text: str) -> None:
    page = f'<html><head><meta charset="{label}"></head><body>{text}</body></html>'
    data = page.encode(codec)
    assert data.isascii()
    decoded_page = decode_page(data)
    assert decoded_page.text == page and decoded_page.warnings == ()


def test_iso_2022_cn_which_python_cannot_read_is_undecodable_once_it_leaves_ascii() -> None:
    shifted = b'<meta charset="ISO-2022-CN"><p>\x1b$)A\x0e=v\x0f</p>'
    with pytest.raises(parsers.ParseError) as caught:
        parsers.parse(shifted)
    assert caught.value.code == "undecodable" and "ISO-2022-CN" in caught.value.message
    plain = decode_page(b'<meta charset="iso-2022-cn-ext"><p>only ASCII here</p>')
    assert plain.text.endswith("only ASCII here</p>") and plain.warnings == ()


# --- any bytes under any label ------------------------------------------------------------------------

LABELS = [*NOT_WEB, *(labels.split()[0] for _, labels in _ENCODINGS)]
STARTS = [b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff", b"<\x00h\x00",
          b"\x00<\x00h", b"<\x00\x00\x00h\x00\x00\x00", b"\x1b$B", b"\x0e"]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(STARTS), st.sampled_from(LABELS), st.sampled_from([None, *LABELS]),
       st.binary(max_size=300), st.text(max_size=40))
def test_any_bytes_under_any_label_decode_to_text_or_are_refused_by_name(start: bytes, label: str,
                                                                          header: str | None, body: bytes,
                                                                          text: str) -> None:
    data = start + f'<html><head><meta charset="{label}"></head><body>'.encode() + body + text.encode("utf-8")
    try:
        page = decode_page(data, header)
    except parsers.ParseError as error:
        assert error.code in ("binary", "undecodable")
        return
    page.text.encode("utf-8")  # text: no lone surrogate, whatever the codec
    assert all(re.fullmatch(r"[a-z_]+", code) for code, _ in page.warnings)
    assert_named(data)


# --- cut at random offsets ----------------------------------------------------------------------------

CUT_CODECS = {"utf-16-le BOM": ("utf-16-le", True), "utf-16-be": ("utf-16-be", False),
              "utf-32-le": ("utf-32-le", False), "utf-32-be BOM": ("utf-32-be", True)}
CUT_PAGES = [page for page in PAGES if page.startswith("fixture:scholar/") or "colleagues" in page][:12]


@pytest.fixture
def page_text(page: str) -> str:
    return decoded(page).text


@pytest.mark.parametrize("page", [case(page) for page in CUT_PAGES])
@pytest.mark.parametrize("form", list(CUT_CODECS))
def test_a_cut_utf16_or_utf32_page_reads_its_whole_characters_or_is_refused_by_name(page_text: str,
                                                                                     form: str) -> None:
    codec, bom = CUT_CODECS[form]
    if not bom and not told_by_nuls(page_text):
        pytest.skip("the page does not start with two ASCII characters")
    data = ("\ufeff".encode(codec) if bom else b"") + page_text.encode(codec)
    unit = 4 if "32" in codec else 2
    rng = random.Random(f"{page_text[:200]}{form}")
    for cut in [*rng.sample(range(1, len(data)), 12), len(data) - 1, unit + 1]:
        try:
            page = decode_page(data[:cut])
        except parsers.ParseError as error:  # too little left to be a page: named
            assert error.code in ("empty", "binary")
            continue
        assert page_text.startswith(page.text), f"cut at {cut}: not a prefix of the page"
        split = (cut - (unit if bom else 0)) % unit or page.text != page_text[:len(page.text)]
        assert ("truncated" in {code for code, _ in page.warnings}) == bool(split)
        assert_named(data[:cut])


@pytest.mark.parametrize("page", [case(page) for page in CUT_PAGES if can_declare(decoded(page).text)])
def test_a_cut_iso_2022_jp_page_reads_up_to_the_cut_or_is_refused_by_name(page_text: str) -> None:
    data = declared(page_text, "ISO-2022-JP").encode("iso2022_jp", "xmlcharrefreplace")
    whole = decode_page(data).text
    rng = random.Random(page_text[:200])
    for cut in rng.sample(range(1, len(data)), 16):
        try:
            page = decode_page(data[:cut])
        except parsers.ParseError as error:
            assert error.code in ("empty", "binary")
            continue
        assert whole.startswith(page.text.rstrip("\ufffd")), f"cut at {cut}"
        assert_named(data[:cut])


def assert_named(data: bytes) -> None:
    """Parsing ``data`` gives records or a named ``ParseError``: anything else fails the test."""
    try:
        parsers.parse(data)
    except parsers.ParseError as error:
        assert re.fullmatch(r"[a-z_]+", error.code)


def test_a_cut_utf16_file_without_its_last_byte_warns_that_it_stops_inside_a_character() -> None:
    data = "\ufeff<p>café</p>".encode("utf-16-le")[:-1]
    page = decode_page(data)
    assert page.text == "<p>café</p"
    assert page.warnings == (("truncated", "the file stops inside a character: its last 1 byte is part of a "
                                           "UTF-16-LE character, left out"),)


def test_half_a_surrogate_pair_at_the_end_of_utf16_is_a_cut_character() -> None:
    data = "\ufeff<p>𠮷野家 𠮷</p>".encode("utf-16-be")[:-10]  # stops after the lead surrogate of the last 𠮷
    page = decode_page(data)
    assert page.text == "<p>𠮷野家 " and page.warnings[0][0] == "truncated"


def test_a_lone_surrogate_inside_utf16_is_one_replacement_per_byte() -> None:
    data = "\ufeff<p>a".encode("utf-16-le") + b"\x00\xd8" + "b</p>".encode("utf-16-le")
    page = decode_page(data)
    assert page.text == "<p>a\ufffd\ufffdb</p>" and page.warnings[0][0] == "invalid_bytes"


def test_utf32_with_a_code_point_past_unicode_is_read_with_replacements() -> None:
    data = "\ufeff<p>a".encode("utf-32-le") + b"\x00\x00\x11\x00" + "b</p>".encode("utf-32-le")
    page = decode_page(data)
    assert page.text == "<p>a" + "\ufffd" * 4 + "b</p>" and page.warnings[0][0] == "invalid_bytes"


# --- through the command line -------------------------------------------------------------------------

def run_parse(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pubharvest.cli", "parse", "-f", "jsonl", *args],
                          capture_output=True, text=True, encoding="utf-8", check=False)


HOSTILE_FILES: dict[str, tuple[bytes, str | None]] = {
    # name: (the file, the failure code; None: read, with a warning line)
    "utf7-with-stray-bytes": (page_bytes(japanese_page("utf-7", STRAY)), None),
    "utf32-declared": (page_bytes(japanese_page("utf-32")), None),
    "idna-declared": (page_bytes(japanese_page("idna", "\udcff")), None),
    "punycode-declared": (page_bytes(japanese_page("punycode", "\udcff")), None),
    "iso-2022-cn-shifted": (b'<html><head><meta charset="iso-2022-cn"></head><body>\x0e=v\x0f</body></html>',
                            "undecodable"),
    "utf16-cut-in-its-head": ("\ufeff".encode("utf-16-le") + japanese_page("utf-16").encode("utf-16-le")[:301],
                              "unrecognised"),
    "utf32-cut-in-its-head": (japanese_page("utf-8").encode("utf-32-be")[:1202], "truncated"),  # after its URL
}


@pytest.mark.parametrize("name", list(HOSTILE_FILES))
def test_the_command_line_says_one_line_with_a_named_code_and_keeps_the_output(name: str, tmp_path: Path) -> None:
    data, code = HOSTILE_FILES[name]
    page, out = tmp_path / f"{name}.html", tmp_path / "out.jsonl"
    page.write_bytes(data)
    out.write_text("what was there\n", encoding="utf-8")
    run = run_parse("-o", str(out), str(page))
    assert "Traceback" not in run.stderr and "UnicodeDecodeError" not in run.stderr and "error:" not in run.stderr
    lines = run.stderr.splitlines()
    if code is None:  # read: written, each warning one line, the charset's among them
        assert run.returncode == 0, run.stderr
        assert any(": warning: charset_unsupported: " in line for line in lines)
        assert JA_NAME in out.read_text(encoding="utf-8")
        return
    assert lines == [lines[0]] and lines[0].startswith(f"{page}: {code}: "), run.stderr
    assert run.returncode == 1
    assert out.read_text(encoding="utf-8") == "what was there\n"


def test_a_cut_utf16_page_through_the_command_line_is_read_or_named(tmp_path: Path) -> None:
    data = "\ufeff".encode("utf-16-be") + japanese_page("utf-16").encode("utf-16-be")
    for cut in random.Random(16).sample(range(300, len(data)), 6):
        page = tmp_path / f"cut{cut}.html"
        page.write_bytes(data[:cut])
        run = run_parse(str(page))
        assert "Traceback" not in run.stderr and "UnicodeDecodeError" not in run.stderr
        failures = [line for line in run.stderr.splitlines() if ": warning: " not in line]
        assert (run.returncode, len(failures)) in ((0, 0), (1, 1)), run.stderr
        assert not failures or re.match(rf"{re.escape(str(page))}: (truncated|unrecognised|layout_changed): ",
                                        failures[0]), run.stderr
