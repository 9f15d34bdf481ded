/**
 * Asking before destroying, with the MCP SDK's v2 client over real HTTP on
 * each store: a destructive tool asks the person (an `input_required`
 * result with one yes/no form, protocol revision 2026-07-28) when the client
 * can show a form; "yes" removes, "no" removes nothing; both answers are in
 * the activity log with the app. A client that cannot ask is not asked, and
 * an answer sent without this server's question is not taken.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { ALL_SCOPES, api, tokenSource } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number | boolean> };

describe.each(STORE_KINDS)('MCP asks before destroying (%s)', (kind) => {
  let server: FlowServer;
  let token: string;
  const asked: { message: string; schema: unknown }[] = [];
  let answer: Answer = { action: 'accept', content: { confirm: true } };

  beforeAll(async () => {
    server = await startFlowServer(kind);
    token = await tokenSource(server)(ALL_SCOPES);
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** A v2 client with the token; with `canAsk`, one that shows forms and answers with `answer`; `capabilities` replaces what it declares. */
  async function connect(canAsk: boolean, capabilities?: Record<string, unknown>): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.issuer}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    // Pinned to the revision whose tool results can ask for input (input_required).
    const client = new Client(
      { name: 'confirmation-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, ...(capabilities ? { capabilities } : canAsk ? { capabilities: { elicitation: { form: {} } } } : {}) },
    );
    if (canAsk) {
      client.setRequestHandler('elicitation/create', (request) => {
        const params = request.params as { message: string; requestedSchema: unknown };
        asked.push({ message: params.message, schema: params.requestedSchema });
        return answer;
      });
    }
    await client.connect(transport);
    return client;
  }

  const newCourse = async () => {
    const res = await api(server.issuer, 'POST', '/courses', { token, body: { title: 'To be removed' } });
    expect(res.status).toBe(201);
    return res.json.id as string;
  };
  const exists = async (id: string) => (await api(server.issuer, 'GET', `/courses/${id}`, { token })).status === 200;
  const logOf = async (id: string) =>
    ((await api(server.issuer, 'GET', `/activity?record_id=${id}`, { token })).json.data as { event: string; operation: string; fields: string[]; client: { id: string } | null }[]).map((e) => [
      e.event,
      e.operation,
      e.fields,
    ]);

  it('asks the person once; "yes" removes the record and both are logged', async () => {
    const client = await connect(true);
    try {
      const id = await newCourse();
      asked.length = 0;
      answer = { action: 'accept', content: { confirm: true } };
      const result = (await client.callTool({ name: 'delete_record', arguments: { id } })) as CallResult;
      expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
      expect(asked).toHaveLength(1);
      expect(asked[0]!.message).toContain(`course ${id}`);
      expect(asked[0]!.schema).toMatchObject({ type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] });
      expect(await exists(id)).toBe(false);
      expect(await logOf(id)).toEqual([
        ['record.deleted', 'delete_record', []],
        ['confirmation.answered', 'delete_record', ['accepted']],
        ['record.created', 'createCourse', ['title']],
      ]);
    } finally {
      await client.close();
    }
  });

  it.each<[string, Answer]>([
    ['declines', { action: 'decline' }],
    ['cancels', { action: 'cancel' }],
    ['unticks the box', { action: 'accept', content: { confirm: false } }],
  ])('removes nothing when the person %s, and logs the answer', async (_, given) => {
    const client = await connect(true);
    try {
      const id = await newCourse();
      answer = given;
      const result = (await client.callTool({ name: 'delete_record', arguments: { id } })) as CallResult;
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toBe(`Nothing was removed: the person declined to remove course ${id}.`);
      expect(await exists(id)).toBe(true);
      expect(await logOf(id)).toEqual([
        ['confirmation.answered', 'delete_record', ['declined']],
        ['record.created', 'createCourse', ['title']],
      ]);
    } finally {
      await client.close();
    }
  });

  it('does not ask for a dry run, and a client that cannot ask is not asked: the tool is marked destructive for it', async () => {
    const asking = await connect(true);
    const plain = await connect(false);
    try {
      const id = await newCourse();
      asked.length = 0;
      expect(((await asking.callTool({ name: 'delete_record', arguments: { id, dry_run: true } })) as CallResult).isError ?? false).toBe(false);
      expect(asked).toEqual([]);
      const tools = (await plain.listTools()).tools;
      expect(tools.find((t) => t.name === 'delete_record')?.annotations?.destructiveHint).toBe(true);
      expect(((await plain.callTool({ name: 'delete_record', arguments: { id } })) as CallResult).isError ?? false).toBe(false);
      expect(asked).toEqual([]);
      expect(await exists(id)).toBe(false);
      expect((await logOf(id)).map(([event]) => event)).toEqual(['record.deleted', 'record.created']);
    } finally {
      await asking.close();
      await plain.close();
    }
  });

  it('takes no answer it did not ask for: unasked, or carried over from a question about another record', async () => {
    const client = await connect(true);
    try {
      const [a, b] = [await newCourse(), await newCourse()];
      const yes = { confirm: { action: 'accept', content: { confirm: true } } };
      // Kept by hand rather than by the client's own driver: each answer is what the call carries.
      const call = async (id: string, extra: Record<string, unknown> = {}) =>
        (await client.request({ method: 'tools/call', params: { name: 'delete_record', arguments: { id }, ...extra } }, { allowInputRequired: true })) as unknown as Record<string, unknown>;
      const unasked = await call(a, { inputResponses: yes });
      expect(unasked.resultType).toBe('input_required');
      const question = await call(a);
      expect(question).toMatchObject({ resultType: 'input_required', requestState: expect.any(String), inputRequests: { confirm: { method: 'elicitation/create' } } });
      const carriedOver = await call(b, { inputResponses: yes, requestState: question.requestState });
      expect(carriedOver.resultType).toBe('input_required');
      const tampered = await call(a, { inputResponses: yes, requestState: `${String(question.requestState).slice(0, -4)}AAAA` });
      expect(tampered.resultType).toBe('input_required');
      expect([await exists(a), await exists(b)]).toEqual([true, true]);
      const answered = await call(a, { inputResponses: yes, requestState: question.requestState });
      expect(answered.isError ?? false).toBe(false);
      expect([await exists(a), await exists(b)]).toEqual([false, true]);
    } finally {
      await client.close();
    }
  });

  it('takes no answer after ten minutes: the question is asked again', async () => {
    const client = await connect(true);
    const thaw = server.freezeClock();
    try {
      const id = await newCourse();
      const yes = { confirm: { action: 'accept', content: { confirm: true } } };
      const call = async (extra: Record<string, unknown> = {}) =>
        (await client.request({ method: 'tools/call', params: { name: 'delete_record', arguments: { id }, ...extra } }, { allowInputRequired: true })) as unknown as Record<string, unknown>;
      const question = await call();
      server.advance(10 * 60_000);
      expect((await call({ inputResponses: yes, requestState: question.requestState })).resultType).toBe('input_required');
      expect(await exists(id)).toBe(true);
      const again = await call();
      server.advance(10 * 60_000 - 1);
      expect((await call({ inputResponses: yes, requestState: again.requestState })).isError ?? false).toBe(false);
      expect(await exists(id)).toBe(false);
    } finally {
      thaw();
      await client.close();
    }
  });

  it('does not ask a client that takes only URL-mode questions: a yes/no form is not one it can show', async () => {
    const client = await connect(false, { elicitation: { url: {} } });
    try {
      const id = await newCourse();
      expect(((await client.callTool({ name: 'delete_record', arguments: { id } })) as CallResult).isError ?? false).toBe(false);
      expect(await exists(id)).toBe(false);
    } finally {
      await client.close();
    }
  });
});
