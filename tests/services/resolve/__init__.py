"""Tests of which papers a request names (services/resolve) and how it is routed (services/routing)."""
