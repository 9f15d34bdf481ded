#!/usr/bin/env bash
# Runs the official MCP conformance suite's dns-rebinding-protection server
# scenario against a real Lyceum server (`lyceum serve` on loopback, a fresh
# SQLite file): a Host/Origin of evil.example.com must get a 4xx, the server's
# own Host/Origin a 2xx. The suite comes from the npm registry, pinned, and
# runs on Node.js 22 from the registry; the server runs on this machine's Node.
set -euo pipefail
cd "$(dirname "$0")/.."
CONFORMANCE_VERSION=0.1.16
SCENARIO=dns-rebinding-protection

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

# The suite writes its results/ under the working directory: keep them out of the checkout.
if ! (cd "$work" && npx -y -p node@22 -p "@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}" \
  conformance server --url "http://127.0.0.1:$port/mcp" --scenario "$SCENARIO"); then
  echo "MCP conformance ($SCENARIO) failed; the server's log:"; cat "$work/serve.log"; exit 1
fi
