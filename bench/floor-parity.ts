/**
 * Checks that the floor answers what Lyceum answers: the first request of a
 * floor scenario, sent once to each server, must get the same status, the
 * same response headers and the same JSON (fields that are fresh on every
 * request compared by presence). Returns the differences, empty when none.
 */
import { isDeepStrictEqual } from 'node:util';
import type { FloorScenario } from './floor-scenarios.ts';
import type { ServerContext } from './scenarios.ts';

/** Set per response by the HTTP layer, not by the endpoint. */
const PER_RESPONSE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

async function ask(s: FloorScenario, ctx: ServerContext, origin: string): Promise<Answer> {
  const prepared = await s.prepare(ctx);
  if ('skip' in prepared) throw new Error(`${s.id}: ${prepared.skip}`);
  const step = prepared.requests[0]!;
  const context: Record<string, unknown> = {};
  const req = step.setupRequest?.(step, context) ?? step;
  const res = await fetch(origin + (req.path ?? '/'), { method: req.method ?? 'GET', headers: req.headers ?? {}, ...(req.body !== undefined ? { body: req.body } : {}) });
  const text = await res.text();
  const headers = Object.fromEntries([...res.headers].filter(([name]) => !PER_RESPONSE.has(name)));
  // Gives a rotated refresh token's successor back to the pool, as during the load.
  step.onResponse?.(res.status, text, context, headers);
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* compared as text */
  }
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const key of s.volatile) if (key in body) (body as Record<string, unknown>)[key] = '(fresh)';
  }
  return { status: res.status, headers, body };
}

export async function floorParity(s: FloorScenario, ctx: ServerContext, lyceumUrl: string, floorUrl: string): Promise<string[]> {
  const [lyceum, floor] = [await ask(s, ctx, lyceumUrl), await ask(s, ctx, floorUrl)];
  const out: string[] = [];
  if (lyceum.status !== floor.status) out.push(`status ${floor.status}, Lyceum ${lyceum.status}`);
  const names = new Set([...Object.keys(lyceum.headers), ...Object.keys(floor.headers)]);
  for (const name of [...names].sort()) {
    if (lyceum.headers[name] !== floor.headers[name]) out.push(`header ${name}: ${floor.headers[name] ?? '(none)'}, Lyceum ${lyceum.headers[name] ?? '(none)'}`);
  }
  if (!isDeepStrictEqual(lyceum.body, floor.body)) out.push(`body ${JSON.stringify(floor.body).slice(0, 200)}, Lyceum ${JSON.stringify(lyceum.body).slice(0, 200)}`);
  return out.map((d) => `${s.id} differs from ${s.of}: ${d}`);
}
