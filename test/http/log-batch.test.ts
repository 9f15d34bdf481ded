import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LineBatcher } from '../../src/http/log-batch.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const line = (n: number) => `{"n":${n},"pad":"${'x'.repeat(90)}"}\n`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A batcher on a real asynchronous destination file, as appLogger builds it (stdout there). */
async function batcherOnFile(atChars: number, everyMs: number) {
  const file = join(mkdtempSync(join(tmpdir(), 'lyceum-log-batch-')), 'out.log');
  const destination = pino.destination({ dest: file, sync: false, minLength: 1 });
  await new Promise((resolve) => destination.once('ready', resolve));
  const batcher = new LineBatcher(destination, atChars, everyMs);
  const written = () => readFileSync(file, 'utf8');
  return { batcher, written };
}

describe('LineBatcher', () => {
  it('holds lines until a batch is full, then writes the whole batch in order', async () => {
    const { batcher, written } = await batcherOnFile(1000, 60_000);
    try {
      for (let n = 0; n < 9; n++) batcher.write(line(n)); // 900 characters: below the batch size
      await sleep(100);
      expect(written()).toBe('');
      batcher.write(line(9)); // 1000: a batch
      await new Promise<void>((resolve) => batcher.flush(resolve));
      expect(written()).toBe(Array.from({ length: 10 }, (_, n) => line(n)).join(''));
    } finally {
      await new Promise<void>((resolve) => batcher.close(resolve));
    }
  });

  it('writes a lone line on its timer, without a flush', async () => {
    const { batcher, written } = await batcherOnFile(4096, 50);
    try {
      batcher.write(line(1));
      const deadline = Date.now() + 2000;
      while (written() === '' && Date.now() < deadline) await sleep(10);
      expect(written()).toBe(line(1));
    } finally {
      await new Promise<void>((resolve) => batcher.close(resolve));
    }
  });

  it('close() writes what waits and stops listening for the exit', async () => {
    const before = process.listenerCount('exit');
    const { batcher, written } = await batcherOnFile(4096, 60_000);
    expect(process.listenerCount('exit')).toBe(before + 1);
    batcher.write(line(1));
    batcher.write(line(2));
    await new Promise<void>((resolve) => batcher.close(resolve));
    expect(written()).toBe(line(1) + line(2));
    expect(process.listenerCount('exit')).toBe(before);
  });

  // What waits in the batcher at exit is written synchronously. (A batch already handed to the destination and
  // still being written asynchronously when the process exits can be lost, as with pino's own asynchronous
  // destination; so this stays below one batch.)
  it('an exit without close (process.exit right after logging) still writes the lines waiting in the batch', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'lyceum-log-batch-')), 'exit.log');
    const script = `
      import pino from 'pino';
      import { LineBatcher } from './src/http/log-batch.ts';
      const batcher = new LineBatcher(pino.destination({ dest: ${JSON.stringify(file)}, sync: false, minLength: 1 }), 4096, 60000);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the destination's file is open
      for (let n = 0; n < 30; n++) batcher.write(${JSON.stringify(line(0))}.replace('0', String(n)));
      process.exit(3);`;
    let status = 0;
    try {
      execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: 'pipe' });
    } catch (err) {
      status = (err as { status: number }).status;
    }
    expect(status).toBe(3);
    expect(readFileSync(file, 'utf8')).toBe(Array.from({ length: 30 }, (_, n) => line(n)).join('')); // 3000 characters: one batch, not yet written
  });
});
