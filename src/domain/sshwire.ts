/**
 * The SSH wire format (RFC 4251 §5) that keys and signatures are written in, for `domain/sshkeys.ts` and
 * `domain/sshsig.ts`: a bounded reader of `uint32`, `string` and `mpint`, and the writing of a `string`.
 */

import { InvalidValue } from './invalid.js';

// ---------------------------------------------------------------------------------------------
// The SSH wire format (RFC 4251 §5)

export class WireReader {
  private offset = 0;
  constructor(
    private readonly bytes: Buffer,
    private readonly what: string,
  ) {}
  private need(length: number): void {
    if (this.offset + length > this.bytes.length) throw new InvalidValue(`${this.what} is cut short`);
  }
  u8(): number {
    this.need(1);
    return this.bytes[this.offset++]!;
  }
  u32(): number {
    this.need(4);
    const value = this.bytes.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }
  bytesOf(length: number): Buffer {
    this.need(length);
    const value = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }
  string(): Buffer {
    return this.bytesOf(this.u32());
  }
  text(): string {
    const raw = this.string();
    const text = raw.toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(raw))
      throw new InvalidValue(`${this.what} holds a name that is not text`);
    return text;
  }
  /** An mpint as an unsigned big-endian number without leading zero bytes. */
  mpint(): Buffer {
    const raw = this.string();
    if (raw.length > 0 && (raw[0]! & 0x80) !== 0)
      throw new InvalidValue(`${this.what} holds a negative number`);
    let start = 0;
    while (start < raw.length && raw[start] === 0) start++;
    return raw.subarray(start);
  }
  end(): void {
    if (this.offset !== this.bytes.length) throw new InvalidValue(`${this.what} has bytes after its end`);
  }
}

export function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

/** An SSH `string`: its length, then its bytes. */
export function sshString(value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([u32(bytes.length), bytes]);
}

export const b64url = (bytes: Buffer) => bytes.toString('base64url');

export function leftPad(bytes: Buffer, length: number, what: string): Buffer {
  if (bytes.length > length) throw new InvalidValue(`${what} is too long`);
  return bytes.length === length ? bytes : Buffer.concat([Buffer.alloc(length - bytes.length), bytes]);
}
