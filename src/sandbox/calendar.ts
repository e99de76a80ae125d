/**
 * Business days for due-date charges: not Saturday or Sunday, and not a Brazilian national holiday,
 * Carnaval (Monday, Tuesday) or Corpus Christi, the days the financial system does not settle.
 * Loaded lazily: only consulting a due-date charge needs it.
 */
import type { BusinessDayTest } from './duedate.js';

let cached: BusinessDayTest | undefined;

export async function loadBusinessDayTest(): Promise<BusinessDayTest> {
  if (cached) return cached;
  const { isBusinessDay } = await import('@brazilian-utils/brazilian-utils');
  const memo = new Map<string, boolean>();
  cached = (date: string) => {
    let answer = memo.get(date);
    if (answer === undefined) {
      const [year, month, day] = date.split('-').map(Number) as [number, number, number];
      // National holidays plus Carnaval and Corpus Christi (no banking on them); the library reads the local calendar day of the Date it is given.
      answer = isBusinessDay(new Date(year, month - 1, day));
      memo.set(date, answer);
    }
    return answer;
  };
  return cached;
}
