"""A paper saved as a web page (issue 40): its passages are cited by section heading and paragraph, not
"p. 1" throughout, and its reference list reaches the graph as a PDF's does. A real Zotero database from
the fixture builder, a real index, a real MCP client."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import guard_database, index_library
from tests.snapshot_pages import BLOG, BLOG_CHROME, BLOG_CONTENT, BLOG_SECTIONS, BLOG_TITLE

pytestmark = pytest.mark.slow

PAGE_TITLE = "Stochastic gradient descent"
CITED_TITLE = "A Stochastic Approximation Method"
SNAPSHOT = """<!DOCTYPE html><html><head><title>Stochastic gradient descent</title></head><body>
<h1>Stochastic gradient descent</h1>
<p>Stochastic gradient descent is an iterative method for optimizing an objective function.</p>
<h2>History<span class="mw-editsection">[edit]</span></h2>
<p>The method descends from the stochastic approximation of the 1950s, when statisticians looked for the
root of a function that could only be measured with noise. Their procedures took one noisy measurement at a
time and moved a little towards where the root seemed to be.</p>
<p>Early analyses assumed that the noise had finite variance and that the function was monotone near its
root, so that each step moved the estimate in the right direction on average. These assumptions were relaxed
one at a time over the following two decades, first for dependent noise and then for functions with several
roots, where the procedure may settle on any of them depending on where it starts.</p>
<p>Engineers met the same problem when the quantities they wanted to adjust could only be observed through
instruments that drifted, and they adopted the procedure under other names. Textbooks of the period present
it as a way of solving equations whose terms are known only through experiments repeated many times.</p>
<p>Later work in control engineering applied the same idea to tracking signals, and adaptive filters in
telephone lines were tuned this way for decades before neural networks became common.</p>
<p>Its step sizes must shrink: the learning rate schedule sums to infinity while its squares stay finite,
which is the condition Robbins and Monro gave for convergence.</p>
<h2>Applications<span class="mw-editsection">[edit]</span></h2>
<p>It trains most neural networks, one small batch of examples at a time.</p>
<h2>References<span class="mw-editsection">[edit]</span></h2>
<ol>
<li>^ Robbins, Herbert; Monro, Sutton (1951). "A Stochastic Approximation Method". The Annals of
Mathematical Statistics. 22 (3): 400–407.</li>
<li>^ a b Bottou, Léon (1998). "Online Algorithms and Stochastic Approximations". Online Learning and Neural
Networks. Cambridge University Press.</li>
<li>^ Kiefer, J.; Wolfowitz, J. (1952). "Stochastic Estimation of the Maximum of a Regression Function".
The Annals of Mathematical Statistics. 23 (3): 462–466.</li>
</ol></body></html>"""


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    root = tmp_path_factory.mktemp("web")
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=41)
    keys = {
        "page": b.add_item("webpage", title=PAGE_TITLE, date="2019"),
        "cited": b.add_item(
            "journalArticle",
            title=CITED_TITLE,
            date="1951",
            creators=[("Herbert", "Robbins"), ("Sutton", "Monro")],
            publicationTitle="The Annals of Mathematical Statistics",
        ),
    }
    b.add_attachment(
        keys["page"],
        filename="sgd.html",
        content=SNAPSHOT.encode(),
        content_type="text/html",
        title="Snapshot",
    )
    keys["blog"] = b.add_item("webpage", title=BLOG_TITLE, date="2024")
    b.add_attachment(
        keys["blog"], filename="blog.html", content=BLOG.encode(), content_type="text/html", title="Snapshot"
    )
    db = guard_database(b.build())
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(settings, root / "home", graph=True), keys


async def test_a_web_pages_passages_are_cited_by_section_and_paragraph(
    library: tuple[Settings, dict[str, str]], tmp_path: Path
) -> None:
    settings, keys = library
    question = "what condition on the learning rate schedule gives convergence?"
    ctx = AppContext(settings, home=tmp_path / "home")
    try:
        async with Client(build_server(ctx)) as client:
            found = await client.call_tool("zot_search", {"query": question})
            asked = await client.call_tool(
                "zot_summarize", {"item_key": keys["page"], "query": question, "force_mode": "targeted"}
            )
            read = await client.call_tool("zot_summarize", {"item_key": keys["page"], "force_mode": "full"})
    finally:
        ctx.close()
    page = next(p for p in found.structured_content["papers"] if p["key"] == keys["page"])
    best = page["passages"][0]
    paragraph = best["paragraph"]
    assert paragraph > 1 and f"[¶ {paragraph} · History]" in found.content[0].text
    # the paragraph named is where the passage shown begins
    history = [line.strip() for line in SNAPSHOT.split("<h2>History")[1].split("<h2>")[0].split("<p>")[1:]]
    opening = " ".join(history[paragraph - 1].split()[:6])
    shown = found.content[0].text.split(f"[¶ {paragraph} · History] ", 1)[1]
    assert shown.startswith(opening), (opening, shown[:80])
    assert asked.structured_content["passages"][0]["pages"] == f"§ History, ¶ {paragraph}"
    assert "--- § History ---" in read.content[0].text and "p. 1" not in read.content[0].text


async def test_a_web_pages_reference_list_reaches_the_graph(
    library: tuple[Settings, dict[str, str]], tmp_path: Path
) -> None:
    settings, keys = library
    ctx = AppContext(settings, home=tmp_path / "home")
    try:
        async with Client(build_server(ctx)) as client:
            result = await client.call_tool(
                "zot_explore_graph", {"query": f"what does {PAGE_TITLE} cite", "force_mode": "citation"}
            )
    finally:
        ctx.close()
    cited = result.structured_content["cites"]
    assert cited[0]["title"] == CITED_TITLE and cited[0].get("item_key") == keys["cited"]
    assert {c["title"] for c in cited[1:]} == {
        "Online Algorithms and Stochastic Approximations",
        "Stochastic Estimation of the Maximum of a Regression Function",
    }


async def test_a_saved_blog_post_is_read_without_its_page_chrome(
    library: tuple[Settings, dict[str, str]], tmp_path: Path
) -> None:
    """Issue 54: the cookie banner, menus, sharing links, sidebar and footer are not indexed; the
    article's paragraphs are, in its sections."""
    settings, keys = library
    ctx = AppContext(settings, home=tmp_path / "home")
    try:
        async with Client(build_server(ctx)) as client:
            read = await client.call_tool("zot_summarize", {"item_key": keys["blog"], "force_mode": "full"})
            asked = await client.call_tool(
                "zot_summarize",
                {"item_key": keys["blog"], "query": "why does silk fail?", "force_mode": "targeted"},
            )
    finally:
        ctx.close()
    text = read.content[0].text
    assert [chrome for chrome in BLOG_CHROME if chrome in text] == []
    assert all(sentence in text for sentence in BLOG_CONTENT)
    assert f"--- § {BLOG_SECTIONS[1]} ---" in text
    passages = asked.structured_content["passages"]
    assert passages[0]["pages"] == f"§ {BLOG_SECTIONS[1]}, ¶ 1"
    assert [chrome for chrome in BLOG_CHROME if chrome in asked.content[0].text] == []
