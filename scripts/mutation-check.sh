#!/usr/bin/env bash
# Mutation testing of the security core in CI, incrementally.
# reports/stryker-incremental.json records every mutant's result for the code
# on main, so this run retests only the mutants whose code or covering tests
# changed since it was written: a few minutes when it is up to date. It fails
# when the score falls under thresholds.break in stryker.config.json, and when
# the retest does not fit the time below: then the record is stale, and the
# change that made it so must come with its own `npm run test:mutation` and
# the updated record (docs/testing.md, "Mutation testing").
# SQLite only, as the record was made: the PostgreSQL half would double the
# run and kills no mutant the SQLite half leaves alive.
set -euo pipefail
cd "$(dirname "$0")/.."
budget_seconds="${MUTATION_BUDGET_SECONDS:-600}"

status=0
env -u TEST_DATABASE_URL CI=false timeout --kill-after=30 "$budget_seconds" npx stryker run || status=$?
if [ "$status" -eq 124 ]; then
  echo "mutation-check: the incremental run did not finish in ${budget_seconds} s." >&2
  echo "reports/stryker-incremental.json is stale: run 'npm run test:mutation' and commit the updated file." >&2
fi
exit "$status"
