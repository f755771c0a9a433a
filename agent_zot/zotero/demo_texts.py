"""Body text for the demo library's PDFs: short, plausible papers written for the demo (not the real papers)."""

from __future__ import annotations

CORPUS_PAPER = [
    "Abstract",
    "We describe a large collection of English-language scholarly papers assembled for text mining. Each "
    "paper comes with metadata, an abstract and, where a full text could be obtained, the body text split "
    "into paragraphs with resolved citation links. The collection spans medicine, biology, computer science, "
    "physics and the social sciences, and is meant to support research on citation recommendation, "
    "summarisation and question answering over scientific literature.",
    "1 Introduction",
    "Researchers who build tools for scientific literature need large amounts of clean full text. Publisher "
    "PDFs are hard to parse: two-column layouts, running headers, footnotes and hyphenated line breaks all "
    "break naive extraction. We combine metadata from several sources with a PDF parsing pipeline and link "
    "each in-text citation to the paper it refers to, producing a citation graph alongside the text.",
    "2 Building the corpus",
    "Candidate papers are gathered from publisher feeds, preprint servers and open-access repositories. "
    "Duplicates are merged using identifiers such as DOIs and arXiv ids, then by fuzzy matching of titles, "
    "years and first-author surnames. PDFs are parsed into paragraphs, section headings and bibliography "
    "entries; bibliography entries are matched against the corpus to resolve citation links.",
    "The resulting citation graph connects most papers with full text to at least one other paper in the "
    "collection. We measured the precision of the resolved links on a hand-checked sample and found it high "
    "enough for training citation recommendation models.",
    "3 Uses",
    "The corpus has been used to pretrain language models for scientific text, to study citation contexts, "
    "and to evaluate retrieval systems. Because paragraphs keep their section names, models can learn where "
    "in a paper methods, results and limitations are usually discussed.",
    "4 Limitations",
    "Coverage is uneven across fields, non-English papers are excluded, and PDF parsing errors remain in "
    "tables, equations and unusual layouts. Licences vary between sources, which restricts redistribution of "
    "some full texts.",
    "References",
    "[1] A. Author and B. Builder. Parsing scholarly PDFs at scale. Journal of Document Engineering, 2018.",
    "[2] C. Citer. Resolving bibliography entries to identifiers. Proceedings of the Digital Libraries "
    "Conference, 2019.",
    "[3] D. Data. Citation graphs for recommendation. Information Retrieval Letters, 2017.",
    "[4] I. Beltagy, K. Lo and A. Cohan. SciBERT: A pretrained language model for scientific text. In "
    "Proceedings of EMNLP-IJCNLP, 2019.",
    "[5] J. Devlin, M. Chang, K. Lee and K. Toutanova. BERT: Pre-training of deep bidirectional transformers "
    "for language understanding. In Proceedings of NAACL-HLT, 2019.",
]

ENCODER_PAPER = [
    "Abstract",
    "General-purpose language models are trained mostly on news and web text, and their vocabulary splits "
    "scientific terms into many fragments. We pretrain a transformer encoder on a large corpus of scientific "
    "papers with a vocabulary built from the same corpus, and show consistent gains on named entity "
    "recognition, relation extraction and sentence classification in biomedical and computer science texts.",
    "1 Introduction",
    "Scientific text differs from everyday text in its terminology, its long noun phrases and its citation "
    "conventions. Domain-specific pretraining adapts a model to these properties. We compare a model trained "
    "from scratch on scientific text with a general model fine-tuned on the same downstream tasks.",
    "2 Method",
    "We train a bidirectional transformer encoder with masked language modelling on full-text papers. A new "
    "word-piece vocabulary is learned from the scientific corpus; about half of its entries do not occur in "
    "the general vocabulary. Training runs for one week on accelerator hardware with sequences of up to 512 "
    "tokens.",
    "3 Experiments",
    "We evaluate on named entity recognition, PICO extraction, relation classification and citation intent "
    "classification. Fine-tuning uses the same hyperparameters for all models. The domain vocabulary helps "
    "most on entity recognition, where rare chemical and gene names are frequent.",
    "4 Results",
    "The scientific encoder outperforms the general model on most tasks, with the largest improvements on "
    "biomedical entity recognition. Gains are smaller for computer science tasks with less specialised "
    "terminology. Using the in-domain vocabulary adds a small further improvement over in-domain training "
    "with the general vocabulary.",
    "References",
    "[1] E. Encoder and F. Finetune. Masked language modelling for domain adaptation. Computational "
    "Linguistics Letters, 2019.",
    "[2] G. Gene. Biomedical named entity recognition benchmarks. Bioinformatics Methods, 2016.",
    "[3] J. Devlin, M. Chang, K. Lee and K. Toutanova. BERT: Pre-training of deep bidirectional transformers "
    "for language understanding. In Proceedings of NAACL-HLT, 2019.",
    "[4] A. Vaswani, N. Shazeer, N. Parmar et al. Attention is all you need. In Advances in Neural Information "
    "Processing Systems, 2017.",
]

METHODS_PAPER = [
    "Abstract",
    "Mixed-effects models describe data with grouped structure, such as repeated measurements on the same "
    "subjects. We describe the formula interface, the penalised least squares formulation and the numerical "
    "methods of a software package that fits linear mixed-effects models efficiently with sparse matrix "
    "methods.",
    "1 Introduction",
    "Many experiments measure the same units repeatedly: students within schools, patients over time, plants "
    "within plots. Random effects capture the variation between groups; fixed effects capture the effects of "
    "interest. Estimating both requires maximising a likelihood that involves the random effects' covariance.",
    "2 Model formulation",
    "A model is specified with a formula that names the response, the fixed-effect terms and random-effect "
    "terms in parentheses. The random-effects design matrix is sparse; the covariance is parameterised by a "
    "relative covariance factor, which turns the estimation into a penalised least squares problem.",
    "3 Computation",
    "The profiled deviance is evaluated with a sparse Cholesky factorisation whose fill-reducing permutation "
    "is computed once. The remaining parameters are optimised with a derivative-free bounded optimiser. "
    "Restricted maximum likelihood is available as an alternative criterion.",
    "4 Examples",
    "Worked examples include reaction times under sleep deprivation, with random intercepts and slopes per "
    "subject, and a crossed design with random effects for both subjects and items.",
    "References",
    "[1] H. Henderson. Estimation of variance components. Biometrics Notes, 1953.",
    "[2] L. Laird and W. Ware. Random-effects models for longitudinal data. Biometrics, 1982.",
]
