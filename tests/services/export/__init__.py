"""Tests of zot_export and agent_zot.formats."""
