/**
 * bench/alternate.ts completeRounds(): every leg once per round, the order
 * turned each round, and only the rounds in which every leg gave a value.
 */
import { describe, expect, it } from 'vitest';
import { completeRounds } from '../../bench/alternate.ts';

describe('completeRounds', () => {
  it('runs the legs in turned order and keeps the rounds where every leg answered', async () => {
    const order: string[] = [];
    const leg = (name: string, skipIn?: number) => async (round: number) => {
      order.push(`${name}${round}`);
      return round === skipIn ? undefined : `${name} of round ${round}`;
    };
    const rounds = await completeRounds<{ a: string; b: string; c: string }>(3, { a: leg('a'), b: leg('b', 1), c: leg('c') });
    expect(order).toEqual(['a0', 'b0', 'c0', 'b1', 'c1', 'a1', 'c2', 'a2', 'b2']);
    expect(rounds).toEqual([
      { a: 'a of round 0', b: 'b of round 0', c: 'c of round 0' },
      { a: 'a of round 2', b: 'b of round 2', c: 'c of round 2' },
    ]);
  });
});
