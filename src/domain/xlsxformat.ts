/**
 * What a number format does beyond the digits, for `domain/xlsxlayout.ts`: a colour (`[Red]`, `[Color 7]`)
 * a reader sees instead of the font's, a literal `,` or `.` written beside the digits (`0","000`: 10500
 * shows `10,500` to every reader, which a Brazilian reads as ten reais fifty), or a bracketed code pix does
 * not know (`[DBNum1]` shows other numerals). Judged on the sections that may show the value: the first for
 * a positive number (the second and third show only negatives and zero), every section under a condition.
 */

/** One section of a format (between `;`), as pix judges it. */
interface Section {
  colour?: string;
  unknown?: string;
  condition: boolean;
  /** Literal text beside a digit placeholder (`","` in `0","000`). */
  separator?: string;
}

const COLOURS = /^(?:black|blue|cyan|green|magenta|red|white|yellow|colou?r\s*\d+)$/i;
const CONDITION = /^(?:<=|>=|<>|<|>|=)\s*[-+]?\d/;
const ELAPSED = /^(?:h+|m+|s+)$/i;

function sections(code: string): Section[] {
  const out: Section[] = [];
  let section: Section = { condition: false };
  // The previous token: a digit placeholder, a literal (its text), or anything else.
  let previous: { kind: 'digit' } | { kind: 'literal'; text: string } | undefined;
  const literal = (text: string) => {
    if (previous?.kind === 'digit' && /^[,.]/.test(text)) section.separator ??= text;
    previous = { kind: 'literal', text };
  };
  for (let i = 0; i < code.length; i++) {
    const char = code[i]!;
    if (char === ';') {
      out.push(section);
      section = { condition: false };
      previous = undefined;
    } else if (char === '"') {
      const end = code.indexOf('"', i + 1);
      literal(code.slice(i + 1, end === -1 ? code.length : end));
      i = end === -1 ? code.length : end;
    } else if (char === '\\' || char === '*') {
      // An escaped character is shown as it is; `*x` repeats x across the cell.
      literal(code[i + 1] ?? '');
      i++;
    } else if (char === '_') {
      i++; // a space as wide as the next character: nothing shown
      previous = undefined;
    } else if (char === '[') {
      const end = code.indexOf(']', i + 1);
      const inside = code.slice(i + 1, end === -1 ? code.length : end);
      i = end === -1 ? code.length : end;
      if (COLOURS.test(inside)) section.colour ??= `[${inside}]`;
      else if (CONDITION.test(inside)) section.condition = true;
      else if (inside.startsWith('$')) {
        // `[$R$-416]`: a currency text (before the `-`) and a locale.
        const dash = inside.indexOf('-', 1);
        const text = inside.slice(1, dash === -1 ? inside.length : dash);
        if (text !== '') literal(text);
      } else if (!ELAPSED.test(inside)) section.unknown ??= `[${inside}]`;
    } else if (char === '0' || char === '#' || char === '?') {
      if (previous?.kind === 'literal' && /[,.]$/.test(previous.text)) section.separator ??= previous.text;
      previous = { kind: 'digit' };
    } else if (char === ',' || char === '.') {
      previous = { kind: 'digit' }; // a separator of the format's own, shown in the reader's notation
    } else {
      previous = undefined;
    }
  }
  out.push(section);
  return out;
}

const cache = new Map<string, Section[]>();

/** The sections of `code` that may show `value` (a number, or text). */
function applicable(code: string, value: number | 'text'): Section[] {
  let all = cache.get(code);
  if (all === undefined) {
    all = sections(code);
    if (cache.size > 1000) cache.clear();
    cache.set(code, all);
  }
  if (all.some((s) => s.condition)) return all;
  const pick = (index: number) => [all[index] ?? all[0]!];
  if (value === 'text') return all.length >= 4 ? [all[0]!, all[3]!] : [all[0]!];
  if (value > 0 || Number.isNaN(value)) return pick(0);
  return value < 0 ? (all.length >= 2 ? pick(1) : pick(0)) : all.length >= 3 ? pick(2) : pick(0);
}

/**
 * Why `code` may show `value` otherwise than every reader would read it, or undefined. `shown` is what ssf
 * shows for it (for the message).
 */
export function formatHazard(
  code: string,
  value: number | 'text',
  shown: string | undefined,
): string | undefined {
  if (/^(?:general|@)$/i.test(code)) return undefined;
  for (const section of applicable(code, value)) {
    if (section.colour !== undefined) {
      return `its number format "${code}" colours the value (${section.colour}): pix does not judge a format's colours; remove the colour from the format (General, or #,##0.00 for an amount)`;
    }
    if (section.unknown !== undefined) {
      return `its number format "${code}" has ${section.unknown}, which pix does not know how every reader shows: use General, or #,##0.00 for an amount`;
    }
    if (section.separator !== undefined) {
      const mark = /[,.]/.exec(section.separator)![0];
      return `its number format "${code}" writes a literal "${mark}" among the digits${shown === undefined ? '' : ` ("${shown}")`}: a reader takes it for a separator and reads another amount; use #,##0.00, whose separators each reader sees in their own notation`;
    }
  }
  return undefined;
}
