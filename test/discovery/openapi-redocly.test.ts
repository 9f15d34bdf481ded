/**
 * The served /openapi.json through the linter client generators and API
 * portals run, with its recommended rules: no errors (a `security` naming an
 * undefined scheme, an operation without an operationId...). The one warning
 * allowed is the license's missing `url`: the document names the license
 * (MIT) but links nowhere outside the server. The rules are the tool's, not
 * restated here; openapi-lint.test.ts states the ones that matter by hand.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const cli = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

describe('/openapi.json under the recommended OpenAPI lint rules', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(() => server.close());

  it('has no errors and no warnings', async () => {
    const res = await fetch(`${server.issuer}/openapi.json`);
    expect(res.status).toBe(200);
    const file = join(mkdtempSync(join(tmpdir(), 'lyceum-openapi-')), 'openapi.json');
    writeFileSync(file, await res.text());
    const run = await promisify(execFile)(process.execPath, [cli, 'lint', file, '--format=json', '--max-problems=1000'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      timeout: 60_000,
    });
    const report = JSON.parse(run.stdout) as LintReport;
    const found = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(found).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 90_000);
});
