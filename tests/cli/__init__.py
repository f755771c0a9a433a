"""Tests of the command line front end and setup."""
