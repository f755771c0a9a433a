"""FAKES of the metadata registries that papers are added from, for the add-by-identifier tests.

Not the registries: one stdlib HTTP server on 127.0.0.1 (random port, in a thread) that answers the
documented requests with the documented shapes (docs/research/zotero-10-local-api.md §3):

  /doi/<doi>                 doi.org content negotiation: with Accept application/vnd.citationstyles.csl+json
                             a 302 to the registration agency (/ra/<doi>), which answers CSL-JSON; 404 unknown
  /crossref/works/<doi>      Crossref REST {"status":"ok","message-type":"work","message":{...}}; 404 unknown
  /arxiv/query?id_list=      arXiv API Atom feed; a well-formed unknown id: no entry; a malformed one: an
                             error entry (API manual §3.4)
  /eutils/esummary.fcgi      PubMed E-utilities esummary JSON (db=pubmed, retmode=json); unknown: an error uid
  /openlibrary/api/books     Open Library books API (bibkeys=ISBN:…, format=json, jscmd=data); {} unknown

Records are made up for the tests (shaped like the registries' answers, not copied from them). A test can
take a registry down (HTTP 503) and read every request with its headers.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse
from xml.sax.saxutils import escape

CSL_JSON = "application/vnd.citationstyles.csl+json"

MAPREDUCE_DOI = "10.1145/1327452.1327492"
OPEN_DOI = "10.9999/fake.open.2021.7"  # Crossref record with a CC BY licence and a PDF link
PMID = "31452104"
PMID_DOI = "10.9999/fake.pubmed.2019.3"
PMID_OF_S2ORC = "30000001"  # a PubMed record of a paper the test library holds (same DOI)
S2ORC_DOI = "10.18653/v1/2020.acl-main.447"
ARXIV_NEW = "2101.00001"
ARXIV_OLD = "hep-th/9901001"
ISBN_13 = "9780262033848"
ISBN_10 = "0262033844"

CSL_RECORDS: dict[str, dict[str, Any]] = {
    MAPREDUCE_DOI: {
        "type": "article-journal",
        "title": "MapReduce: simplified data processing on large clusters",
        "container-title": "Communications of the ACM",
        "author": [{"given": "Jeffrey", "family": "Dean"}, {"given": "Sanjay", "family": "Ghemawat"}],
        "issued": {"date-parts": [[2008, 1]]},
        "volume": "51",
        "issue": "1",
        "page": "107-113",
        "DOI": MAPREDUCE_DOI,
        "ISSN": ["0001-0782", "1557-7317"],
        "publisher": "Association for Computing Machinery (ACM)",
        "URL": f"https://doi.org/{MAPREDUCE_DOI}",
        "number-of-pages": "7",  # valid in CSL, no journalArticle field: must not be sent
        "link": [{"URL": "https://dl.example/pdf/1327452.1327492", "content-type": "application/pdf"}],
    },
}

CROSSREF_RECORDS: dict[str, dict[str, Any]] = {
    MAPREDUCE_DOI: {
        "DOI": MAPREDUCE_DOI,
        "type": "journal-article",
        "title": ["MapReduce: simplified data processing on large clusters"],
        "container-title": ["Communications of the ACM"],
        "author": [
            {"given": "Jeffrey", "family": "Dean", "sequence": "first", "affiliation": []},
            {"given": "Sanjay", "family": "Ghemawat", "sequence": "additional", "affiliation": []},
        ],
        "issued": {"date-parts": [[2008, 1]]},
        "volume": "51",
        "issue": "1",
        "page": "107-113",
        "publisher": "Association for Computing Machinery (ACM)",
        "ISSN": ["0001-0782"],
        "URL": f"https://doi.org/{MAPREDUCE_DOI}",
    },
    OPEN_DOI: {
        "DOI": OPEN_DOI,
        "type": "proceedings-article",
        "title": ["An open paper about consensus"],
        "container-title": ["Proceedings of the Fake Symposium on Distributed Computing"],
        "author": [{"given": "Ada", "family": "Fakerson", "sequence": "first"}],
        "issued": {"date-parts": [[2021, 7, 4]]},
        "page": "1-12",
        "publisher": "Fake Press",
        "abstract": "<jats:p>We show that <jats:italic>consensus</jats:italic> is reachable.</jats:p>",
        "license": [{"URL": "https://creativecommons.org/licenses/by/4.0/", "content-version": "vor"}],
        "link": [
            {
                "URL": "https://fake.example/open.pdf",
                "content-type": "application/pdf",
                "content-version": "vor",
            },
            {"URL": "https://fake.example/open.xml", "content-type": "text/xml", "content-version": "vor"},
        ],
        "URL": f"https://doi.org/{OPEN_DOI}",
    },
}

ARXIV_RECORDS: dict[str, dict[str, Any]] = {
    ARXIV_NEW: {
        "title": "A fake preprint on\n  sparse attention",
        "summary": "We study sparse attention.",
        "published": "2021-01-01T10:00:00Z",
        "updated": "2021-02-01T10:00:00Z",
        "authors": ["Grace Hopper", "Alan M. Turing"],
        "category": "cs.CL",
        "version": "v2",
    },
    ARXIV_OLD: {
        "title": "Fake strings in old style",
        "summary": "Branes.",
        "published": "1999-01-04T00:00:00Z",
        "updated": "1999-01-04T00:00:00Z",
        "authors": ["Edward Fakeman"],
        "category": "hep-th",
        "version": "v1",
        "journal_ref": "Fake Phys. Rev. 1 (1999) 1",
    },
}

PUBMED_RECORDS: dict[str, dict[str, Any]] = {
    PMID: {
        "uid": PMID,
        "pubdate": "2019 Aug 26",
        "epubdate": "2019 Aug 26",
        "source": "Fake J Med",
        "fulljournalname": "The Fake journal of medicine",
        "authors": [{"name": "Curie M", "authtype": "Author"}, {"name": "Pasteur L", "authtype": "Author"}],
        "title": "A fake trial of sleep and memory.",
        "volume": "12",
        "issue": "3",
        "pages": "45-67",
        "elocationid": f"doi: {PMID_DOI}",
        "articleids": [
            {"idtype": "pubmed", "value": PMID},
            {"idtype": "doi", "value": PMID_DOI},
            {"idtype": "pmc", "value": "PMC6700001"},
        ],
        "pubtype": ["Journal Article"],
        "lang": ["eng"],
        "issn": "1234-5678",
        "essn": "1234-5679",
    },
    PMID_OF_S2ORC: {
        "uid": PMID_OF_S2ORC,
        "pubdate": "2020 Jul",
        "source": "Proc ACL",
        "fulljournalname": "Proceedings of ACL",
        "authors": [{"name": "Lo K", "authtype": "Author"}],
        "title": "S2ORC: The Semantic Scholar Open Research Corpus.",
        "articleids": [{"idtype": "pubmed", "value": PMID_OF_S2ORC}, {"idtype": "doi", "value": S2ORC_DOI}],
    },
}

OPENLIBRARY_RECORDS: dict[str, dict[str, Any]] = {
    ISBN_13: {
        "key": "/books/OL0000001M",
        "title": "Introduction to fake algorithms",
        "subtitle": "third edition",
        "authors": [{"url": "https://openlibrary.org/authors/OL1A", "name": "Thomas H. Cormen"}],
        "publishers": [{"name": "MIT Press"}],
        "publish_places": [{"name": "Cambridge, Mass"}],
        "publish_date": "2009",
        "number_of_pages": 1292,
        "identifiers": {"isbn_10": [ISBN_10], "isbn_13": [ISBN_13]},
        "url": "https://openlibrary.org/books/OL0000001M/Introduction_to_fake_algorithms",
    },
}


@dataclass
class Request:
    path: str
    query: dict[str, str]
    headers: dict[str, str]


class FakeRegistries:
    """The five fakes on one loopback server; ``settings()`` gives the agent-zot settings that point at them."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.down: set[str] = set()  # "doi", "crossref", "arxiv", "pubmed", "openlibrary": answer 503
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def settings(self) -> dict[str, Any]:
        return {
            "registry_doi_url": f"{self.url}/doi",
            "registry_crossref_url": f"{self.url}/crossref",
            "registry_arxiv_url": f"{self.url}/arxiv",
            "registry_pubmed_url": f"{self.url}/eutils",
            "registry_openlibrary_url": f"{self.url}/openlibrary",
            "registry_mailto": "librarian@example.org",
        }

    def asked(self, registry: str) -> list[Request]:
        return [r for r in self.requests if r.path.startswith(f"/{registry}/")]

    def __enter__(self) -> FakeRegistries:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


Answer = tuple[int, dict[str, str], bytes]


def _json(value: Any, content_type: str = "application/json") -> Answer:
    return 200, {"Content-Type": content_type}, json.dumps(value).encode()


def _not_found(text: str = "Resource not found.") -> Answer:
    return 404, {"Content-Type": "text/plain"}, text.encode()


def _doi(path: str, headers: dict[str, str]) -> Answer:
    doi = unquote(path.removeprefix("/doi/")).lower()
    if doi not in CSL_RECORDS and doi not in CROSSREF_RECORDS:
        return _not_found("DOI Not Found")
    if CSL_JSON not in headers.get("Accept", ""):
        return 302, {"Location": f"https://landing.example/{doi}"}, b""
    return 302, {"Location": f"/ra/{doi}"}, b""  # the registration agency answers


def _ra(path: str, headers: dict[str, str]) -> Answer:
    doi = unquote(path.removeprefix("/ra/")).lower()
    if CSL_JSON not in headers.get("Accept", ""):
        return 406, {}, b""
    if doi in CSL_RECORDS:
        return _json(CSL_RECORDS[doi], CSL_JSON)
    # Crossref's own CSL answer for records made for the REST fake: its type names, lists flattened
    message = dict(CROSSREF_RECORDS[doi])
    for key in ("title", "container-title"):
        message[key] = message[key][0]
    return _json(message, CSL_JSON)


def _crossref(path: str) -> Answer:
    doi = unquote(path.removeprefix("/crossref/works/")).lower()
    if doi not in CROSSREF_RECORDS:
        return _not_found()
    return _json(
        {"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": CROSSREF_RECORDS[doi]}
    )


def _arxiv(query: dict[str, str]) -> Answer:
    entries = []
    for ident in query.get("id_list", "").split(","):
        bare = ident.split("v")[0] if "/" not in ident else ident.rsplit("v", 1)[0]
        if ident in ARXIV_RECORDS or bare in ARXIV_RECORDS:
            entries.append(_arxiv_entry(bare if bare in ARXIV_RECORDS else ident))
        elif not any(c.isdigit() for c in ident):
            entries.append(
                "<entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_"
                f"{escape(ident)}</id><title>Error</title><summary>incorrect id format for "
                f"{escape(ident)}</summary></entry>"
            )
    feed = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">'
        f"<title>ArXiv Query</title><opensearch:totalResults>{len(entries)}</opensearch:totalResults>"
        + "".join(entries)
        + "</feed>"
    )
    return 200, {"Content-Type": "application/atom+xml"}, feed.encode()


def _arxiv_entry(ident: str) -> str:
    r = ARXIV_RECORDS[ident]
    versioned = ident + r["version"]
    authors = "".join(f"<author><name>{escape(a)}</name></author>" for a in r["authors"])
    extra = f"<arxiv:journal_ref>{escape(r['journal_ref'])}</arxiv:journal_ref>" if "journal_ref" in r else ""
    return (
        f"<entry><id>http://arxiv.org/abs/{versioned}</id><updated>{r['updated']}</updated>"
        f"<published>{r['published']}</published><title>{escape(r['title'])}</title>"
        f"<summary>{escape(r['summary'])}</summary>{authors}{extra}"
        f'<link href="http://arxiv.org/abs/{versioned}" rel="alternate" type="text/html"/>'
        f'<link title="pdf" href="http://arxiv.org/pdf/{versioned}" rel="related" type="application/pdf"/>'
        f'<arxiv:primary_category term="{r["category"]}" scheme="http://arxiv.org/schemas/atom"/>'
        f'<category term="{r["category"]}" scheme="http://arxiv.org/schemas/atom"/></entry>'
    )


def _pubmed(query: dict[str, str]) -> Answer:
    if query.get("db") != "pubmed" or query.get("retmode") != "json":
        return 400, {}, b"bad request"
    uids = [u for u in query.get("id", "").split(",") if u]
    result: dict[str, Any] = {"uids": [u for u in uids if u in PUBMED_RECORDS]}
    for uid in uids:
        result[uid] = PUBMED_RECORDS.get(uid, {"uid": uid, "error": "cannot get document summary"})
    return _json({"header": {"type": "esummary", "version": "0.3"}, "result": result})


def _openlibrary(query: dict[str, str]) -> Answer:
    if query.get("format") != "json" or query.get("jscmd") != "data":
        return 400, {}, b"bad request"
    found = {}
    for bibkey in query.get("bibkeys", "").split(","):
        isbn = bibkey.removeprefix("ISBN:")
        record = OPENLIBRARY_RECORDS.get(isbn) or next(
            (r for r in OPENLIBRARY_RECORDS.values() if isbn in r["identifiers"].get("isbn_10", [])), None
        )
        if record is not None:
            found[bibkey] = record
    return _json(found)


def _route(fake: FakeRegistries, path: str, query: dict[str, str], headers: dict[str, str]) -> Answer:
    registry = "doi" if path.startswith("/ra/") else path.strip("/").split("/")[0]
    if registry in fake.down:
        return 503, {"Content-Type": "text/plain"}, b"Service Unavailable"
    if path.startswith("/doi/"):
        return _doi(path, headers)
    if path.startswith("/ra/"):
        return _ra(path, headers)
    if path.startswith("/crossref/works/"):
        return _crossref(path)
    if path == "/arxiv/query":
        return _arxiv(query)
    if path == "/eutils/esummary.fcgi":
        return _pubmed(query)
    if path == "/openlibrary/api/books":
        return _openlibrary(query)
    return _not_found()


def _handler_for(fake: FakeRegistries) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            url = urlparse(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            headers = dict(self.headers)
            fake.requests.append(Request(url.path, query, headers))
            status, extra, body = _route(fake, url.path, query, headers)
            self.send_response(status)
            for name, value in extra.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler
