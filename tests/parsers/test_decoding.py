"""Decoding saved pages whose bytes and declared charset disagree, and pages nested too deep.

Every real corpus page and every fixture is re-encoded each way a saved page comes: UTF-8 declaring
ISO-8859-1, UTF-8 with a stray byte, windows-1252 declared and not, UTF-8, UTF-16 and UTF-32 with a BOM,
UTF-16 and UTF-32 without one, and every WHATWG encoding declared (CJK ones and ISO-2022-JP on every
page, each single-byte one on a quarter of the pages). Each variant must decode to the text it was made
from and parse to the same records.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import FIXTURES, corpus_dir, from_corpus

from pubharvest import parsers
from pubharvest.parsers.page import _ENCODINGS, Decoded, decode, decode_page, html_selector
from pubharvest.parsers.records import to_builtins

if TYPE_CHECKING:
    from _pytest.mark.structures import ParameterSet

DECODING = {"charset_mismatch", "invalid_bytes", "charset_guessed", "charset_unsupported"}
JA = FIXTURES / "scholar" / "handwritten_ja_profile.html"
COLLEAGUES = "scholar/list_colleagues_-FW8OqsAAAAJ_6coauthors_bowding_2017.html"
_DECLARATION = re.compile(r"""(<meta[^>]+charset\s*=\s*["']?)([\w.:-]+)""", re.I)
_HEAD = re.compile(r"<head\b[^>]*>", re.I)


def corpus_pages() -> list[str]:
    corpus = corpus_dir()
    if corpus is None:
        return []
    found = sorted(corpus.glob("scholar/*.htm*")) + sorted(corpus.glob("msr/*.html"))
    return [str(path.relative_to(corpus)) for path in found]


def fixture_pages() -> list[str]:
    return [str(path.relative_to(FIXTURES)) for path in sorted(FIXTURES.rglob("*.*")) if path.suffix != ".json"]


PAGES = [f"corpus:{name}" for name in corpus_pages()] + [f"fixture:{name}" for name in fixture_pages()]


@functools.cache
def decoded(page: str) -> Decoded:
    """A real page (``corpus:NAME``) or a fixture (``fixture:NAME``) decoded: read at collection, to
    choose its variants, and again by its tests."""
    where, name = page.split(":", 1)
    folder = corpus_dir() if where == "corpus" else FIXTURES
    assert folder is not None
    return decode_page((folder / name).read_bytes())


@pytest.fixture
def page_text(page: str) -> str:
    """The true text of ``page`` (corpus pages are UTF-8 but for one Latin-1 page)."""
    assert {code for code, _ in decoded(page).warnings} <= {"charset_mismatch"}  # the colleagues pages lie
    return decoded(page).text


def outcome(data: bytes | str) -> object:
    """What parsing gives, the decoding warnings and the input's hash left out: records, or the error code."""
    try:
        result = parsers.parse(data)
    except parsers.ParseError as error:
        return error.code
    record = to_builtins(result)
    record.pop("source")
    record["warnings"] = [w for w in record["warnings"] if w["code"] not in DECODING]
    return record


original_outcome = functools.lru_cache(maxsize=4)(outcome)  # each page's, asked once per variant


def declared(text: str, label: str) -> str:
    """``text`` declaring ``label``: its declaration changed, else a meta tag added in its head or before it."""
    if _DECLARATION.search(text):
        return _DECLARATION.sub(lambda m: m.group(1) + label, text, count=1)
    head = _HEAD.search(text)
    assert head is not None, "a page without a head (a fragment) has no place to declare a charset in"
    meta = f'<meta http-equiv="Content-Type" content="text/html;charset={label}">'
    return text[:head.end()] + meta + text[head.end():]


def can_declare(text: str) -> bool:
    """Whether ``text`` has a place to declare a charset in: a declaration to change, or a head to add one to."""
    return is_html(text) and bool(_DECLARATION.search(text) or _HEAD.search(text))


def undeclared(text: str) -> str:
    """``text`` with no charset declared (``charset=`` renamed ``cset=``)."""
    return _DECLARATION.sub(lambda m: re.sub("charset", "cset", m.group(0), flags=re.I), text, count=1)


def is_html(text: str) -> bool:
    return text.lstrip().startswith("<")


# name -> (text of the page -> (its bytes, the text they must decode to, the warning codes expected)).
Variant = Callable[[str], tuple[bytes, str, set[str]]]


def _non_ascii(codes: set[str], text: str) -> set[str]:
    return codes if not text.isascii() else set()


def utf8_declaring_latin1(text: str) -> tuple[bytes, str, set[str]]:
    page = declared(text, "ISO-8859-1")
    return page.encode("utf-8"), page, _non_ascii({"charset_mismatch"}, page)


def with_comment(page: str, comment: str) -> str:
    """``page`` with ``<!--comment-->`` after its first tag (a fragment of rows must end as it does)."""
    first = page.index(">") + 1
    return page[:first] + f"<!--{comment}-->" + page[first:]


def utf8_with_a_stray_byte(text: str) -> tuple[bytes, str, set[str]]:
    page = declared(text, "UTF-8")
    return with_comment(page, "\udcff").encode("utf-8", "surrogateescape"), with_comment(page, "\ufffd"), \
        {"invalid_bytes"}


def utf8_undeclared_with_a_stray_byte(text: str) -> tuple[bytes, str, set[str]]:
    page = undeclared(text)
    data = with_comment(page, "\udcff").encode("utf-8", "surrogateescape")
    if page.isascii():  # no UTF-8 sequence outweighs the stray byte: the last resort, windows-1252
        return data, with_comment(page, "ÿ"), {"charset_guessed"}
    return data, with_comment(page, "\ufffd"), {"invalid_bytes"}


def windows_1252(text: str, declare: bool) -> tuple[bytes, str, set[str]]:
    page = declared(text, "windows-1252") if declare else undeclared(text)
    data = page.encode("cp1252", "xmlcharrefreplace")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return data, data.decode("cp1252"), set() if declare else {"charset_guessed"}
    return data, data.decode("utf-8"), set()  # no byte of it beyond ASCII: UTF-8 reads it the same


def with_bom(text: str, codec: str) -> tuple[bytes, str, set[str]]:
    return "\ufeff".encode(codec) + text.encode(codec), text, set()


def in_encoding(label: str, codec: str) -> Variant:
    """``text`` declaring ``label`` (a WHATWG label) in ``codec``, the one browsers read it with (Shift_JIS:
    windows-31j), each character it lacks as a character reference."""
    def variant(text: str) -> tuple[bytes, str, set[str]]:
        data = declared(text, label).encode(codec, "xmlcharrefreplace")
        return (data, *_read_as(data, codec))
    return variant


def _read_as(data: bytes, codec: str) -> tuple[str, set[str]]:
    """What bytes in ``codec`` that declare it read as: their own text, unless they are valid UTF-8 (the bytes
    outrank the declaration), then that with ``charset_mismatch`` when they are not plain ASCII; a stateful
    charset's 7-bit bytes, always UTF-8 too, as declared."""
    if codec.startswith("iso2022"):
        return data.decode(codec), set()
    try:
        as_utf8 = data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode(codec), set()
    return as_utf8, set() if data.isascii() else {"charset_mismatch"}


def without_bom(codec: str) -> Variant:
    """UTF-16 or UTF-32 without a BOM."""
    return lambda text: (text.encode(codec), text, set())


# The variants by what a page needs for them: a place to declare a charset in, an HTML page (a text
# page has no charset declaration to lie or leave out), any page.
DECLARING: dict[str, Variant] = {
    "utf8 declaring ISO-8859-1": utf8_declaring_latin1,
    "utf8 with a stray xff": utf8_with_a_stray_byte,
    "windows-1252 declared": lambda text: windows_1252(text, True),
}
UNDECLARED: dict[str, Variant] = {
    "utf8 undeclared with a stray xff": utf8_undeclared_with_a_stray_byte,
    "windows-1252 undeclared": lambda text: windows_1252(text, False),
}
WITH_BOM: dict[str, Variant] = {
    "utf-16-le BOM": lambda text: with_bom(text, "utf-16-le"),
    "utf-16-be BOM": lambda text: with_bom(text, "utf-16-be"),
    "utf-8 BOM": lambda text: with_bom(text, "utf-8"),
    "utf-32-le BOM": lambda text: with_bom(text, "utf-32-le"),
    "utf-32-be BOM": lambda text: with_bom(text, "utf-32-be"),
}
# One declaring variant per WHATWG encoding but UTF-8, by its first label (csshiftjis, chinese, ...), and the
# stateful ISO-2022-JP.
EVERY_ENCODING: dict[str, Variant] = {
    f"{encoding.name} declared": in_encoding(labels.split()[0], encoding.codec) for encoding, labels in _ENCODINGS
    if encoding.codec not in (None, "utf-8") and (not encoding.stateful or encoding.name == "iso-2022-jp")}
WITHOUT_BOM: dict[str, Variant] = {f"{codec} without BOM": without_bom(codec)
                                   for codec in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")}
VARIANTS = {**DECLARING, **UNDECLARED, **WITH_BOM, **EVERY_ENCODING, **WITHOUT_BOM}


def variants_of(text: str, index: int) -> list[str]:
    """The variants a page can come as; of the single-byte encodings, page ``index`` gets a quarter."""
    encodings = [name for n, name in enumerate(EVERY_ENCODING) if (n + index) % 4 == 0 or not _single_byte(name)]
    return [*(DECLARING if can_declare(text) else ()), *(encodings if can_declare(text) else ()),
            *(UNDECLARED if is_html(text) else ()), *WITH_BOM, *(WITHOUT_BOM if told_by_nuls(text) else ())]


def _single_byte(name: str) -> bool:
    return not re.match(r"(gb18030|big5|euc-jp|shift_jis|euc-kr|iso-2022-jp) ", name)


def told_by_nuls(text: str) -> bool:
    """Whether ``text`` in UTF-16 or UTF-32 without a BOM is told by the NULs of its first two characters."""
    return len(text) > 1 and text[:2].isascii() and "\0" not in text[:2]


def case(page: str, *more: str) -> ParameterSet:
    return from_corpus(page, *more) if page.startswith("corpus:") else pytest.param(page, *more)


REENCODED = [case(page, variant) for index, page in enumerate(PAGES)
             for variant in variants_of(decoded(page).text, index)]
DECLARABLE = [case(page) for page in PAGES if can_declare(decoded(page).text)]


@pytest.mark.parametrize(("page", "variant"), REENCODED)
def test_every_page_reencoded_reads_as_the_original(page_text: str, variant: str) -> None:
    data, text, warnings = VARIANTS[variant](page_text)
    decoded = decode_page(data)
    assert decoded.text == text
    assert {code for code, _ in decoded.warnings} == warnings
    assert outcome(data) == outcome(text) == original_outcome(page_text)


@pytest.mark.parametrize("page", DECLARABLE)
def test_a_lying_declaration_gives_the_records_of_the_right_one(page_text: str) -> None:
    lying, right = declared(page_text, "ISO-8859-1"), declared(page_text, "UTF-8")
    assert outcome(lying.encode("utf-8")) == outcome(right.encode("utf-8")) == outcome(page_text)


def names_page(declare: str | None = "utf-8") -> str:
    """The hand-written Japanese profile, its first title naming Gödel, Víctor and a 7α-hydroxylase."""
    text = JA.read_text(encoding="utf-8").replace("{BERT}", "7α-hydroxylase, Gödel, Víctor: {BERT}", 1)
    assert "7α-hydroxylase" in text
    return declared(text, declare) if declare else undeclared(text)


def first_title(data: bytes | str) -> str | None:
    result = parsers.parse(data)
    assert result.profile is not None and result.profile.name == "山田 花子"
    return result.publications[0].title


@pytest.mark.parametrize("declare", ["ISO-8859-1", "windows-1252", "ascii", "latin-1", "UTF-8", None])
@pytest.mark.parametrize("stray", [b"", b"\xff"])
def test_names_survive_a_lying_charset_and_a_stray_byte(declare: str | None, stray: bytes) -> None:
    text = names_page(declare)
    data = text.encode("utf-8").replace(b"{BERT}", stray + b"{BERT}", 1)
    assert first_title(data) == first_title(text.replace("{BERT}", "\ufffd" * len(stray) + "{BERT}", 1))
    assert "7α-hydroxylase, Gödel, Víctor" in str(first_title(data))
    codes = {w.code for w in parsers.parse(data).warnings} & DECODING
    assert ("invalid_bytes" in codes) == bool(stray)
    assert ("charset_mismatch" in codes) == (declare not in ("UTF-8", "latin-1", None))
    assert ("charset_unsupported" in codes) == (declare == "latin-1")  # "latin1" is a WHATWG label, "latin-1" not


def hide_detectors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make charset_normalizer, chardet and cchardet look uninstalled (a ``None`` module fails to import)."""
    for name in ("charset_normalizer", "chardet", "cchardet"):
        monkeypatch.setitem(sys.modules, name, None)
    dammit = sys.modules.get("bs4.dammit")
    if dammit is not None and hasattr(dammit, "chardet_module"):
        monkeypatch.setattr(dammit, "chardet_module", None)


@pytest.mark.parametrize("stray", [b"\xff", b"\x81\x8d", b""])
def test_the_same_text_with_and_without_a_detector_installed(stray: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    pages = [names_page(None).encode("utf-8") + stray, names_page("utf-8").encode("utf-8") + stray,
             ("Paraná River " * 3).encode("cp1252") + stray, "山田 花子 7α".encode("shift_jis") + stray]
    with_detector = [decode_page(data) for data in pages]
    hide_detectors(monkeypatch)
    assert [decode_page(data) for data in pages] == with_detector
    assert "山田 花子" in with_detector[0].text and "7α-hydroxylase" in with_detector[1].text
    assert not re.search("[\u2500-\u257f]", "".join(page.text for page in with_detector))  # no box drawing


def test_cjk_with_a_stray_byte_is_never_cyrillic_box_drawing() -> None:
    data = names_page(None).encode("utf-8") + b"\xff"
    text = decode(data)[0]
    assert "山田 花子" in text and "7α-hydroxylase" in text
    assert not re.search("[\u0400-\u04ff\u2500-\u257f]", text)


def test_a_latin1_page_stays_latin1() -> None:
    """Real ISO-8859-1 bytes (no UTF-8 sequence at all) keep their declaration: no warning."""
    page = '<meta charset="ISO-8859-1"><p>Middle Paraná River, ±SD, São Paulo</p>'
    decoded = decode_page(page.encode("latin-1"))
    assert decoded.text == page and decoded.warnings == () and decoded.encoding == "windows-1252"


def test_a_latin1_page_with_an_accidental_utf8_pair_stays_latin1() -> None:
    """"ß" then a no-break space is valid UTF-8 by accident; the other accented letters are not."""
    page = "<p>Straße\xa0 für Gödel, Müller, Jürgen</p>"
    assert decode_page(page.encode("latin-1")).text == page


def test_invalid_bytes_warning_counts_and_locates() -> None:
    data = "<p>Gödel ".encode("utf-8") * 50 + b"\xff\xfe" + b"</p>"
    decoded = decode_page(data)
    assert decoded.text.count("\ufffd") == 2
    assert decoded.warnings == (("invalid_bytes", f"2 bytes are not UTF-8 (the first at offset {len(data) - 6}): "
                                                  "read as U+FFFD"),)


def test_each_invalid_byte_is_one_replacement_even_within_a_cut_sequence() -> None:
    """A euro sign cut to its first two bytes (E2 82) is two bytes UTF-8 cannot read, not one sequence."""
    data = "<p>Gödel ".encode("utf-8") * 50 + b"\xe2\x82 5</p>"
    decoded = decode_page(data)
    assert decoded.text.endswith("Gödel \ufffd\ufffd 5</p>")
    assert decoded.invalid == 2
    assert decoded.warnings[0][1].startswith("2 bytes are not UTF-8")


def test_many_invalid_bytes_are_not_utf8() -> None:
    """A page with more invalid bytes than the threshold is read in the charset it declares."""
    page = '<meta charset="windows-1252"><p>' + "é " * 20 + "Gödel</p>"
    data = page.encode("cp1252").replace("Gödel".encode("cp1252"), "Gödel".encode("utf-8"))
    assert decode_page(data).text == page.replace("Gödel", "GÃ¶del")


def test_the_real_colleagues_page_declaring_latin1_reads_as_utf8(read_corpus) -> None:
    """The saved co-author list declares ISO-8859-1; its bytes are UTF-8 ("D\\xc3\\xb3g" is "Dóg")."""
    raw = read_corpus(COLLEAGUES)
    assert b"charset=ISO-8859-1" in raw[:200] and "Dróg i Mostów".encode("utf-8") in raw
    decoded = decode_page(raw)
    assert "Instytut Badawczy Dróg i Mostów" in decoded.text and "Ã" not in decoded.text
    assert [code for code, _ in decoded.warnings] == ["charset_mismatch"]


def test_cli_parse_of_a_lying_page_has_the_records_of_the_right_one(tmp_path: Path) -> None:
    lying, right = tmp_path / "lying.html", tmp_path / "right.html"
    lying.write_bytes(names_page("ISO-8859-1").encode("utf-8"))
    right.write_bytes(names_page("utf-8").encode("utf-8"))
    runs = [run_parse(page) for page in (lying, right)]
    assert [run.returncode for run in runs] == [0, 0]
    records = [re.sub(r'"sha256":"\w+"', "", run.stdout) for run in runs]
    records[0] = re.sub(r',?\{"code":"charset_mismatch","message":"[^"]*"\}', "", records[0])
    assert records[0] == records[1] and "Gödel" in records[0]


def run_parse(page: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pubharvest.cli", "parse", "-f", "jsonl", str(page)],
                          capture_output=True, text=True, encoding="utf-8", check=False)


@pytest.mark.parametrize("data", [
    "<html><body><p>山田 花子 7α-hydroxylase</p></body></html>".encode("utf-8") + b"\xff",
    b"<html><body><p>" + "山田 花子".encode("euc_jp") + b"</p></body></html>",
    b"<html><body><p>caf\xe9 \x81\x8d\x8f\x90\x9d</p></body></html>",
])
def test_no_library_log_line_reaches_stderr(data: bytes, tmp_path: Path, capsys, caplog) -> None:
    page = tmp_path / "page.html"
    page.write_bytes(data)
    decode_page(data)
    assert capsys.readouterr().err == "" and caplog.records == []
    run = run_parse(page)
    assert all(line.startswith(f"{page}: ") for line in run.stderr.splitlines()), run.stderr
    assert "could not be decoded" not in run.stderr


def nested(depth: int, rows: int = 20) -> str:
    table = "<table>" + "".join(f"<tr><td>row {i}</td></tr>" for i in range(rows)) + "</table>"
    return "<html><body>" + "<div>" * depth + "<p>deep</p>" + "</div>" * depth + table + "</body></html>"


def test_a_page_nested_2000_deep_parses_fully() -> None:
    selector = html_selector(nested(2000))
    assert len(selector.xpath("//div")) == 2000 and len(selector.xpath("//td")) == 20


@pytest.mark.parametrize("depth", [2100, 5000])
def test_a_page_nested_deeper_than_libxml2_allows_is_truncated_not_cut(depth: int) -> None:
    """libxml2 stops at 2048 levels even with its huge-tree option: every element after that point would
    be lost (20 rows -> 0). That is refused as ``truncated``, never a silent cut."""
    with pytest.raises(parsers.Truncated, match="nested too deep"):
        html_selector(nested(depth))


def test_a_scholar_profile_nested_too_deep_is_truncated() -> None:
    text = JA.read_text(encoding="utf-8").replace("<body>", "<body>" + "<div>" * 3000, 1)
    with pytest.raises(parsers.ParseError) as caught:
        parsers.parse(text.encode("utf-8"))
    assert caught.value.code == "truncated"
