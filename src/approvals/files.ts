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
import { canonicalJson, firstDifference, parseJsonSource } from '../domain/jsonsource.js';
import {
  APPROVAL_FORMAT,
  type ApprovalRecord,
  checkPlan,
  formatPlan,
  PLAN_FORMAT,
  type Plan,
} from '../domain/plan.js';

export { APPROVAL_FORMAT, type ApprovalRecord };

import type { Policy } from '../domain/policy.js';
import { parsePolicy } from '../domain/policyfile.js';
import { describeSystemError, usageError } from '../errors.js';
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

/**
 * A file pix verifies, read as JSON into objects without a prototype (domain/jsonsource.ts: a key given
 * twice, or one that reaches a prototype, is refused naming its line), exit 2 naming the file.
 */
function readJsonFile(file: string, what: string): unknown {
  const text = readUserFile(file, file);
  try {
    return parseJsonSource(text).value;
  } catch (error) {
    if (error instanceof InvalidValue) throw usageError(file, `not ${what}: ${error.message}`);
    throw error;
  }
}

/**
 * What was read of a file is what its digest or signature covers: the value the schema gives back,
 * written again, is the document's canonical form (nothing dropped, nothing added or defaulted).
 */
function sameAsRead(file: string, what: string, read: unknown, document: unknown): void {
  if (canonicalJson(read) === canonicalJson(document)) return;
  throw usageError(
    file,
    `not ${what}: what pix read is not what is signed (${firstDifference(read, document) ?? 'the whole file'})`,
  );
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

/** A time as pix writes it (`Date#toISOString`): one spelling per instant, so a signed one is unambiguous. */
const instant = z
  .string()
  .check(
    z.refine(
      (value) =>
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value) && !Number.isNaN(Date.parse(value)),
      'not a time as pix writes one (2026-03-10T12:00:00.000Z)',
    ),
  );
const fingerprint = z
  .string()
  .check(z.regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'not a key fingerprint (SHA256:…)'));
const armored = z.string().check(z.maxLength(20_000));

/** A file written by a pix whose format this one no longer reads, and why it cannot be trusted as it is. */
function olderFormat(json: unknown, field: string, current: number): number | undefined {
  const given = (json as Record<string, unknown> | null)?.[field];
  return typeof given === 'number' && given < current ? given : undefined;
}

const date = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'not a date YYYY-MM-DD'));
const small = (max: number) => z.int().check(z.minimum(0), z.maximum(max));

/** A standing plan's schedule (domain/plan.ts StandingTerms; its rule as domain/schedule.ts writes it). */
const standingSchema = z.strictObject({
  schedule: z.string().check(z.regex(/^s-[0-9a-f]{12}$/, 'not a schedule id (s-…)')),
  recurrence: z.strictObject({
    rule: z.union([
      z.strictObject({ kind: z.literal('once'), date }),
      z.strictObject({ kind: z.literal('day-of-month'), day: small(31) }),
      z.strictObject({ kind: z.literal('business-day'), n: small(31) }),
      z.strictObject({ kind: z.literal('every-business-day') }),
      z.strictObject({ kind: z.literal('weekday'), weekday: small(6) }),
      z.strictObject({ kind: z.literal('weekly') }),
      z.strictObject({ kind: z.literal('monthly') }),
    ]),
    start: date,
    until: z.optional(date),
    count: z.optional(small(100_000)),
    shift: z.enum(['next', 'previous', 'keep']),
  }),
  time: z.string().check(z.regex(/^\d{2}:\d{2}$/, 'not a time HH:MM')),
  timeZone: text,
});

const planSchema = z.strictObject({
  id: z.string().check(z.regex(/^sha256:[0-9a-f]{64}$/, 'not a plan id (sha256:…)')),
  'pix-plan': z.literal(PLAN_FORMAT),
  account: z.strictObject({ id: text, profile: text, api: text }),
  kind: z.enum(['key', 'qr', 'batch', 'schedule']),
  source: z.optional(text),
  standing: z.optional(standingSchema),
  rows: z.array(planRowSchema).check(z.minLength(1)),
  total: z.strictObject({ rows: z.int(), amountCentavos: money }),
  maker: z.strictObject({
    name: text,
    email: z.optional(text),
    from: z.enum(['flag', 'git', 'login', 'policy']),
    key: fingerprint,
  }),
  createdAt: instant,
  expiresAt: instant,
  policy: z.string().check(z.regex(/^sha256:[0-9a-f]{64}$/, 'not a policy digest (sha256:…)')),
  signature: armored,
});

/**
 * A plan read and checked: its shape, then its id against its content (an edited plan is exit 2). The
 * maker's signature is checked against the policy by the review (review.ts makerOf).
 */
export function readPlanFile(file: string): Plan {
  const json = readJsonFile(file, 'a plan');
  const older = olderFormat(json, 'pix-plan', PLAN_FORMAT);
  if (older !== undefined) {
    throw usageError(
      file,
      `a plan of format ${older}, which its maker did not sign: it cannot be paid`,
      'make it again with this pix (`pix pay … --plan FILE`): the maker signs it now',
    );
  }
  const parsed = planSchema.safeParse(json);
  if (!parsed.success) throw usageError(file, `not a plan: ${firstProblem(parsed.error)}`);
  sameAsRead(file, 'a plan', parsed.data, json);
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

const approvalSchema = z.strictObject({
  'pix-approval': z.literal(APPROVAL_FORMAT),
  verdict: z.enum(['approve', 'reject']),
  subject: text,
  reason: z.optional(z.string().check(z.maxLength(500))),
  by: z.optional(z.string().check(z.maxLength(200))),
  key: text,
  at: instant,
  signature: armored,
});

/** An approval record as JSON (from a file, or a store of verdicts): checked, or why not. */
export function approvalOf(json: unknown): { record: ApprovalRecord } | { problem: string } {
  const older = olderFormat(json, 'pix-approval', APPROVAL_FORMAT);
  if (older !== undefined)
    return {
      problem: `an approval of format ${older}, whose time is not signed: sign it again with this pix`,
    };
  const parsed = approvalSchema.safeParse(json);
  if (!parsed.success) return { problem: firstProblem(parsed.error) };
  if (canonicalJson(parsed.data) !== canonicalJson(json))
    return { problem: `what pix read is not what is signed (${firstDifference(parsed.data, json)})` };
  return { record: parsed.data as ApprovalRecord };
}

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
      const read = approvalOf(readJsonFile(file, 'an approval'));
      if ('problem' in read) throw usageError(file, `not an approval: ${read.problem}`);
      return { file, record: read.record };
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
  /** Its canonical JSON: what its digest is the SHA-256 of, and what `pix policy enforce` records. */
  canonical: string;
}

/** A policy read and checked (exit 2 naming the file, the line and the key). */
export function readPolicyFile(file: string): PolicyFile {
  const raw = readUserFile(file, file);
  try {
    const policy = parsePolicy(raw, file);
    return { file, policy, canonical: canonicalJson(parseJsonSource(raw).value) };
  } catch (error) {
    if (error instanceof InvalidValue) throw usageError(undefined, error.message, error.hint);
    throw error;
  }
}
