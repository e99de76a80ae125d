import { describe, expect, it } from 'vitest';
import { bcbMaskDocument } from '../../src/domain/documents.js';
import { decodeEndToEnd } from '../../src/domain/endtoend.js';

describe('endToEndId', () => {
  it('decodes the ISPB and the UTC minute', () => {
    expect(decodeEndToEnd('E18236120202603101405abcDEF12345')).toEqual({
      endToEndId: 'E18236120202603101405abcDEF12345',
      ispb: '18236120',
      createdAt: '2026-03-10T14:05:00.000Z',
      sequence: 'abcDEF12345',
    });
  });
  it('refuses what is not one', () => {
    expect(() => decodeEndToEnd('E1823612020260310140')).toThrow(/not an endToEndId/);
    expect(() => decodeEndToEnd('E18236120202602301405abcDEF12345')).toThrow(/does not exist/);
  });
});

describe("the BCB's mask", () => {
  it('hides a CPF but for its middle digits, shows a CNPJ whole', () => {
    expect(bcbMaskDocument('52998224725')).toBe('***.982.247-**');
    expect(bcbMaskDocument('04.252.011/0001-10')).toBe('04.252.011/0001-10');
    expect(bcbMaskDocument('***.982.247-**')).toBe('***.982.247-**');
  });
});
