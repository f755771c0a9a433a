"""Evidence: the claim check shared by `zot_search` mode `evidence`, the citation audit and the review export:
refutation variants, stance judges, the worksheet, and checking the cited answers the assistant hands back."""
