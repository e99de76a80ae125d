import { expect } from 'vitest';
import { InvalidValue } from '../../src/domain/invalid.js';

/** The reason a domain parser gives for refusing a value; fails the test if it accepts it or throws anything else. */
export function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidValue);
    return (error as Error).message;
  }
  throw new Error('expected an InvalidValue, nothing was thrown');
}

/** The refusal itself (reason and hint) of a domain parser; fails the test if it accepts the value. */
export function refusalOf(fn: () => unknown): InvalidValue {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidValue);
    return error as InvalidValue;
  }
  throw new Error('expected an InvalidValue, nothing was thrown');
}
