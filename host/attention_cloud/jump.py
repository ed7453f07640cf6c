"""The jump's host side: embeddings, the vector index and BM25 behind ``nearest/3``.

The Prolog predicates in ``rules/jump.pl`` call four Python predicates registered here,
``atc_jump:semantic_hits/4``, ``atc_jump:lexical_hits/4``, ``atc_jump:similarity_scores/4`` (the cosine
of given records, for hits a search did not return) and ``atc_jump:similarity_within_scores/4``
(the same over groups of records such as cells, their vector rows kept between calls). Keys in the vector store are item and arc
handles for the rung embedded (see ``EMBEDDED_LEVELS``); an item's distillation (L2) has a vector
of its own, keyed ``HANDLE#l2`` (``distillation_key``): a turn about one thing that states another
in passing ("by the way, I ran a 5K last week") is found through the statement the curator
pulled out of it. A search scores each record by its best vector and never returns a ``#`` key.
Meta carries segment, level and kind so searches filter inside the index.

Readers need no lock: while this process does not hold the home's write lock, the vector store
and BM25 index open read-only (what their writer last flushed), so ``atc hydrate`` and ``atc
query`` run beside an ``atc curate``. The first write takes the write lock and reopens them
for writing.
"""
from __future__ import annotations

import bisect
import math
import threading
from collections import OrderedDict
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from .bridge import Atom, Prolog, Term
from .errors import EmbeddingError, HomeError
from .heap import give_back_c_heap

# numpy is imported by the methods that compute: a goal that never searches (`atc query
# 'item(H)'`) registers this home's search without paying for numpy at its start.
if TYPE_CHECKING:
    import numpy as np

#: Which rung of each record kind is embedded, and indexed for BM25.
EMBEDDED_LEVELS = {"item": "l0", "arc": "l1", "rollup": "l1"}
#: In the vector folder: present once every curated item has its distillation vector.
DISTILLATIONS_MARKER = "distillations.json"
#: Raw vector hits fetched per record asked for, so that second vectors do not crowd records out.
SECOND_VECTOR_FETCH = 2
#: Query texts whose vectors are kept: one hydration asks for its goal once per segment, and
#: again for the cosines of its lexical hits.
QUERY_VECTORS_KEPT = 32
#: Digests of texts embedded by this process that are remembered (with a key holding the
#: vector), so that the same text is not embedded twice in one curation run; forgotten when the
#: indexes close (about 45 MB at the cap).
MADE_DIGESTS_KEPT = 200_000
#: A group's records are read from the cell rows file only when their copies lie within this
#: many times the rows they fill (one cell, or a few adjacent ones); else from the vector log.
COPY_SPREAD = 4
#: The characters of a query text a search reads (its first): the host's embedding and BM25
#: run where no time limit reaches, and an 18 MB text a goal built in a tenth of a second held
#: nearest/3 for ~20 s past a 2 s limit. A goal is a few hundred characters (its readers in
#: Prolog read as far: rules/when.pl, goal_read_chars/1).
MAX_QUERY_CHARS = 32_768
#: Groups of records (a cell's members) whose vector row ids are kept between calls of
#: ``similarity_within`` (a few kB each).
GROUP_ROWS_KEPT = 512


def distillation_key(handle: str) -> str:
    """The vector key of an item's distillation: ``it_3fa2#l2``."""
    return f"{handle}#l2"


class EmbeddingsUnavailable(EmbeddingError):
    """No vectors can answer this query: nothing embedded yet, or no embedder configured."""


class Jump:
    """Embedder, vector store and lexical index of one memory home."""

    def __init__(self, home: Path, embedder_spec: str | None, lock: Any = None) -> None:
        """``lock`` is the home's :class:`~attention_cloud.home.WriteLock`: while it is not
        held the indexes open read-only, and a write takes it. Without one they open for
        writing (and take the stores' own locks)."""
        self.home = home
        self.embedder_spec = embedder_spec
        self.lock = lock
        self._embedder: Any = None
        self._vectors: Any = None
        self._lexical: Any = None
        #: principal (None: the owner) -> that principal's latest query texts -> their vectors
        self._queries: dict[str | None, OrderedDict[str, np.ndarray]] = {}
        self._queries_by: Any = None  # the embedder that made them
        # whose call embeds now (queries_of), per thread: `atc serve` answers principals on
        # threads of their own, and one thread's principal must not key another's vectors
        self._calling = threading.local()
        self._made: OrderedDict[bytes, str] = OrderedDict()  # text digest -> a key holding its vector
        #: members text -> its records, the row ids of their texts then their distillations,
        #: and the rows of their copies in the cell rows file, -1 where none
        self._group_rows: OrderedDict[str, _GroupRows] = OrderedDict()
        self._group_rows_of: tuple | None = None  # (id(store), store.changes, cell rows stamp)
        self._cell_rows: Any = None  # cells.rows.CellRows of the open store, or None
        self._cell_rows_stamp: Any = None
        self._cell_rows_for: int | None = None  # id() of the store they were checked against
        #: Texts embedded by this process, the seconds it took, vectors copied instead.
        self.embedded_texts = 0
        self.embed_seconds = 0.0
        self.reused_vectors = 0

    # -- lazily opened parts ----------------------------------------------------------------------
    @property
    def disabled(self) -> bool:
        """True when the home is configured with no embedder (lexical and recency only)."""
        return (self.embedder_spec or "").strip().lower() == "none"

    @property
    def embedder(self) -> Any:
        if self.disabled:
            raise EmbeddingsUnavailable("no embedder is configured for this memory home")
        if self._embedder is None:
            from .embed import load_embedder

            self._embedder = load_embedder(self.embedder_spec)
        return self._embedder

    def _reading(self) -> bool:
        """Whether the indexes open read-only: a lock was given and is not held."""
        return self.lock is not None and not self.lock.held

    @property
    def vectors(self) -> Any:
        if self._vectors is None:
            self._open_vectors(read_only=self._reading())
        return self._vectors

    def _open_vectors(self, *, read_only: bool) -> None:
        from .embed import VectorStore

        self._vectors = VectorStore.open(self.home / "vectors", embedder_id=self.embedder.id,
                                         dim=self.embedder.dim, read_only=read_only)
        give_back_c_heap()  # what loading its key tables parsed and dropped

    @property
    def lexical(self) -> Any:
        if self._lexical is None:
            from .embed import LexicalIndex

            self._lexical = LexicalIndex.open(self.home / "lexical", read_only=self._reading())
            give_back_c_heap()  # what loading its key and term tables parsed and dropped
        return self._lexical

    def _writable(self) -> None:
        """Before a write: take the write lock, and reopen indexes opened read-only."""
        if self.lock is not None:
            self.lock.acquire()
        for name in ("_vectors", "_lexical"):
            part = getattr(self, name)
            if part is not None and part.read_only:
                part.close()
                setattr(self, name, None)

    def distillations_complete(self) -> bool:
        """Whether every curated item has its distillation vector (see curation)."""
        return (self.home / "vectors" / DISTILLATIONS_MARKER).exists()

    def set_distillations_complete(self, complete: bool) -> None:
        """Record whether every curated item has its distillation vector."""
        self._writable()
        marker = self.home / "vectors" / DISTILLATIONS_MARKER
        if not complete:
            marker.unlink(missing_ok=True)
        elif not marker.exists():
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text('{"distillation_vectors": true}\n', encoding="utf-8")

    def read_vectors(self) -> Any:
        """The vector store for bulk reads, None when nothing is embedded: the open one, else
        one opened read-only, by the writer too. A reader maps the saved index's lists where
        the writer loads them (~0.2 against ~0.75 GB at a million items), so a writer that
        only reads vectors (the cells step) stays small; a later write reopens the store as
        the writer (:meth:`_writable`)."""
        if self.disabled or not (self.home / "vectors").exists():
            return None
        if self._vectors is None:
            self._open_vectors(read_only=True)
        return self._vectors if len(self._vectors) > 0 else None

    def has_vectors(self) -> bool:
        """True when at least one vector exists (without loading the embedder if none do)."""
        if self.disabled or not (self.home / "vectors").exists():
            return False
        return len(self.vectors) > 0

    def _why_no_vectors(self) -> str:
        """Why a search by meaning cannot run: curation has not embedded anything yet, or the
        home's embedder is ``none``, so it never will."""
        if self.disabled:
            return ("this home's embedder is none (config.json): it has no vectors, only BM25 "
                    "(lexical/4) and recency")
        return "nothing is embedded in this memory yet (run atc curate)"

    # -- writing ----------------------------------------------------------------------------------
    def index(self, keys: list[str], texts: list[str], meta: list[dict[str, Any]],
              *, embed: bool = True, lexical: bool = True, batch_size: int = 64) -> int:
        """Add records to BM25 (unless ``lexical`` is False) and, unless disabled, embed them.
        A record BM25 already holds keeps its entry (ingest indexes an item's text before
        curation does, under the same key). Returns vectors added."""
        if not keys:
            return 0
        self._writable()
        if lexical:
            index = self.lexical
            fresh = [i for i, k in enumerate(keys) if not index.has(k)]
            if fresh:
                with self._letting_go("_lexical"):
                    index.add([keys[i] for i in fresh], [texts[i] for i in fresh],
                              [meta[i] for i in fresh])
        if not embed or self.disabled:
            return 0
        todo = [i for i, k in enumerate(keys) if not self.vectors.has(k)]
        if not todo:
            return 0
        todo_keys = [keys[i] for i in todo]
        vecs = self._embed_once(todo_keys, [texts[i] for i in todo], batch_size)
        with self._letting_go("_vectors"):
            return self.vectors.add(todo_keys, vecs, [meta[i] for i in todo])

    def _embed_once(self, keys: list[str], texts: list[str], batch_size: int) -> np.ndarray:
        """Vectors for ``texts``, copying the stored vector of a text this process embedded
        before (the same tool output in two items, an L2 equal to another item's L0) instead
        of embedding it again; the embedder dedupes within the call."""
        import numpy as np
        import hashlib
        import time

        store = self.vectors
        digests = [hashlib.blake2b(t.encode("utf-8", "surrogatepass"), digest_size=16).digest()
                   for t in texts]
        known = [self._made.get(d) for d in digests]
        reuse = [i for i, k in enumerate(known) if k is not None and store.has(k)]
        fresh = sorted(set(range(len(texts))) - set(reuse))
        out = np.zeros((len(texts), self.embedder.dim), dtype=np.float32)
        if reuse:
            out[reuse] = np.stack([store.vector(known[i]) for i in reuse])
        if fresh:
            started = time.perf_counter()
            out[fresh] = self.embedder.embed([texts[i] for i in fresh], batch_size=batch_size)
            self.embed_seconds += time.perf_counter() - started
            self.embedded_texts += len(fresh)
        self.reused_vectors += len(reuse)
        for digest, key in zip(digests, keys):
            self._made[digest] = key
            self._made.move_to_end(digest)
        while len(self._made) > MADE_DIGESTS_KEPT:
            self._made.popitem(last=False)
        return out

    def add_meta(self, keys: list[str], fields: dict[str, Any]) -> int:
        """Add ``fields`` to the stored meta of those of ``keys`` that have a vector (the
        vector is written again as it is); returns the vectors rewritten."""
        if self.disabled or not keys or not self.has_vectors():
            return 0
        self._writable()
        store = self.vectors
        present, matrix = store.vectors(keys)
        found = [key for key, there in zip(keys, present) if there]
        with self._letting_go("_vectors"):
            return store.add(found, matrix, [{**store.meta(key), **fields} for key in found])

    def remove(self, keys: Iterable[str]) -> None:
        """Forget records in both indexes, their distillation vectors included (erasure)."""
        keys = list(keys)
        self._writable()
        index = self.lexical
        with self._letting_go("_lexical"):
            index.remove(keys)
        if (self.home / "vectors").exists() and not self.disabled:
            store = self.vectors
            with self._letting_go("_vectors"):
                store.remove(keys + [distillation_key(k) for k in keys])

    def purge(self) -> None:
        """Erase removed records from the disk (erasure): rewrite the BM25 log and snapshot
        and the vector logs and saved index with live records only (see their ``purge``)."""
        self._writable()
        index = self.lexical
        with self._letting_go("_lexical"):
            index.purge()
        if (self.home / "vectors").exists() and not self.disabled:
            store = self.vectors
            with self._letting_go("_vectors"):
                store.purge()

    def records_open(self) -> int:
        """How many records the indexes open now hold (vectors and BM25 entries; 0 when
        neither is open): what keeping them open costs in memory."""
        return sum(len(part) for part in (self._vectors, self._lexical) if part is not None)

    def flush(self, *, checkpoint: bool = False) -> None:
        """Make the indexes' writes durable and visible to readers (nothing when read-only);
        ``checkpoint`` at the end of a run of writes (see :meth:`VectorStore.flush`). An index
        whose write fails lets go of what it holds unwritten (see :meth:`_letting_go`)."""
        if self._lexical is not None and not self._lexical.read_only:
            with self._letting_go("_lexical"):
                self._lexical.flush()
        if self._vectors is not None and not self._vectors.read_only:
            with self._letting_go("_vectors"):
                self._vectors.flush(checkpoint=checkpoint)

    @contextmanager
    def _letting_go(self, name: str) -> Iterator[None]:
        """Around a write of the index held in attribute ``name``: where it raises (a full
        disk), the index lets go of its files without writing what they hold unwritten, and is
        dropped (reopened on use, from what reached the disk), and the error goes on. Bytes
        kept for a later flush would land after whatever another writer appended once this
        process gives the write lock back. Only the file system's errors: a bad argument is
        refused before anything is written."""
        try:
            yield
        except OSError:
            self._let_go_of(name)
            raise

    def _let_go_of(self, name: str) -> None:
        part = getattr(self, name)
        if part is not None:
            part.let_go()
            setattr(self, name, None)

    def let_go(self) -> None:
        """Drop both indexes without writing what they hold unwritten (after a write the file
        system refused, see :meth:`_letting_go`); they are reopened on use."""
        self._let_go_of("_lexical")
        self._let_go_of("_vectors")
        self.close()

    def keep_as_readers(self) -> None:
        """After a run of writes, with the write lock about to be given back: the indexes
        opened for writing are made durable and go on as readers of what they committed
        (closed instead where that fails), so the next search does not open them again."""
        self._made = OrderedDict()
        for name in ("_vectors", "_lexical"):
            part = getattr(self, name)
            if part is None or part.read_only:
                continue
            try:
                part.keep_as_reader()
            except (OSError, ValueError, HomeError):
                self._let_go_of(name)  # what it held unwritten is dropped, never written later

    def refresh(self) -> None:
        """Catch indexes opened read-only up with what writers committed since (new key-log
        and BM25 log records, read from where this process stopped); one that cannot be caught
        up (the writer compacted it, saved a new index) is closed and reopened on use."""
        for name in ("_vectors", "_lexical"):
            part = getattr(self, name)
            if part is None or not part.read_only:
                continue
            try:
                current = part.refresh()
            except (OSError, ValueError, KeyError, HomeError):
                current = False
            if not current:
                part.close()
                setattr(self, name, None)

    def close(self) -> None:
        """Close both indexes (reopened on use) and forget which texts this process embedded:
        that memory serves one run of writes, and a process that writes batch after batch for
        days (``atc watch`` closes after each) would otherwise keep it growing to its cap.
        Each is closed though another's flush fails (that one lets go of what it held
        unwritten); the first error is raised."""
        parts = (self._lexical, self._vectors, self._cell_rows)
        self._lexical = self._vectors = self._cell_rows = None
        self._cell_rows_stamp = None
        self._made = OrderedDict()
        failed: BaseException | None = None
        for part in parts:
            try:
                if part is not None:
                    part.close()
            except BaseException as exc:
                failed = failed or exc
        if failed is not None:
            raise failed

    # -- searching --------------------------------------------------------------------------------
    def query_vector(self, query: str) -> np.ndarray:
        """The vector for query text (its first MAX_QUERY_CHARS characters), or the stored vector
        when ``query`` is a known key. The latest texts' vectors are kept (per embedder):
        embedding is most of a search."""
        import numpy as np
        if isinstance(query, Atom) and self.vectors.has(str(query)):
            return self.vectors.vector(str(query))
        embedder = self.embedder
        if embedder is not self._queries_by:  # vectors of another embedder are not comparable
            self._queries.clear()
            self._queries_by = embedder
        key = str(query)[:MAX_QUERY_CHARS]
        kept = self._queries.setdefault(getattr(self._calling, "principal", None), OrderedDict())
        vector = kept.get(key)
        if vector is None:
            vector = embedder.embed([key])[0]
            kept[key] = vector
            if len(kept) > QUERY_VECTORS_KEPT:
                kept.popitem(last=False)
        else:
            kept.move_to_end(key)
        return vector

    @contextmanager
    def queries_of(self, principal: str | None) -> Iterator[None]:
        """Within the block, query texts' vectors are kept for ``principal`` alone (None: the
        owner). A vector kept is a search ~0.1 s faster with MiniLM, so a cache shared by the
        callers of one server told a grantee, by how long their own search took, whether
        anyone had asked that text (median 109 ms for a text nobody asked, 18 ms for one
        another grantee's frame had)."""
        before = getattr(self._calling, "principal", None)
        self._calling.principal = principal
        try:
            yield
        finally:
            self._calling.principal = before

    def similarity(self, query: str, records: Iterable[str], k: int | None = None) -> list[tuple[str, float]]:
        """``(record, cosine)`` for each of ``records`` that has a vector, in the order given,
        or with ``k`` only the ``k`` best, best first: the record scored by its best vector (its
        text or its distillation) as ``semantic`` does. Scores records a search did not return
        (a BM25 hit past the semantic cut, the items of a time window); EmbeddingsUnavailable
        when nothing is embedded."""
        if not self.has_vectors():
            raise EmbeddingsUnavailable(self._why_no_vectors())
        records = [str(record) for record in records]
        ids = self.vectors.ids(records + [distillation_key(r) for r in records])
        return self._scored(query, records, ids, k)

    def vector_similarity(self, query: str, keys: Iterable[str],
                          k: int | None = None) -> list[tuple[str, float]]:
        """``(key, cosine)`` for each vector key of ``keys`` that has one (an item's text
        ``it_3fa2``, its distillation ``it_3fa2#l2``, an arc's summary), in the order given, or
        with ``k`` only the ``k`` best, best first: each key's own vector, not the best of a
        record's two as :meth:`similarity` scores it (a search at one level, ``level(L)``,
        within the records a grantee sees). EmbeddingsUnavailable when nothing is embedded."""
        import numpy as np
        if not self.has_vectors():
            raise EmbeddingsUnavailable(self._why_no_vectors())
        keys = [str(key) for key in keys]
        present, products = self._products_of(self.vectors.ids(keys), None,
                                              self.query_vector(query))
        scored = [(keys[i], float(score))
                  for i, score in zip(np.flatnonzero(present).tolist(), products.tolist())]
        return scored if k is None else _best_first(scored, k)

    def similarity_within(self, query: str, groups: Iterable[tuple[str, str]],
                          k: int | None = None) -> list[tuple[str, float]]:
        """As :meth:`similarity` over the records of ``groups``, each a pair of texts (records
        one per line): the group's members and those of them left out. A group's vector rows
        are kept between calls (``GROUP_ROWS_KEPT`` groups, while the vector store does not
        change), so the members of a cell asked for frame after frame cost no lookup per
        record: in a large store each lookup misses the CPU cache (~1 µs; ~2 ms of a frame)."""
        import numpy as np
        if not self.has_vectors():
            raise EmbeddingsUnavailable(self._why_no_vectors())
        store = self.vectors
        copies = self._current_cell_rows(store)
        if self._group_rows_of != (id(store), store.changes, self._cell_rows_stamp):
            self._group_rows.clear()
            self._group_rows_of = (id(store), store.changes, self._cell_rows_stamp)
        groups = list(groups)
        records = _GroupRecords()
        parts: list[np.ndarray] = []
        copied: list[np.ndarray] = []
        seen: set[str] = set()
        for number, (members, left_out) in enumerate(groups):
            cached = self._group_rows.get(members)
            if cached is None:
                names = members.split("\n") if members else []
                ids = store.ids(names + [distillation_key(r) for r in names])
                cached = _GroupRows(names, ids, _copies_of_group(copies, ids, len(names)))
                self._group_rows[members] = cached
                if len(self._group_rows) > GROUP_ROWS_KEPT:
                    self._group_rows.popitem(last=False)
            else:
                self._group_rows.move_to_end(members)
            at = cached.kept(left_out.split("\n") if left_out else [], seen,
                             remember=number + 1 < len(groups))
            if not len(at):
                continue
            records.add(cached.names, at)
            texts, distillations = cached.ids[at], cached.ids[len(cached.names) + at]
            parts.append(np.concatenate([texts, distillations]).reshape(2, -1))
            rows = cached.copies[at]
            copied.append(np.concatenate([rows, np.where(rows >= 0, rows + 1, -1)]).reshape(2, -1))
        if not len(records):
            return []
        ids = np.concatenate(parts, axis=1).reshape(-1)  # every text row, then every distillation
        from_copy = np.concatenate(copied, axis=1).reshape(-1)
        return self._scored(query, records, ids, k, from_copy)

    def _current_cell_rows(self, store: Any) -> Any:
        """The cell rows files (:mod:`.cells.rows`) copying ``store``, reopened when a cells
        step replaced them; None when there are none."""
        from .cells.rows import CellRows

        stamp = CellRows.current_stamp(self.home)
        if stamp != self._cell_rows_stamp or (self._cell_rows is not None and self._cell_rows_for != id(store)):
            if self._cell_rows is not None:
                self._cell_rows.close()
            self._cell_rows = CellRows.open(self.home, store) if stamp is not None else None
            self._cell_rows_stamp, self._cell_rows_for = stamp, id(store)
        return self._cell_rows

    def _products_of(self, ids: np.ndarray, from_copy: np.ndarray | None,
                     query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The mask of ``ids`` >= 0 and the inner product of ``query`` with each of their
        vectors: those with a copy (``from_copy`` >= 0) read from the cell rows file, the rest
        from the vector log, each scored where it was read (the rows are not gathered)."""
        import numpy as np
        if from_copy is None or self._cell_rows is None or not (from_copy >= 0).any():
            return self.vectors.products_of_ids(ids, query)
        present = ids >= 0
        copy = from_copy[present]
        here = copy >= 0
        if here.all():
            return present, self._cell_rows.products(copy, query)
        products = np.empty(len(copy), dtype=np.float32)
        products[here] = self._cell_rows.products(copy[here], query)
        products[~here] = self.vectors.products_of_ids(ids[present][~here], query)[1]
        return present, products

    def _scored(self, query: str, records: list[str] | _GroupRecords, ids: np.ndarray,
                k: int | None, from_copy: np.ndarray | None = None) -> list[tuple[str, float]]:
        """``(record, cosine)`` of ``records`` given the row ids of their texts then their
        distillations (-1 for none), best of the two; with ``k`` the ``k`` best, best first.
        ``from_copy``: where a row has a copy in the cell rows file (see :meth:`_products_of`)."""
        import numpy as np
        count = len(records)
        # einsum, not BLAS: OpenBLAS runs a product of this size on a second thread, and on a
        # busy machine the call waits for that thread to get a core (12 ms for 1,600 rows at
        # load 4 on two cores, against 0.15 ms in one thread; BENCHMARKS.md, Cells)
        present, products = self._products_of(ids, from_copy, self.query_vector(query))
        if not present.any():
            return []
        scores = np.full(2 * count, -np.inf, dtype=np.float32)
        scores[present] = products
        best = np.maximum(scores[:count], scores[count:])  # text or distillation
        kept = np.flatnonzero(best > -np.inf)
        if k is not None and 0 < k < len(kept):
            # only the k best are sorted: those scoring at least the k-th best (ties included,
            # so the tie-break by record stays _best_first's)
            threshold = np.partition(best[kept], len(kept) - k)[len(kept) - k]
            kept = kept[best[kept] >= threshold]
        picked = kept.tolist()
        names = (records.pick(picked) if isinstance(records, _GroupRecords)
                 else [records[i] for i in picked])
        scored = list(zip(names, best[kept].tolist()))
        return scored if k is None else _best_first(scored, k)

    def semantic(self, query: str, k: int, options: dict[str, Any]) -> list[tuple[str, float]]:
        """Best-first ``(record, cosine)`` hits, a record scored by its best vector (its text
        or its distillation); EmbeddingsUnavailable when nothing is embedded."""
        if not self.has_vectors():
            raise EmbeddingsUnavailable(self._why_no_vectors())
        hits = self.vectors.search(self.query_vector(query), k * SECOND_VECTOR_FETCH,
                                   filter_meta=_filters(options))
        best: dict[str, float] = {}
        for key, score in hits:
            record = key.split("#", 1)[0]  # embed.store.handle_of, without loading faiss here
            if score > best.get(record, -2.0):
                best[record] = score
        return _best_first(best.items(), k)

    def lexical_hits(self, query: str, k: int, options: dict[str, Any]) -> list[tuple[str, float]]:
        """Best-first BM25 ``(key, score)`` hits (empty when nothing matches) for the query's
        first MAX_QUERY_CHARS characters; ``within`` (keys one a line) scores only those keys,
        by their statistics alone (a grantee's search within what they see); ``without`` (keys
        one a line) neither scores those keys nor counts them in the statistics (the records a
        label hides from a grantee whose set is not kept)."""
        within = options.get("within")
        without = options.get("without")
        return self.lexical.search(str(query)[:MAX_QUERY_CHARS], k,
                                   filter_meta=_filters(options) or None,
                                   stats_meta=_stats_scope(options),
                                   within=None if within is None else
                                   [key for key in str(within).split("\n") if key],
                                   without=None if without is None else
                                   [key for key in str(without).split("\n") if key])

    def register(self, pl: Prolog) -> None:
        """Make this home's search reachable from Prolog (rules/jump.pl)."""
        pl.register("semantic_hits", 4, self._semantic_for_prolog, module="atc_jump")
        pl.register("lexical_hits", 4, self._lexical_for_prolog, module="atc_jump")
        pl.register("similarity_scores", 4, self._similarity_for_prolog, module="atc_jump")
        pl.register("similarity_within_scores", 4, self._within_for_prolog, module="atc_jump")
        pl.register("vector_similarity_scores", 4, self._vectors_for_prolog, module="atc_jump")

    def _semantic_for_prolog(self, query: Any, k: int, options: Any) -> list[Term]:
        return _pairs(self.semantic(query, int(k), _options(options)))

    def _lexical_for_prolog(self, query: Any, k: int, options: Any) -> list[Term]:
        return _pairs(self.lexical_hits(query, int(k), _options(options)))

    def _similarity_for_prolog(self, query: Any, records: Any, k: Any) -> list[Term]:
        # the records come as one newline-joined text: a list of thousands of atoms costs
        # more to cross the bridge than scoring them does
        joined = str(records)
        best = None if str(k) == "all" else int(k)
        return _pairs(self.similarity(query, joined.split("\n") if joined else [], best))

    def _vectors_for_prolog(self, query: Any, keys: Any, k: Any) -> list[Term]:
        joined = str(keys)                  # one newline-joined text, as for similarity
        best = None if str(k) == "all" else int(k)
        return _pairs(self.vector_similarity(query, joined.split("\n") if joined else [], best))

    def _within_for_prolog(self, query: Any, groups: Any, k: Any) -> list[Term]:
        best = None if str(k) == "all" else int(k)
        pairs = [(str(g.args[0]), str(g.args[1])) for g in groups]
        return _pairs(self.similarity_within(query, pairs, best))


class _GroupRows:
    """A group's records (a cell's members) as :meth:`Jump.similarity_within` keeps them
    between calls: their names, where each lies in ``names`` (``place``), the row ids of their
    texts then their distillations, and the rows of their copies in the cell rows file."""

    __slots__ = ("names", "place", "ids", "copies")

    def __init__(self, names: list[str], ids: np.ndarray, copies: np.ndarray) -> None:
        self.names, self.ids, self.copies = names, ids, copies
        self.place = {name: i for i, name in enumerate(names)}

    def kept(self, left_out: list[str], seen: set[str], *, remember: bool) -> np.ndarray:
        """The places of the records not ``left_out`` nor ``seen`` (kept by an earlier group
        of the same call), in order; with ``remember`` they are added to ``seen``. A group
        sharing no record with ``seen`` (cells do not overlap), and naming none twice, is
        answered by set operations and one array, not a test per record: a frame's cells
        hold ~1,000 records."""
        import numpy as np
        count = len(self.names)
        if len(self.place) < count or (seen and not seen.isdisjoint(self.place)):
            skip = set(left_out)
            at = [i for i, name in enumerate(self.names) if name not in skip and name not in seen]
            if remember:
                seen.update(map(self.names.__getitem__, at))
            return np.asarray(at, dtype=np.int64)
        dropped = [i for i in map(self.place.get, left_out) if i is not None]
        if remember:
            seen.update(self.names)
            seen.difference_update(map(self.names.__getitem__, dropped))
        if not dropped:
            return np.arange(count, dtype=np.int64)
        keep = np.ones(count, dtype=bool)
        keep[dropped] = False
        return np.flatnonzero(keep)


class _GroupRecords:
    """The records of :meth:`Jump.similarity_within`'s groups in order: each group's names
    and the places kept, so that only the records a call returns (its best ``k``) are looked
    up (:meth:`pick`), not every member copied into one list."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._parts: list[tuple[list[str], np.ndarray]] = []
        self._count = 0

    def add(self, names: list[str], at: np.ndarray) -> None:
        self._starts.append(self._count)
        self._parts.append((names, at))
        self._count += len(at)

    def __len__(self) -> int:
        return self._count

    def pick(self, places: list[int]) -> list[str]:
        """The records at ``places`` (ascending): looked up one by one when they are few (a
        call's best ``k``), else every record listed once."""
        if 4 * len(places) < self._count:
            return [self._one(i) for i in places]
        every = [name for names, at in self._parts for name in map(names.__getitem__, at.tolist())]
        return [every[i] for i in places]

    def _one(self, i: int) -> str:
        part = bisect.bisect_right(self._starts, i) - 1
        names, at = self._parts[part]
        return names[int(at[i - self._starts[part]])]


def _copies_of_group(copies: Any, ids: np.ndarray, count: int) -> np.ndarray:
    """Where the rows of a group's ``count`` records (``ids``: their text rows, then their
    distillations) lie in the cell rows file, -1 for each where the vector log is to be read:
    all of them unless the copies lie close together (a cell's members). The items of a time
    window are spread over many cells but were mostly written one after another in the log."""
    import numpy as np
    none = np.full(count, -1, dtype=np.int64)
    if copies is None:
        return none
    at = copies.copies(ids[:count], ids[count:])
    found = at[at >= 0]
    if not len(found) or int(found.max() - found.min()) + 2 > COPY_SPREAD * 2 * len(found):
        return none
    return at


def _best_first(scored: Iterable[tuple[str, float]], k: int) -> list[tuple[str, float]]:
    """The ``k`` best ``(record, score)`` pairs, best first, ties by record."""
    return sorted(scored, key=lambda pair: (-pair[1], pair[0]))[:k]


def _pairs(hits: list[tuple[str, float]]) -> Term:
    """Hits as Prolog takes them back (rules/jump.pl, host_pairs_/2): ``hits(Keys, Scores)``,
    the keys as one newline-joined text and the scores as one too, each as ``repr`` writes
    it (the shortest text that reads back as the same float). A list of ``Key-Score`` terms
    cost three terms a hit to build through the C API, a list of floats two calls a score
    (~0.4 ms of a frame, which takes ~250 hits from the host). A score that is not finite
    (no text of it reads back in Prolog) sends the scores as a list of floats."""
    scores = [float(score) for _, score in hits]
    keys = "\n".join(key for key, _ in hits)
    if all(map(math.isfinite, scores)):
        return Term("hits", [keys, "\n".join(map(repr, scores))])
    return Term("hits", [keys, scores])


def _options(options: Any) -> dict[str, Any]:
    """Prolog option list ``[segment(S), kinds([..]), level(L)]`` to a dict."""
    out: dict[str, Any] = {}
    for opt in options or []:
        if isinstance(opt, Term) and opt.arity == 1:
            out[opt.name] = opt.args[0]
    return out


def _stats_scope(options: dict[str, Any]) -> dict[str, Any] | None:
    """``stats_segments(List)``: the segments whose documents alone make a BM25 search's
    statistics (a grantee's: the segments their grants name), or None (the whole index)."""
    segments = options.get("stats_segments")
    if segments is None:
        return None
    return {"segment": [str(s) for s in segments]}


def _filters(options: dict[str, Any]) -> dict[str, Any]:
    wanted: dict[str, Any] = {}
    if options.get("segment"):
        wanted["segment"] = str(options["segment"])
    if options.get("kinds"):
        wanted["kind"] = [str(k) for k in options["kinds"]]
    if options.get("level"):
        wanted["level"] = str(options["level"])
    if options.get("record"):
        record = str(options["record"])
        # an item is found through its distillation as well as its text
        wanted["record"] = [record, "distillation"] if record == "item" else record
    return wanted
