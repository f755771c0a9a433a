"""A graph store on any Bolt server that speaks standard Cypher (Neo4j 5, ArcadeDB), via the official driver.

Every node carries two labels: ``Node`` (unique ``id``, so every lookup by id uses one index) and its
kind (``Paper``, ``Author``, ...); a relationship's type is its ``EdgeKind``. Only portable Cypher is
used: no APOC, no GDS, no ``CALL {} IN TRANSACTIONS``. Labels and relationship types cannot be query
parameters, so they are written into queries, and only ever from the ``NodeKind``/``EdgeKind`` enums.

Properties: Neo4j keeps scalars and homogeneous lists of scalars; anything else (maps, nested or mixed
lists, and the key ``id``, which is ours) is stored as JSON text under ``json:<key>`` and decoded on read.
Null values are not kept (Neo4j has no null properties), which is the contract of every store.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from agent_zot.graph.model import Edge, EdgeKind, GraphData, GraphRows, Node, NodeKind
from agent_zot.graph.store import Direction, GraphStoreError
from agent_zot.graph.store_rows import dangling_error, dedupe_batch, missing_endpoints

if TYPE_CHECKING:
    from neo4j import Driver, ManagedTransaction

log = logging.getLogger(__name__)

T = TypeVar("T")
RETRY_S = 10.0  # the driver retries transient failures; its 30 s default feels like a hang
BATCH = 1000  # rows per UNWIND: big enough to amortise round trips, small enough for server memory
SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
JSON_PREFIX = "json:"
_KINDS = {k.value: k for k in NodeKind}
_SCALARS = (str, int, float, bool)
_HINT_RUNNING = "Is the server running? (docker compose up neo4j) Check the setting neo4j_url."

UNSUPPORTED_CODES = ("Neo.ClientError.Statement.", "Neo.ClientError.Schema.", "Neo.DatabaseError.")
CONSTRAINT = "CREATE CONSTRAINT agent_zot_node_id IF NOT EXISTS FOR (n:Node) REQUIRE n.id IS UNIQUE"
INDEX = "CREATE INDEX agent_zot_node_id IF NOT EXISTS FOR (n:Node) ON (n.id)"
NODE_FIELDS = "n.id AS id, labels(n) AS labels, properties(n) AS props"
EDGE_FIELDS = "s.id AS source, type(r) AS kind, t.id AS target, properties(r) AS props"


# -- property encoding ------------------------------------------------------------------------------


def _storable(value: Any) -> bool:
    if isinstance(value, _SCALARS):
        return True
    if isinstance(value, list):
        return all(type(v) is type(value[0]) and isinstance(v, _SCALARS) for v in value)
    return False


def encode_props(props: dict[str, Any]) -> dict[str, Any]:
    """Props (already without None values) as Neo4j can hold them."""
    return {
        (key if key != "id" and _storable(v) else JSON_PREFIX + key): (
            v if key != "id" and _storable(v) else json.dumps(v, ensure_ascii=False)
        )
        for key, v in props.items()
    }


def decode_props(stored: dict[str, Any], *, node: bool) -> dict[str, Any]:
    props = {}
    for key, value in stored.items():
        if key.startswith(JSON_PREFIX):
            props[key.removeprefix(JSON_PREFIX)] = json.loads(value)
        elif not (node and key == "id"):
            props[key] = list(value) if isinstance(value, tuple) else value
    return props


def _kind_of(labels: Iterable[str]) -> NodeKind:
    return next(_KINDS[label] for label in labels if label in _KINDS)


def _node(record: Any) -> Node:
    return Node(record["id"], _kind_of(record["labels"]), decode_props(dict(record["props"]), node=True))


def _edge(record: Any) -> Edge:
    return Edge(
        record["source"],
        record["target"],
        EdgeKind(record["kind"]),
        decode_props(dict(record["props"]), node=False),
    )


def _unsupported(cause: BaseException | None) -> bool:
    """Whether the server turned a schema statement down as such (syntax, feature, existing data), as
    opposed to failing for a reason an index would hit as well (no such database, auth, network)."""
    code = getattr(cause, "code", None) or ""
    return code.startswith(UNSUPPORTED_CODES)


def _no_such_procedure(cause: BaseException | None) -> bool:
    """The server does not know a GDS function or procedure (the plugin is not installed)."""
    code = getattr(cause, "code", None) or ""
    message = (getattr(cause, "message", None) or str(cause or "")).casefold()
    return code.endswith(("ProcedureNotFound", "UnknownFunction", "SyntaxError")) or "gds." in message


def _rel(kinds: Sequence[EdgeKind]) -> str:
    """The relationship part of a pattern: ``[r]`` or ``[r:CITES|MENTIONS]``, from enum values only."""
    return "[r:" + "|".join(sorted({EdgeKind(k).value for k in kinds})) + "]" if kinds else "[r]"


def _batches(rows: Sequence[T]) -> Iterable[Sequence[T]]:
    for i in range(0, len(rows), BATCH):
        yield rows[i : i + BATCH]


class Neo4jGraphStore:
    """Thread-safe (the driver pools connections); each public call is one transaction."""

    name = "neo4j"

    def __init__(self, url: str, user: str, password: str, database: str | None = None) -> None:
        import neo4j  # lazily: only this store needs the driver

        self.url = url
        self.database = database
        self._neo4j = neo4j
        if url.split("://", 1)[0] not in SCHEMES:
            raise GraphStoreError(
                f"Unsupported Neo4j URL {url!r}.",
                hint=f"Use one of {', '.join(SCHEMES)}, e.g. bolt://localhost:7687.",
            )
        auth = (user, password) if user else None
        try:
            self._driver: Driver = neo4j.GraphDatabase.driver(
                url, auth=auth, max_transaction_retry_time=RETRY_S
            )
        except (neo4j.exceptions.DriverError, ValueError) as exc:
            raise GraphStoreError(f"Cannot use the Neo4j URL {url!r} ({exc}).", hint=_HINT_RUNNING) from exc
        self._schema_ready = False
        self._lock = threading.Lock()
        self._gds: bool | None = None  # whether the Graph Data Science plugin answers (None: not asked yet)

    # -- sessions, errors, schema --------------------------------------------------------------

    def _run(self, work: Callable[[ManagedTransaction], T], *, write: bool) -> T:
        """``work`` in one managed transaction (retried by the driver on transient errors)."""
        self._ensure_schema()
        return self._session_call(work, write=write)

    def _session_call(self, work: Callable[[ManagedTransaction], T], *, write: bool) -> T:
        with self._translated(), self._driver.session(database=self.database) as session:
            return session.execute_write(work) if write else session.execute_read(work)

    @contextmanager
    def _translated(self) -> Iterator[None]:
        """The driver's exceptions as GraphStoreError with a message that says what to check."""
        exceptions = self._neo4j.exceptions
        where = f"the Neo4j server at {self.url}" + (f" (database {self.database})" if self.database else "")
        try:
            yield
        except exceptions.AuthError as exc:
            raise GraphStoreError(
                f"{where[0].upper()}{where[1:]} refused the credentials ({exc.message}).",
                hint="Check the settings neo4j_user and neo4j_password.",
            ) from exc
        except (exceptions.ServiceUnavailable, exceptions.SessionExpired) as exc:
            raise GraphStoreError(f"Cannot reach {where} ({exc}).", hint=_HINT_RUNNING) from exc
        except exceptions.Neo4jError as exc:
            raise GraphStoreError(
                f"{where[0].upper()}{where[1:]} rejected a graph query ({exc.code}: {exc.message})."
            ) from exc
        except exceptions.DriverError as exc:
            raise GraphStoreError(f"Talking to {where} failed ({exc}).", hint=_HINT_RUNNING) from exc

    def _ensure_schema(self) -> None:
        """The unique id constraint, once per store object; an index where the server has no constraints."""
        with self._lock:
            if self._schema_ready:
                return
            with self._translated():
                # Fails at once when the server is down; a transaction would be retried for RETRY_S first.
                self._driver.verify_connectivity()
            try:
                self._session_call(lambda tx: tx.run(CONSTRAINT).consume(), write=True)
            except GraphStoreError as exc:
                if not _unsupported(exc.__cause__):
                    raise
                log.warning(
                    "%s has no unique constraints (%s); using a plain index on Node.id", self.url, exc
                )
                self._session_call(lambda tx: tx.run(INDEX).consume(), write=True)
            self._schema_ready = True

    # -- writes -------------------------------------------------------------------------------

    def upsert(self, graph: GraphData) -> None:
        nodes, edges = dedupe_batch(graph)
        if not nodes and not edges:
            return

        def work(tx: ManagedTransaction) -> None:
            referenced = {end for e in edges for end in (e.source, e.target)}
            existing = _existing(tx, sorted(referenced | {n.id for n in nodes}))
            missing = missing_endpoints(edges, (n.id for n in nodes), existing)
            if missing:
                raise dangling_error(missing)  # raised inside the transaction: it rolls back
            _write_nodes(tx, nodes, existing)
            _write_edges(tx, edges, "MERGE")

        self._run(work, write=True)

    def replace_out_edges(self, sources: Sequence[str], kinds: Sequence[EdgeKind], graph: GraphData) -> None:
        nodes, edges = dedupe_batch(graph)
        wanted = sorted(set(sources))
        if not wanted or not kinds:
            return
        outside = sorted({e.source for e in edges} - set(wanted))
        if outside or any(e.kind not in kinds for e in edges):
            raise ValueError(
                f"edges must leave {wanted} with kinds {list(kinds)}: {outside or 'other kinds'}"
            )

        def work(tx: ManagedTransaction) -> None:
            referenced = {end for e in edges for end in (e.source, e.target)}
            existing = _existing(tx, sorted(referenced | {n.id for n in nodes}))
            missing = missing_endpoints(edges, (n.id for n in nodes), existing)
            if missing:
                raise dangling_error(missing)  # raised inside the transaction: it rolls back
            reached: set[str] = set()
            for kind in kinds:
                for batch in _batches(wanted):
                    found = tx.run(
                        f"UNWIND $ids AS x MATCH (s:Node {{id: x}})-[r:{kind.value}]->(t) "
                        "DELETE r RETURN t.id",
                        ids=batch,
                    )
                    reached.update(found.value())
            _write_nodes(tx, nodes, existing)
            _write_edges(tx, edges, "MERGE")
            for batch in _batches(sorted(reached)):
                tx.run(
                    "UNWIND $ids AS x MATCH (n:Node {id: x}) OPTIONAL MATCH (n)-[r]-() "
                    "WITH n, count(r) AS touching WHERE touching = 0 DELETE n",
                    ids=batch,
                ).consume()

        self._run(work, write=True)

    def delete_nodes(self, node_ids: Iterable[str]) -> None:
        ids = sorted(set(node_ids))
        if not ids:
            return

        def work(tx: ManagedTransaction) -> None:
            for batch in _batches(ids):
                tx.run("UNWIND $ids AS x MATCH (n:Node {id: x}) DETACH DELETE n", ids=batch).consume()

        self._run(work, write=True)

    def replace_all(self, graph: GraphRows) -> None:
        nodes, edges = dedupe_batch(graph)
        missing = missing_endpoints(edges, (n.id for n in nodes))
        if missing:
            raise dangling_error(missing)

        def work(tx: ManagedTransaction) -> None:
            tx.run("MATCH (n:Node) DETACH DELETE n").consume()
            _write_nodes(tx, nodes, set())
            _write_edges(tx, edges, "CREATE")  # the store is empty: no need to MERGE

        self._run(work, write=True)

    # -- reads --------------------------------------------------------------------------------

    def get_nodes(self, node_ids: Sequence[str]) -> list[Node]:
        ids = list(dict.fromkeys(node_ids))
        if not ids:
            return []
        found = self._run(lambda tx: _nodes_by_id(tx, ids), write=False)
        return [found[node_id] for node_id in ids if node_id in found]

    def find_nodes(self, kind: NodeKind, *, name: str | None = None, limit: int = 50) -> list[Node]:
        label = NodeKind(kind).value
        if name is None:
            query = f"MATCH (n:Node:{label}) RETURN {NODE_FIELDS} ORDER BY n.id LIMIT $limit"
            params: dict[str, Any] = {"limit": limit}
        else:
            # The same name as Node.name: name, else title, else id (empty strings count as absent).
            query = (
                f"MATCH (n:Node:{label}) "
                "WITH n, toLower(CASE WHEN n.name IS NOT NULL AND n.name <> '' THEN toString(n.name) "
                "WHEN n.title IS NOT NULL AND n.title <> '' THEN toString(n.title) ELSE n.id END) AS nm "
                "WHERE nm CONTAINS $q "
                f"RETURN {NODE_FIELDS} "
                "ORDER BY CASE WHEN nm = $q THEN 0 WHEN nm STARTS WITH $q THEN 1 ELSE 2 END, n.id LIMIT $limit"
            )
            params = {"q": name.lower(), "limit": limit}
        return self._run(lambda tx: [_node(r) for r in tx.run(query, **params)], write=False)

    def edges_of(
        self,
        node_ids: Sequence[str],
        *,
        kinds: Sequence[EdgeKind] = (),
        direction: Direction = Direction.BOTH,
    ) -> list[Edge]:
        ids = list(dict.fromkeys(node_ids))
        if not ids:
            return []
        return self._run(lambda tx: _edges_touching(tx, ids, kinds, direction), write=False)

    def neighbourhood(
        self,
        start: Sequence[str],
        *,
        kinds: Sequence[EdgeKind] = (),
        direction: Direction = Direction.BOTH,
        hops: int = 1,
        limit: int = 500,
    ) -> GraphData:
        return self._run(lambda tx: _neighbourhood(tx, start, kinds, direction, hops, limit), write=False)

    def all_edges(self, kinds: Sequence[EdgeKind]) -> list[Edge]:
        query = f"MATCH (s:Node)-{_rel(kinds)}->(t:Node) RETURN {EDGE_FIELDS}"
        edges = self._run(lambda tx: [_edge(r) for r in tx.run(query)], write=False)
        return sorted(edges, key=lambda e: e.key)

    def pagerank(self, kind: EdgeKind) -> dict[str, float] | None:
        """PageRank over ``kind`` edges (weighted by their confidence) computed in the server by the Graph
        Data Science plugin; None when the plugin is not installed (the caller computes it itself)."""
        if self._gds is False:
            return None
        name = f"agent_zot_{uuid.uuid4().hex[:12]}"
        project = (
            f"MATCH (s:Node)-[r:{EdgeKind(kind).value}]->(t:Node) "
            "WITH gds.graph.project($name, s, t, {relationshipProperties: {weight: coalesce(r.confidence, 1.0)}}) AS g "
            "RETURN g.graphName"
        )
        stream = (
            "CALL gds.pageRank.stream($name, {relationshipWeightProperty: 'weight'}) YIELD nodeId, score "
            "RETURN gds.util.asNode(nodeId).id AS id, score"
        )

        def work(tx: ManagedTransaction) -> dict[str, float]:
            tx.run(project, name=name).consume()
            try:
                return {record["id"]: float(record["score"]) for record in tx.run(stream, name=name)}
            finally:
                tx.run("CALL gds.graph.drop($name, false)", name=name).consume()

        try:
            ranks = self._run(work, write=True)
        except GraphStoreError as exc:
            if not _no_such_procedure(exc.__cause__):
                raise
            self._gds = False  # the plugin is not there; asking again would fail the same way
            return None
        self._gds = True
        return ranks

    def has_papers(self) -> bool:
        query = f"MATCH (n:Node:{NodeKind.PAPER.value}) RETURN 1 LIMIT 1"
        return self._run(lambda tx: tx.run(query).single() is not None, write=False)

    def version(self) -> int | None:
        """None: a Bolt server keeps no version of the graph, and a count or a timestamp would miss an edit
        that changes props only; what callers compute from the graph is computed again."""
        return None

    def counts(self) -> dict[str, int]:
        def work(tx: ManagedTransaction) -> dict[str, int]:
            result = {k.value: 0 for k in NodeKind} | {k.value: 0 for k in EdgeKind}
            for labels, count in tx.run("MATCH (n:Node) RETURN labels(n) AS labels, count(*) AS c").values():
                result[_kind_of(labels).value] += count
            for kind, count in tx.run(
                "MATCH (:Node)-[r]->(:Node) RETURN type(r) AS k, count(*) AS c"
            ).values():
                result[kind] = result.get(kind, 0) + count
            return result

        return self._run(work, write=False)

    def close(self) -> None:
        self._driver.close()


# -- queries (each runs inside the caller's transaction) -------------------------------------------


def _write_nodes(tx: ManagedTransaction, nodes: Sequence[Node], existing: set[str]) -> None:
    """Update the ``existing`` nodes, create the others. Not one MERGE: ArcadeDB uses the id index only
    for a single-label pattern, and MERGE must name both labels to create a node with its kind."""
    by_kind: dict[NodeKind, list[dict[str, Any]]] = defaultdict(list)
    updates: list[dict[str, Any]] = []
    for n in nodes:
        row = encode_props(n.props) | {"id": n.id}  # SET n = row: props replaced, the id kept
        (updates if n.id in existing else by_kind[n.kind]).append(row)
    for batch in _batches(updates):
        tx.run("UNWIND $rows AS row MATCH (n:Node {id: row.id}) SET n = row", rows=batch).consume()
    for kind, rows in by_kind.items():
        for batch in _batches(rows):
            tx.run(f"UNWIND $rows AS row CREATE (n:Node:{kind.value}) SET n = row", rows=batch).consume()


def _write_edges(tx: ManagedTransaction, edges: Sequence[Edge], verb: str) -> None:
    by_kind: dict[EdgeKind, list[dict[str, Any]]] = defaultdict(list)
    for e in edges:
        by_kind[e.kind].append({"s": e.source, "t": e.target, "p": encode_props(e.props)})
    for kind, rows in by_kind.items():
        query = (
            "UNWIND $rows AS row MATCH (s:Node {id: row.s}) MATCH (t:Node {id: row.t}) "
            f"{verb} (s)-[r:{kind.value}]->(t) SET r = row.p"
        )
        for batch in _batches(rows):
            tx.run(query, rows=batch).consume()


def _existing(tx: ManagedTransaction, ids: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for batch in _batches(ids):
        found.update(tx.run("UNWIND $ids AS x MATCH (n:Node {id: x}) RETURN n.id", ids=batch).value())
    return found


def _nodes_by_id(tx: ManagedTransaction, ids: Sequence[str]) -> dict[str, Node]:
    found: dict[str, Node] = {}
    for batch in _batches(ids):
        query = f"UNWIND $ids AS x MATCH (n:Node {{id: x}}) RETURN {NODE_FIELDS}"
        found.update((r["id"], _node(r)) for r in tx.run(query, ids=batch))
    return found


def _edges_touching(
    tx: ManagedTransaction, ids: Sequence[str], kinds: Sequence[EdgeKind], direction: Direction
) -> list[Edge]:
    patterns = []
    if direction in (Direction.OUT, Direction.BOTH):
        patterns.append(f"(s:Node {{id: x}})-{_rel(kinds)}->(t:Node)")
    if direction in (Direction.IN, Direction.BOTH):
        patterns.append(f"(s:Node)-{_rel(kinds)}->(t:Node {{id: x}})")
    found: dict[tuple[str, str, str], Edge] = {}
    for pattern in patterns:
        for batch in _batches(ids):
            for record in tx.run(f"UNWIND $ids AS x MATCH {pattern} RETURN {EDGE_FIELDS}", ids=batch):
                edge = _edge(record)
                found[edge.key] = edge
    return [found[key] for key in sorted(found)]


def _step(
    tx: ManagedTransaction, frontier: Sequence[str], kinds: Sequence[EdgeKind], direction: Direction
) -> set[str]:
    """Ids one hop from ``frontier`` along ``kinds`` in ``direction``."""
    left, right = {Direction.OUT: ("-", "->"), Direction.IN: ("<-", "-"), Direction.BOTH: ("-", "-")}[
        direction
    ]
    query = (
        f"UNWIND $ids AS x MATCH (a:Node {{id: x}}){left}{_rel(kinds)}{right}(b:Node) RETURN DISTINCT b.id"
    )
    found: set[str] = set()
    for batch in _batches(frontier):
        found.update(tx.run(query, ids=batch).value())
    return found


def _neighbourhood(
    tx: ManagedTransaction,
    start: Sequence[str],
    kinds: Sequence[EdgeKind],
    direction: Direction,
    hops: int,
    limit: int,
) -> GraphData:
    """Breadth-first, one hop per query (portable; variable-length patterns cannot say 'nearest first')."""
    wanted = list(dict.fromkeys(start))
    nodes = _nodes_by_id(tx, wanted) if wanted else {}
    reached = [node_id for node_id in wanted if node_id in nodes][:limit]
    seen = set(reached)
    frontier = reached
    for _ in range(hops):
        if not frontier or len(reached) >= limit:
            break
        frontier = sorted(_step(tx, frontier, kinds, direction) - seen)[: limit - len(reached)]
        seen.update(frontier)
        reached.extend(frontier)
    unread = [node_id for node_id in reached if node_id not in nodes]
    if unread:
        nodes.update(_nodes_by_id(tx, unread))
    query = f"UNWIND $ids AS x MATCH (s:Node {{id: x}})-{_rel(kinds)}->(t:Node) WHERE t.id IN $all RETURN {EDGE_FIELDS}"
    edges = [_edge(r) for batch in _batches(reached) for r in tx.run(query, ids=batch, all=reached)]
    edges.sort(key=lambda e: e.key)
    return GraphData([nodes[node_id] for node_id in reached], edges)
