"""Tests of agent_zot.services: a folder per tool, or per few close ones."""
