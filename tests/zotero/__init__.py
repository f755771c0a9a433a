"""Tests of agent_zot.zotero and config: reading Zotero libraries of every shape, safely; finding them."""
