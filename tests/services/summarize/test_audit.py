"""Citation audit of a draft (`zot_summarize` mode `audit`, `agent-zot audit`) and the review package
(`zot_export` format `review`): real PDFs made here with one claim per page, a real Zotero database from
the fixture builder, the real index, a real MCP client and click's runner."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.errors import InvalidArgumentError
from agent_zot.services.audit.audit_draft import audit_draft
from agent_zot.services.audit.checks import claim_like
from agent_zot.services.audit.citations import find_citations
from agent_zot.services.audit.draft import decode_file, read_draft, sentences_of
from agent_zot.services.audit.keys import KeyIndex
from agent_zot.services.audit.report import patch
from agent_zot.services.context import AppContext
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import call_tool, guard_database, index_library
from tests.paper_texts import BIGTABLE, GFS, LANES, REEF
from tests.pdf_factory import write_paper

SLEEP = [
    "Students who slept eight hours after learning word pairs recalled twenty percent more of them the next day.",
    "Slow-wave sleep predicted overnight memory consolidation better than total sleep time did.",
    "A single night of sleep deprivation impaired the encoding of new memories in healthy adults.",
]
VOLCANO = "Volcanic ash clouds disrupted air traffic across Europe for six days in April 2010."


def _pages(sentences: list[str]) -> list[str]:
    filler = "The remaining paragraphs of this page describe the study sites and the data collection."
    return [f"{sentence} {filler}" for sentence in sentences]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str], Path]:
    root = tmp_path_factory.mktemp("audit")
    pdfs = root / "pdfs"
    pdfs.mkdir()
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=13)
    keys: dict[str, str] = {}

    def paper(name: str, pages: list[str] | None, **fields: Any) -> None:
        keys[name] = b.add_item("journalArticle", **fields)
        if pages is not None:
            path = write_paper(
                pdfs / f"{name}.pdf", page_bodies=_pages(pages), page_labels=name == "sleep"
            ).path
            b.add_attachment(keys[name], filename=f"{name}.pdf", content=path.read_bytes())

    paper(
        "reef",
        REEF,
        title="Coral reef bleaching after marine heatwaves",
        date="2021-00-00 2021",
        creators=[("Ana", "Moreau"), ("Tom", "Hale")],
        citationKey="reef2021",
        abstractNote="Heatwaves, coral bleaching and recovery on the northern reef.",
    )
    paper(
        "lanes",
        LANES,
        title="Protected bicycle lanes and urban safety",
        date="2019-00-00 2019",
        creators=[("Jo", "Park")],
        DOI="10.1234/bike.2019",
        extra="Citation Key: lanes2019",
    )
    paper(
        "sleep",
        SLEEP,
        title="Sleep and the consolidation of memory",
        date="2020-00-00 2020",
        creators=[("Chidi", "Okafor"), ("Mia", "Lund"), ("Raj", "Iyer")],
    )
    paper(
        "volcano",
        None,
        title="Ash clouds and European aviation",
        date="2011-00-00 2011",
        creators=[("Eva", "Lindqvist")],
        abstractNote=VOLCANO,
    )
    paper(
        "gfs",
        GFS,
        title="The Google file system",
        date="2003-00-00 2003",
        creators=[("Sanjay", "Ghemawat")],
    )
    paper(
        "bigtable",
        BIGTABLE,
        title="A distributed storage system for structured data",
        date="2006-00-00 2006",
        creators=[("Fay", "Chang")],
    )
    for title in ("Urban heat islands in Madrid", "Urban heat islands in Seville"):
        paper(
            title.split()[-1].lower(),
            None,
            title=title,
            date="2018-00-00 2018",
            creators=[("Luis", "Garcia")],
        )
    db = guard_database(b.build())
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(settings, root / "home"), keys, root


DRAFT = f"""---
title: A chapter
---

# Background

In this chapter we review what is known about the three topics.
{REEF[0][:-1]} [@reef2021, p. 1].
{LANES[0][:-1]} [@lanes2019, p. 3].
As @okafor2020sleep [p. 102] put it, “memories are consolidated during dreams of flying” when students sleep after learning.
{REEF[2][:-1]} [@lanes2019, p. 2].
{SLEEP[1][:-1]} [@smyth2020memory].
Urban heat islands raise night temperatures in southern Spanish cities (Garcia, 2018).
{LANES[1]}
{VOLCANO[:-1]} (Lindqvist, 2011).
{LANES[2][:-1]} [doi:10.1234/bike.2019, p. 3].

# References
Moreau, A. (2021). Coral reef bleaching after marine heatwaves.
"""


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


# -- reading the draft -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A [@smith2020, p. 5].", [("smith2020", "p. 5")]),
        ("A [see @lee2019; @chen2021, pp. 3-4].", [("lee2019", None), ("chen2021", "pp. 3–4")]),
        ("As @wang2018 [p. 7] shows.", [("wang2018", "p. 7")]),
        ("A [doi:10.1000/xyz.12, p. 3].", [("10.1000/xyz.12", "p. 3")]),
        (r"A \citep[see][p.~5]{smith2020,lee2019}.", [("smith2020", "p. 5"), ("lee2019", "p. 5")]),
        (r"A \parencite[12]{kim2017}.", [("kim2017", "p. 12")]),
        (
            "A (Smith et al., 2020, p. 5; Lee & Chen, 2019).",
            [("Smith et al. 2020", "p. 5"), ("Lee & Chen 2019", None)],
        ),
        ("Smith and Lee (2019) disagree.", [("Smith and Lee 2019", None)]),
        ("An undated one (Kopp et al., n.d.).", [("Kopp et al. n.d.", None)]),
        ("(August et al., 2022, p. 17) is an author.", [("August et al. 2022", "p. 17")]),
        ("Not citations: (Table 2, 2019), (n = 2020), (until 2020), (August 2020), a@b.com.", []),
    ],
)
def test_citations_are_recognised_with_their_pages(text: str, expected: list[tuple[str, str | None]]) -> None:
    draft = read_draft(text)
    refs = [(r.key, str(r.pages) if r.pages else None) for c in draft.citations for r in c.refs]
    assert refs == expected


def test_spans_point_at_the_characters_a_fix_replaces() -> None:
    text = "Gains are large [@smith2020, pp. 5-7]."
    (citation,) = find_citations(text, "markdown", lambda a, b: False)
    ref = citation.refs[0]
    assert text[slice(*ref.key_span)] == "smith2020"
    assert text[slice(*ref.pages_span)] == "5-7"  # type: ignore[misc]


def test_latex_comments_environments_and_unknown_macros() -> None:
    text = (
        "\\documentclass{article}\n\\newcommand{\\ours}{X}\n\\begin{document}\n\\section{Intro}\n"
        "Models help \\citep[p.~5]{smith2020}. % \\cite{commented2019}\n"
        "\\begin{equation} x = \\cite{inmath2020} \\end{equation}\n"
        "The \\ours{} method and \\mymacro{text} work well.\n\\end{document}\n"
    )
    draft = read_draft(text)
    assert draft.kind == "latex"
    assert [r.key for c in draft.citations for r in c.refs] == ["smith2020"]
    assert set(draft.unexpanded) == {"\\ours", "\\mymacro"}
    prose = [s.prose for s in sentences_of(draft)]
    assert prose == ["Models help.", "The method and text work well."]


def test_sentences_own_their_citations_and_the_reference_list_is_not_prose() -> None:
    draft = read_draft(
        "Results improve, e.g. in Fig. 3 of the study. The effect is large (Smith, 2020). [@x]\n\n"
        "# Heading\nNew paragraph here.\n\n# References\nSmith, J. (2020). A title. A journal.\n"
    )
    sentences = sentences_of(draft)
    assert [s.prose for s in sentences] == [
        "Results improve, e.g. in Fig. 3 of the study.",
        "The effect is large.",
        "New paragraph here.",
    ]
    assert [len(s.citations) for s in sentences] == [0, 2, 0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("   \n ", "empty"),
        ("PK\x03\x04\x00\x00binary", "binary"),
        ("x" * 1_000_001, "1,000,001 characters"),
    ],
)
def test_bad_drafts_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        read_draft(text)


def test_draft_files_decode_and_binary_files_are_refused() -> None:
    assert decode_file("Café [@x].".encode()) == "Café [@x]."
    assert decode_file("Caf\xe9".encode("latin-1")) == "Café"
    with pytest.raises(InvalidArgumentError, match="binary"):
        decode_file(b"%PDF-1.4\x00\x01")


# -- resolving keys ------------------------------------------------------------------------------


@pytest.mark.slow
def test_keys_resolve_by_every_identifier(library: tuple[Settings, dict[str, str], Path]) -> None:
    settings, keys, _ = library
    ctx = AppContext(settings)
    try:
        index = KeyIndex(ctx.library())
        draft = read_draft(
            "[@reef2021] [@lanes2019] [@okafor2020sleep] [@Okafor_2020] [doi:10.1234/BIKE.2019] "
            f"[@{keys['reef']}] (Lindqvist, 2011) (Garcia, 2018) [@okafor2021sleep]"
        )
        found = [index.resolve(r) for c in draft.citations for r in c.refs]
    finally:
        ctx.close()
    assert [(r.status, r.how) for r in found] == [
        ("resolved", "citation key"),
        ("resolved", "citation key"),  # Better BibTeX's line in Extra
        ("resolved", "the BibTeX key agent-zot exports"),
        ("resolved", "author and year in the key"),
        ("resolved", "DOI"),
        ("resolved", "Zotero item key"),
        ("resolved", "author and year"),
        ("ambiguous", "author and year"),
        ("unknown", ""),
    ]
    assert [r.items[0].key for r in found[:7]] == [
        keys["reef"],
        keys["lanes"],
        keys["sleep"],
        keys["sleep"],
        keys["lanes"],
        keys["reef"],
        keys["volcano"],
    ]
    assert {i.key for i in found[7].items} == {keys["madrid"], keys["seville"]}
    assert found[8].items[0].key == keys["sleep"]  # the closest item to a mistyped key


# -- the audit through the MCP client ----------------------------------------------------------------


@pytest.mark.slow
async def test_the_audit_finds_each_planted_fault_and_passes_correct_citations(
    library: tuple[Settings, dict[str, str], Path],
) -> None:
    settings, keys, _ = library
    result = await call_tool(settings, "zot_summarize", draft=DRAFT)
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    assert data["route"]["mode"] == "audit"
    problems = {(p["line"], p["kind"]): p for p in data["problems"]}
    line = lambda needle: _line_of(DRAFT, needle)  # noqa: E731

    wrong_page = problems[(line("[@lanes2019, p. 3]"), "wrong_page")]
    assert wrong_page["page"] == 1 and wrong_page["fix"] == {
        "replace": "3",
        "with": "1",
        "offset": DRAFT.index("3]"),
    }
    quote = problems[(line("dreams of flying"), "quote_not_found")]
    assert "memories are consolidated during dreams of flying" in quote["message"]
    unsupported = problems[(line(REEF[2][:30]), "unsupported")]
    assert unsupported["candidates"][0]["key"] == keys["reef"] and unsupported["candidates"][0]["page"] == 3
    unknown = problems[(line("smyth2020memory"), "unknown_key")]
    assert "smyth2020memory is not in the library" in unknown["message"]
    ambiguous = problems[(line("(Garcia, 2018)"), "ambiguous_key")]
    assert "Madrid" in ambiguous["message"] and "Seville" in ambiguous["message"]
    uncited = problems[(line(LANES[1][:30]), "uncited_claim")]
    assert uncited["candidates"][0] == {
        "key": keys["lanes"],
        "title": "Protected bicycle lanes and urban safety",
        "page": 2,
    }
    assert uncited["fix"]["with"] == " [@lanes2019, p. 2]"

    flagged_lines = {p["line"] for p in data["problems"]}
    for fine in (REEF[0][:30], VOLCANO[:30], LANES[2][:30], "In this chapter we review"):
        assert line(fine) not in flagged_lines, fine
    assert data["counts"] == {
        "citations": 8,
        "resolved": 6,
        "fine": 3,
        "problems": {
            "wrong_page": 1,
            "quote_not_found": 1,
            "unsupported": 1,
            "unknown_key": 1,
            "ambiguous_key": 1,
        },
        "uncited_claims": 1,
    }
    text = result.content[0].text
    assert "6 problems" not in text and "5 problems" in text and "1 uncited claim" in text
    assert f"cited item without indexed full text ({keys['volcano']})" in text
    assert "Fix: “3” → “1”" in text


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        ("GFS uses a single master.", True),  # an acronym
        ("Bigtable relies on Chubby.", True),  # a name
        ("Recall rose to 94 percent.", True),  # a number
        ("Bigtable stores sparse tables.", True),  # a name that opens the sentence: not a common word
        ("Storage systems have a long history.", False),  # a common word opening it
        ("Results were mixed.", False),
        ("The effect was large in most studies.", False),  # nothing named
        ("See Section 2 for the details.", False),  # a cross-reference names the draft, not a finding
        ("As Fig. 3 shows, results vary.", False),
        ("Does GFS use a single master?", False),
        ("We ran GFS on two machines.", False),  # the author's own work
    ],
)
def test_short_sentences_are_claims_when_they_name_something(sentence: str, claim: bool) -> None:
    assert claim_like(sentence) is claim


SHORT = """# Storage

GFS uses a single master.
Bigtable relies on Chubby.
The GFS master keeps all metadata in memory.
Results were mixed.
The remaining paragraphs describe the study sites.
Storage systems have a long history.
GFS is popular with students.
GFS simplified data collection.
"""


@pytest.mark.slow
async def test_short_uncited_claims_with_a_near_verbatim_passage_are_named(
    library: tuple[Settings, dict[str, str], Path],
) -> None:
    """A claim of a few words, its names and acronyms included, that one passage of the library says
    (its words close together) needs a citation as much as a long one; short generic sentences do not,
    even when a passage holds their words, nor do named ones whose words lie scattered over a passage."""
    settings, keys, _ = library
    result = await call_tool(settings, "zot_summarize", draft=SHORT)
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    found = {
        p["line"]: (p["candidates"][0]["key"], p["candidates"][0]["page"])
        for p in data["problems"]
        if p["kind"] == "uncited_claim"
    }
    line = lambda needle: _line_of(SHORT, needle)  # noqa: E731
    assert found == {
        line("single master"): (keys["gfs"], 2),
        line("relies on Chubby"): (keys["bigtable"], 3),
        line("all metadata in memory"): (keys["gfs"], 3),
    }
    assert data["counts"]["uncited_claims"] == 3 and data["counts"]["citations"] == 0


@pytest.mark.slow
async def test_a_latex_draft_with_printed_page_numbers(
    library: tuple[Settings, dict[str, str], Path],
) -> None:
    settings, _, _ = library
    draft = (
        "\\documentclass{article}\n\\begin{document}\n"
        f"{SLEEP[0][:-1]}~\\citep[p.~101]{{okafor2020sleep}}.\n"
        f"{SLEEP[2][:-1]}~\\citep[p.~101]{{okafor2020sleep}}.\n"
        f"{SLEEP[1][:-1]}~\\citep[p.~140]{{okafor2020sleep}}.\n"
        "\\end{document}\n"
    )
    data = (await call_tool(settings, "zot_summarize", draft=draft)).structured_content
    kinds = sorted((p["line"], p["kind"]) for p in data["problems"])
    assert kinds == [(4, "wrong_page"), (5, "page_out_of_range")]
    assert data["problems"][0]["fix"]["with"] == "103"  # printed page labels 101-103


@pytest.mark.slow
async def test_audit_needs_a_draft_and_nothing_else_changes(
    library: tuple[Settings, dict[str, str], Path],
) -> None:
    settings, _, _ = library
    result = await call_tool(settings, "zot_summarize", query="audit the citations in my draft")
    assert result.is_error and "needs the draft" in result.content[0].text
    result = await call_tool(settings, "zot_summarize", draft="\x00\x01binary")
    assert result.is_error and "binary" in result.content[0].text
    result = await call_tool(
        settings, "zot_summarize", draft="Just some prose without any citation at all, really."
    )
    assert not result.is_error and "No citations were recognised" in result.content[0].text


@pytest.mark.slow
def test_without_an_index_only_the_keys_are_checked(
    library: tuple[Settings, dict[str, str], Path], tmp_path: Path
) -> None:
    settings, _, _ = library
    bare = Settings(zotero_data_dir=settings.zotero_data_dir, data_dir=tmp_path / "none", export_dir=tmp_path)
    ctx = AppContext(bare)
    try:
        result = audit_draft(ctx, DRAFT)
    finally:
        ctx.close()
    kinds = {f.kind for s in result.sentences for f in s.findings}
    assert kinds == {"unknown_key", "ambiguous_key"}
    assert "run `agent-zot update-db`" in result.notes[0]


# -- the CLI -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_audit_writes_a_patch_and_never_the_draft(
    library: tuple[Settings, dict[str, str], Path], tmp_path: Path
) -> None:
    settings, _, _ = library
    draft = tmp_path / "chapter.md"
    draft.write_text(DRAFT, encoding="utf-8")
    before = draft.read_bytes()
    env = {"AGENT_ZOT_DATA_DIR": str(settings.data_dir)}
    library_dir = str(settings.zotero_data_dir)
    runner = CliRunner()
    out = runner.invoke(
        cli, ["--library", library_dir, "audit", str(draft), "--patch", str(tmp_path / "fixes.diff")], env=env
    )
    assert out.exit_code == 0, out.output
    assert (
        "# Citation audit of chapter.md" in out.output and "| line | citation | item | result |" in out.output
    )
    assert draft.read_bytes() == before
    diff = (tmp_path / "fixes.diff").read_text(encoding="utf-8")
    assert diff.startswith("--- a/chapter.md\n+++ b/chapter.md\n")
    assert "+" + LANES[0][:-1] + " [@lanes2019, p. 1]." in diff
    assert "+" + LANES[1][:-1] + " [@lanes2019, p. 2]." in diff

    fixed = _apply(DRAFT, diff)
    ctx = AppContext(settings)
    try:
        again = audit_draft(ctx, fixed)
    finally:
        ctx.close()
    # the fixed draft: the page and the missing citation are right now
    remaining = {f.kind for s in again.sentences for f in s.findings if f.fault}
    assert "wrong_page" not in remaining and "uncited_claim" not in remaining
    assert patch(again, "chapter.md") != diff

    refused = runner.invoke(
        cli, ["--library", library_dir, "audit", str(draft), "--patch", str(draft)], env=env
    )
    assert refused.exit_code != 0 and "never written" in refused.output
    assert draft.read_bytes() == before
    as_json = runner.invoke(cli, ["--library", library_dir, "audit", str(draft), "--json"], env=env)
    assert '"citations": [' in as_json.output and '"uncited_claims": 1' in as_json.output
    review = runner.invoke(
        cli,
        ["--library", library_dir, "export", "review.md", "--draft", str(draft)],
        env={**env, "AGENT_ZOT_EXPORT_DIR": str(tmp_path / "exports")},
    )
    assert review.exit_code == 0, review.output
    assert (tmp_path / "exports" / "review.md").read_text(encoding="utf-8").startswith("# Review package")
    piped = runner.invoke(cli, ["--library", library_dir, "audit", "-", "--json"], input=DRAFT, env=env)
    assert piped.exit_code == 0 and '"uncited_claims": 1' in piped.output
    binary = tmp_path / "thesis.docx"
    binary.write_bytes(b"PK\x03\x04\x00\x00\x00")
    failed = runner.invoke(cli, ["--library", library_dir, "audit", str(binary)], env=env)
    assert failed.exit_code == 2 and "binary data" in failed.output


def _apply(text: str, diff: str) -> str:
    """A unified diff applied hunk by hunk, as `patch -p1` would; every hunk must match exactly."""
    lines = text.splitlines(keepends=True)
    body = diff.splitlines(keepends=True)[2:]
    out: list[str] = []
    position = 0
    index = 0
    while index < len(body):
        header = re.match(r"@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@", body[index])
        assert header, body[index]
        start = int(header.group(1)) - 1
        out += lines[position:start]
        position = start
        index += 1
        while index < len(body) and not body[index].startswith("@@"):
            mark, line = body[index][0], body[index][1:]
            if mark in " -":
                assert lines[position] == line, (lines[position], line)
                position += 1
            if mark in " +":
                out.append(line)
            index += 1
    return "".join(out + lines[position:])


# -- the review package ------------------------------------------------------------------------------


@pytest.mark.slow
async def test_review_package_holds_each_claim_its_evidence_and_the_failed_citations(
    library: tuple[Settings, dict[str, str], Path],
) -> None:
    settings, keys, _ = library
    result = await call_tool(settings, "zot_export", draft=DRAFT, path="chapter-review.md")
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    assert data["route"]["mode"] == "review" and data["claims"] == 9
    body = Path(data["path"]).read_text(encoding="utf-8")
    assert body.startswith("# Review package")
    assert f"> {LANES[0]}" in body
    assert (
        f"Cites `lanes2019, p. 3` → [{keys['lanes']}] Protected bicycle lanes and urban safety (2019): claim not on the cited page."
        in body
    )
    assert "p. 1: “" + LANES[0][:40] in body  # the evidence, with its page
    assert "## Citations that failed the audit" in body and "| quotation not in the cited item |" in body
    assert "*Not judged (stance = auto and no nli_model is set).*" in body  # said plainly, never "no support"
    assert "No passage was judged to support" not in body
    assert "no verdicts were given" in result.content[0].text


@pytest.mark.slow
async def test_review_package_from_a_list_of_claims(library: tuple[Settings, dict[str, str], Path]) -> None:
    settings, keys, _ = library
    claims = f"{REEF[1]}\n{SLEEP[2]}\n"
    result = await call_tool(settings, "zot_export", draft=claims, force_mode="review", path="claims.md")
    body = Path(result.structured_content["path"]).read_text(encoding="utf-8")
    assert result.structured_content["claims"] == 2
    assert f"## Claim 1\n\n> {REEF[1]}" in body and f"## Claim 2\n\n> {SLEEP[2]}" in body
    assert f"[{keys['reef']}]" in body.split("## Claim 2")[0]
    assert "Citations that failed the audit" not in body
    again = await call_tool(settings, "zot_export", draft=claims, force_mode="review", path="claims.md")
    assert again.is_error and "already exists" in again.content[0].text
