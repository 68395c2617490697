"""Similarity thresholds of template search, per embedding model.

Cosine similarities of different models live on different scales, so a threshold only means
something for the model it was chosen for. 0.65 was chosen for ``nomic-embed-text``; the
bundled minilm's value was calibrated with ``bench/calibrate_templates.py`` (method and
figures in ``docs/templates.md``).
"""

from __future__ import annotations

from notecite.embed.base import MINILM_MODEL_IDS

NOMIC_THRESHOLD = 0.65
"""For nomic-embed-text (through Ollama or any OpenAI-compatible server), and the default
for models not calibrated here."""

MINILM_THRESHOLD = 0.17
"""For the bundled all-MiniLM-L6-v2: the lowest 0.01 step that sends every off-topic
calibration query of ``bench/template_queries.json`` to the fallback; 31 of the 36 labelled
queries get their template (``docs/templates.md``)."""


def threshold_for(model_id: str | None) -> float:
    """The calibrated threshold for an embedder's ``model_id`` (``provider:model`` or the
    bundled minilm's id); 0.65 when the model is unknown or not calibrated."""
    if model_id in MINILM_MODEL_IDS:
        return MINILM_THRESHOLD
    return NOMIC_THRESHOLD
