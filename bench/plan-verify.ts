// Bundled and run by bench/plan.mjs: the cost of checking a plan's approvals in pix itself, from the files,
// as `pix plan execute` does before sending anything (the policy read and its keys made, three approvals
// read and their signatures verified, the quorum of every rule counted). Prints { medianMs, firstMs, runs }.
//
// With ROWS (a standing plan's occurrences, 120: ten years of a monthly payment), what judging one of its
// occurrences costs in pix (commands/schedule/standing.ts openStanding → shared/plan.ts openPlanWith): the
// approvals verified twice (once to remember them in the ledger's store of verdicts, once to judge) and the
// quorum of every rule counted over all its rows, then the occurrence's row found among them.
//
//   (bundled) node plan-verify.mjs SCRATCH_DIR RUNS [ROWS]
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readApprovals, readPolicyFile, writeApproval } from '../src/approvals/files.js';
import { reviewPlan, verifySignoffs } from '../src/approvals/review.js';
import { verdictMessage } from '../src/domain/plan.js';
import { PLAN_NAMESPACE } from '../src/domain/policy.js';
import { parsePublicKeyLine } from '../src/domain/sshkeys.js';

const [dir = '.', runsText = '200', rowsText = '1'] = process.argv.slice(2);
const runs = Number(runsText);
const count = Number(rowsText);
const planId = `sha256:${'ab'.repeat(32)}`;
const at = new Date().toISOString();
const message = verdictMessage('approve', planId, at);

const people = {
  ana: ['ed25519'],
  bruno: ['ecdsa', '-b', '256'],
  carla: ['rsa', '-b', '3072'],
  dora: ['ed25519'],
};
const lines: Record<string, string> = {};
for (const [name, [type, ...bits]] of Object.entries(people)) {
  const path = join(dir, name);
  spawnSync('ssh-keygen', ['-q', '-t', type!, ...bits, '-N', '', '-f', path]);
  lines[name] = readFileSync(`${path}.pub`, 'utf8').trim();
}
const policyFile = join(dir, 'policy.json');
writeFileSync(
  policyFile,
  JSON.stringify({
    'pix-policy': 1,
    approvers: {
      ana: { groups: ['finance'], keys: [lines.ana] },
      bruno: { groups: ['finance'], keys: [lines.bruno] },
      carla: { groups: ['finance'], keys: [lines.carla] },
      dora: { groups: ['admins'], keys: [lines.dora] },
    },
    rules: [{ name: 'every plan', require: '3 of finance' }],
    'policy-change': '1 of admins',
  }),
);
const planFile = join(dir, 'plan.json');
for (const name of ['ana', 'bruno', 'carla']) {
  const signed = spawnSync('ssh-keygen', ['-Y', 'sign', '-n', PLAN_NAMESPACE, '-f', join(dir, name)], {
    input: message,
  });
  writeApproval(planFile, {
    'pix-approval': 2,
    verdict: 'approve',
    subject: planId,
    key: parsePublicKeyLine(lines[name]!).fingerprint,
    at,
    signature: signed.stdout.toString(),
  });
}

const times: number[] = [];
const rows = Array.from({ length: count }, (_, index) => ({
  id:
    count === 1
      ? 'r1'
      : `s-0123456789ab.2026-${String(1 + (index % 12)).padStart(2, '0')}-${10 + Math.floor(index / 12)}`,
  amount: 1000,
  newReceiver: false,
  outsideAllowlist: false,
}));
for (let n = 0; n < runs; n++) {
  const started = process.hrtime.bigint();
  const { policy } = readPolicyFile(policyFile);
  // A standing plan's occurrence verifies them twice (remembered, then judged); a plan executed once.
  const approvals = readApprovals(planFile);
  if (count > 1) verifySignoffs(policy, planId, PLAN_NAMESPACE, approvals, Date.now());
  const signoffs = verifySignoffs(policy, planId, PLAN_NAMESPACE, approvals, Date.now());
  const review = reviewPlan(policy, undefined, signoffs, rows, false);
  if (count > 1 && !rows.some((row) => row.id === rows[n % count]!.id)) throw new Error('no such occurrence');
  times.push(Number(process.hrtime.bigint() - started) / 1e6);
  if (!review.approved) throw new Error('the bench plan is not approved: the bench is wrong');
}
const sorted = [...times].sort((a, b) => a - b);
process.stdout.write(JSON.stringify({ medianMs: sorted[sorted.length >> 1], firstMs: times[0], runs }));
