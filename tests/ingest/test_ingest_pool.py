"""The worker pool: timeouts, crashes and memory hogs are reported while the other jobs complete.

The test parser is registered in PARSERS under "scripted"; workers receive the class pickled by
reference, so it must stay a top-level class of this (importable) module.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_zot.errors import InvalidArgumentError
from agent_zot.ingest import PARSERS, ParsedDocument, ParseJob, ParseOutcome, parse_many
from agent_zot.ingest.pdfium import PdfiumParser
from agent_zot.zotero.models import Attachment, LinkMode
from tests.pdf_factory import marker, write_paper

TIMEOUT_S = 2.0
MEMORY_MB = 256


class ScriptedParser:
    """Misbehaves according to the file name: hang, exit, segv or hog; otherwise parses with pdfium."""

    name = "scripted"

    def parse(self, path: Path, attachment_key: str) -> ParsedDocument:
        if "hang" in path.name:
            time.sleep(3600)
        if "exit" in path.name:
            os._exit(3)
        if "segv" in path.name:
            os.kill(os.getpid(), signal.SIGSEGV)
        if "hog" in path.name:
            hog = bytearray(4 * MEMORY_MB * 1024 * 1024)  # past the cap: MemoryError
            del hog
        return PdfiumParser().parse(path, attachment_key)


@pytest.fixture(autouse=True)
def scripted_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PARSERS, "scripted", ScriptedParser)


@pytest.fixture(scope="module")
def paper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_paper(tmp_path_factory.mktemp("pool") / "paper.pdf").path


def job(path: Path, key: str, *, cache: str | None = None) -> ParseJob:
    cache_path = None
    if cache is not None:
        cache_path = path.parent / f"{key}.zotero-ft-cache"
        cache_path.write_text(cache)
    attachment = Attachment(
        key=key,
        item_id=1,
        parent_key=None,
        title=path.name,
        link_mode=LinkMode.IMPORTED_FILE,
        content_type="application/pdf",
        raw_path=None,
        path=path,
        exists=True,
        fulltext_cache=cache_path,
    )
    return ParseJob(attachment)


def copy_as(paper: Path, tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    target.write_bytes(paper.read_bytes())
    return target


def run(jobs: list[ParseJob], **options: object) -> dict[str, ParseOutcome]:
    settings: dict[str, object] = {
        "workers": 2,
        "timeout_s": TIMEOUT_S,
        "memory_mb": MEMORY_MB,
        "parser": "scripted",
    }
    settings.update(options)
    outcomes = list(parse_many(jobs, **settings))  # type: ignore[arg-type]
    assert len(outcomes) == len(jobs)
    return {o.attachment_key: o for o in outcomes}


def assert_parsed(outcome: ParseOutcome) -> None:
    assert outcome.error is None
    assert outcome.document is not None and outcome.document.source == "pdfium"
    assert marker(1) in outcome.document.pages[0].text


@pytest.mark.slow
def test_all_jobs_complete(paper: Path) -> None:
    outcomes = run([job(paper, f"GOOD{i}") for i in range(5)], parser="pdfium")
    for outcome in outcomes.values():
        assert_parsed(outcome)
        assert outcome.seconds > 0
        assert outcome.peak_rss_mb is None or outcome.peak_rss_mb > 0


@pytest.mark.slow
def test_hung_parser_is_killed_at_the_timeout_and_the_rest_complete(paper: Path, tmp_path: Path) -> None:
    hang = copy_as(paper, tmp_path, "hang.pdf")
    jobs = [job(hang, "HANG"), *[job(paper, f"GOOD{i}") for i in range(4)]]
    outcomes = run(jobs)
    assert outcomes["HANG"].error == "timed out after 2 s"
    assert outcomes["HANG"].seconds >= TIMEOUT_S
    assert outcomes["HANG"].document is not None and outcomes["HANG"].document.source == "none"
    assert outcomes["HANG"].document.fallback_reason == "timed out after 2 s"
    for i in range(4):
        assert_parsed(outcomes[f"GOOD{i}"])


@pytest.mark.skipif(os.name != "posix", reason="exit codes and signals as on POSIX")
@pytest.mark.slow
def test_crashes_are_reported_and_workers_replaced(paper: Path, tmp_path: Path) -> None:
    jobs = [
        job(copy_as(paper, tmp_path, "exit.pdf"), "EXIT"),
        job(copy_as(paper, tmp_path, "segv.pdf"), "SEGV"),
        *[job(paper, f"GOOD{i}") for i in range(3)],
    ]
    outcomes = run(jobs, workers=1)
    assert outcomes["EXIT"].error == "parser crashed (exit code 3)"
    assert outcomes["SEGV"].error == f"parser crashed (signal {signal.SIGSEGV.value})"
    for i in range(3):
        assert_parsed(outcomes[f"GOOD{i}"])


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
@pytest.mark.slow
def test_memory_hog_is_reported(paper: Path, tmp_path: Path) -> None:
    hog = copy_as(paper, tmp_path, "hog.pdf")
    outcomes = run([job(hog, "HOG", cache="cached words"), job(paper, "GOOD")], workers=1)
    assert outcomes["HOG"].error == "exceeded memory limit"
    document = outcomes["HOG"].document
    assert document is not None and document.source == "ft-cache"
    assert document.fallback_reason == "exceeded memory limit"
    assert_parsed(outcomes["GOOD"])


def test_parse_errors_inside_workers_use_the_fallback_chain(tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 nothing else")
    outcomes = run([job(broken, "BROKEN", cache="cache text")], parser="pdfium")
    outcome = outcomes["BROKEN"]
    assert outcome.error is None  # the worker did its job: the fallback is the result
    assert outcome.document is not None and outcome.document.source == "ft-cache"
    assert outcome.document.fallback_reason == "not a valid PDF (corrupt or truncated file)"


def test_unknown_parser_fails_before_starting_workers(paper: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="unknown PDF parser"):
        next(parse_many([job(paper, "X")], workers=1, timeout_s=1, memory_mb=None, parser="nope"))
    assert multiprocessing.active_children() == []


def test_interrupt_terminates_workers_and_is_re_raised(paper: Path, tmp_path: Path) -> None:
    hang = copy_as(paper, tmp_path, "hang.pdf")

    def jobs() -> Iterator[ParseJob]:
        yield job(hang, "HANG")
        yield job(paper, "GOOD")
        raise KeyboardInterrupt  # Ctrl-C while the pool asks for more work

    with pytest.raises(KeyboardInterrupt):
        list(parse_many(jobs(), workers=3, timeout_s=60, memory_mb=None, parser="scripted"))
    assert multiprocessing.active_children() == []


@pytest.mark.slow
def test_stopping_early_terminates_workers(paper: Path, tmp_path: Path) -> None:
    hang = copy_as(paper, tmp_path, "hang.pdf")
    outcomes = parse_many(
        [job(paper, "GOOD"), job(hang, "HANG")], workers=2, timeout_s=60, memory_mb=None, parser="scripted"
    )
    first = next(outcomes)
    assert first.attachment_key == "GOOD"
    outcomes.close()  # the caller breaks out of its loop while a job hangs
    assert multiprocessing.active_children() == []
