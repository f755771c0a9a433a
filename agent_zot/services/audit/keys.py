"""Which library item a citation names. Tried in order: the item's citation key (Zotero's field, on every
item type from Zotero 8, or a Better BibTeX "Citation Key:" line in Extra), its Zotero item key, the BibTeX
key agent-zot's own export gives it, its DOI; then author and year, read from an author-year citation or
from a key shaped like "smith2020deep" / "smithDeepLearning2020" (Better BibTeX keys live in its own
database, not in zotero.sqlite, so most drafts' keys can only be matched this way). A citation that fits
several items names them all; one that fits none names the closest items.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from agent_zot.graph.matching import surname_key
from agent_zot.identifiers import clean_doi, find_doi
from agent_zot.services.audit.citations import CiteRef
from agent_zot.services.resolve.paper_index import exported_keys, paper_index
from agent_zot.text import ascii_key
from agent_zot.zotero.models import Item, Library

CLOSEST = 3
_KEY_YEAR = re.compile(r"(?<!\d)((?:1[6-9]|20)\d{2})(?!\d)")


@dataclass(slots=True)
class Resolution:
    status: str  # "resolved" | "unknown" | "ambiguous"
    items: list[Item] = field(
        default_factory=list
    )  # the item; both (or all) when ambiguous; closest when unknown
    how: str = ""  # how it was matched, in words

    @property
    def item(self) -> Item | None:
        return self.items[0] if self.status == "resolved" else None


class KeyIndex:
    """The library's identifiers, gathered once per audit."""

    def __init__(self, library: Library) -> None:
        items = [i for i in library.items.values() if not i.deleted]
        self.items = items
        self.by_item_key = {i.key: i for i in items}
        tables = paper_index(library)  # the library's one identifier table, shared with the resolver
        self.by_citation_key = self._listed(tables.ids.citation_keys)
        self.by_doi = self._listed(tables.ids.dois)
        self.exported_of = exported_keys(tables)  # item key -> the key agent-zot's BibTeX export gives it
        self.exported = {key.casefold(): self.by_item_key[k] for k, key in self.exported_of.items()}
        self.by_surname: dict[str, list[Item]] = {}
        for item in items:
            if item.authors:
                self.by_surname.setdefault(surname_key(item.authors[0].last_name), []).append(item)
        self._labels: dict[str, Item] | None = None

    def _listed(self, table: dict[str, list[str]]) -> dict[str, list[Item]]:
        """An identifier table's entries as items, those in the trash left out."""
        listed = {
            name: [self.by_item_key[k] for k in keys if k in self.by_item_key] for name, keys in table.items()
        }
        return {name: found for name, found in listed.items() if found}

    def resolve(self, ref: CiteRef) -> Resolution:
        if ref.kind == "doi":
            return self._doi(ref.key)
        if ref.kind == "author_year":
            return self._author_year(ref.surnames, ref.year, ref.key)
        return self._key(ref.key)

    def _key(self, key: str) -> Resolution:
        folded = key.casefold()
        listed = self.by_citation_key.get(folded, [])
        if listed:
            return _found(listed, "citation key")
        if key.upper() in self.by_item_key:
            return Resolution("resolved", [self.by_item_key[key.upper()]], "Zotero item key")
        if folded in self.exported:
            return Resolution("resolved", [self.exported[folded]], "the BibTeX key agent-zot exports")
        inferred = self._from_key_shape(key)
        if inferred is not None:
            return inferred
        return Resolution("unknown", self.closest(key), "")

    def _doi(self, doi: str) -> Resolution:
        wanted = find_doi(clean_doi(doi))
        listed = self.by_doi.get(wanted or "", [])
        if listed:
            return _found(listed, "DOI")
        return Resolution("unknown", self.closest(doi), "")

    def _author_year(self, surnames: tuple[str, ...], year: str, label: str) -> Resolution:
        candidates = self._by_first_author(surnames[0], year[:4])
        if len(candidates) > 1 and len(surnames) > 1:
            others = {surname_key(s) for s in surnames[1:]}
            narrowed = [i for i in candidates if others <= {surname_key(c.last_name) for c in i.authors}]
            candidates = narrowed or candidates
        if candidates:
            return _found(candidates, "author and year")
        return Resolution("unknown", self.closest(label), "")

    def _from_key_shape(self, key: str) -> Resolution | None:
        """ "smith2020deep", "Smith_2020", "smithDeepLearning2020": the first author's surname and the
        year, then title words in the key when several items share them."""
        year = _KEY_YEAR.search(key)
        if year is None:
            return None
        lead = re.match(r"[A-Za-z]+", key.replace("_", "").replace("-", ""))
        if lead is None:
            return None
        name = re.split(r"(?<=[a-z])(?=[A-Z])", lead.group())[0]
        candidates = self._by_first_author(name, year.group(1))
        if len(candidates) > 1:
            rest = ascii_key(key[len(name) :])
            titled = [i for i in candidates if _title_word(i) and _title_word(i) in rest]
            candidates = titled or candidates
        if not candidates:
            return None
        return _found(candidates, "author and year in the key")

    def _by_first_author(self, surname: str, year: str) -> list[Item]:
        listed = self.by_surname.get(surname_key(surname), [])
        if year.startswith("n"):  # "n.d.": no date
            return [i for i in listed if i.year is None]
        return [i for i in listed if str(i.year or "") == year]

    def closest(self, written: str) -> list[Item]:
        """The items whose keys, DOIs or author-year labels look most like what was written."""
        labels = self._closest_labels()
        wanted = ascii_key(written)
        found = process.extract(wanted, list(labels), scorer=fuzz.WRatio, limit=CLOSEST * 3, score_cutoff=60)
        closest: list[Item] = []
        for name, _score, _index in found:
            if labels[name] not in closest:
                closest.append(labels[name])
        return closest[:CLOSEST]

    def _closest_labels(self) -> dict[str, Item]:
        if self._labels is None:
            labels = dict(self.exported)
            for item in self.items:
                if item.citation_key:
                    labels[item.citation_key.casefold()] = item
                if item.authors:
                    labels.setdefault(f"{surname_key(item.authors[0].last_name)}{item.year or ''}", item)
            self._labels = labels
        return self._labels


def _found(items: list[Item], how: str) -> Resolution:
    if len(items) == 1:
        return Resolution("resolved", items, how)
    return Resolution("ambiguous", items, how)


def _title_word(item: Item) -> str:
    for word in re.findall(r"[A-Za-z]{3,}", item.title):
        if word.casefold() not in {"the", "and", "for", "with", "from", "towards", "toward", "into", "how"}:
            return word.casefold()
    return ""
