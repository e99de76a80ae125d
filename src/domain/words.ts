/** `1 entry`, `2 entries`, `0 entries`: a count and its noun in the right number (English). */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
