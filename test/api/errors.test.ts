import { describe, expect, it } from 'vitest';
import { httpError, serverMessageOf } from '../../src/api/errors.js';

describe('error bodies (contract §6)', () => {
  it('takes the first of message, error.message, errors[0].message, description, detail', () => {
    expect(serverMessageOf({ message: 'Chave não encontrada', detail: 'x' })).toBe('Chave não encontrada');
    expect(serverMessageOf({ error: { message: 'Token inválido' } })).toBe('Token inválido');
    expect(serverMessageOf({ errors: [{ message: 'Valor inválido' }, { message: 'other' }] })).toBe(
      'Valor inválido',
    );
    expect(serverMessageOf({ description: 'Erro interno' })).toBe('Erro interno');
    expect(serverMessageOf({ detail: 'IP não autorizado' })).toBe('IP não autorizado');
    expect(serverMessageOf({ code: 42 })).toBeUndefined();
    expect(serverMessageOf(null)).toBeUndefined();
  });

  it('keeps a server message on one line', () => {
    expect(serverMessageOf({ message: 'linha um\nlinha  dois' })).toBe('linha um linha dois');
  });
});

describe('httpError', () => {
  it('builds an error carrying status, server message and raw body', () => {
    const body = { message: 'Chave Pix não encontrada' };
    const error = httpError('consulting the key', 404, body, false);
    expect(error.kind).toBe('not_found');
    expect(error.exitCode).toBe(4);
    expect(error.status).toBe(404);
    expect(error.serverMessage).toBe('Chave Pix não encontrada');
    expect(error.server).toBe(body);
    expect(error.message).toBe('consulting the key: not found');
  });
});

describe('httpError of a write', () => {
  it('a 5xx, 409 or an unexpected 4xx is an unknown outcome with the statement hint, never called a refusal', () => {
    for (const status of [500, 409, 405]) {
      const error = httpError('sending the transfer', status, { message: 'x' }, true);
      expect(error.kind).toBe('unknown_outcome');
      expect(error.exitCode).toBe(7);
      expect(error.message).not.toContain('refused');
      expect(error.hint).toContain('pix statement');
    }
    expect(httpError('sending the transfer', 302, undefined, true).message).toBe(
      'sending the transfer: the server answered with a redirect',
    );
  });
});
