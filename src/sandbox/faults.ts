/**
 * Faults on demand: a SPEC such as `transfer:timeout,statement:503x2,keys:reset` makes the sandbox
 * misbehave on purpose so scripts can rehearse failures.
 *
 * SPEC     = RULE ("," RULE)*
 * RULE     = ENDPOINT ":" KIND ["x" N]
 * ENDPOINT = auth | statement | keys | charge | emv | dict | transfer | all
 * KIND     = 500 | 502html (also html502) | 503 | 429 | 401 | reset | timeout | badjson | wrongshape
 *
 * `401` answers as an expired token would: with client credentials pix mints a new token and sends the
 * request again (a transfer included: a 401 proves nothing was applied); a static token exits 3.
 *
 * `xN` makes only the first N requests to that endpoint fail; without it every request fails.
 * `charge` covers both charge endpoints; `all` every endpoint.
 */

export const FAULT_ENDPOINTS = ['auth', 'statement', 'keys', 'charge', 'emv', 'dict', 'transfer'] as const;
export type FaultEndpoint = (typeof FAULT_ENDPOINTS)[number];

export const FAULT_KINDS = [
  '500',
  '502html',
  '503',
  '429',
  '401',
  'reset',
  'timeout',
  'badjson',
  'wrongshape',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRule {
  endpoint: FaultEndpoint;
  kind: FaultKind;
  /** How many requests fail; undefined = every request. */
  times: number | undefined;
}

export class FaultSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FaultSpecError';
  }
}

const KIND_ALIASES: Record<string, FaultKind> = { html502: '502html', '502': '502html' };

/** Parses a SPEC; throws FaultSpecError naming the rule that is wrong. An empty SPEC means no faults. */
export function parseFaults(spec: string): FaultRule[] {
  const rules: FaultRule[] = [];
  for (const part of spec.split(',')) {
    const rule = part.trim();
    if (rule === '') continue;
    const match = /^([a-z]+):([a-z0-9]+?)(?:x(\d+))?$/i.exec(rule);
    if (!match) {
      throw new FaultSpecError(`"${rule}" is not ENDPOINT:KIND[xN], e.g. statement:503x2`);
    }
    const endpoint = match[1]!.toLowerCase();
    const rawKind = match[2]!.toLowerCase();
    const kind = (KIND_ALIASES[rawKind] ?? rawKind) as FaultKind;
    if (endpoint !== 'all' && !(FAULT_ENDPOINTS as readonly string[]).includes(endpoint)) {
      throw new FaultSpecError(
        `"${rule}": unknown endpoint "${endpoint}" (use ${FAULT_ENDPOINTS.join(', ')} or all)`,
      );
    }
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
      throw new FaultSpecError(`"${rule}": unknown fault "${rawKind}" (use ${FAULT_KINDS.join(', ')})`);
    }
    let times: number | undefined;
    if (match[3] !== undefined) {
      times = Number(match[3]);
      if (times < 1) throw new FaultSpecError(`"${rule}": x${match[3]} must be at least x1`);
    }
    const endpoints = endpoint === 'all' ? FAULT_ENDPOINTS : [endpoint as FaultEndpoint];
    for (const one of endpoints) {
      if (rules.some((existing) => existing.endpoint === one)) {
        throw new FaultSpecError(`"${rule}": endpoint "${one}" already has a fault`);
      }
      rules.push({ endpoint: one, kind, times });
    }
  }
  return rules;
}

/** Counts requests per endpoint and answers which fault (if any) the next one gets. */
export class FaultInjector {
  private readonly rules = new Map<FaultEndpoint, FaultRule>();
  private readonly seen = new Map<FaultEndpoint, number>();

  constructor(rules: FaultRule[]) {
    for (const rule of rules) this.rules.set(rule.endpoint, rule);
  }

  static fromSpec(spec: string | undefined): FaultInjector {
    return new FaultInjector(spec ? parseFaults(spec) : []);
  }

  get active(): boolean {
    return this.rules.size > 0;
  }

  /** Call once per request to `endpoint`; returns the fault to apply, or undefined. */
  next(endpoint: FaultEndpoint): FaultKind | undefined {
    const rule = this.rules.get(endpoint);
    if (!rule) return undefined;
    const count = (this.seen.get(endpoint) ?? 0) + 1;
    this.seen.set(endpoint, count);
    if (rule.times !== undefined && count > rule.times) return undefined;
    return rule.kind;
  }
}
