"""Rule table for zot_explore_graph: which kind of connection the user wants to follow."""

from __future__ import annotations

from .rules import Rule, has, rx

# "citation recommendation", "citation analysis": research topics named after citations, not requests to
# follow citation links
# What the library lacks ("missing", "I never added", "not in my zotero yet", "absent from my library")…
_LACKING = (
    r"\b(?:missing|lack(?:s|ing)?|absent)\b(?! (?:data|values?|links?|mass|energy|modalit\w*|entries|observations?"
    r"|at random|persons?|children|heritability|baryons?|transverse)\b)"  # a topic: "missing data"
    r"|\b(?:don'?t|do not|dont|never|not yet|still)\s+(?:yet\s+)?(?:have|own|added|saved|imported|got|put)\b"
    r"|\b(?:haven'?t|have not|havent|didn'?t|did not)\s+(?:yet\s+)?(?:got|read|added|saved|imported|put)\b"
    r"|\bnever (?:made it|got) in(?:to)?\b|\bnot (?:yet )?(?:saved|added|imported)\b"
    r"|\bnot (?:yet |actually )?in (?:my|the|our) (?:lib\w*|zotero|collection)\b|\bnot in zotero\b"
    r"|\b(?:isn'?t|aren'?t|is not|are not)(?: yet| themselves| actually)? in (?:my|the|our|zotero)\b"
    r"|\b(?:should|could) i add\b|\b(?:references?|works?|papers?) to add\b|\bwhat to add\b"
)
# … of what the papers cite, or by name: the reading gap, asked however it is asked
READING_GAP = (
    r"\breading (?:gaps?|list gaps?)\b|\bgaps? in my (?:reading|library)\b|\bread next\b"
    rf"|(?=[^?!]*\b(?:cit(?:e|es|ed|ing)|referenc\w*|refs?)\b)[^?!]*(?:{_LACKING})"
)

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
        r"|\bforward\b|\bcited by\b|\bbuil(?:d|ds|t) (?:on|upon)\b|\bbased on\b|\brefs\b|\bfollow[- ]?ups?\b",
    ),
    # a citation direction the request states ("who cites X", "what does X build on")
    has("citation", 1.0, "direction"),
    # related through shared authors, references or concepts (the relation named is the means, not the goal)
    rx(
        "related",
        3.4,
        r"\b(?:shared?|same|overlapping|common|in common)\b[^.?!]{0,30}?\b(?:authors?|references|bibliograph\w*"
        r"|citations|concepts)\b[^.?!]{0,60}?\b(?:or|and)\b"
        r"|\breferences in common\b|\b(?:by|through|via)\s+(?:co-?authors?|shared|same|common|overlapping)\b"
        r"|\bshared\s+(?:authors?|references|bibliograph\w*|concepts|tags)\b|\bbibliographic(?:al)?(?:ly)? coupl\w*"
        r"|\bco-?citations?\b|\boverlapping (?:reference|bibliograph)\w*|\brelations? (?:of|to|between)\b"
        r"|\b(?:reference lists?|references|bibliograph\w*)\s+overlap\w*|\boverlap\w* (?:in|of) (?:their )?references\b"
        r"|\b(?:references|authors|concepts|tags) (?:they|both|we) share\b|\bshare (?:the same )?(?:references|authors)\b"
        r"|\b(?:related|tied|connected|linked)\b[^.?!]{0,60}?\b(?:by|through|via)\b[^.?!]{0,20}?"
        r"\b(?:authors?|references|bibliograph\w*|concepts)\b",
    ),
    # influence: what matters most (PageRank on the subgraph)
    rx(
        "influence",
        2.5,
        r"\binfluen\w*|\bseminal\b|\blandmark\b|\bfoundational\b|\bpage\s?rank\b|\bcentral(?:ity)?\b"
        r"|\bmost (?:important|impactful)\b|\bby importance\b|\bkey papers\b|\bimpact(?:ful)?\b|\bclassics?\b|\bmust-reads?\b"
        r"|\bcornerstone\b|\bpivotal\b|\bhubs?\b",
    ),
    rx(
        "influence",
        3.0,
        r"\b(?:most|highly|heavily|widely|top|often|frequently) cited\b|\bcited (?:the )?most\b"
        r"|\bcite[sd]? (?:the )?most\b",
    ),
    # the reading gap (influence lists it): what the papers cite that the library lacks
    rx("influence", 4.0, READING_GAP),
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
    rx(
        "collaboration",
        2.6,
        r"\bwith whom\b|\bcol+ab+or\w*|\bpeople (?:working|who work|doing research)\b"
        r"|\bjointly with\b|\b(?:written|published|wrote)\b[^.?!]{0,20}?\b(?:together )?with\b"
        r"|\bwho (?:does|do|did)\s+\S+(?:\s+\S+)?\s+(?:work|publish|write)\s+with\b",
    ),
    # concept: shared ideas and methods
    rx(
        "concept",
        2.0,
        r"\bconcepts?\b|\bideas?\b|\bthemes?\b|\bkeywords?\b|\bkey terms\b|\bterminology\b"
        r"|\b(?:main|shared|common|key|recurring)\s+(?:topics|methods|themes)\b"
        r"|\b(?:methods|techniques|topics|approaches|theories)\b[^.?!]{0,20}?\b(?:recur\w*|across|shared"
        r"|in common|overlap\w*)\b",
    ),
    rx(
        "concept",
        3.0,
        r"\bco-?oc+ur\w*|\bco-?appear\w*|\b(?:occur|appear|show|come|turn)\w*(?:\s+up)?\s+together\b"
        r"|\b(?:paired|associated|mentioned|linked) (?:together )?with (?:the )?(?:concept|idea|topic|term)\b"
        r"|\b(?:topics|concepts|ideas|themes|terms)\s+(?:\w+\s+)?(?:cluster|group|bundle)\w*\s+(?:together\s+)?with\b"
        r"|\b(?:topic|concept|keyword|theme)\s+(?:network|map|graph|cluster)s?\b|\bgo(?:es)? together with\b",
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
    # the library's whole graph ("the whole citation graph of my library", "all my papers' citation
    # network"): every strategy over the whole library, not one paper's citations
    rx(
        "comprehensive",
        2.8,
        r"\b(?:whole|entire|complete|full) (?:(?:citation|reference) )?(?:graph|network|map)\b"
        r"|\b(?:citation|reference) (?:graph|network|map) (?:of|for|across) (?:all (?:of )?)?(?:my|our|the) "
        r"(?:whole |entire )?(?:library|zotero|papers|collection)\b"
        r"|\ball (?:of )?(?:my|our) (?:papers|library)['’]?s? (?:(?:citation|reference) )?(?:graph|network|map)\b",
    ),
)
