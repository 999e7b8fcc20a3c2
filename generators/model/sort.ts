/** The one comparator used for every ordering in generated output, so that output never depends on locale or insertion order. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Entries of an object sorted by key with `compareStrings`. */
export function sortedEntries<T>(record: Record<string, T> | undefined | null): Array<[string, T]> {
  return Object.entries(record ?? {}).sort(([a], [b]) => compareStrings(a, b));
}

/** A sorted copy of a list, by a string key. */
export function sortBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  return [...items].sort((a, b) => compareStrings(key(a), key(b)));
}
