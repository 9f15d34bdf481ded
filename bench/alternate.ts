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

/**
 * One value per leg per round, the legs run as `alternating` runs them; the
 * rounds in which every leg gave a value (a leg gives undefined when its
 * scenario was skipped).
 */
export async function completeRounds<R extends object>(
  rounds: number,
  legs: { [K in keyof R]: (round: number) => Promise<R[K] | undefined> },
): Promise<R[]> {
  const measured: Partial<R>[] = Array.from({ length: rounds }, () => ({}));
  const keys = Object.keys(legs) as (keyof R)[];
  await alternating(rounds, keys, async (key, i) => {
    const value = await legs[key](i);
    if (value !== undefined) measured[i]![key] = value;
  });
  return measured.filter((r): r is R => keys.every((k) => r[k] !== undefined));
}
