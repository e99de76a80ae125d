/** `1 entry`, `2 entries`, `0 entries`: a count and its noun in the right number (English). */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

/**
 * The candidate closest to `word` by edit distance (insertions, deletions, substitutions and swaps of
 * neighbours), if it is close enough to be a typo: one edit in three characters at most (one in a word of
 * up to five, two up to eight, three beyond) and more alike than not. Two edits in four letters are two
 * different words: `nope` is not a mistyped `type`.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    const length = Math.max(word.length, candidate.length);
    const allowed = Math.min(3, Math.max(1, Math.floor(length / 3)));
    if (distance <= allowed && (length - distance) / length > 0.4 && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance (Damerau–Levenshtein without repeated edits of one substring). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]![j] = j;
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
