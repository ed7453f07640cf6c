"""Paraphrase recycling: echoes of older memory from another session are flagged."""
from __future__ import annotations

import numpy as np
import pytest

from attention_cloud.curate import ItemView, find_echoes, ngram_overlap
from attention_cloud.curate.echoes import is_older
from attention_cloud.errors import InputError

ORIGINAL = ("We decided to stream the import in 64 MB chunks because loading the whole 2 GB "
            "export ran out of memory.")
PARAPHRASE = ("The import now streams in 64 MB chunks, since loading the entire 2 GB export "
              "exhausted memory.")
UNRELATED = "We should rotate the API keys before the audit next week."


def view(handle: str, session: str, time: str, text: str) -> ItemView:
    return ItemView(handle, session, 1, "turn", "", time, f"{session}.jsonl#L1", text)


class Memory:
    """A stand-in for the vector store: exact cosine search over a few items."""

    def __init__(self, items: list[ItemView], vectors: np.ndarray) -> None:
        self.items = {i.handle: i for i in items}
        self.handles = [i.handle for i in items]
        self.vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def search(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        scores = self.vectors @ (vector / np.linalg.norm(vector))
        order = np.argsort(-scores)[:k]
        return [(self.handles[i], float(scores[i])) for i in order]

    def lookup(self, handle: str) -> ItemView | None:
        return self.items.get(handle)


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def run(new: ItemView, new_vector: np.ndarray, old: list[ItemView], old_vectors: list[np.ndarray], **kw):
    memory = Memory(old + [new], np.stack(old_vectors + [new_vector]))
    return find_echoes([new], new_vector[None, :], memory.search, memory.lookup, **kw)


OLD = view("it_old", "ses_1", "2026-01-01T10:00:00Z", ORIGINAL)
OLD_VEC = unit(1.0, 0.0, 0.0)
CLOSE_VEC = unit(1.0, 0.2, 0.0)  # cosine 0.98 with OLD_VEC
FAR_VEC = unit(0.0, 1.0, 0.0)


def test_a_paraphrase_from_a_later_session_is_an_echo_of_the_original():
    new = view("it_new", "ses_2", "2026-02-01T10:00:00Z", PARAPHRASE)
    ((echo, original, similarity),) = run(new, CLOSE_VEC, [OLD], [OLD_VEC])
    assert (echo, original) == ("it_new", "it_old")
    assert similarity == pytest.approx(0.98, abs=0.01)


def test_the_same_session_restating_itself_is_not_an_echo():
    new = view("it_new", "ses_1", "2026-02-01T10:00:00Z", PARAPHRASE)
    assert run(new, CLOSE_VEC, [OLD], [OLD_VEC]) == []


def test_unrelated_text_is_not_an_echo():
    new = view("it_new", "ses_2", "2026-02-01T10:00:00Z", UNRELATED)
    assert run(new, FAR_VEC, [OLD], [OLD_VEC]) == []


def test_similar_vectors_without_shared_words_are_not_an_echo():
    new = view("it_new", "ses_2", "2026-02-01T10:00:00Z", UNRELATED)
    assert run(new, CLOSE_VEC, [OLD], [OLD_VEC]) == []


def test_an_original_that_is_not_older_is_not_an_echo_source():
    newer = view("it_new", "ses_2", "2025-12-01T10:00:00Z", PARAPHRASE)
    assert run(newer, CLOSE_VEC, [OLD], [OLD_VEC]) == []
    untimed = view("it_new", "ses_2", "", PARAPHRASE)
    assert run(untimed, CLOSE_VEC, [OLD], [OLD_VEC]) == []


def test_a_restatement_with_a_new_number_is_news_not_an_echo():
    new = view("it_new", "ses_2", "2026-02-01T10:00:00Z", PARAPHRASE.replace("64 MB", "128 MB"))
    assert run(new, CLOSE_VEC, [OLD], [OLD_VEC]) == []


def test_thresholds_are_the_callers_to_set():
    new = view("it_new", "ses_2", "2026-02-01T10:00:00Z", PARAPHRASE)
    assert run(new, CLOSE_VEC, [OLD], [OLD_VEC], sim_threshold=0.99) == []
    assert run(new, CLOSE_VEC, [OLD], [OLD_VEC], ngram_threshold=0.95) == []


def test_the_most_similar_qualifying_original_wins_and_missing_items_are_skipped():
    older = view("it_older", "ses_0", "2025-06-01T10:00:00Z", ORIGINAL)
    gone = view("it_gone", "ses_3", "2025-01-01T10:00:00Z", ORIGINAL)
    new = view("it_new", "ses_2", "2026-02-01T10:00:00Z", PARAPHRASE)
    # cosine with the new item: it_gone 1.0, it_older 0.995, it_old 0.98
    memory = Memory([OLD, older, gone, new], np.stack([OLD_VEC, unit(1.0, 0.1, 0.0), CLOSE_VEC, CLOSE_VEC]))
    lookup = lambda h: None if h == "it_gone" else memory.lookup(h)  # noqa: E731
    ((echo, original, similarity),) = find_echoes([new], CLOSE_VEC[None, :], memory.search, lookup)
    assert (echo, original) == ("it_new", "it_older")
    assert similarity == pytest.approx(0.995, abs=0.003)


def test_vectors_must_match_the_items():
    new = view("it_new", "ses_2", "2026-02-01T10:00:00Z", PARAPHRASE)
    with pytest.raises(InputError, match="1 items but vectors of shape"):
        find_echoes([new], np.zeros((2, 3)), lambda v, k: [], lambda h: None)
    with pytest.raises(InputError, match="1 items but 2 neighbour lists"):
        find_echoes([new], np.zeros((1, 3)), None, lambda h: None, neighbours=[[], []])
    with pytest.raises(InputError, match="give search or neighbours"):
        find_echoes([new], np.zeros((1, 3)), None, lambda h: None)


def test_ngram_overlap_measures_how_much_of_the_echo_is_old():
    assert ngram_overlap(PARAPHRASE, ORIGINAL) >= 0.5
    assert ngram_overlap(UNRELATED, ORIGINAL) < 0.2
    assert ngram_overlap("", ORIGINAL) == 0.0


def test_time_comparison_accepts_iso_and_loose_dates():
    assert is_older("2023-05-20T07:47:00Z", "2023-05-21T00:00:00+00:00")
    assert is_older("2023/05/20 (Sat) 07:47", "2023/05/20 (Sat) 21:44")
    assert not is_older("2023-05-21", "2023-05-20")
    assert not is_older("", "2023-05-20") and not is_older("yesterday", "2023-05-20")


def test_with_the_real_embedder():
    embed = pytest.importorskip("attention_cloud.embed")
    try:
        embedder = embed.load_embedder()
    except Exception as error:  # no model on this installation
        pytest.skip(f"no embedder: {error}")
    old_chat = view("it_a", "ses_1", "2026-01-01T10:00:00Z",
                    "My sister Maya is getting married in Lisbon on June 14, and I am the maid of honour.")
    old_code = view("it_b", "ses_1", "2026-01-01T10:05:00Z", ORIGINAL)
    paraphrase = view("it_p", "ses_2", "2026-02-01T10:00:00Z",
                      "I am the maid of honour at my sister Maya's wedding in Lisbon on June 14.")
    same_session = view("it_s", "ses_1", "2026-02-01T10:00:00Z", PARAPHRASE)
    unrelated = view("it_u", "ses_2", "2026-02-01T10:00:00Z", UNRELATED)
    news = view("it_n", "ses_2", "2026-02-01T10:00:00Z",
                "My sister Maya is getting married in Lisbon on June 21, and I am the maid of honour.")
    everything = [old_chat, old_code, paraphrase, same_session, unrelated, news]
    vectors = np.asarray(embedder.embed([i.text for i in everything]), dtype=np.float32)
    memory = Memory(everything, vectors)
    new = everything[2:]
    echoes = find_echoes(new, vectors[2:], memory.search, memory.lookup)
    assert [(e, o) for e, o, _ in echoes] == [("it_p", "it_a")]
    assert echoes[0][2] >= 0.92


def _restated_sessions(folder):
    """An answer from March, restated almost word for word in a later session."""
    import json

    folder.mkdir()
    answer = "The deploy failed because the database migration timed out after 30 seconds on eu-west."
    for name, day, text in [("first", "2024-03-01", answer),
                            ("later", "2024-03-09", answer + " As before.")]:
        messages = [{"role": "user", "content": "why did the deploy fail?", "timestamp": f"{day}T10:00:00Z"},
                    {"role": "assistant", "content": text, "timestamp": f"{day}T10:00:05Z"}]
        (folder / f"{name}.json").write_text(json.dumps({"session_id": name, "messages": messages}))
    return folder


@pytest.mark.parametrize("echoes", [True, False])
def test_echo_detection_can_be_switched_off(tmp_path, echoes):
    """Curation marks the restatement as an echo unless the home's config says "echoes": false."""
    from attention_cloud import Memory
    from attention_cloud.home import write_config

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash", "echoes": echoes})
    with Memory.open(home) as mem:
        mem.ingest([_restated_sessions(tmp_path / "chats")])
        report = mem.curate()
        assert report.embedded > 0
        rows = mem.query("echo_of(E, O, _), item_session(E, SE), item_session(O, SO)").rows
        if echoes:
            assert report.echoes >= 1 and {(r["SE"], r["SO"]) for r in rows} == {("later", "first")}
        else:
            assert report.echoes == 0 and rows == []


def _many_restatements(folder, pairs: int):
    """``pairs`` answers from March, each restated in a later session, and one new number."""
    import json

    folder.mkdir()
    topics = ["database migration", "cache warmup", "schema check", "queue drain", "disk quota",
              "token refresh", "index rebuild", "backup upload"]
    for n in range(pairs):
        answer = (f"The deploy failed because the {topics[n % len(topics)]} step timed out after "
                  f"{30 + n} seconds on region {n}.")
        restated = answer + (" As before." if n != pairs - 1 else f" It took {90 + n} seconds.")
        for name, day, text, ask in [(f"first{n}", "2024-03-01", answer, "why did the deploy fail?"),
                                     (f"later{n}", "2024-03-09", restated, "remind me what happened?")]:
            messages = [{"role": "user", "content": ask, "timestamp": f"{day}T10:00:00Z"},
                        {"role": "assistant", "content": text, "timestamp": f"{day}T10:00:05Z"}]
            (folder / f"{name}.json").write_text(json.dumps({"session_id": name, "messages": messages}))
    return folder


def test_echoes_found_a_chunk_at_a_time_are_those_found_at_once(tmp_path, monkeypatch):
    """Curation searches a chunk while checking the one before and writes echoes every few
    chunks: with chunks of two items and writes every two chunks it marks exactly the echoes
    one chunk of everything marks (the restatements, not the one with a new number)."""
    from attention_cloud import Memory, curation
    from attention_cloud.home import write_config

    corpus = _many_restatements(tmp_path / "chats", 6)
    found = {}
    for label, chunk, every in (("at once", 512, 64), ("chunked", 2, 2)):
        monkeypatch.setattr(curation, "ECHO_CHUNK", chunk)
        monkeypatch.setattr(curation, "ECHO_WRITE_CHUNKS", every)
        home = tmp_path / label
        home.mkdir()
        write_config(home, {"embedder": "hash"})
        writes = []
        with Memory.open(home) as mem:
            store_ladder = mem.store_ladder
            monkeypatch.setattr(mem, "store_ladder", lambda records: (
                writes.append(sum(r.name == "echo" for r in records)), store_ladder(records))[1])
            mem.ingest([corpus])
            report = mem.curate()
            rows = mem.query("echo_of(E, O, S), item_session(E, SE), item_session(O, SO)").rows
        found[label] = sorted((r["SE"], r["SO"], r["S"]) for r in rows)
        assert report.echoes == len(rows)
        echo_writes = [n for n in writes if n]
        assert sum(echo_writes) == len(rows)
        assert len(echo_writes) == 1 if label == "at once" else len(echo_writes) > 1  # written as it went
    assert found["chunked"] == found["at once"]
    assert {(e, o) for e, o, _ in found["at once"]} == {(f"later{n}", f"first{n}") for n in range(5)}


def test_pair_similarities_are_symmetric_and_do_not_depend_on_the_other_rows():
    from attention_cloud.curate.echoes import pair_similarities

    rng = np.random.default_rng(7)
    rows = rng.standard_normal((50, 64)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    alone = [pair_similarities(rows[0], rows[i:i + 1])[0] for i in range(50)]
    assert pair_similarities(rows[0], rows).tolist() == alone
    assert [pair_similarities(rows[i], rows[:1])[0] for i in range(50)] == alone


def test_a_search_full_of_hits_at_the_threshold_is_widened():
    from attention_cloud.curate.echoes import more_neighbours_may_exist

    assert more_neighbours_may_exist([("a", 1.0), ("b", 0.95)], 2)
    assert not more_neighbours_may_exist([("a", 1.0), ("b", 0.5)], 2)
    assert not more_neighbours_may_exist([("a", 1.0)], 2)  # the store had no more
