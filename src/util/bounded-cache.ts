/**
 * A get-or-make cache of at most `limit` entries, for values that never
 * change for their key (a prepared statement for its SQL, a compiled query
 * for its shape, a scope set for its string). When full, the oldest entry
 * goes. Oldest, not least recently used: reordering the entries on every hit
 * cost more on the request path than making a dropped value again now and then.
 */
export function boundedCache<K, V>(limit: number): (key: K, make: (key: K) => V) => V {
  const entries = new Map<K, V>();
  return (key, make) => {
    let value = entries.get(key);
    if (value === undefined) {
      value = make(key);
      if (entries.size >= limit) entries.delete(entries.keys().next().value!);
      entries.set(key, value);
    }
    return value;
  };
}
