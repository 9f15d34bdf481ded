/**
 * What each piece of the endpoints' unavoidable work costs alone, with no
 * HTTP around it: each run in a loop, in one process, on the SQLite database
 * of the run (the floor's own prepared statements, bench/floor-db.ts), with
 * the token and client the scenarios use. The budgets that cannot be met
 * are explained with these figures (bench/remedies.ts).
 *
 * WORK_DATABASE: the SQLite file; WORK_TOKEN: a live access token in clear;
 * WORK_CLIENT_ID: its client; WORK_SECONDS: time per piece (default 0.3).
 * Prints {"<piece>": microseconds per call, ...} as JSON.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { generateKeyPair, SignJWT } from 'jose';
import { deriveSecret, newSalt, PREFIX, sha256 } from '../src/oauth/tokens/secrets.ts';
import { openFloorDb } from './floor-db.ts';
import { courseRecord, studentRecord } from './floor-routes.ts';
import type { WorkCosts } from './budgets.ts';

const db = openFloorDb(process.env.WORK_DATABASE!);
const token = process.env.WORK_TOKEN!;
const clientId = process.env.WORK_CLIENT_ID!;
const seconds = Number(process.env.WORK_SECONDS ?? 0.3);

const row = db.token(sha256(token));
if (!row) throw new Error('WORK_TOKEN is not in WORK_DATABASE');
const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048 });

/**
 * Microseconds per call of `piece`: three runs of `seconds` each, the
 * fastest counting (a shared machine only ever slows a run down).
 */
async function cost(piece: () => unknown): Promise<number> {
  await piece();
  const runs: number[] = [];
  for (let r = 0; r < 3; r++) {
    let calls = 0;
    const started = performance.now();
    const until = started + (seconds * 1000) / 3;
    while (performance.now() < until) {
      // Only the signature is asynchronous: awaiting the others would time a microtask with each call.
      const out = piece();
      if (out instanceof Promise) await out;
      calls++;
    }
    runs.push(((performance.now() - started) * 1000) / calls);
  }
  return Math.min(...runs);
}

const now = Date.now();
const costs: WorkCosts = {
  sha256: await cost(() => sha256(token)),
  tokenRow: await cost(() => db.token(sha256(token))),
  userRow: await cost(() => db.user(row.user_id)),
  clientRow: await cost(() => db.client(clientId)),
  // A first page of 20 as the floor answers it (one row more says whether a next page exists).
  studentsPage: await cost(() => JSON.stringify({ data: db.students(21).slice(0, 20).map(studentRecord) })),
  coursesPage: await cost(() => JSON.stringify({ data: db.publishedCourses(21).slice(0, 20).map(courseRecord) })),
  // A committed one-row write (autocommit), as registration's INSERT.
  oneRowCommit: await cost(() =>
    db.insertClient({ id: `${PREFIX.client}${randomBytes(16).toString('base64url')}`, secret_hash: null, metadata: '{"redirect_uris":["http://127.0.0.1/cb"]}', created_at: now }),
  ),
  // A committed two-statement transaction, as the rotation's or the code's (bench/floor-db.ts issueCode).
  twoRowCommit: await cost(() =>
    db.issueCode({
      hash: sha256(randomUUID()),
      client_id: clientId,
      user_id: row.user_id,
      redirect_uri: 'http://127.0.0.1/cb',
      scope: row.scope,
      resource: null,
      nonce: null,
      code_challenge: sha256(randomUUID()),
      auth_time: now,
      family_id: randomUUID(),
      expires_at: now,
      created_at: now,
    }),
  ),
  deriveSecret: await cost(() => deriveSecret(PREFIX.refresh, token, newSalt(), 'refresh')),
  rs256Signature: await cost(() =>
    new SignJWT({ auth_time: Math.floor(now / 1000), at_hash: 'x'.repeat(22) })
      .setProtectedHeader({ alg: 'RS256', kid: 'work', typ: 'JWT' })
      .setIssuer('http://127.0.0.1')
      .setSubject(row.user_id)
      .setAudience(clientId)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey),
  ),
};
process.stdout.write(`${JSON.stringify(costs)}\n`);
// The floor database's maintenance thread would keep the process alive.
process.exit(0);
