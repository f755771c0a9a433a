"""A small library for the review matrix tests: a Trials collection of two text PDFs (fpdf2) and one paper
with only an abstract, an uncollected paper, and a Cohort collection of 12 abstract-only papers; indexed
with the embedded stack."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

from agent_zot.config import Settings
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import guard_database, index_library

FILLER = (
    "Type 2 diabetes affects millions of adults and its management relies on lifestyle change and drugs. "
    "Trials differ in design, setting and the outcomes they measure."
)
METFORMIN = [
    ["1 Introduction. Metformin is the usual first drug for type 2 diabetes. " + FILLER],
    [
        "2 Methods. We enrolled 120 patients with type 2 diabetes at three hospitals. Patients received 500 mg "
        "of metformin twice daily for 12 weeks. The trial was funded by the National Diabetes Agency."
    ],
    [
        "3 Outcomes. The primary outcome was the change in HbA1c from baseline to week 12. HbA1c fell by 0.8 "
        "points in the metformin group."
    ],
]
WALKING = [
    ["1 Background. Brisk walking lowers blood pressure in many adults. " + FILLER],
    [
        "2 Design. A total of 48 participants took part in the walking trial. The primary outcome was systolic "
        "blood pressure after eight weeks of walking."
    ],
]


def _pdf(pages: list[list[str]]) -> bytes:
    pdf = FPDF(format="A4", unit="pt")
    pdf.set_font("Helvetica", size=11)
    for paragraphs in pages:
        pdf.add_page()
        pdf.set_xy(72, 72)
        for text in paragraphs:
            pdf.multi_cell(450, 15, text)
    return bytes(pdf.output())


def build_trials_library(root: Path) -> Settings:
    b = ZoteroLibraryBuilder(root / "zotero")
    trials = b.add_collection("Trials")
    cohort = b.add_collection("Cohort")
    metformin = b.add_item(
        "journalArticle",
        title="Metformin and glycaemic control",
        creators=[("Ann", "Adams")],
        date="2021",
        tags=["rct"],
        collections=[trials],
    )
    b.add_attachment(metformin, filename="adams.pdf", content=_pdf(METFORMIN))
    walking = b.add_item(
        "journalArticle",
        title="Walking and blood pressure",
        creators=[("Ben", "Brown")],
        date="2022",
        collections=[trials],
    )
    b.add_attachment(walking, filename="brown.pdf", content=_pdf(WALKING))
    b.add_item(
        "journalArticle",
        title="A walking programme for adults with diabetes",
        creators=[("Cleo", "Clark")],
        date="2023",
        collections=[trials],
        abstractNote="We randomised 64 adults to a walking programme or usual care. The primary outcome was "
        "HbA1c at six months.",
    )
    b.add_item(
        "journalArticle",
        title="Statins in older adults",
        creators=[("Dan", "Dunn")],
        date="2020",
        tags=["rct"],
        abstractNote="We followed 300 adults aged over 75 years who took 20 mg of atorvastatin daily.",
    )
    for n in range(12):
        b.add_item(
            "journalArticle",
            title=f"Cohort study number {n + 1}",
            creators=[("Eve", f"Evans{n:02d}")],
            date="2019",
            collections=[cohort],
            abstractNote=f"We followed {100 + n} adults for {n + 2} years.",
        )
    db = guard_database(b.build())
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(settings, root / "home")
