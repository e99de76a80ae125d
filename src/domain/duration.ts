import { InvalidValue } from './invalid.js';

export type DurationUnit = 's' | 'm' | 'h' | 'd';

export interface Duration {
  value: number;
  unit: DurationUnit;
  milliseconds: number;
}

const UNIT_MS: Record<DurationUnit, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `30m`, `2h`, `1d`: a positive whole number and one unit. */
export function parseDuration(text: string): Duration {
  const match = /^(\d{1,9})([smhd])$/.exec(text.trim());
  if (!match) {
    if (/^-/.test(text.trim())) throw new InvalidValue(`"${text}" is negative; use e.g. 30m`);
    throw new InvalidValue(`"${text}" is not a duration (use 90s, 30m, 2h or 1d)`);
  }
  const value = Number(match[1]);
  const unit = match[2] as DurationUnit;
  if (value === 0) throw new InvalidValue(`"${text}" must be longer than zero`);
  return { value, unit, milliseconds: value * UNIT_MS[unit] };
}
