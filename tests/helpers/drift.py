"""Drift variants of a saved page, for any site: what a page looks like after the site renames a
class or an id, after a save cut short, or with its rows repeated. ``check_variant`` says whether a
parser met a variant honestly: a ``ParseError``, a result carrying a warning the original lacks, or
the very same records. Anything else is a silently wrong record.

>>> rename_token('<td class="gsc_a_t x"><a class="gsc_a_tr">', "gsc_a_t")
'<td class="gscXaXtdrift x"><a class="gsc_a_tr">'
>>> tokens_in_source('X = "gsc_a_t"; Y = "#gsc_rsb_st td.gs_gray"', r"gsc?_[\\w-]*[A-Za-z0-9]")
['gs_gray', 'gsc_a_t', 'gsc_rsb_st']
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from itertools import pairwise
from typing import Any

from pubharvest.errors import ParseError
from pubharvest.parsers.elamur.kinds import ENGLISH_TITLES
from pubharvest.parsers.records import PageResult, to_builtins


def rename_token(page: str, token: str, new: str | None = None) -> str:
    """``page`` with every whole-word ``token`` (in ids, classes, CSS and scripts alike) renamed; the
    new name does not contain the old one, so that a substring test cannot still find it."""
    return re.sub(rf"(?<![\w-]){re.escape(token)}(?![\w-])", new or token.replace("_", "X") + "drift", page)


def tokens_in_source(source: str, pattern: str) -> list[str]:
    """The distinct class / id names matching ``pattern`` in a parser's source, sorted."""
    return sorted(set(re.findall(rf"(?<![\w-])(?:{pattern})(?![\w-])", source)))


def emptied(page: str, start: str, end: str) -> str:
    """``page`` with what lies between the first ``start`` and the next ``end`` removed."""
    head = page.index(start) + len(start)
    return page[:head] + page[page.index(end, head):]


def repeated(page: str, start: str, end: str, times: int = 2) -> str:
    """``page`` with the block from the first ``start`` to the next ``end`` (excluded) repeated."""
    first = page.index(start)
    last = page.index(end, first)
    return page[:first] + page[first:last] * times + page[last:]


def nested(page: str, start: str, end: str, depth: int, tag: str = "div") -> str:
    """``page`` with the block from ``start`` to the end of the next ``end`` wrapped in ``depth`` elements."""
    first = page.index(start)
    last = page.index(end, first) + len(end)
    return page[:first] + f"<{tag}>" * depth + page[first:last] + f"</{tag}>" * depth + page[last:]


def truncations(page: str, fractions: tuple[float, ...] = (0.25, 0.5, 0.75, 0.9, 0.99)) -> Iterator[tuple[str, str]]:
    """(label, page cut at that fraction of its length)."""
    for fraction in fractions:
        yield f"cut at {fraction:.0%}", page[: int(len(page) * fraction)]


def comparable(result: PageResult) -> dict[str, Any]:
    """The records of a result without what depends on the input bytes (``source``) or warnings."""
    data = to_builtins(result)
    data.pop("source", None)
    data.pop("warnings", None)
    return data


# (site, outcome) of every variant checked in this session: ``tally_line`` reports it at the end.
TALLY: Counter[tuple[str, str]] = Counter()
OUTCOMES = {"same": "right records", "warned": "warnings", "error": "refusals", "silent": "silent wrong records"}


def check_variant(parse: Callable[[bytes], PageResult], original: PageResult, variant: str, label: str,
                  restore: Callable[[str], str] | None = None) -> str:
    """``"error"``, ``"warned"`` or ``"same"`` for an honest outcome; fails the test otherwise (a
    silently wrong record). Each outcome is counted in ``TALLY``.

    ``restore`` maps the variant's own text back where a record rightly copies it (a URL the page
    states, with a renamed parameter in it): the records are compared after it."""
    outcome = variant_outcome(parse, original, variant, label, restore)
    TALLY[(original.site, outcome)] += 1
    assert outcome != "silent", f"{label}: a different record with no new warning"
    return outcome


def variant_outcome(parse: Callable[[bytes], PageResult], original: PageResult, variant: str, label: str,
                    restore: Callable[[str], str] | None = None) -> str:
    """What parsing ``variant`` gives, against ``original``: one of ``OUTCOMES``."""
    try:
        result = parse(variant.encode("utf-8"))
    except ParseError as exc:
        assert exc.code and "\n" not in exc.message, f"{label}: {exc!r}"
        return "error"
    before = {(w.code, w.message) for w in original.warnings}
    if {(w.code, w.message) for w in result.warnings} - before:
        return "warned"
    got = comparable(result)
    if restore is not None:
        got = json.loads(restore(json.dumps(got, ensure_ascii=False)))
    return "same" if got == comparable(original) else "silent"


def tally_line(tally: Counter[tuple[str, str]]) -> str | None:
    """The closing line of a session that checked drift variants (None when it checked none).

    >>> tally_line(Counter({("scholar", "same"): 3, ("scholar", "warned"): 2, ("elamur", "error"): 1}))
    'drift: 6 variants tried: 3 right records, 2 warnings, 1 refusals, 0 silent wrong records (elamur 1, scholar 5)'
    """
    if not tally:
        return None
    counts = Counter[str]()
    sites = Counter[str]()
    for (site, outcome), n in tally.items():
        counts[outcome] += n
        sites[site] += n
    figures = ", ".join(f"{counts[outcome]} {name}" for outcome, name in OUTCOMES.items())
    per_site = ", ".join(f"{site} {n}" for site, n in sorted(sites.items()))
    return f"drift: {sum(counts.values())} variants tried: {figures} ({per_site})"


# --- generic transforms: what a site's redesign or a bad save does to a page ----------------------

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def in_words(number: int) -> str:
    """``number`` (0 ≤ number < 10**9) written in English words, as a page might spell a count or a year.

    >>> in_words(0), in_words(42), in_words(2007), in_words(1185)
    ('zero', 'forty-two', 'two thousand seven', 'one thousand one hundred eighty-five')
    >>> in_words(4916000)
    'four million nine hundred sixteen thousand'
    """
    if number < 20:
        return _ONES[number]
    if number < 100:
        return _TENS[number // 10] + ("-" + _ONES[number % 10] if number % 10 else "")
    for size, name in ((10**6, "million"), (1000, "thousand"), (100, "hundred")):
        if number >= size:
            rest = number % size
            return f"{in_words(number // size)} {name}" + (f" {in_words(rest)}" if rest else "")
    raise AssertionError(number)


def numbers_as_words(page: str, pattern: str) -> str:
    """``page`` with the number each match of ``pattern`` holds in its group ``n`` written in words
    (grouping commas and dots dropped first).

    >>> numbers_as_words('<a class="gsc_a_ac">1,185</a><span class="gsc_a_h">2007</span>', class_text("gsc_a_h"))
    '<a class="gsc_a_ac">1,185</a><span class="gsc_a_h">two thousand seven</span>'
    """
    def spelled(match: re.Match[str]) -> str:
        start, end = match.start("n") - match.start(), match.end("n") - match.start()
        return match[0][:start] + in_words(int(re.sub(r"\D", "", match["n"]))) + match[0][end:]
    return re.sub(pattern, spelled, page)


def class_text(name: str) -> str:
    """A pattern for ``numbers_as_words``: the number that is the whole text of an element of class ``name``.

    >>> bool(re.search(class_text("gsc_a_ac"), '<a href="x" class="gsc_a_ac gs_ibl">12</a>'))
    True
    """
    return rf'<\w+[^>]*\bclass="(?:[^"]*\s)?{re.escape(name)}(?:\s[^"]*)?"[^>]*>\s*(?P<n>\d[\d,.]*)\s*<'


def renamed_parameter(page: str, key: str, new: str | None = None) -> str:
    """``page`` with the query parameter ``key`` renamed in every address (``?key=``, ``&key=``, ``&amp;key=``).

    >>> renamed_parameter('<a href="/citations?user=X&amp;hl=en&amp;citation_for_view=X:Y">', "citation_for_view")
    '<a href="/citations?user=X&amp;hl=en&amp;citation_for_view_v2=X:Y">'
    """
    return re.sub(rf"(?<=[?&;]){re.escape(key)}=", f"{new or key + '_v2'}=", page)


def without_attribute(page: str, *names: str) -> str:
    """``page`` with every attribute ``names`` removed (``href``: links that lost their address).

    >>> without_attribute('<a href="/x" class="c" data-href="/y">t</a>', "href", "data-href")
    '<a class="c">t</a>'
    """
    alternatives = "|".join(re.escape(name) for name in names)
    return re.sub(rf"""\s(?:{alternatives})=(?:"[^"]*"|'[^']*'|[^\s>]*)""", "", page)


def retagged(page: str, old: str, new: str) -> str:
    """``page`` with every ``old`` element made a ``new`` one (``a`` -> ``span``: links turned into text).

    >>> retagged('<tr><td class="a">1</td><td>2</td></tr>', "td", "div")
    '<tr><div class="a">1</div><div>2</div></tr>'
    """
    return re.sub(rf"<(/?){re.escape(old)}(?=[\s>/])", rf"<\1{new}", page, flags=re.I)


def swapped_neighbours(page: str, start: str) -> str:
    """``page`` with each two adjacent elements that open with ``start`` swapped (each ends at the first
    closing tag of its name: elements of the same name nested in them are not handled).

    >>> swapped_neighbours('<td><div class="g">A Bee</div><div class="g">Nature<span>, 2007</span></div></td>',
    ...                    '<div class="g">')
    '<td><div class="g">Nature<span>, 2007</span></div><div class="g">A Bee</div></td>'
    """
    tag = re.match(r"<(\w+)", start)
    assert tag, start
    element = rf"{re.escape(start)}(?:(?!</{tag[1]}>).)*</{tag[1]}>"
    return re.sub(rf"({element})\s*({element})", r"\2\1", page, flags=re.S)


def class_names_upper_cased(page: str) -> str:
    """``page`` with every class attribute's names upper-cased (ids and style sheets unchanged).

    >>> class_names_upper_cased('<tr class="gsc_a_tr" id="r1"><td class=gsc_a_t>')
    '<tr class="GSC_A_TR" id="r1"><td class=GSC_A_T>'
    """
    return re.sub(r"""(\sclass=)("[^"]*"|'[^']*'|[^\s>]+)""", lambda m: m[1] + m[2].upper(), page)


def class_dropped(page: str, name: str) -> str:
    """``page`` with the class ``name`` taken off every element that has it (ids, CSS and scripts
    unchanged), as when a site stops marking one kind of cell.

    >>> class_dropped('<a class="gsc_a_ac gs_ibl">1</a><span class="gsc_a_ac">', "gsc_a_ac")
    '<a class="gs_ibl">1</a><span class="">'
    """
    def dropped(match: re.Match[str]) -> str:
        names = [n for n in match[2].split() if n != name]
        return f'{match[1]}"{" ".join(names)}"'
    return re.sub(r"""(\sclass=)"([^"]*)\"""", dropped, page)


def without_front_matter(text: str) -> str:
    """A Markdown page without its leading ``--- key: "value" ... ---`` block (comments before it kept).

    >>> without_front_matter('<!-- note -->\\n---\\ntitle: "T"\\n---\\n# Name')
    '<!-- note -->\\n# Name'
    """
    return re.sub(r"\A((?:\s*<!--.*?-->|\s*\[//\]: # \([^\n]*\))*\s*)---\s.*?\s---\s*", r"\1", text, count=1,
                  flags=re.S)


Variant = tuple[str, str, "Callable[[str], str] | None"]  # label, page, ``restore`` for ``check_variant``
# Tags swapped for others a redesign might use: links turned into text, cells and rows into blocks.
RETAGS = (("a", "span"), ("a", "b"), ("td", "div"), ("td", "th"), ("tr", "div"), ("tbody", "div"), ("table", "div"),
          ("span", "div"), ("div", "span"), ("div", "p"), ("div", "section"), ("p", "div"), ("h3", "div"),
          ("h4", "div"), ("h5", "div"), ("ul", "div"), ("li", "div"), ("article", "div"), ("aside", "div"),
          ("time", "span"), ("button", "div"), ("img", "span"))


def html_variants(page: str, classes: list[str], parameters: tuple[str, ...]) -> Iterator[Variant]:
    """The generic drift variants of an HTML page: each query parameter of ``parameters`` renamed in
    its links, every address removed, each tag of ``RETAGS`` made another, the class names upper-cased
    and each class of ``classes`` dropped; variants that leave the page as it was are left out.

    >>> [label for label, _, _ in html_variants('<td class="c"><a href="/x?user=1">A</a></td>', ["c"], ("user",))]
    ['user= renamed', 'addresses removed', '<a> made <span>', '<a> made <b>', '<td> made <div>', '<td> made <th>', \
'class names upper-cased', 'class c dropped']
    """
    def variants() -> Iterator[Variant]:
        for key in parameters:
            yield f"{key}= renamed", renamed_parameter(page, key), _parameter_restored(key)
        yield "addresses removed", without_attribute(page, "href", "data-href"), None
        for old, new in RETAGS:
            yield f"<{old}> made <{new}>", retagged(page, old, new), None
        yield "class names upper-cased", class_names_upper_cased(page), None
        for name in classes:
            yield f"class {name} dropped", class_dropped(page, name), None
    return ((label, variant, restore) for label, variant, restore in variants() if variant != page)


def _parameter_restored(key: str) -> Callable[[str], str]:
    return lambda text: text.replace(f"{key}_v2=", f"{key}=")


def classes_of(page: str) -> list[str]:
    """Every class name the page's class attributes use, sorted.

    >>> classes_of('<a class="b a"><i class=c></i><p class="a">')
    ['a', 'b']
    """
    return sorted({name for value in re.findall(r'\sclass="([^"]*)"', page) for name in value.split()})


# --- Elamur pages in other languages: Elamur's URLs carry a language (``/free/en/``) -------------------

# (English phrase, Spanish, German): every section heading and lead of an Elamur author page, and the
# words of its list items (``2 works``, ``4 papers *current*``, ``309 citations``). Digits stay as they are.
ELAMUR_PHRASES = (
    ("## Affiliations", "## Afiliaciones", "## Zugehörigkeiten"),
    ("From the bylines of their papers (", "De las firmas de sus artículos (",
     "Aus den Autorenzeilen ihrer Aufsätze ("),
    ("), ORCID and Wikidata; institutions on papers are matched by machine.",
     "), ORCID y Wikidata; las instituciones de los artículos se asignan a máquina.",
     "), ORCID und Wikidata; Einrichtungen werden maschinell zugeordnet."),
    ("more institution on single bylines are not listed.", "institución más en firmas sueltas no se lista.",
     "weitere Einrichtung aus einzelnen Autorenzeilen ist nicht aufgeführt."),
    ("## Fields, topics and concepts", "## Campos, temas y conceptos", "## Fachgebiete, Themen und Konzepte"),
    ("Of its works in our library, with the number of works on each.",
     "De sus obras en nuestra biblioteca, con el número de obras de cada uno.",
     "Aus ihren Werken in unserer Bibliothek, mit der Zahl der Werke zu jedem."),
    ("📚 Shelves", "📚 Estantes", "📚 Regale"),
    ("The field of science this work belongs to (OpenAlex fields).",
     "El campo de la ciencia al que pertenece esta obra (campos de OpenAlex).",
     "Das Fachgebiet, zu dem dieses Werk gehört (OpenAlex-Fachgebiete)."),
    ("🧭 Topics", "🧭 Temas", "🧭 Themen"),
    ("Research subjects and languages the work is about.", "Materias e idiomas de los que trata la obra.",
     "Forschungsgegenstände und Sprachen, um die es im Werk geht."),
    ("## Works by year", "## Obras por año", "## Werke nach Jahr"),
    ("## Papers", "## Artículos", "## Aufsätze"),
    ("The most cited first (OpenAlex and our library).", "Los más citados primero (OpenAlex y nuestra biblioteca).",
     "Die meistzitierten zuerst (OpenAlex und unsere Bibliothek)."),
    ("## All works", "## Todas las obras", "## Alle Werke"),
    ("works of theirs in our library, the most cited first;", "obras suyas en nuestra biblioteca, las más citadas "
     "primero;", "Werke von ihnen in unserer Bibliothek, die meistzitierten zuerst;"),
    ("with a page here, the others link their original until we summarise them.",
     "con página aquí, las demás enlazan su original hasta que las resumamos.",
     "mit einer Seite hier, die anderen verlinken ihr Original, bis wir sie zusammenfassen."),
    ("## Co-authors here", "## Coautores aquí", "## Koautoren hier"),
    ("co-authors with a page, the most papers together first.",
     "coautores con página, primero con quienes más artículos comparten.",
     "Koautoren mit einer Seite, die mit den meisten gemeinsamen Aufsätzen zuerst."),
    ("## Venues", "## Lugares de publicación", "## Erscheinungsorte"),
    ("Where their works here were published, the most works first, with the editions of those that have a page.",
     "Dónde se publicaron sus obras aquí, primero donde más, con las ediciones de los que tienen página.",
     "Wo ihre Werke hier erschienen sind, die häufigsten zuerst, mit den Ausgaben derer, die eine Seite haben."),
    ("## Cited by", "## Citado por", "## Zitiert von"),
    ("Papers of our library", "Los artículos de nuestra biblioteca", "Aufsätze unserer Bibliothek"),
    ("cite their works", "citan sus obras", "zitieren ihre Werke"),
    ("times (of the", "veces (de los", "Mal (von den"),
    ("papers whose bibliographies we read);", "artículos cuyas bibliografías leímos);",
     "Aufsätzen, deren Literaturverzeichnisse wir gelesen haben);"),
    ("citing papers with a page here →", "artículos que los citan con página aquí →",
     "zitierende Aufsätze mit Seite hier →"),
    ("*current*", "*actual*", "*aktuell*"),
)
# The words after a count in list items: (pattern of the English word, Spanish, German).
ELAMUR_ITEM_WORDS = (
    (r"works?(?=\])", "obras", "Werke"),
    (r"papers?(?=\]|\s*\*)", "artículos", "Aufsätze"),
    (r"citations?(?=\)?\*)", "citas", "Zitationen"),
)
LANGUAGES = {"es": 1, "de": 2}
# The closing line as each language writes a date (the fixtures' months are November's).
_ELAMUR_CLOSING = re.compile(r"Updated (\d{1,2}) November (\d{4})(?=\s*\Z)")
ELAMUR_CLOSINGS = {"es": "Actualizado el {} de noviembre de {}", "de": "Aktualisiert am {}. November {}"}
# The counts of German leads, grouped as German writes them (``2.743``): before these words.
_GERMAN_COUNTS = re.compile(r"\d{1,3}(?:,\d{3})+(?= (?:Mal \(|Aufsätzen, deren|zitierende|Werke von))")


def elamur_translated(page: str, language: str) -> str:
    """An Elamur author page with every section heading, every lead and the words of the list items
    in ``language`` (``"es"`` or ``"de"``), in its one-line form or with its newlines.

    >>> elamur_translated("## Venues Where their works here were published, the most works first, with the "
    ...                   "editions of those that have a page. - SC 2021 ## Cited by", "es")
    '## Lugares de publicación Dónde se publicaron sus obras aquí, primero donde más, con las ediciones de los \
que tienen página. - SC 2021 ## Citado por'
    >>> elamur_translated("[**2021** 2 papers](u) *(2021 · 1 citation)* [A · 1 work](v)", "de")
    '[**2021** 2 Aufsätze](u) *(2021 · 1 Zitationen)* [A · 1 Werke](v)'
    >>> elamur_translated("cite their works 2,743 times (of the 149,439 papers whose bibliographies we read);", "de")
    'zitieren ihre Werke 2.743 Mal (von den 149.439 Aufsätzen, deren Literaturverzeichnisse wir gelesen haben);'
    """
    column = LANGUAGES[language]
    for phrase in ELAMUR_PHRASES:
        words = [re.escape(word) for word in phrase[0].split()]
        new = phrase[column].replace("\\", "\\\\")  # a replacement template: no group references
        page = re.sub(r"\s+".join(words) + (r"(?![\w,])" if phrase[0].startswith("#") else ""), new, page)
    for entry in ELAMUR_ITEM_WORDS:
        page = re.sub(rf"(?<=\d ){entry[0]}", entry[column], page)
    page = _ELAMUR_CLOSING.sub(lambda m: ELAMUR_CLOSINGS[language].format(*m.groups()), page)
    return _GERMAN_COUNTS.sub(lambda count: count[0].replace(",", "."), page) if language == "de" else page


def elamur_reordered(page: str) -> str:
    """An Elamur author page with its level-2 sections in the opposite order, but the last (*Cited by*,
    which the closing ``Updated`` line follows) kept last.

    >>> elamur_reordered("Head ## A a. ## B - b ## C c. Updated 1 May 2026")
    'Head ## B - b ## A a. ## C c. Updated 1 May 2026'
    """
    starts = [match.start() for match in re.finditer(r"(?<!\S)## ", page)]
    if len(starts) < 3:
        return page
    parts = [page[start:end] for start, end in pairwise(starts)]
    return page[:starts[0]] + "".join(reversed(parts)) + page[starts[-1]:]


def doi_address_variants(page: str) -> Iterator[tuple[str, str]]:
    """``(label, variant)``: ``page`` with its links to a publisher's ``/doi/`` page written as other
    addresses of the same paper: the resolver's, an older resolver over http, another view of the
    publisher's, a tracking query after it, the DOI in capitals. Each names the same DOIs.

    >>> page = '<a href="https://www.tandfonline.com/doi/abs/10.1577/ab.c">T</a>'
    >>> for _, variant in doi_address_variants(page): print(re.search('href="([^"]*)"', variant).group(1))
    https://doi.org/10.1577/ab.c
    http://dx.doi.org/10.1577/ab.c
    https://www.tandfonline.com/doi/full/10.1577/ab.c
    https://www.tandfonline.com/doi/abs/10.1577/ab.c?src=recsys&amp;journalCode=x
    https://www.tandfonline.com/doi/abs/10.1577/AB.C
    """
    link = r'(href=")https?://[\w.-]+/doi/(?:abs/|full/|pdf/|epdf/)?(10\.[^"]+)"'
    yield "the resolver's address", re.sub(link, r'\1https://doi.org/\2"', page)
    yield "an old resolver over http", re.sub(link, r'\1http://dx.doi.org/\2"', page)
    yield "another view", re.sub(r'(href="[^"]*)/doi/abs/', r"\1/doi/full/", page)
    yield "a tracking query", re.sub(r'(href="[^"?]*/doi/[^"?]*)"', r'\1?src=recsys&amp;journalCode=x"', page)
    yield "the DOI in capitals", re.sub(r'(href="[^"]*/doi/(?:abs/|full/|pdf/)?)(10\.[^"]+)"',
                                       lambda m: m.group(1) + m.group(2).upper() + '"', page)


# Elamur's labels, changed or in another language: the metrics are read by their links' addresses.
ELAMUR_LABELS = [("h-index", "índice h"), ("h-index", "H index"), (" works](", " trabajos]("),
                 (" citations](", " citas]("), ("works in our library", "obras en nuestra biblioteca"),
                 ("Cited ", "Citado "), ("Paper Stars ranking", "Clasificación"),
                 ("more in our library without a page yet", "más sin página"), ("Elsewhere:", "En otros sitios:")]


def elamur_variants(text: str) -> list[Variant]:
    """Elamur's variants: each label changed, the head's numbers in words, the front matter removed,
    OpenAlex's link addresses changed, every link made plain text; the sections' headings, leads and
    item words in Spanish and in German, the sections reordered, each heading's words changed and all
    of them at once."""
    found: list[Variant] = [(f"label {old!r} as {new!r}", text.replace(old, new), None) for old, new in ELAMUR_LABELS]
    found += [(f"sections in {language}", elamur_translated(text, language), None) for language in ("es", "de")]
    found += [("sections reordered", elamur_reordered(text), None),
              ("sections in Spanish, reordered", elamur_reordered(elamur_translated(text, "es")), None),
              ("every heading's words changed", heading_renamed(text, ENGLISH_TITLES), None)]
    found += [(f"heading {title!r} changed", heading_renamed(text, [title]), None) for title in ENGLISH_TITLES]
    found += [
        ("the head's numbers in words", numbers_as_words(text, r"\[[^\]\d]*(?P<n>\d[\d,]*)[^\]\d]*\]\(https://openalex"),
         None),
        ("front matter removed", without_front_matter(text), None),
        ("OpenAlex author path", text.replace("openalex.org/authors/", "openalex.org/people/"), None),
        ("filter= renamed", renamed_parameter(text, "filter"), lambda page: page.replace("filter_v2=", "filter=")),
        ("sort= renamed", renamed_parameter(text, "sort"), lambda page: page.replace("sort_v2=", "sort=")),
        ("links made text", re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text), None),
    ]
    return [(label, variant, restore) for label, variant, restore in found if variant != text]


def heading_renamed(text: str, titles: Iterable[str]) -> str:
    """``text`` with each level-2 heading of ``titles`` made one word of no language (no digit: a count
    of the lead must stay the lead's one number)."""
    for title in titles:
        text = re.sub(rf"(?<!\S)## {re.escape(title)}(?![\w,])", "## Abschnitt", text)
    return text
