#!/usr/bin/env bash
# Index the sample vault into a throw-away data dir and ask it a question.
set -euo pipefail
cd "$(dirname "$0")/.."
NOTECITE="${NOTECITE_BIN:-.venv/bin/notecite}"
export NOTECITE_HOME="${NOTECITE_HOME:-$PWD/.notecite-demo}"
QUESTION="${1:-When is the Atlas launch, and why was it moved?}"

"$NOTECITE" index examples/notes --vault notes
"$NOTECITE" status
echo
echo "Q: $QUESTION"
# The bundled local model answers (assembled from its packages on first use, ~1 GB);
# pass NOTECITE_LLM=extractive for an instant, model-free answer.
"$NOTECITE" ask "$QUESTION"
