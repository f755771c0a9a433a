"""Free heap handed back between a build's stages (index/heap.py)."""

from __future__ import annotations

import platform

import pytest

from agent_zot.index.heap import release_free_heap

glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")


@glibc
def test_the_heap_is_trimmed_where_the_c_library_can() -> None:
    assert release_free_heap() is True
