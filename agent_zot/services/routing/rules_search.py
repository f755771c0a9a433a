"""Rule tables for zot_search and zot_summarize.

Weights, roughly: 2.0+ a phrase that settles the mode on its own; 1.0–1.8 a strong hint;
below 1.0 a nudge. Parameter rules (`has`) vote when the extractor found that parameter.
"""

from __future__ import annotations

import re

from agent_zot.index.sentences import asks_a_question, split_question

from .rules import Rule, has, rx
from .rules_explore import CITATION_TOPICS
from .scan import QUESTION_WORDS

# Things papers use, as opposed to the papers themselves
_THINGS = (
    r"methods?|methodolog(?:y|ies)|datasets?|data sets|benchmarks?|techniques?|tools?|frameworks?|algorithms?|assays?|cell lines?"
    r"|corpora|corpus|instruments?|metrics?|measures|models|software|reagents?|materials|estimators?"
    r"|questionnaires?|scales|surveys?|simulations?|codes?|libraries|architectures?|baselines?|protocols?"
)

# Questions about the people behind a topic
PEOPLE = (
    r"\bwho\s+(?:are|is|were)\s+(?:the\s+)?(?:\w+\s+)?(?:researchers?|authors?|scientists?|people|experts?"
    r"|groups?|labs?|names?|persons?|individuals|figures|players|contributors)\b"
    r"|\b(?:a[uo]th?[eo]u?rs?|res[ea]{0,2}rchers?|people|scientists?|groups?|labs?)\s+(?:\w+\s+){0,2}?(?:active|working"
    r"|publishing|writing|studying)"
    r"\s+(?:on|in|about)\b"
    r"|\b(?:which|what|wich|name the|list the)\s+(?:\w+\s+){0,2}?(?:a[uo]th?[eo]u?rs?|researchers?|scientists?"
    r"|peoples?|experts?|research groups?|labs?|economists|scholars)\b"
    r"|\bwho (?:the )?(?:\w+ )?(?:a[uo]th?[eo]u?rs?|researchers?|scientists?|experts?|people) (?:are|is|were)\b"
    r"|\b(?:give|tell|show) me (?:the |their )?names\b|\ba[uo]th?[eo]u?rs (?:writing|working|publishing)\b"
    r"|\bwho\s+(?:\w+\s+){0,3}?(?:works?|working|writes?|writing|writting|wrote|publish\w*|research\w*"
    r"|stud(?:y|ies))\b[^.?!]{0,20}?\b(?:on|about|in)\b"
    r"|\b(?:key|main|leading|top|prominent|important)\s+(?:people|persons|res[ea]{0,2}rchers|a[uo]th?[eo]u?rs|scientists"
    r"|names|figures|scholars)\b|\bi want names\b|\bleading (?:auth\w*|researchers?|scientists?|people|names)\b"
)

# Verbs that assert an effect or a relation between two things, as claims are written.
_CLAIM_VERBS = (
    r"(?:cause|increase|decrease|reduce|lower|raise|improve|impair|worsen|prevent|promote|inhibit|induce|enhance"
    r"|protect|harm|damage|affect|predict|drive|trigger|suppress|block|boost|mitigate|accelerate|slow|delay"
    r"|shorten|regulate|mediate|modulate|outperform|exceed|halve|double|cure|alleviate|exacerbate|elevate"
    r"|diminish|amplify|attenuate|disrupt|restore|stimulate|activate|correlate|depend|hinder|hurt|benefit"
    r"|lead|contribute|explain|dominate|determine|undermine|erode|spur|fuel|curb|lengthen|reverse|offset|hold"
    r"|made|make|held|kill|save|shrink|shrank|grow|grew|rose|fell)"
)
_CLAIM_FORMS = r"(?:s|es|ed|d)?"
# After a claim verb: its object, not "and", "or", "of" or a comma. Those follow the verb's noun twin
# ("climate damage and ...", "wage increases or ...", "a decrease of ..."): a topic, not a finite claim.
# A lookahead, so the matched span (cut from the topic) ends at the verb, not inside the object's first word.
_OBJECT = r"(?=\s+(?!(?:and|or|nor|of|vs|versus)\b)[^\s,;])"
# Requests that merely name a topic, or ask a question, begin like this; a claim does not.
_NOT_A_CLAIM_START = (
    r"^\s*(?!(?:does|do|did|is|are|was|were|can|could|would|will|should|has|have|had|papers?|articles?|studies"
    r"|study|research|works?|literature|anything|something|find|show|list"
    r"|search|get|give|look|what|which|who|whom|how|why|where|when|whether|if|effects?|impacts?|role|roles"
    r"|influence|influences|relationship|association|link|links|the\s+(?:effects?|impacts?|role|influence"
    r"|relationship|association|link))\b)"
    # "For the RNN that predicts BP, how much did ...?": a clause that names the paper, then the question,
    # which may open with its preposition ("..., for what use does ...?", "..., in which months ...?")
    r"(?![^?]{0,300}?[,;:]\s*(?:(?:for|in|on|at|by|to|from|with|under|of|about|during)\s+)?"
    + QUESTION_WORDS
    + r"[^?]*\?)"
)
# A question about what one paper did, found or used ("How was the reference pressure measured in the
# dual-probe study?", "In the proof of concept that used RBMs on MIMIC II, what ...?"): its answer is in that
# paper's passages, though its words may name a graph or entity cue in passing ("reference", "used to",
# "built on"). A question about the library's papers, authors, sources or citations keeps those modes.
_WORK_NOUN = (
    r"(?:study|paper|article|work|survey|review|trial|experiment|patent|thesis|book|textbook|chapter|report"
    r"|proof[- ]of[- ]concept|method|model|approach|system|framework|device|algorithm|network|pipeline|dataset"
    r"|catalog(?:ue)?|analysis|reanalysis|update|probe|band|prototype|estimator|classifier|architecture)\b(?!-)"
)
_ASK = r"(?:how|what|which|why|when|where|did|does|do|is|are|was|were|can|could|has|have|had)\b"
_ONE_PAPER_QUESTION = (
    r"^(?![^?]*\b(?:papers|studies|articles|publications|(?<!the )authors|researchers|people|scientists|sources"
    r"|works|references|library|libraries|who|whom|whose|cites?|citing|citations?|co-?authors?)\b)\s*(?:"
    # "In the <description> study, how ...?": the clause names the paper
    rf"(?:in|for|according\s+to|from|within|among|with|on|at)\s+the\s+[^?,]*?\b{_WORK_NOUN}[^?]*?,\s*{_ASK}"
    # "How ... in the <description> study?": the question names it
    rf"|{_ASK}[^?]*?\b(?:the|this|that|its)\s+(?:[\w/()'’.+-]+\s+){{0,8}}?{_WORK_NOUN})"
)

# A question that names the one paper it asks about in a clause, as the passage picker reads it
# (index/sentences.split_question): "At what frame rate was the video recorded in the camera-based BP study
# with invasive reference pressure?", "What do the authors of the deep RNN study gain by ...?". Its answer is
# in that paper's passages whatever it says in passing ("reference", "used to", "works with", "the
# authors"), unless its clause names several works or it asks about the library's papers or a claim.
ONE_PAPER_WEIGHT = 3.0
_SEVERAL_WORKS = re.compile(
    r"\b(?:papers|studies|articles|publications|references|library|collection|sources|authors)\b"
    r"|(?<!that )(?<!which )(?<!who )\bworks\b|\b(?:my|our)\b"  # not "the study that works with ..."
)
_LIBRARY_WIDE = re.compile(
    r"\b(?:my|our)\s+(?:\w+\s+)?(?:papers|library|collection|references|sources|articles|studies|readings)\b"
    r"|\bthe\s+(?:claim|hypothesis|assertion|statement|idea|notion|view|argument)\s+that\b"
    # who its authors are is a question about people, not about the paper's text
    r"|\bwho\s+(?:are|were|is|was)\s+(?:the\s+|its\s+)?(?:authors?|researchers?|writers?)\b|\bwho\s+(?:wrote|authored)\b"
)


# "What do the authors of the two-stage clustering study blame ...?": a question about what one work's authors
# did or say (not "which authors work on ...", a question about people).
_AUTHORS_OF = re.compile(
    r"^\s*(?:what|why|how|which|when|where|whom)\b[^?]{0,40}?\b(?:do|does|did|have|has|had|would|could)\s+"
    r"the\s+(?:authors?|researchers?|investigators?|team|writers?)\s+of\s+(?P<work>(?:the|this|that)\s+[^?]{3,})",
    re.IGNORECASE,
)


def one_paper_named(query: str) -> str | None:
    """The clause naming the one paper ``query`` asks a question about, or None."""
    owners = _AUTHORS_OF.match(query)
    naming = owners.group("work") if owners else split_question(query)[1]
    if naming is None or _SEVERAL_WORKS.search(naming.lower()) or _LIBRARY_WIDE.search(query.lower()):
        return None
    return naming if asks_a_question(query) else None


# Before the verb: no question word ("mechanisms by which sleep affects memory" is a topic).
_NO_QUESTION = r"(?:(?!\b(?:which|whether|how|why|what|whom|whose|if|when|where)\b)[^?]){0,200}?"
ASSERTION = (
    _NOT_A_CLAIM_START + rf"(?:{_NO_QUESTION}\b)?[a-z][\w'-]*\s+"
    r"(?:(?:does|do|did|can|may|might|could|will|would|cannot|can't|doesn't|don't|didn't|is|are|was|were)\s+)?"
    r"(?:not\s+|no\s+longer\s+|significantly\s+|strongly\s+|substantially\s+|directly\s+)?"
    # "X regulated by Y" with no "is" before it names a topic (genes regulated by p53), not a claim
    rf"{_CLAIM_VERBS}{_CLAIM_FORMS}\b(?<!ed)(?<!\wd){_OBJECT}"
    r"|" + _NOT_A_CLAIM_START + rf"(?:{_NO_QUESTION}\b)?[a-z][\w'-]*\s+"
    r"(?:(?:is|are|was|were|has\s+been|have\s+been|had\s+been|be|been)\s+)"
    r"(?:not\s+|significantly\s+|strongly\s+|substantially\s+|directly\s+)?"
    rf"{_CLAIM_VERBS}{_CLAIM_FORMS}\b{_OBJECT}"
    r"|" + _NOT_A_CLAIM_START + rf"(?:{_NO_QUESTION}\b)?[a-z][\w'-]*\s+"
    rf"{_CLAIM_VERBS}(?:ed|d)\b(?!\s+(?:by|in|for|with|from|at|on)\b){_OBJECT}"
    r"|"
    + _NOT_A_CLAIM_START
    + r"[^?]{2,200}?\b(?:is|are|was|were)\s+(?:not\s+)?(?:associated|linked|correlated"
    r"|causally\s+linked|caused|driven|mediated|required|necessary|sufficient|responsible|(?:more|less)\s+effective"
    r"|ineffective|superior|inferior)\s+(?:with|to|by|for|than)\b"
    r"|"
    + _NOT_A_CLAIM_START
    + r"[^?]{2,200}?\b(?:has|have|had)\s+(?:no|little|a\s+(?:large|small|strong|weak"
    r"|significant|positive|negative|causal|protective)|an?)\s+(?:effect|impact|influence|role)\s+on\b"
    r"|^\s*there\s+is\s+no\s+(?:link|association|effect|difference|relationship)\b"
    r"|"
    + _NOT_A_CLAIM_START
    + rf"{_NO_QUESTION}\b(?:has|have|had|show|shows|showed|yield|yields|achieve|achieves"
    r"|give|gives|perform|performs)\s+(?:\w+\s+)?(?:better|worse|higher|lower|greater|smaller|more|less|fewer|superior"
    r"|inferior)\b"
)

SEARCH_RULES: tuple[Rule, ...] = (
    # evidence: checking a claim against the library, for and against
    rx(
        "evidence",
        3.0,
        r"\bis there (?:any |some )?(?:evidence|support)\b|\bevidence (?:that|for the claim|against)\b"
        r"|\b(?:does|do|can) (?:my )?(?:library|papers?|literature|sources) (?:support|contradict|refute|back up"
        r"|confirm|dispute)\b|\bwhat (?:in my library )?(?:argues|speaks|counts) against\b|\bcounter-?evidence\b"
        r"|\b(?:supports?|contradicts?|refutes?) (?:the|this|my) claim\b|\bcheck (?:the|this|my) claim\b"
        r"|\bfact-?check\b|\bis it true\b[^.?!]{0,40}?\bthat\b|^\s*(?:verify|check|fact-?check|true or false|is this true)\s*[:\-–]"
        r"|\bis there (?:any |some )?evid\w{0,3}nce\b",
    ),
    rx(
        "evidence",
        3.0,
        r"\b(?:which|what|do|does|did|can)\s+(?:\w+\s+){0,3}?(?:papers?|references|sources|studies|library)\s+"
        r"(?:\w+\s+)?(?:support|undercut|contradict|dispute|back(?:s)? up|refute|agree|disagree|say for)"
        r"|\b(?:evidence|speaks?|says?|anything|papers?|studies|sources|literature)\s+(?:\w+\s+){0,3}?for (?:or|and) against\b"
        r"|\banything (?:contradicting|refuting|against)\b|\bcontradicting evidence\b|\bprove me wrong\b"
        r"|\bfact or (?:myth|fiction)\b|\bdefensible\b|\bconsistent with my (?:sources|papers|references|library)\b"
        r"|\b(?:flagged|marked)\b[^.?!]{0,60}\bunsupported\b|\b(?:support|back up|contradict)s? (?:this|that|it|his"
        r"|her|their|my) (?:sentence|statement|claim)\b|\bflag any that disagree\b",
    ),
    # a claim named as such, or words that take a side on one
    rx(
        "evidence",
        2.6,
        r"\bthe (?:claim|idea|assertion|statement|hypothesis|notion) that\b|\bmy (?:argument|claim|assertion"
        r"|statement|hypothesis) that\b|\b(?:this|that|the) claim (?:against|with)\b|\bevaluate (?:this|the) claim\b"
        r"|\b(?:refuting|refutes?|contradicts?|contradicting|contradicted|counter-?arguments?|undercuts?|debunks?"
        r"|disproves?)\b|\b(?:need|find|want|looking for)\s+(?:\w+\s+)?support for\b"
        r"|\bevidence (?:i|we)(?:'ve| have)? (?:collected|got|gathered)\b|\bwhat i(?:'ve| have) got\b",
    ),
    # a bare assertion to check ("statins prevent dementia", "sleep loss impairs working memory"): a subject,
    # then a verb asserting an effect or a relation, then its object; a topic phrase has no such verb
    rx("evidence", 2.4, ASSERTION),
    # metadata: filters spelled out in the query
    has("metadata", 1.2, "authors"),
    has("metadata", 1.0, "years"),
    has("metadata", 1.1, "venue"),
    has("metadata", 1.2, "tags"),
    has("metadata", 1.2, "collection"),
    has("metadata", 1.0, "doi"),
    has("metadata", 1.0, "arxiv_id"),
    has("metadata", 0.6, "item_keys"),
    rx(
        "metadata",
        1.0,
        r"\b(?:published|journal|venue|year|authored|written by|by author|publication date)\b",
    ),
    rx(
        "metadata",
        2.6,
        r"\b(?:everything|all|anything|every(?:thing)? (?:paper|item))\s+(?:\w+\s+)?(?:by|from|written by)\s+[a-z]",
    ),
    # A question about what one paper did, found or used ("How was the reference pressure measured in the
    # dual-probe study?", "In the proof of concept that ..., what ...?"): its answer is in that paper's
    # passages. Its words may name a graph or entity cue in passing ("reference", "used to", "built on");
    # a question about the library's papers, authors or sources keeps those modes. What it asks is the topic.
    rx("fast", 2.2, _ONE_PAPER_QUESTION, content=True),
    # graph: who worked with whom, what cites what
    rx(
        "graph",
        2.0,
        r"\bco-?author(?:s|ed|ship)?\b|\bco-?wr(?:ote|itten|ite|iters?)\b|\bcollaborat\w*|\bworks? with\b"
        r"|\bworked with\b",
    ),
    rx(
        "graph",
        2.0,
        r"\bcit(?:e|ing|es|ed by|ations?)\b(?!\s+" + CITATION_TOPICS + r")"
        r"|\breferenc(?:e|es|ed|ing)\b|\bbuil(?:d|ds|t) (?:on|upon)\b",
    ),
    # "citation network", "neighbours of X"; not a topic's own words ("neural network", "neighbourhood effects")
    rx(
        "graph",
        1.5,
        r"\b(?:citation|co-?authors?(?:hip)?|collaboration|authors?|references?|citing|their|its|his|her)\s+network\b"
        r"|\bnetwork\s+(?:of|around)\s+(?:the|this|that|these|those|my|his|her|their|papers?|authors?)\b"
        r"|\bneighbou?r(?:s|hood)?\s+(?:of|around)\b|\b(?:citation|graph)\s+neighbou?r\w*|\bsame\s+network\b"
        r"|\bnetwork\s+as\b"
        r"|\bconnected to\b|\blinked to\b|\bconnections?\b",
    ),
    rx("graph", 1.2, r"\bwho else\b|\bsame (?:group|lab|team)\b|\bfollow-?up (?:work|papers)\b"),
    # people: who works on a topic (their papers and co-authors come from the graph)
    rx("graph", 2.6, PEOPLE),
    # entity: the things papers use or talk about, not the papers
    rx(
        "entity",
        1.8,
        r"\b(?:what|which)\s+(?:\w+\s+){0,2}?(?:methods?|datasets?|data sets|techniques?|tools?|frameworks?"
        r"|models?|algorithms?|theories|theory|measures?|metrics?|instruments?|materials?|genes?|proteins?"
        r"|chemicals?|software|approaches|variables|species|compounds?)\b",
    ),
    rx(
        "entity",
        1.8,
        r"\bentit(?:y|ies)\b|\bconcepts?\b|\bkey\s*terms?\b|\bkeywords?\b|\bkey ideas?\b|\bterminology\b",
    ),
    rx("entity", 1.0, r"\bmentioned\b|\bmentions of\b|\bshow up\b|\bappear in\b|\bused (?:in|for|to)\b"),
    # "which benchmarks do papers on X use", "sequencing methods used by papers on Y"
    rx(
        "entity",
        2.4,
        rf"\b(?:{_THINGS})\b[^.?!]{{0,50}}?\b(?:use[sd]?|using|evaluated?|evaluates|employ\w*|appl(?:y|ied|ies)"
        rf"|rel(?:y|ies|ied) on|adopt\w*)\b|\b(?:lis?t|name|enumerate|which|wh?ich|what)\b[^.?!]{{0,30}}?\b(?:{_THINGS})\b",
    ),
    # comprehensive: the user asks for breadth over speed
    rx(
        "comprehensive",
        2.2,
        r"\b(?:comprehensive(?:ly)?|exhaustive(?:ly)?|thorough(?:ly)?|systematic(?:ally)?|deep search"
        r"|in-depth|leave nothing out|miss nothing|everything"
        r"|everywhere|all sources|every source|all backends"
        r"|literature review|broad sweep|cast a wide net|wide net|across the (?:whole )?literature)\b",
    ),
    rx(
        "comprehensive", 1.5, r"\ball (?:the )?(?:papers|articles|work|studies)\b|\banything and everything\b"
    ),
    # fast: explicit requests for speed
    rx(
        "fast", 0.6, r"\bquick(?:ly)?\b|\bfast (?:search|lookup)\b|\bjust (?:a )?(?:quick|fast)\b|\bbriefly\b"
    ),
)

_ASPECTS = (
    r"methods?|methodology|dataset|data\s?sets?|sample\s+size|participants|results?|findings?|limitations?"
    r"|baselines?|metrics?|hypothes[ie]s|measured?|measures|definitions?|define[sd]?|equations?|experiments?"
    r"|procedure|statistics?|statistical|evaluation|ablations?|conclusions?|discussion|related work"
    r"|future work|contributions?|research question|question|methods section"
)

# "for each paper in my Trials collection", "across all studies", "paper by paper": many papers, one table
_EACH_PAPER = (
    r"\b(?:for|across|in|of|from|over)\s+(?:each|every|all)(?:\s+(?:of|the))*\s+(?:(?:my|the|these|those)\s+)?"
    r"(?:[\w-]+\s+)?(?:papers?|studies|study|articles?|items?|trials?|references|works|publications|sources)\b"
    r"|\b(?:each|every) (?:paper|study|article|trial)(?:'s|’s)|\bper (?:paper|study|article|trial)\b"
    r"|\b(?:paper|study|trial) by (?:paper|study|trial)\b|\bone row (?:per|for each)\b"
)
# "matrix" alone is the table of papers, unless the matrix is mathematics ("matrix identities", "covariance
# matrix", "the Matrix Cookbook")
MATRIX_WORD = (
    r"(?i:(?<!random )(?<!sparse )(?<!covariance )(?<!confusion )(?<!adjacency )(?<!hessian )(?<!jacobian )"
    r"(?<!identity )(?<!rotation )(?<!transition )(?<!correlation )(?<!distance )(?<!density )(?<!stiffness )"
    r"\bmatri(?:x|ces)\b(?!\s+(?:identit|derivativ|inver|multiplicat|factori[sz]|decomposi|algebra|calculus"
    r"|cookbook|theory|completion|norms?\b|products?\b|exponential|equations?\b|elements?\b|rank\b)))"
)
# "a review matrix", "make a table of", "data extraction sheet", "tabulate", "side by side"
_TABLE_OF_PAPERS = (
    r"\b(?:review|evidence|extraction|comparison|summary|data|literature)\s+(?:table|matrix|grid|sheet)s?\b"
    rf"|\bdata extraction\b|{MATRIX_WORD}|\btabulate\b|\bside[- ]by[- ]side\b"
    r"|\b(?:make|build|create|fill(?: in)?|give me|produce|generate|draw up|set up|prepare|put together)\s+"
    r"(?:me\s+)?(?:a|an|the|my)\s+(?:[\w-]+\s+){0,2}?(?:table|grid|spreadsheet|csv)\b"
)

SUMMARIZE_RULES: tuple[Rule, ...] = (
    # matrix: the same questions of every paper of a scope (a collection or tags name many papers)
    rx("matrix", 3.5, _EACH_PAPER),
    rx("matrix", 4.2, _TABLE_OF_PAPERS),
    has("matrix", 3.0, "collection"),
    has("matrix", 3.0, "tags"),
    # audit: the citations of the user's own draft
    rx(
        "audit",
        4.0,
        r"\baudit(?:s|ed|ing|or|ors)?\b|\b(?:check|verify|validate|proofread|review)\w*\s+(?:\w+\s+){0,3}?(?:citations?|references|cites"
        r"|bibliography|sources)\b|\bcitation (?:check|audit|errors?|problems?)\b|\b(?:wrong|bad|broken|missing) "
        r"(?:citations?|page numbers?|cites)\b",
    ),
    rx("audit", 1.5, r"\b(?:my|this) (?:draft|manuscript|thesis chapter)\b"),
    # quick: what is it, in brief
    rx("quick", 0.6, r"\bsumm?ar(?:y|ize|ise|ies)\b"),
    rx(
        "quick",
        1.5,
        r"\b(?:overview|gist|tl;?dr|abstract|brief(?:ly)?|quick(?:ly)?|short|one-liner|nutshell)\b"
        r"|\bin (?:a|one|two) (?:sentence|line|paragraph)s?\b",
    ),
    rx("quick", 2.0, r"\bwhat(?:'s|’s|\s+is|\s+was)\b(?:\s+\S+){0,10}?\s+about\b(?!\s+(?:the|its|their)\b)"),
    # the paper's bibliographic facts: who wrote it, where and when it came out
    rx(
        "quick",
        3.2,
        r"\bwho\s+(?:wrote|writed|authored|write|writes|is the (?:first |last |lead |corresponding )?author|are the a\w*ors)\b"
        r"|\b(?:first|last|lead|corresponding)\s+a[uo]?th?o?rs?\b|\ba\w{0,2}thors? of\b"
        r"|\b(?:where|when)\b[^.?!]{0,120}?\b(?:published|come out|came out|appeared?)\b"
        r"|\b(?:which|what|in what)\s+(?:journal|venue|conference|publisher|year)\b|\bpublisher\b"
        r"|\b(?:doi|publication (?:year|date)|year of publication|citation details|bibliographic)\b"
        r"|\bcitation (?:for|of)\b|\bhow (?:do|should|would|can) (?:i|we) cite\b|\bcite (?:it|this|that|the \w+)\b"
        r"|\b(?:apa|mla|chicago|harvard|vancouver|ieee) (?:style|format|citation|reference)\b"
        r"|\breference (?:entry|for|list entry)\b|\bformatted (?:citation|reference)\b"
        r"|\bthe (?:journal|venue|volume|issue number|publisher)\b",
    ),
    # targeted: a question about one aspect
    rx("targeted", 1.4, r"^\s*(?:what|which|how|why|when|where|who|does|do|did|is|are|was|were|can|could)\b"),
    rx("targeted", 1.0, r"\?\s*$"),
    rx("targeted", 1.6, rf"\b(?:{_ASPECTS})\b"),
    rx(
        "targeted",
        1.5,
        r"\b(?:mentions?|discuss(?:es)?|talks? about|says? about|address(?:es)?|report(?:s|ed)?|uses?|used"
        r"|find the (?:part|passage|section)|where (?:do|does|did) (?:they|it|the authors))\b",
    ),
    # comprehensive: the whole argument, aspect by aspect
    rx(
        "comprehensive",
        2.2,
        r"\b(?:comprehensive(?:ly)?|detailed|in[- ]depth|in detail|thorough(?:ly)?|deep[- ]dive|full summary"
        r"|full (?:structured )?summary|structured summary|complete summary|walk me through|break\s*down|breakdown|everything|all aspects|full detail"
        r"|extensive(?:ly)?|thorough understanding|covering everything|section by section|each section"
        r"|all (?:the )?details|every detail|rundown|complete (?:overview|picture|account))\b",
    ),
    rx("comprehensive", 1.5, rf"(?:\b(?:{_ASPECTS})\b[^.?!]{{0,40}}?){{3}}"),
    # full: the text itself, by pages
    rx(
        "full",
        2.5,
        r"\bfull[- ]?text\b|\b(?:entire|whole) (?:text|paper|document|article|thing|pdf)\b|\braw text\b"
        r"|\bverbatim\b|\bword for word\b|\bread (?:me )?(?:the )?(?:entire|whole|full)\b|\bnext page\b"
        r"|\bprevious page\b|\bpages?\s*\d|\bpp?\.\s*\d",
    ),
    rx(
        "full",
        2.0,
        r"\b(?:print|dump|output|show me|give me)\b[^.?!]{0,15}?\btext\b"
        r"|\bread\b[^.?!]{0,30}?\b(?:from the (?:beginning|start|top)|page by page|in full|cover to cover)\b"
        r"|^\s*(?:the\s+)?(?:full\s+)?text\b|\ball of it\b|\b(?:continue|keep) reading\b|\bread on\b",
    ),
    has("full", 2.0, "pages"),
    # structure that needs the whole text: the headings, the appendix, its length
    rx(
        "full",
        3.4,
        r"\b(?:all|every|each|extract|pull|list|get|give me|see|show|print|write (?:out|down))\b[^.?!]{0,40}?"
        r"\b(?:section headings?|headings?|appendi(?:x|ces))\b"
        r"|\bhow long is\b|\bhow (?:many|much) (?:pages|words|characters)\b|\b(?:page|word) count\b"
        r"|\bnumber of (?:pages|words)\b|\blength of\b"
        r"|\b(?:section )?headings\b|\boutline of (?:the )?(?:headings|sections)\b|\bstructure of (?:the |this |that )?(?:paper|article|document)\b"
        r"|\b(?:first|last)\s+(?:\w+\s+)?pages?\b"
        r"|\b(?:write|list|print) (?:them )?all(?: of them)? out\b|\ball of them out\b",
    ),
    # figures: the paper's figures, tables and equations, one of them, or a page as a picture
    rx(
        "figures",
        3.8,
        r"\b(?:all|every|each|extract|pull|list|get|give me|see|show|print|write (?:out|down)|which|how many"
        r"|what)\b[^.?!]{0,40}?\b(?:figures?|figs?\.|tab(?:le|el)s?|equat\w*|eqs?\.|formula[es]?|formulae"
        r"|captions?|capt\w+ of figures|charts?|plots?|diagrams?|illustrations?)\b(?! (?:in|of) (?:pdfs?|general))"
        r"|\b(?:figure capt\w*|captions?)\b|\b(?:tables|equations|formulas|figures)\b[^.?!]{0,60}?\b(?:contains?|includes?)\b",
    ),
    rx("figures", 1.2, r"\b(?:figures?|tables|equations|captions?|charts?|plots?|diagrams?)\b"),
    # one part named by what it shows: "the execution overview figure", "the table of final sizes" (its
    # words, such as "overview", say nothing about the depth of a summary)
    rx(
        "figures",
        2.0,
        r"\b(?:the|that|this)\s+(?:[\w-]+\s+){1,4}?(?:figure|fig\.|diagram|chart|plot|table)\b"
        r"|\b(?:the|that|this)\s+(?:figure|diagram|chart|plot|table)\s+(?:of|showing|with|on|about)\b",
    ),
    rx(
        "figures",
        4.6,
        r"\b(?:figure|fig\.?|table|equation|eq\.?)\s*(?:[a-z]?\d{1,3}|[ivx]{1,5})\b"
        r"|\b(?:image|picture|screenshot|render(?:ing)?|png|look) (?:of|at) (?:the )?page\s*\d"
        r"|\bpage\s*\d{1,4}\s+(?:as an? )?(?:image|picture|png|screenshot)\b"
        r"|\b(?:show|render) (?:me )?page\s*\d{1,4}\b",
    ),
)
