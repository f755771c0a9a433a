"""Rule table for zot_explore_graph: which kind of connection the user wants to follow."""

from __future__ import annotations

from .rules import Rule, has, rx

# "citation recommendation", "citation analysis": research topics named after citations, not requests to
# follow citation links
CITATION_TOPICS = (
    r"(?:recommendation|analysis|context|intent|function|classification|parsing|extraction|screening"
    r"|generation|prediction|sentiment|worthiness|span|text|style|management)s?\b"
)

EXPLORE_RULES: tuple[Rule, ...] = (
    # related (default): generic neighbourhood
    rx(
        "related",
        1.5,
        r"\brelated\b|\bconnect(?:ed|ions?|s)?\b|\blinked\b|\bneighbou?r\w*|\baround\b|\bnearby\b"
        r"|\bassociated\b|\bexplore\b",
    ),
    # citation: who cites whom
    rx(
        "citation",
        2.0,
        r"\bcit(?:e|es|ed|ing|ation|ations)\b(?!\s+" + CITATION_TOPICS + r")"
        r"|\breferenc(?:e|es|ed|ing)\b|\bbibliograph\w*|\bbackward\b"
        r"|\bforward\b|\bcited by\b|\bbuil(?:d|ds|t) (?:on|upon)\b|\bbased on\b",
    ),
    # influence: what matters most (PageRank on the subgraph)
    rx(
        "influence",
        2.5,
        r"\binfluen\w*|\bseminal\b|\blandmark\b|\bfoundational\b|\bpage\s?rank\b|\bcentral(?:ity)?\b"
        r"|\bmost (?:important|impactful)\b|\bby importance\b|\bkey papers\b|\bimpact(?:ful)?\b|\bclassics?\b|\bmust-reads?\b"
        r"|\bcornerstone\b|\bpivotal\b|\bhubs?\b",
    ),
    rx("influence", 3.0, r"\b(?:most|highly|heavily|widely) cited\b"),
    # content_similarity: papers that read alike (vectors, not links)
    rx(
        "content_similarity",
        2.2,
        r"\bsimilar\w*|\bresembl\w*|\bmore like\b|\blike this\b|\bcontent[- ]?wise\b|\bsame topic\b"
        r"|\breads? like\b|\bcomparable\b|\balike\b|\bpapers like\b|\blookalikes?\b|\bclos(?:e|est) to\b|\bclosest\b"
        r"|\bin content\b",
    ),
    # collaboration: people
    rx(
        "collaboration",
        2.2,
        r"\bco-?author\w*|\bco-?wr(?:ote|itten|ite|iters?)\b"
        r"|\bcollaborat\w*|\bworked with\b|\bworks? with\b|\bwork together\b"
        r"|\bresearch groups?\b|\bteams?\b|\blabs?\b|\bco-?workers?\b",
    ),
    has("collaboration", 0.8, "authors"),
    # concept: shared ideas and methods
    rx(
        "concept",
        2.0,
        r"\bconcepts?\b|\bideas?\b|\bthemes?\b|\bkeywords?\b|\bkey terms\b|\bterminology\b"
        r"|\b(?:main|shared|common|key|recurring)\s+(?:topics|methods|themes)\b"
        r"|\b(?:methods|techniques|topics|approaches|theories)\b[^.?!]{0,20}?\b(?:recur\w*|across|shared"
        r"|in common|overlap\w*)\b",
    ),
    # temporal: how things changed
    rx(
        "temporal",
        2.2,
        r"\bevol(?:ve|ved|ves|ving|ution)\b|\bover (?:time|the (?:years|decades))\b|\btimeline\b|\bhistory\b"
        r"|\bhistorical(?:ly)?\b|\b(?:shift|grow|grew|declin"
        r"|emerg)\w*\b[^.?!]{0,30}?\b(?:over|through|since)\b"
        r"|\btrends?\b|\bchronolog\w*|\bprogress(?:ion|ed)\b"
        r"|\bchang(?:e|ed|es|ing)\b[^.?!]{0,30}?\b(?:over|through"
        r"|year|time|decades?)\b|\byear[- ]by[- ]year\b|\bdevelop(?:ed|ment) of\b|\bdecade by decade\b",
    ),
    has("temporal", 0.8, "years"),
    # "how has X changed between 2015 and 2023": a change across a year span outweighs the topic's words
    rx(
        "temporal",
        2.6,
        r"\b(?:chang|evol|shift|gr[eo]w|develop|moved?)\w*\b[^.?!]{0,40}?\b(?:between|from|since)\s+(?:19|20)\d{2}\b",
    ),
    # venue: where things were published
    rx(
        "venue",
        2.2,
        r"\bvenues?\b|\bjournals?\b|\bconferences?\b|\bproceedings\b|\bpublished (?:in|at|by)\b"
        r"|\bwhere\b[^.?!]{0,40}?\bpublish\w*|\bpublishers?\b|\bcame out\b",
    ),
    has("venue", 1.0, "venue"),
    # comprehensive: every kind of connection at once
    rx(
        "comprehensive",
        2.4,
        r"\beverything\b|\ball (?:connections|relationships|links|the ways|kinds)\b|\bfull picture\b"
        r"|\bcomprehensive(?:ly)?\b|\bevery (?:relationship|connection|way|link)\b"
        r"|\bcomplete (?:network|picture|map)\b|\bmap out\b|\b(?:all"
        r"|every) (?:angles?|directions?)\b|\bin every way\b",
    ),
)
