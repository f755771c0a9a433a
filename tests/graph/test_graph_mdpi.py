"""Issue 12 #9: an MDPI-style reference list ("Surname, I.; Surname, I. Title. Journal Year, ...") gives
one cited work per reference, with its real title, through update-db and `zot_explore_graph`."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import guard_database, index_library
from tests.pdf_factory import write_paper

pytestmark = pytest.mark.slow

MDPI_REFERENCES = [
    "1. Novak, P.; Ferreira, L.M.; Okafor, C. Soil moisture retrieval from dual-polarised radar. Remote Sens. "
    "2021, 13, 2044.",
    "2. Haddad, R. Statistical Learning for Hydrology, 2nd ed.; Springer: Cham, Switzerland, 2019; pp. 1-312.",
    "3. Lindqvist, E.; van der Berg, J.-P.; Al-Amin, S. Crop Type Mapping with Sentinel Time Series. In "
    "Proceedings of the IEEE International Geoscience and Remote Sensing Symposium (IGARSS), Valencia, Spain, "
    "22-27 July 2018; pp. 5401-5404.",
    "4. Chen, X.; Li, Y. Data Mining Concepts; Morgan Kaufmann: San Francisco, CA, USA, 1994.",
    "5. Moreau, A.; Dubois, C.; Petit, J. Irrigation scheduling under uncertainty: A review. Agric. Water "
    "Manag. 2020, 240, 106289.",
    "6. Tanaka, H. Radar backscatter of wheat canopies. In Microwave Remote Sensing of Land; Ulaby, F.T., "
    "Long, D.G., Eds.; University of Michigan Press: Ann Arbor, MI, USA, 2014; pp. 211-240.",
]
CITED_TITLE = "Crop Type Mapping with Sentinel Time Series"
CITING_TITLE = "Radar and optical data fusion for irrigated crop monitoring"


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("mdpi")
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=9)
    citing = b.add_item(
        "journalArticle",
        title=CITING_TITLE,
        publicationTitle="Remote Sensing",
        date="2022-00-00 2022",
        creators=[("Ines", "Moreau")],
    )
    pdf = write_paper(root / "citing.pdf", body_pages=2, references=MDPI_REFERENCES).path
    b.add_attachment(citing, filename="citing.pdf", content=pdf.read_bytes())
    b.add_item(
        "conferencePaper",
        title=CITED_TITLE,
        proceedingsTitle="IGARSS 2018",
        date="2018-07-22 2018",
        creators=[("Erik", "Lindqvist"), ("Jan-Pieter", "van der Berg"), ("Samir", "Al-Amin")],
    )
    db = guard_database(b.build())
    built = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(built, root / "home", graph=True)


async def test_every_mdpi_reference_is_a_cited_work_with_its_title(
    settings: Settings, tmp_path: Path
) -> None:
    ctx = AppContext(settings, home=tmp_path / "home")
    async with Client(build_server(ctx)) as client:
        result = await client.call_tool(
            "zot_explore_graph", {"query": f"what does {CITING_TITLE} cite", "force_mode": "citation"}
        )
        cited = result.structured_content["cites"]
        # the paper in the library first (matched by title, year and authors), then the works it lacks
        assert cited[0]["title"] == CITED_TITLE and cited[0].get("item_key")
        assert {c["title"] for c in cited[1:]} == {
            "Soil moisture retrieval from dual-polarised radar",
            "Statistical Learning for Hydrology, 2nd ed",
            "Data Mining Concepts",
            "Irrigation scheduling under uncertainty: A review",
            "Radar backscatter of wheat canopies",
        }
        assert "San Francisco" not in result.content[0].text
        cited_by = await client.call_tool("zot_explore_graph", {"query": f"who cites {CITED_TITLE}"})
        assert [p["title"] for p in cited_by.structured_content["cited_by"]] == [CITING_TITLE]
    ctx.close()
