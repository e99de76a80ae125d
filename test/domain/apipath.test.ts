import { describe, expect, it } from 'vitest';
import { apiRefusal, apiRetrySafe, parseApiPath, parseHeader } from '../../src/domain/apipath.js';
import { InvalidValue } from '../../src/domain/invalid.js';

describe('pix api: the path checked is the path sent', () => {
  it.each([
    ['/pix/keys', '/pix/keys'],
    ['pix/keys', '/pix/keys'],
    ['/api/financial/v1/pix/keys', '/pix/keys'],
    ['/API/Financial/V1/pix/keys', '/pix/keys'],
    ['/pix//keys/', '/pix/keys'],
    ['\\pix\\keys', '/pix/keys'],
    ['/pix/%6Beys', '/pix/keys'],
  ])('%s → %s', (input, path) => {
    expect(parseApiPath(input).path).toBe(path);
  });

  it('keeps the query as given', () => {
    expect(Object.fromEntries(parseApiPath('/account/transactions?limit=5&offset=10').query)).toEqual({
      limit: '5',
      offset: '10',
    });
  });

  it.each([
    '',
    'https://evil.example/pix/keys',
    '//evil.example/pix/keys',
    '/../auth/token',
    '/%2e%2e/auth/token',
    '/%252e%252e/x',
    '/pix/%E0%A4%A',
    '/pix/keys%0d%0aHost:%20evil',
    '/api/financial/v1',
    '/pix/./keys',
    '/account/x/../transactions',
    '/pix/.../keys',
    '/pix-cash-out;x/transfer',
    '/pix-cash-out./transfer',
    '/pix-cash-out%20/transfer',
    '/pix-cash-out /transfer',
    '/p\u0131x-cash-out/transfer',
    '/pix-cash-out%09/transfer',
    '/api/financial/v1/api/financial/v1/pix-cash-out/transfer',
    '/pix/keys@x',
  ])('refuses %j', (input) => {
    expect(() => parseApiPath(input)).toThrow(InvalidValue);
  });
});

describe('pix api cannot move money', () => {
  const refused = (method: string, path: string) => apiRefusal(method, parseApiPath(path));
  it.each([
    ['POST', '/pix-cash-out/transfer', 'pix pay key|qr|batch'],
    ['POST', '/PIX-CASH-OUT/Transfer', 'pix pay key|qr|batch'],
    ['PUT', '/pix-cash-out/transfer/123', 'pix pay key|qr|batch'],
    ['POST', '/pix/keys', 'its only write is POST to /pix/emv/consult or /pix/dict/consult'],
    ['PUT', '/pix/dict/consult', 'its only write is POST to /pix/emv/consult or /pix/dict/consult'],
    ['POST', '/PIX/DICT/consult', 'its only write is POST to /pix/emv/consult or /pix/dict/consult'],
    ['POST', '/api/financial/v1/pix-cash-in/immediate', 'pix charge immediate'],
    ['PATCH', '/pix-cash-in/duedate', 'pix charge duedate'],
    ['DELETE', '/pix-cash-in/anything', 'pix charge immediate|duedate'],
    ['GET', '/auth/token', 'pix login'],
    ['POST', '/auth/token', 'pix login'],
  ])('%s %s → names %s', (method, path, command) => {
    expect(refused(method, path)).toContain(command);
  });

  it('reads without a body, and POST to the two consultations, are sent; a read with a body is not', () => {
    expect(refused('GET', '/pix-cash-out/transfer')).toBeUndefined();
    expect(refused('HEAD', '/pix/keys')).toBeUndefined();
    expect(refused('POST', '/pix/dict/consult')).toBeUndefined();
    expect(refused('POST', '/api/financial/v1/pix/emv/consult')).toBeUndefined();
    const withBody = (method: string) => apiRefusal(method, parseApiPath('/pix-cash-out/transfer'), true);
    expect(withBody('GET')).toBe('a GET carries no body: only the consultations are sent one, with POST');
    expect(withBody('HEAD')).toBe('a HEAD carries no body: only the consultations are sent one, with POST');
  });

  it('retries reads and the two consultations only', () => {
    const safe = (method: string, path: string) => apiRetrySafe(method, parseApiPath(path));
    expect(safe('GET', '/pix/keys')).toBe(true);
    expect(safe('POST', '/pix/emv/consult')).toBe(true);
    expect(safe('POST', '/PIX/DICT/consult')).toBe(false);
    expect(safe('POST', '/something/else')).toBe(false);
    expect(safe('PUT', '/pix/keys')).toBe(false);
  });

  it('headers: never the credential or a method override', () => {
    expect(parseHeader('X-Request-Id: abc')).toEqual(['x-request-id', 'abc']);
    for (const header of [
      'Authorization: Bearer x',
      'x-http-method-override: POST',
      'X-HTTP-Method: POST',
      'X-Method-Override: POST',
      'X-Original-URL: /api/financial/v1/pix-cash-out/transfer',
      'X-Rewrite-URL: /api/financial/v1/pix-cash-out/transfer',
      'X-Forwarded-Host: evil.example',
      'X-Forwarded-Prefix: /api/financial/v1/pix-cash-out',
      'Forwarded: host=evil.example',
      'Cookie: a=b',
      'bad header',
    ]) {
      expect(() => parseHeader(header), header).toThrow(InvalidValue);
    }
  });
});
