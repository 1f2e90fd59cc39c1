"""ORCID's v3.0 work JSON as the XML the same work is in ORCID's API, so that ORCID's own schema
(``work-3.0.xsd``, read from ``$PUBHARVEST_CORPUS/enrichment/orcid/``) can judge a JSON work: no JSON
Schema of ORCID's exists. The mapping follows the XSD's element names and ORCID's JSON conventions:

- an object's keys are child elements, in order; a list is its key's element repeated; null is left out;
- ``{"value": text}`` is an element holding ``text``, its other keys attributes (``language-code``);
- a string is an element holding it;
- each element is in the namespace of the schema that declares it: ``common`` for what work-3.0.xsd
  takes by ``ref="common:..."`` (publication-date, external-ids, url, language-code, country, a
  work-title's title/subtitle/translated-title, contributor-orcid) and everything inside those, else
  ``work``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from lxml import etree

WORK = "http://www.orcid.org/ns/work"
COMMON = "http://www.orcid.org/ns/common"
# work-3.0.xsd's elements declared by ``ref="common:..."``: they and their children are in ``common``
COMMON_ELEMENTS = frozenset({"publication-date", "external-ids", "url", "language-code", "country",
                             "contributor-orcid"})
COMMON_IN_TITLE = frozenset({"title", "subtitle", "translated-title"})  # a work-title's children


def work_xml(work: dict[str, Any]) -> etree._Element:
    """The ``<work:work>`` element of a JSON work."""
    root = etree.Element(f"{{{WORK}}}work", nsmap={"work": WORK, "common": COMMON})
    _children(root, work, in_common=False, parent_name="work")
    return root


def _children(parent: etree._Element, value: dict[str, Any], in_common: bool, parent_name: str) -> None:
    for name, child in value.items():
        for item in child if isinstance(child, list) else [child]:
            if item is None:
                continue
            common = in_common or name in COMMON_ELEMENTS or (parent_name == "title" and name in COMMON_IN_TITLE)
            _element(parent, name, item, common)


def _element(parent: etree._Element, name: str, value: Any, common: bool) -> None:
    element = etree.SubElement(parent, f"{{{COMMON if common else WORK}}}{name}")
    if isinstance(value, str):
        element.text = value
    elif isinstance(value, dict) and "value" in value:
        element.text = value["value"]
        for attribute, text in value.items():
            if attribute != "value" and text is not None:
                element.set(attribute, text)
    elif isinstance(value, dict):
        _children(element, value, common, name)
    else:
        raise TypeError(f"{name}: {value!r} is no ORCID JSON value")


@functools.lru_cache(maxsize=None)
def work_schema(orcid_folder: Path) -> etree.XMLSchema:
    """ORCID's work schema (it imports common-3.0.xsd and error-3.0.xsd beside it)."""
    return etree.XMLSchema(etree.parse(str(orcid_folder / "record_3.0" / "work-3.0.xsd")))


def schema_errors(work: dict[str, Any], orcid_folder: Path) -> list[str]:
    """What ORCID's schema says is wrong with ``work`` in its XML form (empty: valid)."""
    schema = work_schema(orcid_folder)
    if schema.validate(work_xml(work)):
        return []
    return str(schema.error_log).splitlines()  # one line per error: where, and what


def element_paths(root: etree._Element) -> set[tuple[str, ...]]:
    """Every element's path of names from the root, each name with its namespace (``{ns}name``), and
    every attribute's as the path of its element plus ``@name``."""
    paths: set[tuple[str, ...]] = set()

    def walk(element: etree._Element, above: tuple[str, ...]) -> None:
        path = (*above, str(element.tag))
        paths.add(path)
        attributes = (str(name) for name in element.attrib)
        paths.update((*path, f"@{attribute}") for attribute in attributes if not attribute.startswith("{"))
        for child in element:
            if isinstance(child.tag, str):
                walk(child, path)

    walk(root, ())
    return paths
