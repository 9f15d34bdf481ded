#!/usr/bin/env bash
# Runs the real-client end-to-end tests on Node.js 22 and 24 (from the npm
# registry) against PostgreSQL. SQLite needs better-sqlite3 compiled for the
# running Node ABI, which `npm install` on that version provides; this machine
# has no headers to compile it for other versions, so those runs use PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${TEST_DATABASE_URL:?TEST_DATABASE_URL must point at PostgreSQL}"
for major in 22 24; do
  node_bin="$(npx -y -p "node@${major}" node -e 'process.stdout.write(process.execPath)')"
  echo "== Node $("$node_bin" --version): OAuth, OIDC and MCP clients end to end (PostgreSQL store)"
  TEST_STORES=postgres "$node_bin" node_modules/vitest/vitest.mjs run \
    test/e2e/oauth4webapi-flow.test.ts test/e2e/openid-client.test.ts test/mcp test/discovery/metadata.test.ts
done
