/**
 * Alternating rounds: every leg once per round, the order turned by one each
 * round (a, b, c; b, c, a; c, a, b; ...), so no leg is always measured first,
 * right after a given other one, or only while the machine was busy.
 */
export async function alternating<T>(rounds: number, legs: readonly T[], run: (leg: T, round: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    for (let k = 0; k < legs.length; k++) await run(legs[(i + k) % legs.length]!, i);
  }
}
