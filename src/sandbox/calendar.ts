/**
 * Business days for due-date charges, from src/domain/calendar.ts: not Saturday or Sunday, not a
 * Brazilian national holiday, not Carnaval (Monday, Tuesday) or Corpus Christi.
 * Loaded lazily: only due-date amounts need it.
 */
import type { BusinessDayTest } from './duedate.js';

let cached: BusinessDayTest | undefined;

export async function loadBusinessDayTest(): Promise<BusinessDayTest> {
  if (cached) return cached;
  const { isBusinessDay } = await import('../domain/calendar.js');
  const memo = new Map<string, boolean>();
  cached = (date: string) => {
    let answer = memo.get(date);
    if (answer === undefined) {
      answer = isBusinessDay(date);
      memo.set(date, answer);
    }
    return answer;
  };
  return cached;
}
