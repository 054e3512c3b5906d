#!/usr/bin/env bash
# Record the product's chat requests over the samples (README.md, step 1): a fresh embedded database under $1, the
# recorder on port $2, every LLM path the product has (ask, the index with its statement, triple and topic tiers,
# global search, the judge). Writes $3 (JSONL). Run from the repository root.
set -euo pipefail
data=${1:?data dir}; port=${2:?port}; out=${3:?out.jsonl}
export HKE_DATA_DIR=$data
py=${PYTHON:-.venv/bin/python}
rm -f "$out"
$py bench/llm_replay/record.py "$port" "$out" &
recorder=$!
trap 'kill $recorder' EXIT
sleep 1
offline() { env -u OPENAI_API_KEY -u OPENAI_BASE_URL "$@"; }
offline $py -m core ingest data/samples --collection replay >/dev/null
offline $py -m core index --collection replay --offline >/dev/null  # reports for global search, offline tiers
export OPENAI_BASE_URL=http://127.0.0.1:$port/v1 OPENAI_API_KEY=any
for q in "Nova 27QX 모니터의 스탠드 포함 무게는 얼마인가요?" "What is the warranty period of the Nova 32UX?" \
         "Who heads the lab that built the Lumen Camera?"; do
  $py -m core ask "$q" --collection replay >/dev/null
done
$py -m core index --collection replay --yes --gleanings 0 >/dev/null
$py -m core global "What are the main themes of this collection?" --collection replay >/dev/null || true
$py -m core eval data/questions.json --collection replay --limit 4 --judge --modes plain,default --no-store >/dev/null
python3 -c "import collections, json, sys; print(collections.Counter(json.loads(l)['kind'] for l in open(sys.argv[1])))" "$out"
