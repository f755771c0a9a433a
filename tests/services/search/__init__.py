"""Tests of zot_search: modes, first answers, searching while building."""
