import { describe, expect, it } from 'vitest';
import { isLocalhostName, isLoopbackHost, localhostLookup, normalizeBaseUrl } from '../../src/domain/url.js';

describe('normalizeBaseUrl', () => {
  it.each([
    ['https://API.example.test/', 'https://api.example.test'],
    ['https://api.example.test:443/base/', 'https://api.example.test/base'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://127.1.2.3', 'http://127.1.2.3'],
    ['http://localhost:3000/', 'http://localhost:3000'],
    ['http://[::1]:9000', 'http://[::1]:9000'],
    // One host, however it is spelled: case, a final dot, the default port.
    ['https://api.example.com.', 'https://api.example.com'],
    ['HTTPS://Api.Example.COM.:443/v1/', 'https://api.example.com/v1'],
    ['http://localhost.:3000', 'http://localhost:3000'],
    ['http://LOCALHOST:80/', 'http://localhost'],
  ])('%s → %s', (input, output) => {
    expect(normalizeBaseUrl(input)).toBe(output);
  });

  it.each([
    ['http://api.example.test', /plain http:\/\/ is only allowed to loopback/],
    ['http://128.0.0.1', /plain http:\/\/ is only allowed to loopback/],
    ['http://127.0.0.1.evil.test', /plain http:\/\/ is only allowed to loopback/],
    ['ftp://x.test', /not supported/],
    ['api.example.test', /not a valid URL/],
    ['https://user:pw@x.test', /user name or password/],
    ['https://x.test/?a=1', /query/],
  ])('refuses %s', (input, reason) => {
    expect(() => normalizeBaseUrl(input)).toThrow(reason);
  });

  it('knows loopback hosts', () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('10.0.0.1')).toBe(false);
    expect(isLoopbackHost('127.0.0.256')).toBe(false);
    expect(isLoopbackHost('localhost.example.test')).toBe(false);
    expect(isLoopbackHost('api.localhost.')).toBe(true); // allowed because pix resolves it itself:
    expect(isLocalhostName('API.Localhost')).toBe(true);
    expect(isLocalhostName('127.0.0.1')).toBe(false);
  });

  it('resolves localhost names to loopback itself, never through DNS', () => {
    const answers: unknown[] = [];
    const record = (error: unknown, address: unknown, family?: number) =>
      answers.push(error ?? { address, family });
    localhostLookup('evil.localhost', { all: true }, record);
    localhostLookup('evil.localhost', { family: 6 }, record);
    localhostLookup('evil.localhost', { family: 'IPv4' }, record);
    localhostLookup('evil.localhost', {}, record);
    expect(answers).toEqual([
      {
        address: [
          { address: '127.0.0.1', family: 4 },
          { address: '::1', family: 6 },
        ],
        family: undefined,
      },
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);
  });
});
