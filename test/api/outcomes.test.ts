import { describe, expect, it } from 'vitest';
import {
  chargeVerdict,
  FAILURE_STATUSES,
  kindForStatus,
  TRANSFER_ACCEPTED_STATUSES,
  transferVerdict,
} from '../../src/api/outcomes.js';
import { chargeAnomalies, describeAnomalies, transferAnomalies } from '../../src/domain/anomalies.js';
import { type ErrorKind, PixError } from '../../src/errors.js';
import { journalStateOf } from '../../src/journal/rules.js';

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

describe('answers checked against requests', () => {
  const sent = { endToEndId: 'E1', amountCentavos: 1000 };

  it('a transfer answer as sent, or without amount and endToEndId, has no anomaly', () => {
    expect(transferAnomalies(sent, { id: 't', endToEndId: 'E1', amount: 10, fee: 0 })).toEqual([]);
    expect(transferAnomalies(sent, { id: 't' })).toEqual([]);
    // Large amounts compare exactly: the request wrote centavos / 100, JSON reads the same double.
    expect(
      transferAnomalies({ endToEndId: 'E1', amountCentavos: 29200588096 }, { id: 't', amount: 292005880.96 }),
    ).toEqual([]);
  });

  it('another amount, another endToEndId, no id: each named with both values', () => {
    const anomalies = transferAnomalies(sent, { endToEndId: 'E2', amount: 1000, fee: 7.5, id: '' });
    expect(anomalies).toEqual([
      { field: 'amount', sent: 10, got: 1000, fee: 7.5 },
      { field: 'endToEndId', sent: 'E1', got: 'E2' },
      { field: 'id', sent: null, got: '' },
    ]);
    expect(describeAnomalies(anomalies, 'transfer')).toBe(
      'amount: sent R$ 10,00, the server answered R$ 1.000,00 with a fee of R$ 7,50; endToEndId: sent "E1", the server answered "E2"; no transfer id in the answer',
    );
    expect(transferAnomalies(sent, { id: 't', amount: '10.00' })).toEqual([
      { field: 'amount', sent: 10, got: '10.00' },
    ]);
    expect(transferAnomalies(sent, { id: 't', amount: 10.001 })[0]?.got).toBe(10.001);
  });

  it('a charge: another amount or key id, a missing id; a key id in another case is the same', () => {
    const request = { amountCentavos: 500, keyId: 'ABC' };
    expect(chargeAnomalies(request, { id: 'c', amount: 5, pixKeyId: 'abc' })).toEqual([]);
    expect(chargeAnomalies(request, { id: 'c', amount: 5 })).toEqual([]);
    expect(chargeAnomalies(request, { id: ' ', amount: 50, pixKeyId: 'xyz' })).toEqual([
      { field: 'amount', sent: 5, got: 50 },
      { field: 'pixKeyId', sent: 'ABC', got: 'xyz' },
      { field: 'id', sent: null, got: ' ' },
    ]);
    // A long server text is kept cut short.
    const long = chargeAnomalies(request, { id: 'c', amount: 5, pixKeyId: 'k'.repeat(500) });
    expect(String(long[0]?.got)).toHaveLength(121);
  });
});
