"""Fit the answerability gate (``notecite.retrieve.answerability``) on the dev split of the
vault QA set, and choose its threshold there.

Every dev question of the vault QA dev sets (``bench/qa/vaults.jsonl`` and
``vaults-dev2.jsonl`` to ``vaults-dev8.jsonl``, ``_measure.QA_DEV_SETS``) is retrieved
exactly as ``ask`` retrieves it (the indexes of ``notecite eval qa`` under ``--home``; run
that first), the gate's features are read, and a logistic regression (L2, Newton steps,
standardised features) is fitted to "answerable" (fact, how-to, multi-note, time,
folder-scoped) against "not answerable" (near-miss, off-topic). The threshold is the one
with the fewest errors (answerable questions abstained on plus unanswerable ones let
through) that keeps wrongly abstained answerable questions at or under ``--max-wrong``, in
the middle of its gap, judged on leave-one-out probabilities. The test split is never read.

    .venv/bin/notecite --home /tmp/qa --llm extractive eval qa --data bench/qa/vaults.jsonl
    .venv/bin/python bench/fit_answerability.py --home /tmp/qa

With ``--squad N``, N SQuAD 2.0 questions (half answerable; drawn with seed 7 from outside
the 200 that ``bench/ask_squad.py`` reports on, whose index it uses: run that first) are
fitted on too, as the issue suggested, and the leave-one-out result is reported per group
beside the shipped model's; the threshold is still chosen on the vault questions.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from _measure import QA_DEV_SETS
from notecite import Engine
from notecite.config import load_settings
from notecite.retrieve.answerability import DEFAULT_MODEL, FEATURE_NAMES, Features, features
from notecite.schemas.ask import AskRequest
from notecite.types import SearchFilter

ANSWERABLE = {"fact", "how-to", "multi-note", "time", "folder-scoped"}


def collect(home: Path, data: Sequence[Path]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    items = [
        json.loads(line) for path in data for line in path.read_text().splitlines() if line.strip()
    ]
    items = [i for i in items if i["split"] == "dev"]
    rows, labels, ids = [], [], []
    for vault in sorted({i["vault"] for i in items}):
        settings = load_settings(
            home=home / "eval",
            store={"path": home / "eval" / f"qa-{vault}.db"},
            llm="extractive",
            ask={"answerability_gate": False},  # the features of what retrieval kept, ungated
        )
        with Engine(settings) as engine:
            everywhere = SearchFilter(vault_ids=tuple(v.id for v in engine.vaults()))

            def mentions(
                terms: Sequence[str], engine: Engine = engine, flt: SearchFilter = everywhere
            ) -> set[str]:
                return engine.store.mentions(terms, flt)

            for item in (i for i in items if i["vault"] == vault):
                request = AskRequest(question=item["question"], folders=item.get("folders") or [])
                found = engine.retrieve(request)
                vector = features(
                    item["question"],
                    found.candidates,
                    found.kept,
                    mentions,
                    len(found.missing.not_in_vaults),
                ).vector()
                rows.append(vector)
                labels.append(1.0 if item["kind"] in ANSWERABLE else 0.0)
                ids.append(item["id"])
    return np.asarray(rows, dtype=np.float64), np.asarray(labels), ids


def collect_squad(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The gate's features and labels of ``n`` SQuAD 2.0 questions drawn (seed 7) from
    outside ``bench/ask_squad.py``'s reported sample, retrieved from its index ungated."""
    import ask_squad

    _, questions = ask_squad.load_questions()
    reported = {q.qid for q in ask_squad.sample(questions, 200, 0)}
    drawn = ask_squad.sample([q for q in questions if q.qid not in reported], n, 7)
    settings = load_settings(
        home=ask_squad.OUT,
        store={"path": ask_squad.OUT / "index.db"},
        embedder={"name": "minilm"},
        llm="extractive",
        ask={"folder_ranking": "off", "answerability_gate": False},
    )
    rows = []
    with Engine(settings) as engine:
        everywhere = SearchFilter(vault_ids=tuple(v.id for v in engine.vaults()))
        for q in drawn:
            found = engine.retrieve(AskRequest(question=q.question))
            rows.append(
                features(
                    q.question,
                    found.candidates,
                    found.kept,
                    lambda terms: engine.store.mentions(terms, everywhere),
                    len(found.missing.not_in_vaults),
                ).vector()
            )
    labels = [1.0 if q.answerable else 0.0 for q in drawn]
    return np.asarray(rows, dtype=np.float64), np.asarray(labels)


def leave_one_out(x: np.ndarray, y: np.ndarray, l2: float) -> np.ndarray:
    """Each question's P(answerable) by a model fitted without it."""
    p = np.empty(len(y))
    for i in range(len(y)):
        rest = np.arange(len(y)) != i
        m, s = x[rest].mean(axis=0), x[rest].std(axis=0) + 1e-6
        w_i, b_i = fit((x[rest] - m) / s, y[rest], l2)
        p[i] = 1.0 / (1.0 + np.exp(-(((x[i] - m) / s) @ w_i + b_i)))
    return p


def _counts(name: str, p: np.ndarray, y: np.ndarray, threshold: float) -> str:
    kept = int(np.sum((p >= threshold) & (y == 1)))
    refused = int(np.sum((p < threshold) & (y == 0)))
    return (
        f"  {name:<22} answerable kept {kept}/{int(np.sum(y == 1))}, "
        f"unanswerable abstained {refused}/{int(np.sum(y == 0))}"
    )


def fit(x: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, float]:
    """Logistic regression by Newton's method with an L2 penalty (not on the bias)."""
    design = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(design.shape[1])
    penalty = np.eye(design.shape[1]) * l2
    penalty[0, 0] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-design @ w))
        gradient = design.T @ (p - y) + penalty @ w
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[1:], float(w[0])


def choose_threshold(p: np.ndarray, y: np.ndarray, max_wrong: float) -> float:
    """The threshold with the fewest errors (the share of answerable questions it abstains
    on plus the share of unanswerable ones it lets through) among those that abstain on at
    most ``max_wrong`` of the answerable ones; it sits in the middle of the gap between two
    neighbouring probabilities, the widest such gap on a tie."""
    values = sorted(set(np.round(p, 4)))
    best, best_key = 0.0, (float("inf"), 0.0)
    for low, high in zip([0.0, *values], [*values, 1.0], strict=True):
        threshold = (low + high) / 2
        wrong = float(np.mean(p[y == 1] < threshold))
        missed = float(np.mean(p[y == 0] >= threshold))
        key = (wrong + missed, -(high - low))
        if wrong <= max_wrong and key < best_key:
            best, best_key = threshold, key
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument(
        "--data",
        type=Path,
        nargs="+",
        default=list(QA_DEV_SETS),
        help="QA files whose dev items are fitted on (default: the dev sets, QA_DEV_SETS)",
    )
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--max-wrong", type=float, default=0.05)
    parser.add_argument("--squad", type=int, default=0, help="SQuAD questions to fit on too")
    args = parser.parse_args()
    x, y, ids = collect(args.home, args.data)
    if args.squad:
        compare_with_squad(x, y, args.squad, args.l2, args.max_wrong)
        return
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    weights, bias = fit((x - mean) / scale, y, args.l2)
    # The threshold is chosen on leave-one-out probabilities (each question scored by a model
    # fitted without it), so it is not tuned to questions the model has already seen.
    p = leave_one_out(x, y, args.l2)
    best = choose_threshold(p, y, args.max_wrong)
    caught = float(np.mean(p[y == 0] < best))
    wrong = float(np.mean(p[y == 1] < best))
    print(f"dev questions: {len(y)} ({int(y.sum())} answerable)")
    for name, w in zip(FEATURE_NAMES, weights, strict=True):
        print(f"  {name:<15} {w:+.3f}")
    print(f"  bias            {bias:+.3f}")
    print(
        f"threshold {best:.4f}: unanswerable abstained {caught:.2f}, answerable wrongly {wrong:.2f}"
    )
    print(
        "AnswerabilityModel(\n"
        f"    weights={tuple(round(float(w), 4) for w in weights)},\n"
        f"    bias={bias:.4f},\n"
        f"    mean={tuple(round(float(m), 4) for m in mean)},\n"
        f"    scale={tuple(round(float(s), 4) for s in scale)},\n"
        f"    threshold={best:.4f},\n"
        "    read_threshold=...,  # bench/gate_band.py\n)"
    )
    for i in np.argsort(p):
        print(f"  {p[i]:.3f} {'A' if y[i] else '-'} {ids[i]}")


def compare_with_squad(x: np.ndarray, y: np.ndarray, n: int, l2: float, max_wrong: float) -> None:
    """The shipped gate and one fitted on the vault questions plus ``n`` SQuAD ones, each
    on both groups (the refit's on leave-one-out probabilities)."""
    xs, ys = collect_squad(n)
    shipped = DEFAULT_MODEL

    def shipped_p(rows: np.ndarray) -> np.ndarray:
        return np.array([shipped.probability(Features(*map(float, row))) for row in rows])

    print(f"shipped gate (threshold {shipped.threshold:.4f}):")
    print(_counts("vault dev", shipped_p(x), y, shipped.threshold))
    print(_counts(f"SQuAD draw of {n}", shipped_p(xs), ys, shipped.threshold))
    both_x, both_y = np.vstack([x, xs]), np.concatenate([y, ys])
    p = leave_one_out(both_x, both_y, l2)
    vault, squad = p[: len(y)], p[len(y) :]
    threshold = choose_threshold(vault, y, max_wrong)
    mean_b, scale_b = both_x.mean(axis=0), both_x.std(axis=0) + 1e-6
    weights, bias = fit((both_x - mean_b) / scale_b, both_y, l2)
    print(f"fitted on both (threshold {threshold:.4f}, chosen on the vault questions):")
    for name, w in zip(FEATURE_NAMES, weights, strict=True):
        print(f"  {name:<15} {w:+.3f}")
    print(f"  bias            {bias:+.3f}")
    print(_counts("vault dev", vault, y, threshold))
    print(_counts(f"SQuAD draw of {n}", squad, ys, threshold))


if __name__ == "__main__":
    main()
