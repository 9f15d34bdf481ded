#!/usr/bin/env bash
# Runs the real-client end-to-end tests on Node.js 22 and 24 (from the npm
# registry) against PostgreSQL: each OAuth, OIDC and MCP client library signs
# in and calls the server. The whole suite runs on the machine's Node.js; these
# files are the ones where a runtime difference would show (fetch, crypto,
# child processes, the SDKs' transports). SQLite needs better-sqlite3 compiled for the
# running Node ABI, which `npm install` on that version provides; this machine
# has no headers to compile it for other versions, so those runs use PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${TEST_DATABASE_URL:?TEST_DATABASE_URL must point at PostgreSQL}"
for major in 22 24; do
  node_bin="$(npx -y -p "node@${major}" node -e 'process.stdout.write(process.execPath)')"
  echo "== Node $("$node_bin" --version): OAuth, OIDC and MCP clients end to end (PostgreSQL store)"
  TEST_STORES=postgres "$node_bin" node_modules/vitest/vitest.mjs run \
    test/e2e/oauth4webapi-flow.test.ts test/e2e/openid-client.test.ts test/discovery/metadata.test.ts \
    test/mcp/mcp-oauth.test.ts test/mcp/mcp-client-v2.test.ts test/mcp/mcp-remote.test.ts \
    test/mcp/mcp-inspector-cli.test.ts test/mcp/mcp-client-metadata-document.test.ts
done

# The production bundle (dist/lyceum.js, from `npm run build`) starts and serves on each version too.
# Each start gets a fresh database of its own next to the test database.
if [ -f dist/lyceum.js ]; then
  admin_url="$TEST_DATABASE_URL"
  for major in 22 24; do
    db="lyceum_bundle_node${major}"
    psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
    db_url="${TEST_DATABASE_URL%/*}/$db"
    node_bin="$(npx -y -p "node@${major}" node -e 'process.stdout.write(process.execPath)')"
    # A port the system reports free now: a fixed one can be taken by any client connection's
    # ephemeral port (one to PostgreSQL held 39022 once, and the server could not listen).
    port="$("$node_bin" -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { process.stdout.write(String(s.address().port)); s.close(); })')"
    log="$(mktemp)"
    DATABASE_URL="$db_url" KEYS_SECRET=ci-keys-secret-0123456789abcdef0123456789 PORT=$port HOST=127.0.0.1 LOG_LEVEL=warn \
      "$node_bin" dist/lyceum.js serve >"$log" 2>&1 &
    pid=$!
    ok=""
    for _ in $(seq 1 100); do
      if curl -sf "http://127.0.0.1:$port/.well-known/openid-configuration" >/dev/null; then ok=1; break; fi
      sleep 0.1
    done
    courses="$(curl -sf "http://127.0.0.1:$port/api/v1/courses?limit=1" || true)"
    # The server may have exited already (it could not start): its log below says why.
    kill "$pid" 2>/dev/null || true
    wait "$pid" || true
    psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $db"
    if [ -z "$ok" ] || [[ "$courses" != *'"data"'* ]]; then
      echo "dist/lyceum.js did not serve on Node $("$node_bin" --version):"; cat "$log"; exit 1
    fi
    echo "== Node $("$node_bin" --version): dist/lyceum.js serves discovery and the catalog (PostgreSQL store)"
  done
fi
