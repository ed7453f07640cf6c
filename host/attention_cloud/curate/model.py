"""The optional model curator: an OpenAI-compatible chat endpoint rewrites L1 and L2.

Items go to the endpoint in batches; the reply is JSON holding, per item, a one-sentence
``l1`` and a structured ``l2`` (decisions, constraints, outcomes, facts, entities). Whatever
the model gets wrong is dropped item by item, never the batch's extractive rungs: a failed
request, a timeout, an HTTP error or malformed JSON leaves the whole batch as it was, and an
item missing from the reply, or with an unusable field, keeps that field's extractive rung.
Model rungs obey the same size invariants as extractive ones (see :mod:`.ladder`); L3 stays
extractive (tags, entities and the pointer are facts, not prose).

Only the standard library talks HTTP (``urllib``), so the curator adds no dependency.
"""
from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from dataclasses import replace

from ..errors import InputError, UsageError
from ..home import HTTP_URL
from .distill import MAX_ENTITIES, MAX_STATEMENTS, STATEMENT_TOKENS, Distillation
from .ladder import render_l2, settle
from .records import ItemView, Rungs
from .sentences import window
from .summary import name_call
from .tokens import truncate_to_tokens

#: Largest reply read from the endpoint, in bytes.
MAX_REPLY_BYTES = 4 * 1024 * 1024

SYSTEM_PROMPT = """You curate memory items for an AI agent's long-term memory.
For each item you receive, return:
- "l1": ONE sentence (at most 30 words) that keeps what a later question would ask about:
  names, numbers, amounts, dates, places, preferences, decisions, results.
- "l2": an object with lists of short strings: "decisions", "constraints", "outcomes",
  "facts" (personal facts and preferences) and "entities" (named things, paths, errors,
  amounts with units, dates). Use empty lists when there is nothing. At most 3 strings per
  list (10 entities), each under 25 words. Do not invent anything that is not in the item.
Reply with JSON only, no prose, exactly:
{"items": [{"id": "<the item id>", "l1": "...", "l2": {"decisions": [], "constraints": [],
"outcomes": [], "facts": [], "entities": []}}]}"""

_SECTIONS = ("decisions", "constraints", "outcomes", "facts")


class _ModelFailure(Exception):
    """The endpoint could not give a usable reply for a batch."""


class ModelCurator:
    """Improve L1/L2 rungs with a chat model behind an OpenAI-compatible endpoint.

    Args:
        url: the endpoint: a base URL (``http://host:8000/v1``), to which
            ``/chat/completions`` is appended, or the full ``.../chat/completions`` URL.
        model: the model name sent in each request; rungs it writes say ``model:<model>``.
        api_key: sent as ``Authorization: Bearer <key>`` when given.
        batch_size: items per request.
        timeout: seconds to wait for each request.

    Attributes:
        failures: how many batches fell back entirely to extractive rungs.
        last_error: a one-line description of the last batch failure, or None.

    Raises:
        UsageError: on a URL that is not http(s), an empty model name, a batch size below 1
            or a timeout that is not positive.
    """

    def __init__(
        self, url: str, model: str, api_key: str | None = None, batch_size: int = 8, timeout: float = 30
    ) -> None:
        if not HTTP_URL.match(url or ""):
            raise UsageError(f"model curator: URL must start with http:// or https://, got {url!r}")
        if not model or not model.strip():
            raise UsageError("model curator: a model name is required")
        if batch_size < 1:
            raise UsageError(f"model curator: batch size must be at least 1, got {batch_size}")
        if not timeout > 0:
            raise UsageError(f"model curator: timeout must be positive, got {timeout}")
        base = url.rstrip("/")
        self.endpoint = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.model = model.strip()
        self.api_key = api_key
        self.batch_size = batch_size
        self.timeout = timeout
        self.failures = 0
        self.last_error: str | None = None

    @property
    def curator(self) -> str:
        """The ``curator`` value of rungs this model wrote: ``"model:<model>"``."""
        return f"model:{self.model}"

    def improve(self, items: list[ItemView], rungs: list[Rungs]) -> list[Rungs]:
        """Return ``rungs`` with L1/L2 replaced by the model's where it gave usable ones.

        ``rungs[i]`` must be the rungs of ``items[i]``. Never raises for endpoint trouble:
        a failing batch keeps its rungs and is counted in :attr:`failures`.

        Raises:
            InputError: when ``items`` and ``rungs`` do not pair up by handle.
        """
        if len(items) != len(rungs) or any(i.handle != r.handle for i, r in zip(items, rungs)):
            raise InputError("model curator: items and rungs must pair up, same handles in the same order")
        out = list(rungs)
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            try:
                answers = self._ask(batch)
            except _ModelFailure as failure:
                self.failures += 1
                self.last_error = str(failure)
                continue
            for offset, item in enumerate(batch):
                answer = answers.get(item.handle)
                if answer is not None:
                    out[start + offset] = self._apply(item, out[start + offset], answer)
        return out

    # -- one request ------------------------------------------------------------------

    def _ask(self, batch: list[ItemView]) -> dict[str, dict]:
        """Send one batch; the reply's entries by item id."""
        payload = {
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": json.dumps({"items": [_brief(item) for item in batch]}, ensure_ascii=False)},
            ],
        }
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            self.endpoint, data=json.dumps(payload).encode("utf-8"), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = response.read(MAX_REPLY_BYTES + 1)
        except urllib.error.HTTPError as error:
            raise _ModelFailure(f"HTTP {error.code} from {self.endpoint}") from None
        except (OSError, http.client.HTTPException) as error:  # URLError, timeouts, resets
            raise _ModelFailure(f"request to {self.endpoint} failed: {error}") from None
        if len(body) > MAX_REPLY_BYTES:
            raise _ModelFailure(f"reply from {self.endpoint} is over {MAX_REPLY_BYTES} bytes")
        return _parse_reply(body)

    def _apply(self, item: ItemView, rungs: Rungs, answer: dict) -> Rungs:
        """Rungs with the model's usable fields in place of the extractive ones."""
        l1 = _clean_text(answer.get("l1"))
        distillation = _distillation(answer.get("l2"), rungs.distillation)
        if not l1 and distillation is None:
            return rungs
        new_l1 = name_call(item.text, l1) if l1 and item.answers_call else l1 or rungs.l1
        new_l2 = rungs.l2
        if distillation is not None:
            new_l2 = render_l2(distillation, item.text)
        else:
            distillation = rungs.distillation
        l1_final, l2_final, l3 = settle(
            new_l1, new_l2, item.pointer, distillation.tags, distillation.entities, verbatim=item.text
        )
        return replace(rungs, l1=l1_final, l2=l2_final, l3=l3, distillation=distillation, curator=self.curator)


def _brief(item: ItemView) -> dict[str, str]:
    """What the model sees of an item: its id, kind, goal and (windowed) text."""
    return {"id": item.handle, "kind": item.kind, "goal": item.goal, "text": window(item.text)}


def _parse_reply(body: bytes) -> dict[str, dict]:
    """The per-item answers in a chat-completions reply, by id."""
    try:
        envelope = json.loads(body.decode("utf-8"))
        content = envelope["choices"][0]["message"]["content"]
    except (UnicodeDecodeError, ValueError, KeyError, IndexError, TypeError):
        raise _ModelFailure("reply is not a chat completion") from None
    if not isinstance(content, str):
        raise _ModelFailure("reply content is not text")
    try:
        data = json.loads(_unfence(content))
    except ValueError:
        raise _ModelFailure("reply content is not JSON") from None
    entries = data.get("items") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise _ModelFailure("reply JSON has no list of items")
    answers: dict[str, dict] = {}
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            answers.setdefault(entry["id"], entry)
    return answers


def _unfence(content: str) -> str:
    """The text inside a Markdown code fence (```json ... ```), or the content as it is."""
    text = content.strip()
    if text.startswith("```") and text.endswith("```") and len(text) >= 6:
        first_newline = text.find("\n")
        if first_newline > 0:
            return text[first_newline + 1 : -3]
    return text


def _clean_text(value: object) -> str:
    """A model string as one line, or "" when it is not a non-empty string."""
    if not isinstance(value, str):
        return ""
    return " ".join(value.split())


def _distillation(value: object, extractive: Distillation) -> Distillation | None:
    """The model's L2 object as a distillation (extractive tags kept), or None if unusable."""
    if not isinstance(value, dict):
        return None
    lists: dict[str, tuple[str, ...]] = {}
    for name in (*_SECTIONS, "entities"):
        raw = value.get(name, [])
        if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
            return None
        limit = MAX_ENTITIES if name == "entities" else MAX_STATEMENTS
        cleaned = [truncate_to_tokens(_clean_text(v), STATEMENT_TOKENS) for v in raw]
        lists[name] = tuple(dict.fromkeys(v for v in cleaned if v))[:limit]
    distillation = Distillation(
        entities=lists["entities"] or extractive.entities,
        decisions=lists["decisions"],
        constraints=lists["constraints"],
        outcomes=lists["outcomes"],
        tags=extractive.tags,
        facts=lists["facts"],
    )
    return None if distillation.is_empty() else distillation
