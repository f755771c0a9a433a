"""A small demo library, so a fresh install shows what agent-zot does before it is pointed at Zotero."""

from __future__ import annotations

from pathlib import Path

from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.demo_pdf import write_text_pdf
from agent_zot.zotero.demo_texts import CORPUS_PAPER, ENCODER_PAPER, METHODS_PAPER

DEMO_VERSION = "3"  # bump when the content changes, so an old copy is rebuilt


def ensure_demo_library(folder: Path) -> Path:
    """Build the demo data directory under ``folder`` once; return the path of its zotero.sqlite."""
    db_path = folder / "zotero.sqlite"
    marker = folder / "DEMO_VERSION"
    if db_path.is_file() and marker.is_file() and marker.read_text().strip() == DEMO_VERSION:
        return db_path
    _build(folder)
    marker.write_text(DEMO_VERSION)
    return db_path


def _pdf(b: ZoteroLibraryBuilder, folder: Path, parent: str, filename: str, body: list[str]) -> str:
    """A stored PDF attachment with a real text layer, written where Zotero would keep it."""
    key = b.add_attachment(parent, filename=filename, content=None)
    write_text_pdf(folder / "storage" / key / filename, filename.removesuffix(".pdf"), body)
    return key


def _build(folder: Path) -> None:
    b = ZoteroLibraryBuilder(folder, shape="z7", seed=2020)
    thesis = b.add_collection("Thesis")
    background = b.add_collection("Background", parent=thesis)
    methods = b.add_collection("Methods", parent=thesis)
    reading = b.add_collection("Reading list")

    s2orc = b.add_item(
        "conferencePaper",
        title="S2ORC: The Semantic Scholar Open Research Corpus",
        proceedingsTitle="Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics",
        date="2020-07-00 July 2020",
        pages="4969-4983",
        DOI="10.18653/v1/2020.acl-main.447",
        abstractNote="A large corpus of English-language academic papers with full text, citation links and "
        "rich metadata, built to support research in scholarly text mining.",
        creators=[
            ("Kyle", "Lo"),
            ("Lucy Lu", "Wang"),
            ("Mark", "Neumann"),
            ("Rodney", "Kinney"),
            ("Daniel", "Weld"),
        ],
        tags=["corpus", "scholarly documents", "to-read"],
        collections=[background],
        date_added="2026-10-01 09:00:00",
        citationKey="lo2020s2orc",
    )
    scibert = b.add_item(
        "conferencePaper",
        title="SciBERT: A Pretrained Language Model for Scientific Text",
        proceedingsTitle="Proceedings of EMNLP-IJCNLP 2019",
        date="2019-11-00 November 2019",
        pages="3615-3620",
        DOI="10.18653/v1/D19-1371",
        abstractNote="A BERT model pretrained on a large corpus of scientific papers that improves performance "
        "on scientific NLP tasks.",
        creators=[("Iz", "Beltagy"), ("Kyle", "Lo"), ("Arman", "Cohan")],
        tags=["language models", "scholarly documents"],
        collections=[background, methods],
        date_added="2026-10-03 14:30:00",
    )
    bert = b.add_item(
        "conferencePaper",
        title="BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
        proceedingsTitle="Proceedings of NAACL-HLT 2019",
        date="2019-06-00 June 2019",
        pages="4171-4186",
        DOI="10.18653/v1/N19-1423",
        creators=[("Jacob", "Devlin"), ("Ming-Wei", "Chang"), ("Kenton", "Lee"), ("Kristina", "Toutanova")],
        tags=["language models", "transformers"],
        collections=[methods, reading],
        date_added="2026-09-12 11:00:00",
    )
    attention = b.add_item(
        "conferencePaper",
        title="Attention Is All You Need",
        proceedingsTitle="Advances in Neural Information Processing Systems 30",
        date="2017-00-00 2017",
        pages="5998-6008",
        creators=[("Ashish", "Vaswani"), ("Noam", "Shazeer"), ("Niki", "Parmar"), ("Jakob", "Uszkoreit")],
        tags=["transformers"],
        collections=[methods],
        date_added="2026-08-02 10:00:00",
    )
    b.add_item(
        "book",
        title="Numerical Optimization",
        publisher="Springer",
        place="New York",
        edition="2",
        date="2006-00-00 2006",
        ISBN="978-0-387-30303-1",
        creators=[("Jorge", "Nocedal"), ("Stephen J.", "Wright")],
        tags=["optimization"],
        collections=[reading],
        date_added="2026-06-20 16:00:00",
    )
    lme4 = b.add_item(
        "journalArticle",
        title="Fitting Linear Mixed-Effects Models Using lme4",
        publicationTitle="Journal of Statistical Software",
        volume="67",
        issue="1",
        pages="1-48",
        date="2015-00-00 2015",
        DOI="10.18637/jss.v067.i01",
        creators=[("Douglas", "Bates"), ("Martin", "Mächler"), ("Ben", "Bolker"), ("Steve", "Walker")],
        tags=["statistics", "to-read"],
        collections=[reading],
        date_added="2026-11-01 08:15:00",
    )
    b.add_item(
        "thesis",
        title="Mining Citation Contexts in Scholarly Full Text",
        university="University of Example",
        thesisType="PhD thesis",
        date="2022-00-00 2022",
        creators=[("Ada", "van der Berg")],
        tags=["citation analysis"],
        collections=[thesis],
        date_added="2026-11-15 13:00:00",
    )

    pdf = _pdf(b, folder, s2orc, "Lo et al. - 2020 - S2ORC.pdf", CORPUS_PAPER)
    _pdf(b, folder, scibert, "Beltagy et al. - 2019 - SciBERT.pdf", ENCODER_PAPER)
    _pdf(b, folder, lme4, "Bates et al. - 2015 - Fitting Linear Mixed-Effects Models.pdf", METHODS_PAPER)
    b.add_annotation(
        pdf,
        text="81.1M English-language academic papers spanning many academic disciplines",
        comment="Corpus size: compare with CORD-19",
        page_label="4969",
        page_index=0,
    )
    b.add_annotation(pdf, kind="underline", text="citation graph", page_label="4971", page_index=2)
    b.add_note(
        s2orc,
        "<h1>Why it matters</h1><p>Full text plus resolved citation links: a good base for "
        "<b>citation-context</b> mining in chapter 2.</p>",
        tags=["summary"],
    )
    b.add_note(scibert, "<p>Use SciBERT as the baseline encoder; compare with BERT-base.</p>")
    b.add_note(None, "<p>Thesis plan: background (corpora), methods (encoders), evaluation.</p>")
    b.add_relation(scibert, "dc:relation", b.item_uri(bert))
    b.add_relation(bert, "dc:relation", b.item_uri(scibert))
    b.add_relation(bert, "dc:relation", b.item_uri(attention))
    b.build()
