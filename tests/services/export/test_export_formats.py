"""BibTeX, CSL-JSON and Markdown formatters, on hand-built items and (when present) real libraries."""

from __future__ import annotations

import itertools
import json
import random
import re
from pathlib import Path

import bibtexparser
import pytest

from agent_zot.formats import bibtex_keys, item_markdown, markdown_filename, to_bibtex, to_csl_json
from agent_zot.formats.bibtex import entry_type
from agent_zot.formats.csljson import csl_type
from agent_zot.formats.latex import escape, latex_title
from agent_zot.formats.markdown import to_markdown_single, yaml_string
from agent_zot.zotero.models import (
    Annotation,
    Attachment,
    Collection,
    Creator,
    Item,
    Library,
    LibraryInfo,
    LinkMode,
    Note,
    TagRef,
)
from agent_zot.zotero.values import parse_zotero_date
from tests.conftest import SHARED_ZOTERO, shared_libraries

ADVERSARIAL = [
    "a}b{",
    "50% of $x_1$",
    "back\\slash and \\textbf{bold}",
    "}}}",
    "{{{",
    "~^&#_ @misc{x,",
    "ends with a backslash \\",
    "quotes \"double\" and 'single'",
]


# -- builders ---------------------------------------------------------------------------------------


def person(last: str, first: str = "", role: str = "author", *, single: bool = False) -> Creator:
    return Creator(creator_id=0, creator_type=role, last_name=last, first_name=first, single_field=single)


def make_item(
    key: str = "ITEM0001",
    item_type: str = "journalArticle",
    *,
    creators: list[Creator] | None = None,
    date: str | None = None,
    date_added: str = "2024-01-01 00:00:00",
    citation_key: str | None = None,
    base: dict[str, str] | None = None,
    tags: list[str] | None = None,
    **fields: str,
) -> Item:
    stored = {"date": _stored_date(date)} if date else {}
    return Item(
        key=key,
        item_id=abs(hash(key)) % 10_000,
        item_type=item_type,
        library_id=1,
        fields={**fields, **stored},
        base_fields=base or {},
        creators=creators if creators is not None else [person("Smith", "Jane")],
        tags=[TagRef(t) for t in tags or []],
        date=parse_zotero_date(stored.get("date")),
        date_added=date_added,
        citation_key=citation_key,
    )


def _stored_date(text: str) -> str:
    """Zotero's stored form: "2019-11" -> "2019-11-00 2019-11"; free text stays as typed."""
    parts = text.split("-")
    if not all(p.isdigit() for p in parts) or len(parts) > 3:
        return text
    year, month, day = [*parts, "00", "00"][:3]
    return f"{year}-{month}-{day} {text}"


def make_library(items: list[Item], **extra: object) -> Library:
    return Library(
        data_dir=Path("/data"),
        db_path=Path("/data/zotero.sqlite"),
        schema_version=None,
        libraries=[LibraryInfo(1, "user", "My Library")],
        items={it.key: it for it in items},
        collections=extra.get("collections", {}),  # type: ignore[arg-type]
        standalone_notes=[],
        standalone_attachments=[],
        annotations_by_attachment=extra.get("annotations", {}),  # type: ignore[arg-type]
    )


def parse(bib: str) -> bibtexparser.Library:
    parsed = bibtexparser.parse_string(bib)
    assert parsed.failed_blocks == []
    return parsed


def assert_braces_balanced(text: str) -> None:
    """Raw brace counting, as BibTeX itself does (a backslash does not hide a brace from it)."""
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0, text
    assert depth == 0, text


# -- type mapping -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("zotero", "bibtex", "csl"),
    [
        ("journalArticle", "article", "article-journal"),
        ("magazineArticle", "article", "article-magazine"),
        ("newspaperArticle", "article", "article-newspaper"),
        ("conferencePaper", "inproceedings", "paper-conference"),
        ("book", "book", "book"),
        ("bookSection", "incollection", "chapter"),
        ("report", "techreport", "report"),
        ("webpage", "misc", "webpage"),
        ("blogPost", "misc", "post-weblog"),
        ("forumPost", "misc", "post"),
        ("preprint", "misc", "article"),
        ("manuscript", "misc", "manuscript"),
        ("patent", "patent", "patent"),
        ("computerProgram", "software", "software"),
        ("dataset", "dataset", "dataset"),
        ("encyclopediaArticle", "incollection", "entry-encyclopedia"),
        ("dictionaryEntry", "incollection", "entry-dictionary"),
        ("presentation", "misc", "speech"),
        ("document", "misc", "document"),
        ("letter", "misc", "personal_communication"),
        ("film", "misc", "motion_picture"),
        ("statute", "misc", "legislation"),
        ("case", "misc", "legal_case"),
        ("somethingNew", "misc", "document"),
    ],
)
def test_type_mapping(zotero: str, bibtex: str, csl: str) -> None:
    assert entry_type(make_item(item_type=zotero)) == bibtex
    assert csl_type(zotero) == csl


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("PhD", "phdthesis"),
        ("Doctoral dissertation", "phdthesis"),
        ("Master's thesis", "mastersthesis"),
        ("MSc thesis", "mastersthesis"),
        ("硕士学位论文", "mastersthesis"),
        ("博士学位论文", "phdthesis"),
        ("", "phdthesis"),
    ],
)
def test_thesis_kind_follows_thesis_type(label: str, expected: str) -> None:
    item = make_item(item_type="thesis", thesisType=label, base={"type": label} if label else {})
    assert entry_type(item) == expected


# -- keys -------------------------------------------------------------------------------------------


def test_citation_key_is_preferred_and_generated_keys_are_folded() -> None:
    items = [
        make_item("AAAA1111", citation_key="Known2020", title="Anything"),
        make_item("BBBB2222", creators=[person("Müller", "Jürgen")], date="2019-05-02", title="The Ökonomie"),
        make_item("CCCC3333", creators=[], title="", date=None),
        make_item(
            "DDDD4444", creators=[person("Łukasz Straße", single=True)], date="2001", title="On 3D scenes"
        ),
    ]
    assert bibtex_keys(items) == {
        "AAAA1111": "Known2020",
        "BBBB2222": "muller2019okonomie",
        "CCCC3333": "anonnd",
        "DDDD4444": "lukaszstrasse20013d",
    }


def test_collisions_get_suffixes_in_date_added_order_whatever_the_input_order() -> None:
    items = [
        make_item(f"KEY0000{n}", date="2020", title="Deep nets", date_added=f"2024-01-0{5 - n} 00:00:00")
        for n in range(1, 4)
    ]
    expected = {"KEY00003": "smith2020deepa", "KEY00002": "smith2020deepb", "KEY00001": "smith2020deepc"}
    for order in itertools.permutations(items):
        assert bibtex_keys(list(order)) == expected


def test_generated_keys_never_take_an_explicit_key() -> None:
    explicit = make_item("EXPL0001", citation_key="smith2020deep", date="1999", title="Other")
    generated = make_item("GENE0001", date="2020", title="Deep nets")
    # "smith2020deepa" is both a lone generated key and the first suffix the clash above would want.
    lone = make_item("LONE0001", date="2020", title="Deepa", date_added="2023-01-01 00:00:00")
    keys = bibtex_keys([generated, explicit, lone])
    assert keys == {"EXPL0001": "smith2020deep", "LONE0001": "smith2020deepa", "GENE0001": "smith2020deepb"}


def test_duplicate_and_unsafe_citation_keys_are_made_usable() -> None:
    first = make_item("FIRST001", citation_key="Dup{Key},1", date_added="2020-01-01")
    second = make_item("SECOND01", citation_key="DupKey1", date_added="2021-01-01")
    keys = bibtex_keys([second, first])
    assert keys == {"FIRST001": "DupKey1", "SECOND01": "DupKey1a"}
    assert len(parse(to_bibtex([first, second])).entries) == 2


# -- BibTeX content ---------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_escaping_is_brace_safe_for_adversarial_text(text: str) -> None:
    for value in (escape(text), latex_title(text)):
        assert_braces_balanced(value)
        assert "\\}" not in value and "\\{" not in value  # escaped braces still count in BibTeX
    item = make_item(title=text, abstractNote=text, publicationTitle=text, url=f"https://x.org/{text}")
    item.creators = [person(text, text), person(text, single=True)]
    item.tags = [TagRef(text)]
    bib = to_bibtex([item])
    assert_braces_balanced(bib)
    entry = parse(bib).entries[0]
    assert entry["title"] == latex_title(text)
    assert entry["journal"] == escape(text)


def test_random_markup_soup_always_parses_back() -> None:
    """Deterministic fuzz: every field full of specials, tags and name separators."""
    rng = random.Random(7)
    alphabet = [*"{}\\%$#_&~^@,=\"' \n\tabcXYZ中é<>/", "<i>", "</i>", "<sup>", "</span>", " and ", "others"]
    items = []
    for n in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 20)))
        item = make_item(
            f"FUZZ{n:04d}",
            rng.choice(["journalArticle", "book", "thesis", "preprint", "webpage"]),
            creators=[person(text, text), person(text, role="editor", single=True)],
            citation_key=text if n % 5 == 0 else None,
            title=text,
            publicationTitle=text,
            url=text,
            DOI=text,
            pages=text,
            extra=text,
        )
        items.append(item)
    bib = to_bibtex(items)
    assert_braces_balanced(bib)
    parsed = parse(bib)
    assert len(parsed.entries) == len(items) == len({e.key for e in parsed.entries})
    for item, entry in zip(items, parsed.entries, strict=True):
        if "title" in entry.fields_dict:
            assert entry["title"] == latex_title(item.title)


def test_a_journal_held_as_an_aas_macro_is_written_out_by_name() -> None:
    """Libraries filled from the NASA ADS hold "\\apj": every format, and the venue answers show, print the name."""
    item = make_item(publicationTitle="\\apj", title="Transit timing")
    other = make_item("ITEM0002", publicationTitle="{\\MNRAS}", title="Limb darkening")
    unknown = make_item("ITEM0003", publicationTitle="\\notajournal", title="Odd venue")
    assert item.venue == "The Astrophysical Journal"
    assert other.venue == "Monthly Notices of the Royal Astronomical Society"
    assert unknown.venue == "\\notajournal"  # a macro not on AAS's list stays as written
    csl = to_csl_json([item, other])
    assert [c["container-title"] for c in csl] == [
        "The Astrophysical Journal",
        "Monthly Notices of the Royal Astronomical Society",
    ]
    entries = bibtexparser.parse_string(to_bibtex([item])).entries
    assert entries[0]["journal"] == "The Astrophysical Journal"
    assert "The Astrophysical Journal" in item_markdown(item, make_library([item]))
    assert "\\apj" not in item_markdown(item, make_library([item]))


def test_latex_specials_are_escaped() -> None:
    assert escape("50% of $x_1$ & #2 ~ ^") == r"50\% of \$x\_1\$ \& \#2 \textasciitilde{} \textasciicircum{}"
    assert escape("a}b{") == r"a\textbraceright{}b\textbraceleft{}"
    assert escape("C:\\dir") == r"C:\textbackslash{}dir"
    assert escape("line\nbreak\ttab") == "line break tab"


def test_titles_protect_acronyms_and_convert_rich_text() -> None:
    assert latex_title("Using DNA and BERT on iPhone data") == "Using {DNA} and {BERT} on {iPhone} data"
    assert latex_title("Machine-Learning for all") == "Machine-Learning for all"
    assert latex_title("<i>E. coli</i> in H<sub>2</sub>O") == r"\textit{E. coli} in H\textsubscript{2}O"
    assert latex_title('A <span class="nocase">van der Waals</span> gas') == "A {van der Waals} gas"
    # Unbalanced markup: the stray close tag stays as text, the open one is closed for us.
    assert latex_title("x</b> <i>y") == r"x</b> \textit{y}"


def test_round_trip_keys_titles_authors_months_pages() -> None:
    items = [
        make_item(
            "ROUND001",
            creators=[
                person("Müller", "Jürgen"),
                person("van Dijk", "Anna"),
                person("Editor", "Ed", "editor"),
            ],
            date="2021-03-15",
            title="Graph networks for 中文 text",
            publicationTitle="Journal of Things & Stuff",
            volume="12",
            issue="3",
            pages="101-120",
            DOI="https://doi.org/10.1000/xyz_1",
        ),
        make_item(
            "ROUND002",
            "conferencePaper",
            creators=[person("Gautier", "Thomas N., III"), person("Smith and Sons", single=True)],
            date="2019-11",
            title="Proceedings item",
            proceedingsTitle="Proc. of Conf",
            base={"publicationTitle": "Proc. of Conf"},
            pages="5–9",
        ),
        make_item("ROUND003", "book", creators=[person("Lee", "Kim", "editor")], date="2018", title="Edited"),
    ]
    keys = bibtex_keys(items)
    parsed = parse(to_bibtex(items, keys))
    assert [e.key for e in parsed.entries] == [keys[it.key] for it in items]
    first, second, third = parsed.entries
    assert first.entry_type == "article"
    assert first["title"] == "Graph networks for 中文 text"
    assert first["author"] == "Müller, Jürgen and van Dijk, Anna"
    assert first["editor"] == "Editor, Ed"
    assert first["journal"] == r"Journal of Things \& Stuff"
    assert first["month"] == "mar"
    assert first.fields_dict["month"].enclosing == "no-enclosing"
    assert first["pages"] == "101--120"
    assert first["doi"] == "10.1000/xyz_1"
    assert (first["volume"], first["number"], first["year"]) == ("12", "3", "2021")
    assert second.entry_type == "inproceedings"
    assert second["booktitle"] == "Proc. of Conf"
    assert second["author"] == "Gautier, III, Thomas N. and {Smith and Sons}"
    assert second["month"] == "nov"
    assert second["pages"] == "5--9"
    assert "author" not in third.fields_dict and third["editor"] == "Lee, Kim"
    assert "month" not in third.fields_dict


def test_one_entry_per_distinct_item_in_given_order() -> None:
    a, b = make_item("AAAA0001", title="Alpha"), make_item("BBBB0001", title="Beta")
    parsed = parse(to_bibtex([b, a, b]))
    assert [e["title"] for e in parsed.entries] == ["Beta", "Alpha"]
    assert to_bibtex([]) == ""


def test_preprint_gets_arxiv_eprint_and_urls_stay_verbatim() -> None:
    item = make_item(
        item_type="preprint",
        title="A preprint",
        url="http://arxiv.org/abs/2101.00001v2?a=1&b=50%",
        archiveID="arXiv:2101.00001",
        base={"number": "arXiv:2101.00001", "publisher": "arXiv"},
        extra="arXiv:2101.00001 [cs]\nSome free remark",
    )
    entry = parse(to_bibtex([item])).entries[0]
    assert entry["eprint"] == "2101.00001"
    assert entry["archiveprefix"] == "arXiv"
    assert entry["url"] == "http://arxiv.org/abs/2101.00001v2?a=1&b=50%"
    assert entry["note"] == "Some free remark"
    assert "number" not in entry.fields_dict


def test_fields_by_type() -> None:
    thesis = make_item(
        "THESIS01",
        "thesis",
        title="T",
        university="Uni",
        thesisType="博士学位论文",
        place="Town",
        base={"publisher": "Uni", "type": "博士学位论文"},
    )
    report = make_item(
        "REPORT01",
        "report",
        title="R",
        institution="Lab",
        reportNumber="TR-7",
        base={"publisher": "Lab", "number": "TR-7"},
    )
    patent = make_item(
        "PATENT01",
        "patent",
        title="P",
        patentNumber="US1",
        assignee="Acme",
        issueDate="2018-09-06 2018-09-06",
        base={"number": "US1", "date": "2018-09-06 2018-09-06"},
    )
    web = make_item(
        "WEBPAGE1",
        "webpage",
        title="W",
        websiteTitle="Site",
        accessDate="2019-04-08 07:18:40",
        base={"publicationTitle": "Site"},
        tags=["ML", "a_b"],
    )
    t, r, p, w = parse(to_bibtex([thesis, report, patent, web])).entries
    assert (t["school"], t["address"], t["type"]) == ("Uni", "Town", "博士学位论文")
    assert (r["institution"], r["number"]) == ("Lab", "TR-7")
    assert (p["number"], p["holder"], p["year"], p["month"]) == ("US1", "Acme", "2018", "sep")
    assert (w["howpublished"], w["urldate"], w["keywords"]) == ("Site", "2019-04-08", r"ML, a\_b")


# -- CSL-JSON ---------------------------------------------------------------------------------------


def test_csl_json_structure() -> None:
    article = make_item(
        "CSL00001",
        creators=[
            person("Doe", "John"),
            person("WHO", single=True),
            person("Ed", "It", "editor"),
            person("Book", "Author", "bookAuthor"),
        ],
        date="2020-05",
        title="Title",
        publicationTitle="Journal",
        pages="1-2",
        DOI="10.1/abc",
        extra="PMID: 1",
        accessDate="2021-02-03 04:05:06",
        conferenceName="",
        tags=["x"],
        citation_key="doe2020",
    )
    bare = make_item("CSL00002", creators=[], title="No date")
    data = to_csl_json([article, bare], {"CSL00001": "doe2020title"})
    json.dumps(data)
    first, second = data
    assert first["id"] == "doe2020title" and first["citation-key"] == "doe2020title"
    assert first["type"] == "article-journal"
    assert first["author"] == [{"family": "Doe", "given": "John"}, {"literal": "WHO"}]
    assert first["editor"] == [{"family": "Ed", "given": "It"}]
    assert first["container-author"] == [{"family": "Book", "given": "Author"}]
    assert first["issued"] == {"date-parts": [[2020, 5]]}
    assert first["accessed"] == {"date-parts": [[2021, 2, 3]]}
    assert (first["container-title"], first["page"], first["DOI"], first["note"]) == (
        "Journal",
        "1-2",
        "10.1/abc",
        "PMID: 1",
    )
    assert "event-title" not in first
    assert second == {"id": "CSL00002", "type": "article-journal", "title": "No date"}


def test_csl_dates_and_names_edge_cases() -> None:
    year_only = make_item(date="2016", creators=[person("Gautier", "Thomas N., III")])
    undated_text = make_item(date="Spring, sometime")
    thesis = make_item(
        item_type="thesis", university="Uni", base={"publisher": "Uni", "type": "PhD"}, date="2014"
    )
    a, b, c = to_csl_json([year_only, undated_text, thesis])
    assert a["issued"] == {"date-parts": [[2016]]}
    assert a["author"] == [{"family": "Gautier", "given": "Thomas N.", "suffix": "III"}]
    assert b["issued"] == {"literal": "Spring, sometime"}
    assert (c["type"], c["publisher"], c["genre"]) == ("thesis", "Uni", "PhD")


# -- Markdown ---------------------------------------------------------------------------------------


def read_front_matter(page: str) -> dict[str, object]:
    """A tiny reader for exactly what the emitter writes: scalars, quoted strings and lists."""
    assert page.startswith("---\n")
    block = page[4 : page.index("\n---\n", 4)]
    values: dict[str, object] = {}
    current: list[object] | None = None
    for line in block.splitlines():
        if line.startswith("  - "):
            assert current is not None
            current.append(_scalar(line[4:]))
            continue
        name, _, raw = line.partition(": ") if ": " in line else (line.rstrip(":"), "", "")
        current = [] if raw in {"", "[]"} else None
        values[name] = current if current is not None else _scalar(raw)
    return values


def _scalar(raw: str) -> object:
    if raw.startswith('"'):
        return json.loads(re.sub(r"\\x([0-9a-f]{2})", r"\\u00\1", raw))
    return int(raw)


NASTY_TITLE = 'Quotes "inside": colons, # hash\nnew line, - dash, \\ backslash, yes, null, \t tab \x07 bell'


def markdown_fixture(tmp_path: Path) -> tuple[Item, Library]:
    pdf = tmp_path / "My Paper (final).pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    stored = Attachment(
        "ATT00001",
        2,
        "MD000001",
        "Full text PDF",
        LinkMode.IMPORTED_FILE,
        "application/pdf",
        "storage:x.pdf",
        pdf,
        True,
    )
    missing = Attachment(
        "ATT00002",
        3,
        "MD000001",
        "Gone",
        LinkMode.LINKED_FILE,
        "application/pdf",
        "/nowhere.pdf",
        Path("/nowhere.pdf"),
        False,
    )
    item = make_item(
        "MD000001",
        creators=[person("Doe", "John"), person("Roe", "Rita")],
        date="2022-07-01",
        title=NASTY_TITLE,
        publicationTitle="Journal: Of *Things*",
        base={"publicationTitle": "Journal: Of *Things*"},
        DOI="10.1/xyz",
        abstractNote="An abstract.",
        tags=["ml", 'tag "q"'],
    )
    item.collection_keys = ["COLL0002"]
    item.attachments = [stored, missing]
    item.notes = [
        Note("NOTE0001", 4, item.key, "<h1>My note</h1><p>Some <b>bold</b> text</p>", "My note", "My note")
    ]
    annotations = [
        Annotation(
            "ANN00002", 6, "ATT00001", item.key, "note", "", "Just a comment", "#ff0", "13", 12, "00012"
        ),
        Annotation(
            "ANN00001",
            5,
            "ATT00001",
            item.key,
            "highlight",
            "Highlighted\ntwo lines",
            "Why it matters",
            "#ff0",
            "12",
            11,
            "00011",
        ),
        Annotation("ANN00003", 7, "ATT00001", item.key, "highlight", "", "", "#ff0", "14", 13, "00013"),
    ]
    collections = {
        "COLL0001": Collection("COLL0001", 1, "Thesis", None, 1, path="Thesis"),
        "COLL0002": Collection("COLL0002", 2, "Ch: 2", "COLL0001", 1, path="Thesis/Ch: 2"),
    }
    return item, make_library([item], collections=collections, annotations={"ATT00001": annotations})


def test_markdown_front_matter_is_safe_yaml(tmp_path: Path) -> None:
    item, library = markdown_fixture(tmp_path)
    page = item_markdown(item, library, key="doe2022quotes")
    meta = read_front_matter(page)
    assert meta["title"] == " ".join(NASTY_TITLE.replace("\x07", "").split())  # one line, no controls
    assert meta["authors"] == ["John Doe", "Rita Roe"]
    assert meta["year"] == 2022
    assert meta["venue"] == "Journal: Of *Things*"
    assert meta["tags"] == ["ml", 'tag "q"']
    assert meta["collections"] == ["Thesis/Ch: 2"]
    assert (meta["citekey"], meta["item_key"], meta["doi"]) == ("doe2022quotes", "MD000001", "10.1/xyz")
    assert "url" not in meta
    yaml = pytest.importorskip("yaml")  # a second opinion when PyYAML happens to be installed
    assert yaml.safe_load(page.split("---\n")[1]) == meta


def test_yaml_strings_escape_everything_risky() -> None:
    assert yaml_string('a "b": c\\') == '"a \\"b\\": c\\\\"'
    assert yaml_string("x\ny\u2028\x85") == '"x\\ny\\u2028\\x85"'
    assert yaml_string("中文") == '"中文"'


def test_markdown_body_notes_annotations_and_links(tmp_path: Path) -> None:
    item, library = markdown_fixture(tmp_path)
    page = item_markdown(item, library, key="k")
    body = page.split("\n---\n", 1)[1]
    assert '\n# Quotes "inside": colons, \\# hash new line' in body
    assert "Doe, John; Roe, Rita (2022). *Journal: Of \\*Things\\**. <https://doi.org/10.1/xyz>" in body
    assert "## Abstract\n\nAn abstract." in body
    assert "## Notes\n\n### My note\n\nSome **bold** text" in body
    annotations = body[body.index("## Annotations") : body.index("## Attachments")]
    uri = (tmp_path / "My Paper (final).pdf").as_uri()
    assert f"### [Full text PDF](<{uri}>)" in annotations
    assert "> Highlighted\n> two lines\n\nWhy it matters (p. 12)" in annotations
    assert "Just a comment (p. 13)" in annotations
    assert "(p. 14)" not in annotations  # an empty highlight says nothing
    assert annotations.index("(p. 12)") < annotations.index("(p. 13)")
    assert "- Gone (file not found)" in body


def test_markdown_single_document(tmp_path: Path) -> None:
    item, library = markdown_fixture(tmp_path)
    other = make_item("OTHER001", title="Second: item", date="2001")
    library.items[other.key] = other
    doc = to_markdown_single([item, other], library, {item.key: "doe2022", other.key: "smith2001second"})
    assert not doc.startswith("---")
    assert doc.count("\n\n---\n\n") == 1
    assert "\n# Second: item\n\n- **Citekey:** smith2001second\n- **Item key:** OTHER001\n" in doc
    assert "- **Collections:** Thesis/Ch: 2" in doc
    assert "## Annotations" in doc


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("smith2020deep", "smith2020deep.md"),
        ('a/b\\c:d*e?f"g<h>i|j', "a_b_c_d_e_f_g_h_i_j.md"),
        ("..", "ITEM0001.md"),
        ("con", "_con.md"),
        ("x" * 300, "x" * 117 + ".md"),
        ("中" * 100, "中" * 80 + ".md"),
    ],
)
def test_markdown_filename(key: str, expected: str) -> None:
    assert markdown_filename(make_item(), key) == expected


# -- real libraries ---------------------------------------------------------------------------------


@pytest.mark.shared_data(SHARED_ZOTERO)
def test_real_libraries_round_trip_through_bibtexparser() -> None:
    from agent_zot.zotero.models import ReadOptions
    from agent_zot.zotero.reader import load_library

    for db in [folder / "zotero.sqlite" for folder in shared_libraries()]:
        library = load_library(db, options=ReadOptions(include_trash=True))
        items = list(library.items.values())
        keys = bibtex_keys(items)
        assert len(set(keys.values())) == len(items), db
        parsed = bibtexparser.parse_string(to_bibtex(items, keys))
        assert parsed.failed_blocks == [], db
        assert len(parsed.entries) == len(items), db
        assert sorted(e.key for e in parsed.entries) == sorted(keys.values()), db
        json.dumps(to_csl_json(items, keys), ensure_ascii=False)
        for item in items:
            assert item_markdown(item, library, key=keys[item.key]).startswith("---\n")
