"""Splitting reference sections into entries and parsing entries (agent_zot.graph.references)."""

from __future__ import annotations

import pytest

from agent_zot.graph.matching import work_keys
from agent_zot.graph.references import (
    Reference,
    parse_reference,
    parse_references,
    reference_number,
    split_references,
    split_references_styled,
    surnames,
)
from agent_zot.identifiers import find_arxiv, find_doi

# --------------------------------------------------------------------------------------------- splitting

BRACKETED = """[1] A. Aho, R. Sethi, J. Ullman, and M. Lam. Compilers: Principles,
techniques, and tools, 2006.
[2] V. Bala, E. Duesterwald, and S. Banerjia. Dynamo: A transparent
dynamic optimization system. In Proceedings of the ACM SIGPLAN
Conference on Programming Language Design and Implementation,
pages 1–12. ACM Press, 2000.
[3] M. Berndl, B. Vitale, M. Zaleski, and A. Brown. Context Threading:
a Flexible and Efficient Dispatch Technique for Virtual Machine Interpreters. In Code Generation and Optimization, 2005.
[4] C. Chambers and D. Ungar. Customization: Optimizing Compiler
Technology for SELF. In Proceedings of PLDI, pages 146–160, 1989."""

DOTTED = """1. Bar-Haim, R., Dagan, I., Dolan, B. and Szpektor, I. 2006. The Second PASCAL
Recognising Textual Entailment Challenge. In Proceedings of the Second PASCAL Challenges Workshop.
2. Bunescu, R. and Mooney, R. 2006. Subsequence Kernels for Relation Extraction. In Advances in Neural
Information Processing Systems 18. MIT Press.
3. Kopp, O., Armbruster, A., Zimmermann, O.: Markdown Architectural Decision
Records: Format and Tool Support. In: ZEUS. CEUR Workshop Proceedings, vol.
2072. CEUR-WS.org (2018)
4. Lin, D. 1998. Dependency-based Evaluation of MINIPAR. In Workshop on the Evaluation of Parsing Systems."""

ACL = """Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. Sci-BERT: A pretrained language model for scientific
text. In Proceedings of the 2019 Conference on
Empirical Methods in Natural Language Processing and the 9th International Joint Conference on
Natural Language Processing (EMNLP-IJCNLP),
pages 3615–3620, Hong Kong, China. Association
for Computational Linguistics.
Matthew Berger, Katherine McDonough, and Lee M
Seversky. 2016. cite2vec: Citation-driven document exploration via word embeddings. IEEE
transactions on visualization and computer graphics, 23(1):691–700.
C. L. Giles, K. D. Bollacker, and S. Lawrence. 1998.
Citeseer: an automatic citation indexing system. In
Proceedings of the ACM International Conference on
Digital Libraries, pages 89–98.
Diederik Kingma and Jimmy Ba. 2014. Adam: A method for stochastic optimization. In International
Conference on Learning Representations.
Waleed Ammar, Dirk Groeneveld, Chandra Bhagavatula, Iz Beltagy, Miles Crawford, Doug Downey,
Jason Dunkelberger, Ahmed Elgohary, Sergey Feldman, Vu Ha, Rodney Kinney, Sebastian Kohlmeier,
Kyle Lo, Tyler Murray, Hsu-Han Ooi, Matthew Peters, Joanna Power, Sam Skjonsberg, Lucy Lu Wang,
Chris Wilhelm, Zheng Yuan, Madeleine van Zuylen,
and Oren Etzioni. 2018. Construction of the literature graph in semantic scholar. In Proceedings of
NAACL-HLT, pages 84–91.
Kimitaka Asatani, Junichiro Mori, Masanao Ochi, and
Ichiro Sakata. 2018. Detecting trends in academic
research from a citation network. In ICCSA.
Qi He, Jian Pei, Daniel Kifer, Prasenjit Mitra, and Lee Giles. 2010. Context-aware citation
recommendation. In Proceedings of WWW, pages 421–430."""

JSS = """Bates DM, DebRoy S (2003). “Converting a Large R Package to S4 Classes and Methods.”
In K Hornik, F Leisch, A Zeileis (eds.), “Proceedings of the 3rd International Workshop on
Distributed Statistical Computing,” ISSN 1609-395X.
Chambers JM (1998). Programming with Data, A Guide to the S Language. Springer-Verlag,
New York.
Golub G, Pereyra V (2003). “Separable Nonlinear Least Squares: the Variable Projection
Method and its Applications.” Inverse Problems, 19, R1–R26.
van Stokkum IHM, Lozier RH (2002). “Target Analysis of the Bacteriorhodopsin Photocycle
Using a Spectrotemporal Model.” Journal of Physical Chemistry B, 106(13), 3477–3485."""

PHYSICS_GROUPED = """[1] Perlmutter S et al, 1997 Astrophys. J. 483 565 [SPIRES]
Riess A G et al, 1998 Astrophys. J. 116 1009 [SPIRES]
[2] Hinshaw G et al, 2008 Astrophys. J. Suppl. Ser. submitted arXiv:0803.0732
Tegmark M et al, 2006 Phys. Rev. D 74 123507 [SPIRES]
[3] Ehlers J, Geren P and Sachs R K, 1968 J. Math. Phys. 9 1344 [SPIRES]
[4] Stoeger W R, Maarteens R and Ellis G F R, 1995 Astrophys. J. 443 1 [SPIRES]"""


def test_bracketed_entries_with_wrapped_lines() -> None:
    style, entries = split_references_styled(BRACKETED)
    assert style == "bracket"
    assert len(entries) == 4
    assert entries[1].startswith("[2] V. Bala")
    assert "Design and Implementation, pages 1–12" in entries[1]  # lines joined with a space
    assert "\n" not in "".join(entries)


def test_dotted_numbering_ignores_numbers_that_break_the_sequence() -> None:
    style, entries = split_references_styled(DOTTED)
    assert style == "dotted"
    assert len(entries) == 4  # "2072. CEUR-WS.org" continues entry 3
    assert entries[2].endswith("vol. 2072. CEUR-WS.org (2018)")


def test_author_year_acl_entries_start_at_name_runs() -> None:
    style, entries = split_references_styled(ACL)
    assert style == "author-year"
    assert [e.split(",")[0].split(" and ")[0] for e in entries] == [
        "Iz Beltagy",
        "Matthew Berger",
        "C. L. Giles",
        "Diederik Kingma",
        "Waleed Ammar",
        "Kimitaka Asatani",
        "Qi He",
    ]
    # "Ichiro Sakata. 2018." and "In ICCSA." lines do not start entries.
    assert entries[5].endswith("In ICCSA.")


def test_author_year_jss_entries() -> None:
    style, entries = split_references_styled(JSS)
    assert style == "author-year"
    assert [e[:12] for e in entries] == ["Bates DM, De", "Chambers JM ", "Golub G, Per", "van Stokkum "]


def test_grouped_physics_references_each_get_an_entry() -> None:
    style, entries = split_references_styled(PHYSICS_GROUPED)
    assert style == "bracket+author-year"
    assert len(entries) == 6
    assert entries[1].startswith("Riess A G")


def test_blank_line_blocks_are_entries() -> None:
    text = (
        "Smith, J. and Doe, A. 2019. A study of\nthings that matter. Journal of Stuff, 3:1–10.\n\n"
        "Roe, R. 2020. Another study of other things. In Proceedings of Things.\n\n"
        "Poe, E. A. 1845. The raven and\nother poems. Wiley and Putnam."
    )
    entries = split_references(text)
    assert entries == [
        "Smith, J. and Doe, A. 2019. A study of things that matter. Journal of Stuff, 3:1–10.",
        "Roe, R. 2020. Another study of other things. In Proceedings of Things.",
        "Poe, E. A. 1845. The raven and other poems. Wiley and Putnam.",
    ]


def test_hyphenated_line_breaks_are_joined() -> None:
    text = "[1] A. Smith. A compre-\nhensive survey of graph neural networks. In ICML, 2019.\n[2] B. Jones. Self-\nattention is enough, really. In NeurIPS, 2020."
    entries = split_references(text)
    assert "comprehensive survey" in entries[0]
    assert "Self-attention" in entries[1] or "Selfattention" in entries[1]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n  ",
        "This paper is about graphs. We study them in depth.\nThe results are good. We conclude.\n"
        "Future work will look at more graphs and at trees.",
        "1. Introduction\n2. Related work\n3. Method\n4. Results",
        "[1]\n[2]\n[3]",
        "x" * 5000,
        "Table 1: Results on the test set.\n12.3 45.6 78.9\n23.4 56.7 89.0\n34.5 67.8 90.1",
        "\x00\x01[[[]]]2019 2019 2019\n" * 20,
    ],
)
def test_garbage_gives_no_entries(text: str) -> None:
    assert split_references(text) == []
    assert parse_references(text) == []


def test_a_single_numbered_line_is_not_a_list() -> None:
    assert split_references("[1] A. Smith. A lone reference about a single thing. 2019.") == []


# ----------------------------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("raw", "authors", "year", "title"),
    [
        (  # ACL
            "Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT: A pretrained language model for scientific "
            "text. In Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing, "
            "pages 3615–3620, Hong Kong, China.",
            ("Beltagy", "Lo", "Cohan"),
            2019,
            "SciBERT: A pretrained language model for scientific text",
        ),
        (  # ACM numbered, year after the authors
            "[5] Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT: A Pretrained Language Model for "
            "Scientific Text. In EMNLP.",
            ("Beltagy", "Lo", "Cohan"),
            2019,
            "SciBERT: A Pretrained Language Model for Scientific Text",
        ),
        (  # NeurIPS: authors. title. venue, year.
            "[1] Iz Beltagy, Matthew E Peters, and Arman Cohan. Longformer: The long-document transformer. "
            "arXiv preprint arXiv:2004.05150, 2020.",
            ("Beltagy", "Peters", "Cohan"),
            2020,
            "Longformer: The long-document transformer",
        ),
        (  # IEEE, quoted title
            '[2] K. Akkaya, M. Younis, "A survey on routing protocols for wireless sensor networks," '
            "Elsevier Ad Hoc Network Journal, vol. 3, pp. 325-349, 2005",
            ("Akkaya", "Younis"),
            2005,
            "A survey on routing protocols for wireless sensor networks",
        ),
        (  # IEEE with curly quotes and "in:"
            "[3] B. Karp, H.T. Kung, “GPSR: greedy perimeter stateless routing for wireless networks,” in: "
            "Mobile Computing and Networking, 2000, pp. 243–254.",
            ("Karp", "Kung"),
            2000,
            "GPSR: greedy perimeter stateless routing for wireless networks",
        ),
        (  # APA
            "Devlin, J., Chang, M.-W., Lee, K., & Toutanova, K. (2019). BERT: Pre-training of deep "
            "bidirectional transformers for language understanding. In Proceedings of NAACL-HLT (pp. 4171–4186).",
            ("Devlin", "Chang", "Lee", "Toutanova"),
            2019,
            "BERT: Pre-training of deep bidirectional transformers for language understanding",
        ),
        (  # JSS
            "Golub G, Pereyra V (2003). “Separable Nonlinear Least Squares: the Variable Projection Method "
            "and its Applications.” Inverse Problems, 19, R1–R26.",
            ("Golub", "Pereyra"),
            2003,
            "Separable Nonlinear Least Squares: the Variable Projection Method and its Applications",
        ),
        (  # JSS, unquoted book title, particle in the surname
            "van Stokkum IHM, Larsen DS, van Grondelle R (2004). Global and Target Analysis of "
            "Time-resolved Spectra. Biochimica et Biophysica Acta, 1657, 82–104.",
            ("van Stokkum", "Larsen", "van Grondelle"),
            2004,
            "Global and Target Analysis of Time-resolved Spectra",
        ),
        (  # Springer LNCS
            "2. Kopp, O., Armbruster, A., Zimmermann, O.: Markdown Architectural Decision Records: Format "
            "and Tool Support. In: ZEUS. CEUR Workshop Proceedings, vol. 2072. CEUR-WS.org (2018)",
            ("Kopp", "Armbruster", "Zimmermann"),
            2018,
            "Markdown Architectural Decision Records: Format and Tool Support",
        ),
        (  # numbered, surname-initials, year after the authors
            "10. Wang, R. and Neumann, G. 2007a. Recognizing Textual Entailment Using a Subsequence Kernel "
            "Method. In Proc. of AAAI 2007.",
            ("Wang", "Neumann"),
            2007,
            "Recognizing Textual Entailment Using a Subsequence Kernel Method",
        ),
        (  # ACM with "et al."
            "[9] Joseph Chee Chang et al. 2022. CiteSee: Augmenting Citations in Scientific Papers with "
            "Persistent and Personalized Historical Context. ArXiv abs/2022.99999 (2022).",
            ("Chang",),
            2022,
            "CiteSee: Augmenting Citations in Scientific Papers with Persistent and Personalized Historical Context",
        ),
        (  # ACM proceedings, initials first
            "[7] V. Bala, E. Duesterwald, and S. Banerjia. Dynamo: A transparent dynamic optimization system. "
            "In Proceedings of the ACM SIGPLAN Conference on Programming Language Design and Implementation, "
            "pages 1–12. ACM Press, 2000.",
            ("Bala", "Duesterwald", "Banerjia"),
            2000,
            "Dynamo: A transparent dynamic optimization system",
        ),
        (  # IEEE with first name initials after the surname
            "[1] Karlsson L, Dahlstedt G, Natt J, Regnell B, Persson A, “Challenges in Market-Driven "
            "Requirements Engineering - an Industrial Interview Study”, In Proceedings of REFSQ’02, Essen, "
            "Germany, 2002, PP 101-112.",
            ("Karlsson", "Dahlstedt", "Natt", "Regnell", "Persson"),
            2002,
            "Challenges in Market-Driven Requirements Engineering - an Industrial Interview Study",
        ),
        (  # IEEE with double backticks
            "[10] L. Zou, M. Lu and Z. Xiong, ``PAGER-M: A novel location-based routing protocol for mobile "
            "sensor networks,'' Proc. of IEEE/ACM BroadWise, San Jose, CA, Oct. 2004",
            ("Zou", "Lu", "Xiong"),
            2004,
            "PAGER-M: A novel location-based routing protocol for mobile sensor networks",
        ),
        (  # Harvard with full given names and all-caps surname
            "[4] CHARLES BAZERMAN. 1985. Physicists Reading Physics: Schema-Laden Purposes and Purpose-Laden "
            "Schema. Written Communication 2, 1, 3–23.",
            ("BAZERMAN",),
            1985,
            "Physicists Reading Physics: Schema-Laden Purposes and Purpose-Laden Schema",
        ),
    ],
)
def test_parse_common_styles(raw: str, authors: tuple[str, ...], year: int, title: str) -> None:
    ref = parse_reference(raw)
    assert ref.authors[: len(authors)] == authors
    assert ref.year == year
    assert ref.title == title


def test_physics_styles_have_no_title_but_authors_and_year() -> None:
    aps = parse_reference("[2] B. Tian, K. Zhao, and Y. T. Gao, Int. J. Eng. Sci. 35, 1081 (1997).")
    assert aps.year == 1997
    assert aps.authors[:1] == ("Tian",)
    iop = parse_reference("[3] Ehlers J, Geren P and Sachs R K, 1968 J. Math. Phys. 9 1344 [SPIRES]")
    assert iop.authors == ("Ehlers", "Geren", "Sachs")
    assert iop.year == 1968
    assert iop.title == ""  # "J. Math. Phys." is the journal
    assert iop.venue.startswith("J. Math. Phys")


def test_venue_after_title() -> None:
    ref = parse_reference(
        "Matthew Berger, Katherine McDonough, and Lee M Seversky. 2016. cite2vec: Citation-driven document "
        "exploration via word embeddings. IEEE transactions on visualization and computer graphics, 23(1):691–700."
    )
    assert ref.venue == "IEEE transactions on visualization and computer graphics"
    assert ref.authors == ("Berger", "McDonough", "Seversky")


def test_year_suffix_and_range() -> None:
    assert (
        parse_reference(
            "Raymond Fok and Daniel S Weld. 2023b. Scim: Intelligent skimming support. In IUI."
        ).year
        == 2023
    )
    grobid = parse_reference("Grobid. 2008–2023. Grobid. https://github.com/kermitt2/grobid.")
    assert grobid.year == 2008


@pytest.mark.parametrize(
    ("text", "doi"),
    [
        (
            "... Online, 4794–4811. https://doi.org/10.18653/v1/2021.naacl-main.382",
            "10.18653/v1/2021.naacl-main.382",
        ),
        ("Linguistics. doi: 10.18653/v1/N18-2097. URL http://aclweb.org", "10.18653/v1/n18-2097"),
        ("Trans. 30(5). DOI:10.1145/3544548.3580847.", "10.1145/3544548.3580847"),
        ("(see https://dx.doi.org/10.1002/(SICI)1097-4571(199009)41:6<391::AID-ASI1>3.0.CO;2-9)", None),
        ("no identifier at all, 2019.", None),
        ("J. Phys. 10.1088/1475-7516/2008/10/003),", "10.1088/1475-7516/2008/10/003"),
    ],
)
def test_doi(text: str, doi: str | None) -> None:
    found = find_doi(text)
    if doi is None and "SICI" in text:
        assert found is not None and found.startswith("10.1002/(sici)1097-4571(199009)41:6")
    else:
        assert found == doi


@pytest.mark.parametrize(
    ("text", "arxiv"),
    [
        ("arXiv preprint arXiv:2004.05150, 2020.", "2004.05150"),
        ("arXiv:1806.03688v2 [cs, stat], June 2018.", "1806.03688"),
        ("ArXiv abs/2105.02923 (2021).", "2105.02923"),
        ("URL http://arxiv.org/abs/2110.00976. arXiv: 2110.00976.", "2110.00976"),
        ("JCAP04(2008)008 [arXiv:astro-ph/0703586]", "astro-ph/0703586"),
        ("Phys. Rev. D 60 (1999) hep-th/9901001v3.", "hep-th/9901001"),
        ("ArXiv abs/2022.99999 (2022).", None),  # month 99: no arXiv id
        ("Astrophys. J. 483 565 (1997).", None),
        ("pages 2004.05150 of nothing", None),  # a bare number is not an id without "arXiv"/"abs/"
    ],
)
def test_arxiv(text: str, arxiv: str | None) -> None:
    assert find_arxiv(text) == arxiv


def test_parse_reference_ids_and_dict() -> None:
    ref = parse_reference(
        "[11] Arman Cohan, Franck Dernoncourt, Doo Soon Kim, Trung Bui, Seokhwan Kim, Walter Chang, and "
        "Nazli Goharian. A Discourse-Aware Attention Model for Abstractive Summarization of Long Documents. "
        "In Proceedings of NAACL-HLT, pages 615–621, New Orleans, Louisiana, 2018. doi: 10.18653/v1/N18-2097."
    )
    assert ref.doi == "10.18653/v1/n18-2097"
    assert ref.year == 2018
    assert ref.title == "A Discourse-Aware Attention Model for Abstractive Summarization of Long Documents"
    data = ref.to_dict()
    assert data["authors"][:2] == ["Cohan", "Dernoncourt"]
    assert data["doi"] == "10.18653/v1/n18-2097"
    assert set(data) == {"raw", "authors", "year", "title", "venue", "doi", "arxiv"}


def test_identifiers_do_not_pass_for_years() -> None:
    ref = parse_reference(
        "[3] A. Person. Some title of a paper here. arXiv:1905.12345, https://x.org/2001/a."
    )
    assert ref.arxiv == "1905.12345"
    assert ref.year is None


def test_authors_capped() -> None:
    names = ", ".join(f"Given Sur{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(40))
    ref = parse_reference(f"{names}, and Last Author. 2020. A very large collaboration paper. In Venue.")
    assert len(ref.authors) == 20
    assert ref.authors[:2] == ("Suraa", "Surab")
    assert ref.year == 2020
    assert ref.title == "A very large collaboration paper"


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        ("Iz Beltagy, Kyle Lo, and Arman Cohan", ("Beltagy", "Lo", "Cohan")),
        ("Bar-Haim, R., Dagan, I., Dolan, B. and Szpektor, I.", ("Bar-Haim", "Dagan", "Dolan", "Szpektor")),
        ("Bates DM, DebRoy S", ("Bates", "DebRoy")),
        ("Ehlers J, Geren P and Sachs R K", ("Ehlers", "Geren", "Sachs")),
        ("Laurens van der Maaten and Geoffrey E. Hinton", ("van der Maaten", "Hinton")),
        ("P.-F. Dutot, G. Mounié, and D. Trystram", ("Dutot", "Mounié", "Trystram")),
        ("Smith, J. & Jones, K. et al.", ("Smith", "Jones")),
        ("Martin Luther King Jr. and Ann Lee", ("King", "Lee")),
    ],
)
def test_surnames(block: str, expected: tuple[str, ...]) -> None:
    assert surnames(block) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        " ",
        "[1]",
        "12.",
        "(((((",
        "“unterminated quote",
        "2019",
        "10.1234/",
        "arXiv:",
        "\x00\x02\ufffe",
        "a" * 10000,
        "[1] " + "Name, " * 500 + "2019.",
        "“”“”“”",
        "In: . . . : : :",
    ],
)
def test_parse_never_raises(raw: str) -> None:
    ref = parse_reference(raw)
    assert isinstance(ref, Reference)
    assert ref.year is None or 1800 <= ref.year <= 2100


def test_parse_non_string_input_gives_empty_reference() -> None:
    assert parse_reference(None).raw == ""  # type: ignore[arg-type]


def test_parse_references_end_to_end() -> None:
    refs = parse_references(BRACKETED)
    assert [r.year for r in refs] == [2006, 2000, 2005, 1989]
    assert refs[1].title == "Dynamo: A transparent dynamic optimization system"
    assert refs[3].authors == ("Chambers", "Ungar")
    assert (
        refs[0].title == "Compilers: Principles, techniques, and tools"
    )  # the trailing ", 2006" is the year


# MDPI journals (and ACS): "Surname, I.; Surname, I.I. Title. Journal Year, Volume, Pages." Books and
# proceedings put the publisher's city after a colon, which once passed for a title.
MDPI = """1. Novak, P.; Ferreira, L.M.; Okafor, C. Soil moisture retrieval from dual-polarised radar. Remote Sens.
2021, 13, 2044. [CrossRef]
2. Haddad, R. Statistical Learning for Hydrology, 2nd ed.; Springer: Cham, Switzerland, 2019; pp. 1–312.
3. Lindqvist, E.; van der Berg, J.-P.; Al-Amin, S. Crop Type Mapping with Sentinel Time Series. In Proceedings
of the IEEE International Geoscience and Remote Sensing Symposium (IGARSS), Valencia, Spain, 22–27 July
2018; pp. 5401–5404.
4. Chen, X.; Li, Y. Data Mining Concepts; Morgan Kaufmann: San Francisco, CA, USA, 1994.
5. Moreau, A.; Dubois, C.; Petit, J.; Laurent, M.; Roux, S.; Girard, T. Irrigation scheduling under
uncertainty: A review. Agric. Water Manag. 2020, 240, 106289. [CrossRef]
6. Tanaka, H. Radar backscatter of wheat canopies. In Microwave Remote Sensing of Land; Ulaby, F.T., Long,
D.G., Eds.; University of Michigan Press: Ann Arbor, MI, USA, 2014; pp. 211–240."""


def test_mdpi_entries_split_and_parse() -> None:
    style, entries = split_references_styled(MDPI)
    assert style == "dotted" and len(entries) == 6
    parsed = [parse_reference(e) for e in entries]
    assert [(r.authors, r.year, r.title) for r in parsed] == [
        (("Novak", "Ferreira", "Okafor"), 2021, "Soil moisture retrieval from dual-polarised radar"),
        (("Haddad",), 2019, "Statistical Learning for Hydrology, 2nd ed"),
        (
            ("Lindqvist", "van der Berg", "Al-Amin"),
            2018,
            "Crop Type Mapping with Sentinel Time Series",
        ),
        (("Chen", "Li"), 1994, "Data Mining Concepts"),
        (
            ("Moreau", "Dubois", "Petit", "Laurent", "Roux", "Girard"),
            2020,
            "Irrigation scheduling under uncertainty: A review",
        ),
        (("Tanaka",), 2014, "Radar backscatter of wheat canopies"),
    ]
    assert parsed[0].venue == "Remote Sens" and parsed[4].venue == "Agric. Water Manag"
    assert parsed[5].venue == "Microwave Remote Sensing of Land"
    assert parsed[2].venue.startswith("Proceedings of the IEEE International Geoscience")
    assert all("San Francisco" not in r.title and "Cham" not in r.title for r in parsed)


def test_nature_style_ampersand_authors_are_not_an_mdpi_list() -> None:
    ref = parse_reference(
        "4. Quist, A. B. & Lowe, K. H. Plethysmography. Clinical Physiology 28, 395-406 (2014)."
    )
    assert ref.authors[:2] == ("Quist", "Lowe") and "&" not in ref.title


@pytest.mark.parametrize(
    ("raw", "number"),
    [
        ("[12] L. Lamport. The part-time parliament. ACM TOCS, 1998.", 12),
        ("7. Chandra T, Griesemer R. Paxos made live. PODC 2007.", 7),
        ("3) Rowstron A, Druschel P. Pastry. Middleware 2001.", 3),
        ("Lamport, L. (1998). The part-time parliament. ACM TOCS.", None),
        ("1998 was the year of the part-time parliament.", None),
    ],
)
def test_a_numbered_entry_gives_its_number(raw: str, number: int | None) -> None:
    assert reference_number(raw) == number


@pytest.mark.parametrize(
    ("raw", "authors", "year", "title", "venue"),
    [
        # GB/T 7714, the Chinese standard: the kind of work in brackets after the title
        (
            "[8] 余鹏, 唐东峰, 王英. 平面五杆机构运动学和动力学特性分析[J]. 机械设计与制造, 2007(5): 12-14.",
            ("余鹏", "唐东峰", "王英"),
            2007,
            "平面五杆机构运动学和动力学特性分析",
            "机械设计与制造",
        ),
        (
            "[55] Barron J L, Fleet D J, Beauchemin S S. Performance of Optical Flow Techniques[J]. "
            "International Journal of Computer Vision, 1994, 12(1): 43-77.",
            ("Barron", "Fleet", "Beauchemin"),
            1994,
            "Performance of Optical Flow Techniques",
            "International Journal of Computer Vision",
        ),
        # as a PDF may print it: full-width letters and stops, the brackets lost, names without commas
        (
            "8 于红英 唐德威 王建宇． 平面五杆机构运动学和动力学特性分析 J ． 哈尔滨工业大学学报 2007 39( 6) : 940 － 943．",
            ("于红英", "唐德威", "王建宇"),
            2007,
            "平面五杆机构运动学和动力学特性分析",
            "哈尔滨工业大学学报",
        ),
        (
            "2 BJELONIC M BELLICOSO C D DE VIＲAGH Y et al． Keep rollin-whole-body motion control and planning "
            "for wheeled quadrupedal robots J ． IEEE Ｒobotics and Automation Letters 2019 4( 2) : 2116 － 2123．",
            ("BJELONIC", "BELLICOSO", "DE VIRAGH"),
            2019,
            "Keep rollin-whole-body motion control and planning for wheeled quadrupedal robots",
            "IEEE Robotics and Automation Letters",
        ),
        # Vancouver, medicine's style: initials without stops, so the first stop ends the authors
        (
            "Bates DM, DebRoy S. Linear mixed models and penalized least squares. J Multivar Anal. 2004;91(1):1-17.",
            ("Bates", "DebRoy"),
            2004,
            "Linear mixed models and penalized least squares",
            "J Multivar Anal",
        ),
        # an initial with its stop is no GB/T kind: "Daniel S. Weld" keeps its title
        (
            "Joseph Chee Chang, Amy X. Zhang, and Daniel S. Weld. 2023. Citesee: Augmenting citations in "
            "scientific papers with persistent and personalized historical context. In CHI.",
            ("Chang", "Zhang", "Weld"),
            2023,
            "Citesee: Augmenting citations in scientific papers with persistent and personalized historical context",
            "CHI",
        ),
    ],
)
def test_reference_styles_of_other_traditions_are_read(
    raw: str, authors: tuple[str, ...], year: int, title: str, venue: str
) -> None:
    parsed = parse_reference(raw)
    assert (parsed.authors, parsed.year, parsed.title) == (authors, year, title)
    assert parsed.venue.startswith(venue)


def test_a_chinese_title_makes_a_work_key() -> None:
    """Chinese titles have no spaces between words: each character counts, so the work gets a title key and
    two lists citing it meet on one node."""
    one = parse_reference(
        "[1] 余鹏, 唐东峰. 平面五杆机构运动学和动力学特性分析[J]. 机械设计与制造, 2007(5): 12-14."
    )
    two = parse_reference(
        "8 余鹏 唐东峰． 平面五杆机构运动学和动力学特性分析 J ． 机械设计与制造 2007 5 : 12 － 14．"
    )
    assert work_keys(one)[0].startswith("t:") and work_keys(one)[0] == work_keys(two)[0]


def test_entries_of_one_work_that_keys_keep_apart_are_one_node() -> None:
    """One author and year: a title a PDF mangled ("ane" for "affine": a lost ligature) and an entry that
    prints no title join the work, and every citing paper cites that node; an author's two works of one
    year stay two, and an untitled entry beside them joins neither."""
    from agent_zot.graph.cited_works import merge_variants, work_node
    from agent_zot.graph.model import Edge, EdgeKind

    cites = {
        "P1": "V. Andrieu and C. Prieur. Uniting two control Lyapunov functions for affine systems. IEEE TAC, 55(8), 2010.",
        "P2": "V. Andrieu and C. Prieur, “Uniting two control Lyapunov functions for ane systems,” IEEE TAC, 2010.",
        "P3": "Andrieu V, Prieur C 2010 IEEE Trans. Automat. Control 55 1789",
        "P4": "E. Sontag. Smooth stabilization implies coprime factorization. IEEE TAC, 34(4), 1989.",
        "P5": "E. Sontag. A universal construction of Artstein's theorem. Systems & Control Letters, 1989.",
        "P6": "Sontag E, Sussmann H 1989 Systems Control Lett. 13 117",
    }
    nodes: dict = {}
    edges: dict = {}
    filed: dict[str, str] = {}
    for paper, raw in cites.items():
        wid = work_node(nodes, parse_reference(raw), filed)
        assert wid is not None, raw
        edges[(f"paper:{paper}", "CITES", wid)] = Edge(f"paper:{paper}", wid, EdgeKind.CITES, {})
    assert len(nodes) == 6
    assert merge_variants(nodes, edges) == 2
    citers: dict[str, set[str]] = {}
    for source, _, target in edges:
        citers.setdefault(target, set()).add(source)
    andrieu = [n for n in nodes.values() if n.props.get("first_author") == "Andrieu"]
    assert len(andrieu) == 1 and "Uniting two control" in andrieu[0].props["title"]
    assert citers[andrieu[0].id] == {"paper:P1", "paper:P2", "paper:P3"}
    assert len([n for n in nodes.values() if n.props.get("first_author") == "Sontag"]) == 3
