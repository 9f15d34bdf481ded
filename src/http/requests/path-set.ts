/** A set of route paths: some as written, and everything under some prefixes. */
export interface PathSet {
  exact: readonly string[];
  prefixes: readonly string[];
}

export function inPathSet(paths: PathSet, url: string): boolean {
  return paths.exact.includes(url) || paths.prefixes.some((p) => url.startsWith(p));
}
