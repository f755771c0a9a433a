"""Tests of the claim check (services/evidence): judges, the worksheet, the optional models."""
