"""Sentences of made-up papers that more than one test indexes and checks claims against."""

from __future__ import annotations

REEF = [
    "Marine heatwaves caused mass coral bleaching across the northern reef during the summer of 2016.",
    "Bleached corals recovered within four years wherever water temperatures stayed below the seasonal maximum.",
    "Reef fish diversity declined by thirty percent at sites where living coral cover fell below ten percent.",
]
LANES = [
    "Protected bicycle lanes reduced cyclist injuries by forty percent in the twelve studied cities.",
    "Commuter cycling doubled within two years on streets that received a continuous protected lane network.",
    "Retail revenue along the redesigned corridors did not fall after parking spaces were replaced by lanes.",
]
# Systems papers whose claims a draft can restate in a few words, with acronyms and names ("GFS", "Chubby").
GFS = [
    "Component failures are the norm rather than the exception in a file system built from commodity parts.",
    "A GFS cluster consists of a single master and multiple chunkservers and is accessed by multiple clients.",
    "The master keeps all file system metadata in memory, so master operations are fast.",
]
BIGTABLE = [
    "A Bigtable is a sparse, distributed, persistent multidimensional sorted map indexed by row and column.",
    "Tablets are stored as immutable files in a shared distributed file system across many servers.",
    "Bigtable relies on a highly-available and persistent distributed lock service called Chubby.",
]
