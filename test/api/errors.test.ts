import { describe, expect, it } from 'vitest';
import { httpError, kindForStatus, serverMessageOf } from '../../src/api/errors.js';

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

describe('status → exit kind (contract §4)', () => {
  it.each([
    [401, false, 'auth'],
    [403, true, 'auth'],
    [404, false, 'not_found'],
    [400, true, 'rejected'],
    [422, false, 'rejected'],
    [429, true, 'unavailable'],
    [500, false, 'unavailable'],
    [503, false, 'unavailable'],
    [500, true, 'unknown_outcome'],
    [502, true, 'unknown_outcome'],
  ] as const)('%i (write: %s) → %s', (status, write, kind) => {
    expect(kindForStatus(status, write)).toBe(kind);
  });

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
