import type { StatementEntry } from '../../../api/resources/statement.js';
import { centavosToApi } from '../../../domain/money.js';
import type { Reconciled } from '../../../domain/reconcile.js';

/**
 * A reconciliation result as `--json` (and a closed day's pack) shows it: amounts in reais, as the API
 * writes money; the entries as the API sent them.
 */
export function publicResult(result: Reconciled<StatementEntry>): Record<string, unknown> {
  return {
    outcome: result.outcome,
    manual: result.manual,
    ...(result.flag === undefined ? {} : { flag: result.flag }),
    expected: centavosToApi(result.expected),
    paid: centavosToApi(result.paid),
    why: result.why,
    expectations: result.expectations.map((e) => ({
      id: e.id,
      source: e.source,
      amount: centavosToApi(e.amountCentavos),
      ...(e.document === undefined ? {} : { document: e.document }),
      ...(e.due === undefined ? {} : { due: e.due }),
      ...(e.name === undefined ? {} : { name: e.name }),
    })),
    entries: result.entries,
  };
}
