#!/usr/bin/env bash
# Runs the official MCP conformance suite's server scenarios that apply to
# Lyceum against one real server (`lyceum serve` on loopback, a fresh SQLite
# file). The 2025 revisions: initialize, ping, tools/list, resources/list,
# prompts/list, logging/setLevel, completion/complete and DNS-rebinding
# protection. The 2026-07-28 revision: stateless requests with _meta and
# server/discover, list caching hints, Mcp-Method/Mcp-Name header checks and
# resource-not-found. The suite's other scenarios call tools, prompts and
# resources of its own test server (test_simple_text, test://static-text ...),
# which Lyceum does not have; where a scenario that applies needs one of them,
# it is listed with its reason in mcp-conformance-expected-failures.yml: the
# suite accepts its failure, and fails the run if it passes or any other
# scenario fails.
# The suite comes from the npm registry, pinned, and runs on Node.js 22 from
# the registry; the server runs on this machine's Node.
set -euo pipefail
cd "$(dirname "$0")/.."
CONFORMANCE_VERSION=0.2.0-alpha.12
SCENARIOS="server-initialize ping tools-list resources-list prompts-list logging-set-level completion-complete dns-rebinding-protection server-stateless caching http-header-validation sep-2164-resource-not-found"

work="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A port the system reports free now (a fixed one can be held by another connection).
port="$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { process.stdout.write(String(s.address().port)); s.close(); })')"
DATABASE_URL="$work/lyceum.sqlite" PORT="$port" HOST=127.0.0.1 LOG_LEVEL=warn node bin/lyceum.js serve >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/.well-known/oauth-protected-resource/mcp" >/dev/null && break
  sleep 0.1
done

# One npx for every scenario (its start is most of a scenario's time); each
# scenario runs on its own so that one failure does not hide the others. The
# suite writes its results/ under the working directory: keep them out of the checkout.
url="http://127.0.0.1:$port/mcp"
baseline="$PWD/scripts/mcp-conformance-expected-failures.yml"
run='failed=""; for s in '"$SCENARIOS"'; do conformance server --url "$URL" --scenario "$s" --expected-failures "$BASELINE" || failed="$failed $s"; done; [ -z "$failed" ] || { echo "failed:$failed"; exit 1; }'
if ! (cd "$work" && URL="$url" BASELINE="$baseline" npx -y -p node@22 -p "@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}" -c "$run"); then
  echo "MCP conformance failed; the server's log:"; cat "$work/serve.log"; exit 1
fi
