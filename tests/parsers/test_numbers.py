"""The number reader fuzzed: what is plainly a count in any decimal script and grouping reads as that
count; anything else (signs, decimals, suffixes, exponents, words, mixed scripts, glued groups) is
no number, never a different number made of the digits it holds."""

from __future__ import annotations

import sys
import unicodedata

from hypothesis import example, given
from hypothesis import strategies as st

from pubharvest.parsers.numbers import MAX_COUNT, YEARS, count_in, read_count, read_year

# The zero of every decimal script Unicode knows: ten digits in a row from it are that script's 0-9.
ZEROS = [chr(c) for c in range(sys.maxunicode + 1)
         if unicodedata.category(chr(c)) == "Nd" and unicodedata.decimal(chr(c)) == 0]
SEPARATORS = [",", ".", " ", "\u00a0", "\u202f", "\u2009", "'", "\u2019", "\u066c"]

counts = st.integers(min_value=0, max_value=MAX_COUNT)
scripts = st.sampled_from(ZEROS)


def in_script(digits: str, zero: str) -> str:
    return "".join(chr(ord(zero) + int(d)) for d in digits)


def grouped(value: int, separator: str) -> str:
    """``value`` with ``separator`` between groups of three, as a page writes it."""
    return f"{value:,}".replace(",", separator)


@given(counts, scripts, st.sampled_from(["", *SEPARATORS]))
def test_a_plain_count_in_any_script_and_grouping_is_that_count(value: int, zero: str, separator: str) -> None:
    text = in_script(str(value), zero) if not separator else "".join(
        in_script(c, zero) if c.isdigit() else c for c in grouped(value, separator))
    assert read_count(text) == value
    assert read_count(f"  {text}\n") == value


@given(counts, st.sampled_from(["-", "+", "~", "<", ">"]), st.sampled_from(["K", "k", "M", "%", "+", "e3", "E2", " K"]))
@example(12, "-", "K")
def test_signed_suffixed_or_scaled_counts_are_no_number(value: int, sign: str, suffix: str) -> None:
    assert read_count(f"{sign}{value}") is None
    assert read_count(f"{value}{suffix}") is None


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=1, max_value=99))
def test_decimals_are_no_number(whole: int, tenths: int) -> None:
    assert read_count(f"{whole}.{tenths}") is None  # one or two decimals: never a group of three
    assert read_count(f"{whole},{tenths}") is None


@given(counts, scripts, scripts)
def test_digits_of_two_scripts_are_no_number(value: int, one: str, other: str) -> None:
    digits = str(value)
    if one == other or len(digits) < 2:
        return
    assert read_count(in_script(digits[0], one) + in_script(digits[1:], other)) is None


@given(st.text(max_size=30))
@example("1.2K")
@example("20O7")
@example("N/A")
@example("\u2014")
@example("\u00b2")
@example("1e3")
def test_any_text_is_a_count_only_when_its_digits_are_the_count(text: str) -> None:
    """Whatever the text, a value read is in range and is exactly the number its digits write."""
    value = read_count(text)
    if value is None:
        return
    assert 0 <= value <= MAX_COUNT
    digits = "".join(str(unicodedata.decimal(c)) for c in text if unicodedata.category(c) == "Nd")
    assert int(digits) == value
    others = {c for c in text.strip() if unicodedata.category(c) != "Nd"}
    assert len(others) <= 1 and others <= set(SEPARATORS), text


@given(st.integers(min_value=MAX_COUNT + 1, max_value=10**30))
def test_counts_past_64_bits_are_no_number(value: int) -> None:
    assert read_count(str(value)) is None


@given(st.integers(min_value=0, max_value=9999), scripts)
def test_a_year_is_four_digits_in_range(value: int, zero: str) -> None:
    text = in_script(f"{value:04d}", zero)
    assert read_year(text) == (value if value in YEARS else None)
    assert read_year(text[:2] + "O" + text[3:]) is None  # a letter for a digit: no year, not a three-digit one


@given(st.text(alphabet=st.characters(blacklist_categories=("Nd", "No", "Nl")), max_size=12), counts,
       st.text(alphabet=st.characters(blacklist_categories=("Nd", "No", "Nl")), max_size=12))
def test_the_one_count_in_a_label_is_that_count(before: str, value: int, after: str) -> None:
    """A count set apart as a word of its own, whatever label in whatever script is around it."""
    label = f"{before.strip()} {value} {after.strip()}"
    got = count_in(label)
    assert got in (value, None)
    if not any(c.isalnum() or c in ":\uff1a()[]" for c in before + after):
        assert got == value, label


@given(counts, counts)
def test_two_counts_in_one_cell_are_no_number(one: int, other: int) -> None:
    assert count_in(f"{one} of {other}") is None


@given(st.text(alphabet="0123456789,. '\u00a0٣x-", max_size=24))
@example("18,747")
@example("1 234 567")
@example("99999999999999999999")
@example("1,2345")
def test_the_ascii_shortcut_reads_what_the_character_walk_reads(text: str) -> None:
    """``_plain_count`` (ASCII digits, one ASCII separator) answers only when the walk over each character
    (``why_not_count`` and ``_groups``) finds a count, and then with the same value."""
    from pubharvest.parsers import numbers

    plain = numbers._plain_count(text)
    walked = None if numbers.why_not_count(text) else numbers._value(numbers._groups(text)[0] or [])
    assert plain is None or plain == walked
    if text.isascii() and walked is not None:
        assert plain == walked
