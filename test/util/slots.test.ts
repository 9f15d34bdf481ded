/**
 * Slots, which bounds the outbound requests' DNS lookups: never more tasks
 * at once than its size, waiters in order, and a waiter whose deadline
 * passes leaves without running, while a started task keeps its place.
 */
import { describe, expect, it } from 'vitest';
import { Slots } from '../../src/util/slots.ts';

/** A task that runs until released, recording that it started. */
function held(started: string[], name: string) {
  let release!: (v: string) => void;
  const done = new Promise<string>((r) => (release = r));
  return { task: () => (started.push(name), done), release: () => release(name) };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('Slots', () => {
  it('runs at most its size at once; the next starts when one settles, in order', async () => {
    const slots = new Slots(2);
    const started: string[] = [];
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => held(started, n));
    const never = new AbortController().signal;
    const runs = [a, b, c, d].map((t) => slots.run(t!.task, never));
    await tick();
    expect(started).toEqual(['a', 'b']);
    b!.release();
    await tick();
    expect(started).toEqual(['a', 'b', 'c']);
    a!.release();
    c!.release();
    await tick();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    d!.release();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a waiter whose signal aborts leaves without running; a started task keeps its place until it settles', async () => {
    const slots = new Slots(1);
    const started: string[] = [];
    const hung = held(started, 'hung');
    const deadline = new AbortController();
    const first = slots.run(hung.task, deadline.signal);
    const waiting = slots.run(held(started, 'late').task, deadline.signal);
    deadline.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    // An aborted signal does not free the place the hung task holds.
    const next = held(started, 'next');
    const queued = slots.run(next.task, new AbortController().signal);
    await tick();
    expect(started).toEqual(['hung']);
    hung.release();
    expect(await first).toBe('hung');
    await tick();
    expect(started).toEqual(['hung', 'next']);
    next.release();
    expect(await queued).toBe('next');
    // A signal already aborted never waits.
    await expect(slots.run(held(started, 'x').task, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });

  it('a waiter that got its turn is running: its signal aborting later takes no one else out of the line, and it holds its place', async () => {
    const slots = new Slots(1);
    const started: string[] = [];
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => held(started, n));
    const never = new AbortController().signal;
    const bSignal = new AbortController();
    const runs = [slots.run(a!.task, never), slots.run(b!.task, bSignal.signal), slots.run(c!.task, never)];
    a!.release();
    await tick();
    expect(started).toEqual(['a', 'b']);
    bSignal.abort(new Error('late'));
    // b is running: one at a time, so a new task waits too.
    const late = slots.run(d!.task, never);
    await tick();
    expect(started).toEqual(['a', 'b']);
    b!.release();
    await tick();
    expect(started).toEqual(['a', 'b', 'c']);
    c!.release();
    await tick();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    d!.release();
    expect(await Promise.all([...runs, late])).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a task that fails frees its place', async () => {
    const slots = new Slots(1);
    const never = new AbortController().signal;
    await expect(slots.run(() => Promise.reject(new Error('boom')), never)).rejects.toThrow('boom');
    expect(await slots.run(() => Promise.resolve('ok'), never)).toBe('ok');
  });
});
