/**
 * The files of approvals, beside each other in a repository: a plan (`payouts.plan.json`), its
 * approvals (`payouts.plan.json.approvals/SHA256-….json`, one file per key, so two people approving in
 * two branches add two files and never conflict in Git), a policy and its own approvals
 * (`policy.json.approvals/…`). Read with zod at the edge (architecture rule 5): a file that is not what
 * it should be is exit 2 naming the file and the field; nothing in it is trusted until verified
 * (review.ts).
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidValue } from '../domain/invalid.js';
import { checkPlan, formatPlan, type Plan, type Verdict } from '../domain/plan.js';
import type { Policy } from '../domain/policy.js';
import { parsePolicy } from '../domain/policyfile.js';
import { describeSystemError, PixError, usageError } from '../errors.js';
import { writeFileAtomic } from '../storage/files.js';
import * as z from '../zod.js';

/** Where a file's approvals are kept: a directory beside it. */
export function approvalsDirOf(file: string): string {
  return `${file}.approvals`;
}

/** The file one key's verdict is kept in: its fingerprint, safe in a file name. */
export function approvalFileName(fingerprint: string): string {
  return `${fingerprint.replace(':', '-').replaceAll('+', '-').replaceAll('/', '_')}.json`;
}

/** The text of a file the user named, or exit 2 naming it. */
export function readUserFile(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const system = describeSystemError(error);
    throw usageError(what, system ? system.message : `cannot read ${file}`, system?.hint);
  }
}

/** Writes a file the user named (whole or not at all), or exit 1 naming it. */
function writeUserFile(file: string, text: string): void {
  writeFileAtomic(file, text);
}

/** A zod problem as `field: reason` (the first one). */
function firstProblem(error: z.core.$ZodError): string {
  const issue = error.issues[0]!;
  const path = issue.path
    .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
    .join('');
  return `${path.replace(/^\./, '') || 'the file'}: ${issue.message}`;
}

// ---------------------------------------------------------------------------------------------
// Plans

const money = z.int().check(z.minimum(1), z.maximum(Number.MAX_SAFE_INTEGER));
const text = z.string().check(z.minLength(1), z.maxLength(2000));

const planRowSchema = z.strictObject({
  id: z.string().check(z.regex(/^[A-Za-z0-9._-]{1,64}$/, 'a row id is 1 to 64 letters, digits, . _ -')),
  key: z.optional(text),
  emv: z.optional(text),
  receiver: z.strictObject({
    name: z.string().check(z.maxLength(2000)),
    document: z.optional(z.string().check(z.maxLength(200))),
    institution: z.optional(z.string().check(z.maxLength(200))),
  }),
  amountCentavos: money,
  sendAmount: z.boolean(),
  description: z.optional(z.string().check(z.maxLength(200))),
  // Who the row must pay (contract §7.8); execute reads it back through the batch reader, which checks it.
  expect: z.optional(
    z.strictObject({
      document: z.optional(z.string().check(z.maxLength(20))),
      name: z.optional(z.string().check(z.maxLength(200))),
    }),
  ),
  newReceiver: z.boolean(),
  outsideAllowlist: z.boolean(),
});

const instant = z.string().check(z.refine((value) => !Number.isNaN(Date.parse(value)), 'not a time'));

const planSchema = z.strictObject({
  id: z.string().check(z.regex(/^sha256:[0-9a-f]{64}$/, 'not a plan id (sha256:…)')),
  'pix-plan': z.literal(1),
  account: z.strictObject({ id: text, profile: text, api: text }),
  kind: z.enum(['key', 'qr', 'batch']),
  source: z.optional(text),
  rows: z.array(planRowSchema).check(z.minLength(1)),
  total: z.strictObject({ rows: z.int(), amountCentavos: money }),
  maker: z.strictObject({
    name: text,
    email: z.optional(text),
    from: z.enum(['flag', 'git', 'login']),
  }),
  createdAt: instant,
  expiresAt: instant,
  policy: z.string().check(z.regex(/^sha256:[0-9a-f]{64}$/, 'not a policy digest (sha256:…)')),
});

/** A plan read and checked: its shape, then its id against its content (an edited plan is exit 2). */
export function readPlanFile(file: string): Plan {
  const raw = readUserFile(file, file);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw usageError(file, `not a plan: ${(error as Error).message}`);
  }
  const parsed = planSchema.safeParse(json);
  if (!parsed.success) throw usageError(file, `not a plan: ${firstProblem(parsed.error)}`);
  const plan = parsed.data as Plan;
  try {
    checkPlan(plan);
  } catch (error) {
    if (error instanceof InvalidValue) throw usageError(file, error.message, error.hint);
    throw error;
  }
  return plan;
}

/** Writes a plan (whole or not at all). A plan already at the path is replaced only by the same plan. */
export function writePlanFile(file: string, plan: Plan): void {
  writeUserFile(file, formatPlan(plan));
}

// ---------------------------------------------------------------------------------------------
// Approvals

export interface ApprovalRecord {
  'pix-approval': 1;
  verdict: Verdict;
  /** The plan's id or the policy's digest, as the signer saw it (the signature is checked against the real one). */
  subject: string;
  reason?: string;
  /** Who signed, as the signer's policy names the key (a convenience: the key decides). */
  by?: string;
  /** The key's fingerprint (a convenience: the signature names its key). */
  key: string;
  at: string;
  /** The armored SSH signature of verdictMessage(verdict, subject, reason). */
  signature: string;
}

const approvalSchema = z.strictObject({
  'pix-approval': z.literal(1),
  verdict: z.enum(['approve', 'reject']),
  subject: text,
  reason: z.optional(z.string().check(z.maxLength(500))),
  by: z.optional(z.string().check(z.maxLength(200))),
  key: text,
  at: instant,
  signature: z.string().check(z.maxLength(20_000)),
});

export interface ApprovalFile {
  /** Its path, as shown to people. */
  file: string;
  record: ApprovalRecord;
}

/** Every approval kept beside `subjectFile`, oldest first (none when there is no directory yet). Malformed: exit 2. */
export function readApprovals(subjectFile: string): ApprovalFile[] {
  const dir = approvalsDirOf(subjectFile);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    const system = describeSystemError(error);
    throw usageError(dir, system ? system.message : String(error));
  }
  return names
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => {
      const file = join(dir, name);
      let json: unknown;
      try {
        json = JSON.parse(readUserFile(file, file));
      } catch (error) {
        if (error instanceof PixError) throw error;
        throw usageError(file, `not an approval: ${(error as Error).message}`);
      }
      const parsed = approvalSchema.safeParse(json);
      if (!parsed.success) throw usageError(file, `not an approval: ${firstProblem(parsed.error)}`);
      return { file, record: parsed.data as ApprovalRecord };
    })
    .sort((a, b) => (a.record.at < b.record.at ? -1 : a.record.at > b.record.at ? 1 : 0));
}

/** Writes one key's verdict beside `subjectFile` (replacing that key's earlier one); returns its path. */
export function writeApproval(subjectFile: string, record: ApprovalRecord): string {
  const dir = approvalsDirOf(subjectFile);
  try {
    mkdirSync(dir, { mode: 0o755 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const file = join(dir, approvalFileName(record.key));
  writeUserFile(file, `${JSON.stringify(record, null, 2)}\n`);
  return file;
}

// ---------------------------------------------------------------------------------------------
// Policies

export interface PolicyFile {
  file: string;
  policy: Policy;
}

/** A policy read and checked (exit 2 naming the file, the line and the key). */
export function readPolicyFile(file: string): PolicyFile {
  const raw = readUserFile(file, file);
  try {
    return { file, policy: parsePolicy(raw, file) };
  } catch (error) {
    if (error instanceof InvalidValue) throw usageError(undefined, error.message, error.hint);
    throw error;
  }
}
