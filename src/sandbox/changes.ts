/**
 * What one `StateStore.update` changed, so that it can append a small patch to the state file instead of
 * rewriting the whole state.
 *
 * The changes are watched, not declared or diffed: the mutation is handed a view of the state made of
 * Proxies. Every write that goes through it (a set, a definition or a deletion, at any depth) is seen:
 * - a write to a charge, consultation or transfer — the record itself (`state.charges[id] = …`, `delete`)
 *   or anything inside it (`charge.status = …`, `consultation.usedBy = …`, `charge.debtor.name = …`) —
 *   marks that record's id, and the patch carries the record as it is after the mutation;
 * - the activity's new entries are found by identity against the entries it held before (they may be
 *   spliced in anywhere: the patch says where); an old entry changed, removed or moved, or the list
 *   replaced, cannot be said by a patch, and neither can a collection replaced or a top-level field
 *   deleted: the store then writes a whole snapshot instead;
 * - the other top-level fields (clock offset, next transaction id, generated statement, keys, account…) are
 *   small and every patch carries all of them, so they need no watching beyond "something changed".
 * Reads mark nothing: `Object.values(state.charges).find(…)` wraps each record it reads, and writes none.
 *
 * A mutation must change the state only through the object it is handed (a record kept from an earlier
 * read and written to inside the mutation would not be seen), and a record must not share an object with
 * another record (a write through one would not mark the other). The property test in
 * test/sandbox/changes.test.ts replays real mutations and compares.
 */
import type { SandboxState, StoredEntry } from './model.js';

export const RECORD_COLLECTIONS = ['charges', 'consultations', 'transfers'] as const;
export type RecordCollection = (typeof RECORD_COLLECTIONS)[number];

/** The parts of the state a patch carries piece by piece; every other top-level field is carried whole. */
const PIECEWISE: ReadonlySet<PropertyKey> = new Set<PropertyKey>([...RECORD_COLLECTIONS, 'activity']);

/** What one update changed. */
export interface Patch {
  /** Every top-level field but the record collections and the activity. */
  top: Record<string, unknown>;
  /** Records made or changed, by id; null for one deleted. */
  charges?: Record<string, unknown>;
  consultations?: Record<string, unknown>;
  transfers?: Record<string, unknown>;
  /** Activity entries inserted, as [index in the list after the update, entry], indices ascending. */
  activity?: Array<[number, StoredEntry]>;
}

export interface Watched {
  /** The view to hand the mutation. */
  readonly state: SandboxState;
  /** True when the mutation wrote anything. */
  touched(): boolean;
  /** The patch that turns the state before into the state now, or undefined when only a snapshot can. */
  patch(): Patch | undefined;
}

/** Proxy → its target, so that a value read through a view is stored as itself, never as a Proxy. */
const TARGETS = new WeakMap<object, object>();

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function unwrap<T>(value: T): T {
  return isObject(value) ? ((TARGETS.get(value) as T | undefined) ?? value) : value;
}

function unwrapDescriptor(descriptor: PropertyDescriptor): PropertyDescriptor {
  return 'value' in descriptor ? { ...descriptor, value: unwrap(descriptor.value) } : descriptor;
}

/**
 * A view of `target` whose writes call `written(key, deleted)` (key: the property of `target` written) and
 * whose object values are handed out through `child(key, value)`.
 */
function view<T extends object>(
  target: T,
  written: (key: PropertyKey, deleted: boolean) => void,
  child: (key: PropertyKey, value: object) => object,
): T {
  const proxy: T = new Proxy(target, {
    get(t, key) {
      const value: unknown = Reflect.get(t, key);
      if (Array.isArray(t) && typeof key === 'string' && ARRAY_WRITERS.has(key)) {
        return arrayWriter(t, proxy, key, written, child);
      }
      return isObject(value) ? child(key, value) : value;
    },
    getOwnPropertyDescriptor(t, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(t, key);
      if (descriptor?.configurable && isObject(descriptor.value)) {
        return { ...descriptor, value: child(key, descriptor.value) };
      }
      return descriptor;
    },
    set(t, key, value) {
      written(key, false);
      return Reflect.set(t, key, unwrap(value));
    },
    defineProperty(t, key, descriptor) {
      written(key, false);
      return Reflect.defineProperty(t, key, unwrapDescriptor(descriptor));
    },
    deleteProperty(t, key) {
      written(key, true);
      return Reflect.deleteProperty(t, key);
    },
    setPrototypeOf(t, prototype) {
      written(Symbol.for('prototype'), false);
      return Reflect.setPrototypeOf(t, prototype);
    },
  });
  TARGETS.set(proxy, target);
  return proxy;
}

/** The Array methods that change the array in place. */
const ARRAY_WRITERS: ReadonlySet<string> = new Set([
  'copyWithin',
  'fill',
  'pop',
  'push',
  'reverse',
  'shift',
  'sort',
  'splice',
  'unshift',
]);

/**
 * An array's own method run on the array itself rather than through its view: a splice into the
 * activity would otherwise pass every entry it moves through the traps. The call counts as one write;
 * the values it stores are unwrapped, sort's comparison sees the entries through views, and a method
 * that returns the array returns its view.
 */
function arrayWriter(
  array: unknown[],
  arrayView: object,
  method: string,
  written: (key: PropertyKey, deleted: boolean) => void,
  child: (key: PropertyKey, value: object) => object,
): (...args: unknown[]) => unknown {
  const run = (Array.prototype as unknown as Record<string, (...args: unknown[]) => unknown>)[method]!;
  return (...args: unknown[]) => {
    written(method, false);
    let result: unknown;
    if (method === 'sort' && typeof args[0] === 'function') {
      const compare = args[0] as (a: unknown, b: unknown) => number;
      const seen = (value: unknown) => (isObject(value) ? child(method, value) : value);
      result = run.call(array, (a: unknown, b: unknown) => compare(seen(a), seen(b)));
    } else {
      result = run.apply(array, args.map(unwrap));
    }
    return result === array ? arrayView : result;
  };
}

/** The records of each collection a mutation wrote to, as they are now (null: deleted), into `patch`. */
function addChangedRecords(
  patch: Patch,
  state: SandboxState,
  dirty: Record<RecordCollection, Set<string>>,
): void {
  for (const name of RECORD_COLLECTIONS) {
    if (dirty[name].size === 0) continue;
    const records = state[name] as Record<string, unknown>;
    const changed: Record<string, unknown> = {};
    for (const id of dirty[name]) changed[id] = Object.hasOwn(records, id) ? records[id] : null;
    patch[name] = changed;
  }
}

/** Starts watching `state` (the store's own copy): hand `.state` to the mutation, then ask `.patch()`. */
export function watch(state: SandboxState): Watched {
  let touched = false;
  let snapshotOnly = false;
  const dirty: Record<RecordCollection, Set<string>> = {
    charges: new Set(),
    consultations: new Set(),
    transfers: new Set(),
  };
  const activity = state.activity;
  const activityBefore = activity.slice();
  let activityWritten = false;
  // Asked of the few entries a mutation writes to (a transfer's new entry, filled in after it is
  // inserted), once each: a scan of the list is a few microseconds, where a Set of every entry (built per
  // update) made each transfer cost in proportion to the account's history.
  const oldness = new WeakMap<object, boolean>();
  const isOldEntry = (entry: object) => {
    let old = oldness.get(entry);
    if (old === undefined) {
      old = activityBefore.includes(entry as StoredEntry);
      oldness.set(entry, old);
    }
    return old;
  };
  // One view per object, so that a record read twice is the same object both times.
  const views = new WeakMap<object, object>();
  const deep = (value: object, written: () => void): object => {
    let known = views.get(value);
    if (!known) {
      known = view(value, written, (_key, inner) => deep(inner, written));
      views.set(value, known);
    }
    return known;
  };
  const touch = () => {
    touched = true;
  };

  const collections = {} as Record<RecordCollection, object>;
  for (const name of RECORD_COLLECTIONS) {
    const records = state[name] as Record<string, object>;
    const mark = (key: PropertyKey) => {
      touched = true;
      if (typeof key === 'string') dirty[name].add(key);
      else snapshotOnly = true;
    };
    collections[name] = view(records, mark, (key, record) => deep(record, () => mark(key)));
  }
  const activityView = view(
    activity,
    () => {
      touched = true;
      activityWritten = true;
    },
    (_key, entry) =>
      deep(entry, () => {
        touched = true;
        activityWritten = true;
        // A new entry may be filled in after it was inserted; an old one changed needs a snapshot.
        if (isOldEntry(entry)) snapshotOnly = true;
      }),
  );
  const top = view(
    state,
    (key, deleted) => {
      touched = true;
      // A collection or the activity replaced, or a top-level field deleted: a patch's `top` cannot say so.
      if (deleted || PIECEWISE.has(key) || typeof key !== 'string') snapshotOnly = true;
    },
    (key, value) => {
      if (key === 'activity' && value === activity) return activityView;
      if (typeof key === 'string' && key in collections && value === state[key as RecordCollection]) {
        return collections[key as RecordCollection];
      }
      return deep(value, touch);
    },
  );
  return {
    state: top,
    touched: () => touched,
    patch() {
      if (snapshotOnly) return undefined;
      const patch: Patch = { top: {} };
      for (const [key, value] of Object.entries(state)) {
        if (!PIECEWISE.has(key)) patch.top[key] = value;
      }
      addChangedRecords(patch, state, dirty);
      if (activityWritten) {
        const inserted = insertedEntries(activityBefore, activity, isOldEntry);
        if (inserted === undefined) return undefined;
        if (inserted.length > 0) patch.activity = inserted;
      }
      return patch;
    },
  };
}

/**
 * The entries of `after` that are not in `before`, with their indices, when `after` is `before` with
 * entries inserted (the old ones all there, in the same order); undefined otherwise.
 */
function insertedEntries(
  before: StoredEntry[],
  after: StoredEntry[],
  isOld: (entry: StoredEntry) => boolean,
): Array<[number, StoredEntry]> | undefined {
  const inserted: Array<[number, StoredEntry]> = [];
  let next = 0;
  for (let i = 0; i < after.length; i++) {
    const entry = after[i]!;
    if (next < before.length && entry === before[next]) {
      next++;
    } else if (isOld(entry)) {
      return undefined; // moved or repeated
    } else {
      inserted.push([i, entry]);
    }
  }
  return next === before.length ? inserted : undefined;
}

/**
 * Applies a patch to `state` in place. Returns false (having changed nothing) when the patch does not fit
 * it: an activity index beyond the list.
 */
export function applyPatch(state: SandboxState, patch: Patch): boolean {
  let length = state.activity.length;
  for (const [index] of patch.activity ?? []) {
    if (index > length) return false;
    length++;
  }
  for (const [key, value] of Object.entries(patch.top)) put(state, key, value);
  for (const name of RECORD_COLLECTIONS) {
    const changed = patch[name];
    if (!changed) continue;
    const records = state[name] as Record<string, unknown>;
    for (const [id, record] of Object.entries(changed)) {
      if (record === null) delete records[id];
      else put(records, id, record);
    }
  }
  for (const [index, entry] of patch.activity ?? []) state.activity.splice(index, 0, entry);
  return true;
}

/** Sets an own data property as JSON.parse would (a key spelled `__proto__` included: never the prototype). */
function put(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
