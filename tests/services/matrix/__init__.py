"""Tests of the review matrix (services/matrix): cells, kinds, roles, counts."""
