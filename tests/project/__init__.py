"""Tests of the repository itself: generated docs, the README's examples, stack files, the suite's layout."""
