import { describe, expect, it } from 'vitest';
import { FAULT_ENDPOINTS, FaultInjector, FaultSpecError, parseFaults } from '../../src/sandbox/faults.js';

describe('parseFaults', () => {
  it('reads every example of the issue', () => {
    expect(
      parseFaults('transfer:timeout,statement:503x2,keys:reset,charge:html502,emv:badjson,dict:429'),
    ).toEqual([
      { endpoint: 'transfer', kind: 'timeout', times: undefined },
      { endpoint: 'statement', kind: '503', times: 2 },
      { endpoint: 'keys', kind: 'reset', times: undefined },
      { endpoint: 'charge', kind: '502html', times: undefined },
      { endpoint: 'emv', kind: 'badjson', times: undefined },
      { endpoint: 'dict', kind: '429', times: undefined },
    ]);
  });

  it('accepts 502html, 500, wrongshape, auth, spaces and an empty spec', () => {
    expect(parseFaults(' auth:500 , keys:502htmlx1, emv:wrongshape ')).toEqual([
      { endpoint: 'auth', kind: '500', times: undefined },
      { endpoint: 'keys', kind: '502html', times: 1 },
      { endpoint: 'emv', kind: 'wrongshape', times: undefined },
    ]);
    expect(parseFaults('')).toEqual([]);
  });

  it('expands all to every endpoint', () => {
    const rules = parseFaults('all:500x3');
    expect(rules.map((rule) => rule.endpoint)).toEqual([...FAULT_ENDPOINTS]);
    expect(rules.every((rule) => rule.kind === '500' && rule.times === 3)).toBe(true);
  });

  it.each([
    ['statement', /ENDPOINT:KIND/],
    ['balance:500', /unknown endpoint "balance"/],
    ['statement:418', /unknown fault "418"/],
    ['statement:503x0', /at least x1/],
    ['statement:503,statement:429', /already has a fault/],
    ['statement:503x', /ENDPOINT:KIND|unknown fault/],
  ])('rejects %s', (spec, message) => {
    expect(() => parseFaults(spec)).toThrow(FaultSpecError);
    expect(() => parseFaults(spec)).toThrow(message);
  });
});

describe('FaultInjector', () => {
  it('fails only the first N requests of an endpoint, and every request without xN', () => {
    const injector = FaultInjector.fromSpec('statement:503x2,keys:reset');
    expect([1, 2, 3, 4].map(() => injector.next('statement'))).toEqual(['503', '503', undefined, undefined]);
    expect([1, 2, 3].map(() => injector.next('keys'))).toEqual(['reset', 'reset', 'reset']);
    expect(injector.next('transfer')).toBeUndefined();
  });

  it('is inactive without a spec', () => {
    expect(FaultInjector.fromSpec(undefined).active).toBe(false);
    expect(FaultInjector.fromSpec('dict:429').active).toBe(true);
  });
});
