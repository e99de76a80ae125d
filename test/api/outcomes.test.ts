import { describe, expect, it } from 'vitest';
import {
  chargeVerdict,
  FAILURE_STATUSES,
  journalStateOf,
  kindForStatus,
  TRANSFER_ACCEPTED_STATUSES,
  transferVerdict,
} from '../../src/api/outcomes.js';
import { type ErrorKind, PixError } from '../../src/errors.js';

describe('a non-2xx status → the contract kind (§4), by what it proves', () => {
  it.each([
    // Writes: only 400, 401, 403, 404, 422 (and 429: refused before applying) prove nothing was applied.
    [400, true, 'rejected'],
    [401, true, 'auth'],
    [403, true, 'auth'],
    [404, true, 'not_found'],
    [422, true, 'rejected'],
    [429, true, 'unavailable'],
    [301, true, 'unknown_outcome'],
    [302, true, 'unknown_outcome'],
    [307, true, 'unknown_outcome'],
    [405, true, 'unknown_outcome'],
    [408, true, 'unknown_outcome'],
    [409, true, 'unknown_outcome'],
    [410, true, 'unknown_outcome'],
    [425, true, 'unknown_outcome'],
    [499, true, 'unknown_outcome'],
    [500, true, 'unknown_outcome'],
    [502, true, 'unknown_outcome'],
    [503, true, 'unknown_outcome'],
    [504, true, 'unknown_outcome'],
    // Reads change nothing: failures are unavailable or a refusal.
    [400, false, 'rejected'],
    [401, false, 'auth'],
    [403, false, 'auth'],
    [404, false, 'not_found'],
    [409, false, 'rejected'],
    [422, false, 'rejected'],
    [302, false, 'unavailable'],
    [408, false, 'unavailable'],
    [429, false, 'unavailable'],
    [500, false, 'unavailable'],
    [503, false, 'unavailable'],
  ] as const)('%i (write: %s) → %s', (status, write, kind) => {
    expect(kindForStatus(status, write)).toBe(kind);
  });
});

describe('a 2xx transfer: applied, refused or unknown by its status', () => {
  it.each(['PENDING', 'COMPLETED', 'CONFIRMED', 'PROCESSING', 'pending', ' Completed '])(
    '%j → applied',
    (status) => {
      expect(transferVerdict({ status })).toEqual({ applied: true });
    },
  );
  it.each(['REJECTED', 'FAILED', 'ERROR', 'CANCELED', 'CANCELLED', 'DENIED', 'rejected'])(
    '%j → refused',
    (status) => {
      expect(transferVerdict({ status })).toEqual({ applied: false, status });
    },
  );
  it.each([
    [{ status: 'ON_HOLD_MAYBE' }, 'unknown status "ON_HOLD_MAYBE"'],
    [{ status: '' }, 'the answer carries no status'],
    [{ status: null }, 'the answer carries no status'],
    [{}, 'the answer carries no status'],
  ])('%j → unknown', (result, why) => {
    expect(transferVerdict(result)).toEqual({ applied: 'unknown', why });
  });

  it('the two lists are upper case and do not overlap', () => {
    for (const status of [...FAILURE_STATUSES, ...TRANSFER_ACCEPTED_STATUSES])
      expect(status).toBe(status.toUpperCase());
    for (const status of FAILURE_STATUSES) expect(TRANSFER_ACCEPTED_STATUSES.has(status)).toBe(false);
  });
});

describe('a 2xx charge: it exists unless its status is a failure value', () => {
  it('open statuses are kept; failure values are refusals', () => {
    expect(chargeVerdict({ status: 'PENDING' })).toEqual({ applied: true });
    expect(chargeVerdict({ status: 'ACTIVE' })).toEqual({ applied: true });
    expect(chargeVerdict({ status: 'REJECTED' })).toEqual({ applied: false, status: 'REJECTED' });
  });
});

describe('the journal state an error proves', () => {
  it.each([
    ['usage', 'failed'],
    ['auth', 'failed'],
    ['not_found', 'failed'],
    ['rejected', 'failed'],
    ['unavailable', 'failed'],
    ['interrupted', 'failed'],
    ['unknown_outcome', 'unknown'],
    ['internal', 'unknown'],
    ['declined', 'unknown'],
  ] as Array<[ErrorKind, string]>)('%s → %s', (kind, state) => {
    expect(journalStateOf(new PixError(kind, 'x'))).toBe(state);
  });

  it('anything that is not a PixError (a crash) proves nothing: unknown', () => {
    expect(journalStateOf(new RangeError('Maximum call stack size exceeded'))).toBe('unknown');
    expect(journalStateOf('thrown text')).toBe('unknown');
  });
});
