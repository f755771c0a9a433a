"""Issue 53 #4: author lists that open a reference with "Surname, I." names and no year after them: MDPI's
";"-separated lists ending in "; et al.", ACM journals' uppercase "ATTIYA, C., DOLEV, D., AND GIL, J.", and
the same in small capitals that a web page's text splits ("L AMPORT, L."). Each gives the names as authors
and the title as title; an unnumbered list of them is split into its entries."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.graph.references import parse_reference, parse_references, split_references_styled
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import guard_database, index_library

# A Chubby-like bibliography (OSDI 2006) as a web page's text gives it: small capitals split off the
# capital of each surname, one entry a line, no numbers.
SMALL_CAPS = """B IRMAN, K. P., AND J OSEPH, T. A. Exploiting virtual synchrony in distributed systems. In 11th SOSP (1987), pp. 123–138.
B IRMAN, K. P., AND VAN R ENESSE, R. Reliable Distributed Computing with the Isis Toolkit. IEEE Computer Society Press, 1994.
C HANG, F., D EAN, J., G HEMAWAT, S., H SIEH, W. C., W ALLACH, D. A., B URROWS, M., C HANDRA, T., F IKES, A., AND G RUBER, R. Bigtable: A distributed structured data store. In 7th OSDI (2006).
G HEMAWAT, S., G OBIOFF, H., AND L EUNG, S.-T. The Google file system. In 19th SOSP (2003), pp. 29–43.
G RAY, C. G., AND C HERITON, D. R. Leases: An efficient fault-tolerant mechanism for distributed file cache consistency. In 12th SOSP (1989), pp. 202–210.
H OWARD, J., K AZAR, M., M ENEES, S., N ICHOLS, D., S ATYANARAYANAN, M., S IDEBOTHAM, R., AND W EST, M. Scale and performance in a distributed file system. ACM TOCS 6, 1 (1988), 51–81.
J EFFERSON, D. Virtual time. ACM TOPLAS 7, 3 (1985), 404–425.
L AMPORT, L. The part-time parliament. ACM TOCS 16, 2 (1998), 133–169.
L AMPORT, L. Paxos made simple. ACM SIGACT News 32, 4 (2001), 18–25.
L AMPSON, B. W. How to build a highly available system using consensus. In Distributed Algorithms, vol. 1151 of LNCS. Springer–Verlag, 1996, pp. 1–17.
L IANG, S. Java Native Interface: Programmer's Guide and Reference. Addison-Wesley, 1999.
O KI, B., AND L ISKOV, B. Viewstamped replication: A general primary copy method to support highly available distributed systems. In ACM PODC (1988).
P IKE, R., P RESOTTO, D. L., D ORWARD, S., F LANDRENA, B., T HOMPSON, K., T RICKEY, H., AND W INTERBOTTOM, P. Plan 9 from Bell Labs. Computing Systems 8, 2 (1995), 221–254.
S CHNEIDER, F. B. Implementing fault-tolerant services using the state machine approach: A tutorial. ACM Computing Surveys 22, 4 (1990), 299–319.
S HEPLER, S., C ALLAGHAN, B., R OBINSON, D., T HURLOW, R., B EAME, C., E ISLER, M., AND N OVECK, D. Network file system (NFS) version 4 protocol. RFC 3530 (2003).
T HEKKATH, C. A., M ANN, T., AND L EE, E. K. Frangipani: A scalable distributed file system. In 16th SOSP (1997), pp. 224–237."""


@pytest.mark.parametrize(
    ("raw", "authors", "year", "title", "venue"),
    [
        # MDPI: the list closes with "; et al." (a long list cut short), then the title
        (
            "1. Alrawad, M.; Lutfi, A.; Alyatama, S.; Al Khattab, A.; Alsoboa, S.S.; Almaiah, M.A.; et al. "
            "Assessing customers perception of online shopping risks: A structural equational modeling-based "
            "multigroup analysis. J. Retail. Consum. Serv. 2023, 71, 103188.",
            ("Alrawad", "Lutfi", "Alyatama", "Al Khattab", "Alsoboa", "Almaiah"),
            2023,
            "Assessing customers perception of online shopping risks: A structural equational "
            "modeling-based multigroup analysis",
            "J. Retail. Consum. Serv",
        ),
        # ... and with no year after the journal (an article in press)
        (
            "12. Okafor, C.; de Souza, R.A.; et al. Soil carbon under no-till farming. Geoderma, in press.",
            ("Okafor", "de Souza"),
            None,
            "Soil carbon under no-till farming",
            "",
        ),
        # ACM journals (JACM 1985): uppercase surnames, initials after them, "AND" before the last
        (
            "1. ATTIYA, C., DOLEV, D., AND GIL, J. Asynchronous Byzantine consensus. In Proceedings of the 3rd "
            "Annual ACM Symposium on Principles of Distributed Computing (Vancouver, B.C., Canada, Aug. 27-29). "
            "ACM, New York, 1984, pp. 119-133.",
            ("Attiya", "Dolev", "Gil"),
            1984,
            "Asynchronous Byzantine consensus",
            "Proceedings of the 3rd Annual ACM Symposium on Principles of Distributed Computing",  # (place…
        ),
        # a stop printed for the comma after a surname ("LYNCH. N."): the initial is no title
        (
            "11. FISCHER, M., AND LYNCH. N. A lower bound for the time to assure interactive consistency. "
            "Inf. Proc. Lett. 14, 4 (1982), 183-186.",
            ("Fischer", "Lynch"),
            1982,
            "A lower bound for the time to assure interactive consistency",
            "Inf. Proc. Lett",
        ),
        # a title opening with "A" after a single initial; a suffix after the initials
        (
            "23. SKEEN, D. A decentralized termination protocol. In Proceedings of the 2nd Annual IEEE "
            "Symposium on Reliability in Distributed Software and Database Systems. IEEE, New York, 1982.",
            ("Skeen",),
            1982,
            "A decentralized termination protocol",
            "Proceedings of the 2nd Annual IEEE Symposium on Reliability in Distributed Software and "
            "Database Systems",
        ),
        (
            "22. ROSENKRANTZ, D. J., STEARNS, R. E., AND LEWIS, P. M., II. System level concurrency control "
            "for distributed database systems. ACM Trans. Database Syst. 3, 2 (June 1978), 178-198.",
            ("Rosenkrantz", "Stearns", "Lewis"),
            1978,
            "System level concurrency control for distributed database systems",
            "ACM Trans",
        ),
        # the same style in mixed case, hyphenated surnames kept whole
        (
            "Garcia-Molina, H., and Salem, K. Sagas. In Proceedings of SIGMOD (1987), pp. 249-259.",
            ("Garcia-Molina", "Salem"),
            1987,
            "",  # one word: "Sagas" passes for a venue, as any one-word title does
            "",
        ),
        # small capitals split by a web page's text: the capital joins the rest of the surname
        (
            "L AMPORT, L. Paxos made simple. ACM SIGACT News 32, 4 (2001), 18–25.",
            ("Lamport",),
            2001,
            "Paxos made simple",
            "ACM SIGACT News",
        ),
        (
            "G HEMAWAT, S., G OBIOFF, H., AND L EUNG, S.-T. The Google file system. In 19th SOSP (2003), "
            "pp. 29–43.",
            ("Ghemawat", "Gobioff", "Leung"),
            2003,
            "The Google file system",
            "19th SOSP",
        ),
    ],
)
def test_surname_initials_lists_give_authors_and_title(
    raw: str, authors: tuple[str, ...], year: int | None, title: str, venue: str
) -> None:
    ref = parse_reference(raw)
    assert (ref.authors, ref.year, ref.title) == (authors, year, title)
    if venue:
        assert ref.venue.startswith(venue)


@pytest.mark.parametrize(
    "raw",
    [
        # given names first: the initials belong to the name after them, not to a surname before
        "J. R. Smith and K. Lee. Fast consensus in practice. In OSDI, 2010.",
        # LNCS: a colon after the authors; Vancouver: initials without stops
        "Kopp, O., Zimmermann, O.: Title of the work. In: Proceedings of ESOCC, 2019.",
        "Vaswani A, Shazeer N, et al. Attention is all you need. In: NeurIPS. 2017.",
        # a title in capitals is no author list
        "A NEW APPROACH TO LINEAR FILTERING, J. Basic Eng. 82 (1960).",
    ],
)
def test_other_styles_keep_their_reading(raw: str) -> None:
    ref = parse_reference(raw)
    joined = " ".join(ref.authors)
    assert "ANEW" not in joined and not ref.title.startswith(("R. Smith", "Zimmermann", "N. "))


def test_an_unnumbered_list_of_surname_initials_entries_is_split() -> None:
    style, entries = split_references_styled(SMALL_CAPS)
    assert style and len(entries) == 16
    refs = parse_references(SMALL_CAPS)
    assert [r.authors[0] for r in refs][:4] == ["Birman", "Birman", "Chang", "Ghemawat"]
    assert refs[1].authors == ("Birman", "van Renesse")
    assert refs[8].title == "Paxos made simple" and refs[8].year == 2001
    assert all(r.title and r.year for r in refs)
    assert len(refs[2].authors) == 9 and refs[2].authors[-1] == "Gruber"


def test_an_unnumbered_acm_list_with_wrapped_lines_is_split() -> None:
    text = """ATTIYA, C., DOLEV, D., AND GIL, J. Asynchronous Byzantine consensus. In Proceedings of
the 3rd Annual ACM Symposium on Principles of Distributed Computing (Vancouver, B.C.,
Canada, Aug. 27-29). ACM, New York, 1984, pp. 119-133.
BEN-OR, M. Another advantage of free choice: Completely asynchronous agreement protocols.
In Proceedings of the 2nd Annual ACM Symposium on Principles of Distributed Computing
(Montreal, Quebec, Canada, Aug. 17-19). ACM, New York, 1983, pp. 27-30.
DOLEV, D., FISCHER, M., FOWLER, R., LYNCH, N., AND STRONG, H. R. An efficient algorithm for
Byzantine agreement without authentication. Inf. Control 52, 3 (1983), 257-274.
FISCHER, M., AND LYNCH. N. A lower bound for the time to assure interactive consistency. Inf.
Proc. Lett. 14, 4 (1982), 183-186.
LINDSAY, B. G., SELINGER, P. G., GALTIERI, C., GRAY, J. N., LORIE, R. A., PRICE, T. G.,
PUTZOLU, F., TRAIGER, I. L., AND WADE, B. W. Notes on distributed databases. IBM Res. Rep.
RJ2571, IBM Research Division, San Jose, Calif., 1979."""
    refs = parse_references(text)
    assert [(r.authors[0], r.title) for r in refs] == [
        ("Attiya", "Asynchronous Byzantine consensus"),
        ("Ben-Or", "Another advantage of free choice: Completely asynchronous agreement protocols"),
        ("Dolev", "An efficient algorithm for Byzantine agreement without authentication"),
        ("Fischer", "A lower bound for the time to assure interactive consistency"),
        ("Lindsay", "Notes on distributed databases"),
    ]
    assert len(refs[4].authors) == 9


CHUBBY = "The Chubby lock service for loosely-coupled distributed systems"
PAXOS = "Paxos made simple"


def _snapshot() -> str:
    """A paper saved as a web page: sections, then its bibliography in small capitals (a span for the
    capitals after the first of each surname, as converters write them)."""
    para = "<p>Chubby provides coarse-grained locking and reliable storage for a loosely-coupled system ({}).</p>"
    body = "".join(  # distinct paragraphs: the main-content extractor keeps one of repeated ones
        f"<h2>{n} {h}</h2>\n" + "".join(para.format(f"{n}.{i}") for i in range(6)) + "\n"
        for n, h in enumerate(("Introduction", "Design"), 1)
    )
    entries = "\n".join(
        '<p class="bib">\n'
        + re.sub(r"\b([A-Z]) ([A-Z]{2,})", r'\1 <span class="sc">\2</span>', line)
        + "\n</p>"
        for line in SMALL_CAPS.split("\n")
    )
    return f"<html><body><h1>{CHUBBY}</h1>\n{body}<h2>References</h2>\n{entries}\n</body></html>"


@pytest.fixture(scope="module")
def chubby(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    root = tmp_path_factory.mktemp("chubby")
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=53)
    keys = {
        "page": b.add_item("webpage", title=CHUBBY, date="2006", creators=[("Mike", "Burrows")]),
        "paxos": b.add_item(
            "journalArticle",
            title=PAXOS,
            date="2001",
            creators=[("Leslie", "Lamport")],
            publicationTitle="ACM SIGACT News",
        ),
    }
    b.add_attachment(
        keys["page"], filename="chubby.html", content=_snapshot().encode(), content_type="text/html"
    )
    db = guard_database(b.build())
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(settings, root / "home", graph=True), keys


@pytest.mark.slow
async def test_a_web_pages_small_capitals_bibliography_reaches_the_graph(
    chubby: tuple[Settings, dict[str, str]], tmp_path: Path
) -> None:
    settings, keys = chubby
    ctx = AppContext(settings, home=tmp_path / "home")
    try:
        async with Client(build_server(ctx)) as client:
            result = await client.call_tool(
                "zot_explore_graph",
                {"query": f"what does {CHUBBY} cite", "force_mode": "citation", "limit": 20},
            )
    finally:
        ctx.close()
    cited = result.structured_content["cites"]
    # the paper the library holds is matched by its title, year and the joined surname "Lamport"
    assert cited[0]["title"] == PAXOS and cited[0].get("item_key") == keys["paxos"]
    expected = {parse_reference(line).title for line in SMALL_CAPS.split("\n")} - {PAXOS}
    assert len(expected) == 15 and {c["title"] for c in cited[1:]} == expected
    assert "Cites: 16" in result.content[0].text
    assert "AMPORT" not in result.content[0].text and "B IRMAN" not in result.content[0].text
