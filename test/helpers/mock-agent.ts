import { MockAgent } from 'undici';
import { afterEach, beforeEach } from 'vitest';

/** The origin of the API the in-process command tests intercept (PIX_BASE_URL). */
export const ORIGIN = 'https://api.example.test';
const isStatement = (path: string) => path.startsWith('/api/financial/v1/account/transactions');

/**
 * A fresh undici MockAgent for each test of the file that calls this (at its top level), as every
 * in-process command test needs one (architecture rule 9): the network is disabled, so a request no
 * interceptor answers fails instead of leaving the machine, and after the test every interceptor must
 * have been used (`assertNoPendingInterceptors`), then the agent is closed. `mock.agent` is the current
 * test's agent: pass it as `dispatcher` to run() and add interceptors with `mock.agent.get(ORIGIN)`.
 * `emptyStatement`: every statement read answers an empty page (payments' statement guard finds nothing
 * paid elsewhere), for the tests that are about something else.
 */
export function mockAgentPerTest(options: { emptyStatement?: boolean } = {}): { readonly agent: MockAgent } {
  let current: MockAgent | undefined;
  beforeEach(() => {
    current = new MockAgent();
    current.disableNetConnect();
    if (options.emptyStatement) {
      current
        .get(ORIGIN)
        .intercept({ path: isStatement, method: 'GET' })
        .reply(200, { total: 0, results: [] }, { headers: { 'content-type': 'application/json' } })
        .persist();
    }
  });
  afterEach(async () => {
    const agent = current!;
    current = undefined;
    try {
      // The empty statement is there for the commands that read it (the statement guard of payments):
      // a test that ends before a payment reads nothing, and that is not an interceptor left unused.
      const pending = agent
        .pendingInterceptors()
        .filter((interceptor) => interceptor.path !== (isStatement as unknown));
      if (pending.length > 0) agent.assertNoPendingInterceptors();
    } finally {
      await agent.close();
    }
  });
  return {
    get agent(): MockAgent {
      if (current === undefined) throw new Error('mockAgentPerTest: the agent exists only while a test runs');
      return current;
    },
  };
}

/**
 * Answers one GET of `path` with `query` (exactly) with a JSON `body` (and `status`), on the current test's
 * agent: the one way in-process command tests stand in for the API.
 */
export function intercept(
  mock: { readonly agent: MockAgent },
  path: string,
  query: Record<string, string>,
  body: unknown,
  status = 200,
): void {
  mock.agent
    .get(ORIGIN)
    .intercept({ path, method: 'GET', query })
    .reply(status, body as object, { headers: { 'content-type': 'application/json' } });
}
