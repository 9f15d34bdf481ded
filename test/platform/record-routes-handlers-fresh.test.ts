/**
 * The handlers of the generic record routes, on a server started inside the
 * test (they are bound while it is built): create, read, list with paging,
 * search and filters, change and delete answer with the record.
 */
import { describe, expect, it } from 'vitest';
import { startRecordsServer } from '../helpers/records.ts';

describe('record route handlers', () => {
  it('create, read, list, change and delete a course', async () => {
    const { server, owner, anonymous } = await startRecordsServer('sqlite');
    try {
      const made = await owner('POST', '/courses', { title: 'Handler Probe Alpha', level: 'advanced', language: 'de', status: 'published' });
      expect(made.status, made.text).toBe(201);
      expect(made.json).toMatchObject({ title: 'Handler Probe Alpha', slug: 'handler-probe-alpha', level: 'advanced', language: 'de', status: 'published' });
      const id = made.json.id as string;
      const other = await owner('POST', '/courses', { title: 'Handler Probe Beta', level: 'beginner', status: 'draft' });
      expect(other.status, other.text).toBe(201);

      const read = await owner('GET', `/courses/${id}`);
      expect(read.status, read.text).toBe(200);
      expect(read.json).toEqual(made.json);

      const first = await owner('GET', '/courses?limit=1');
      expect(first.status, first.text).toBe(200);
      expect(first.data).toHaveLength(1);
      expect(first.json.next_cursor).toEqual(expect.any(String));
      const second = await owner('GET', `/courses?limit=1&cursor=${encodeURIComponent(first.json.next_cursor as string)}`);
      expect(second.status, second.text).toBe(200);
      expect([first.data[0]!.id, second.data[0]!.id].sort()).toEqual([id, other.json.id].sort());
      expect((await owner('GET', '/courses?q=Beta')).data.map((r) => r.id)).toEqual([other.json.id]);
      expect((await owner('GET', '/courses?level=advanced')).data.map((r) => r.id)).toEqual([id]);
      expect((await owner('GET', '/courses?language=de&status=published')).data.map((r) => r.id)).toEqual([id]);
      expect((await anonymous('GET', '/courses')).data.map((r) => r.id)).toEqual([id]);

      const changed = await owner('PATCH', `/courses/${id}`, { title: 'Handler Probe Gamma' });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.json).toMatchObject({ id, title: 'Handler Probe Gamma', slug: 'handler-probe-alpha', level: 'advanced' });

      const gone = await owner('DELETE', `/courses/${id}`);
      expect({ status: gone.status, text: gone.text }).toEqual({ status: 204, text: '' });
      expect((await owner('GET', `/courses/${id}`)).status).toBe(404);
    } finally {
      await server.stop();
    }
  });
});
