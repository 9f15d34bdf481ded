/**
 * A value now, or a promise of it. SQLite answers a read synchronously in
 * this process, PostgreSQL over the network: the lookups on every protected
 * request's path return what the store has, and their callers continue at
 * once when it is a value, without a turn of the microtask queue per step.
 * The stores' failures stay rejected promises.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next` applied to `value` at once, or when its promise resolves; a throw in `next` is thrown (or rejected) alike. */
export function whenReady<T, R>(value: MaybePromise<T>, next: (resolved: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
