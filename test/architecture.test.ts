import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The shape of src/ as the program runs it: which module loads which. esbuild (the bundler of the build)
 * reads every module of src/ and reports each import it keeps — static imports, re-exports and `import()`
 * calls — with `import type` and the other type-only imports erased, as they are from dist/. No output is
 * written. The rules below are those of docs/architecture.md.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Module (`src/…ts`, relative to the root) → the modules of src/ it loads, and how. */
type Graph = Map<string, Array<{ path: string; dynamic: boolean }>>;

function sourcesOf(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => posix.join(dir, file.split('\\').join('/')))
    .sort();
}

async function runTimeGraph(): Promise<Graph> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: sourcesOf('src'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    outdir: 'architecture-test-out',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const graph: Graph = new Map();
  for (const [file, input] of Object.entries(result.metafile.inputs)) {
    if (!file.startsWith('src/')) continue;
    graph.set(
      file,
      input.imports
        .filter((edge) => !edge.external && edge.path.startsWith('src/'))
        .map((edge) => ({ path: edge.path, dynamic: edge.kind === 'dynamic-import' })),
    );
  }
  return graph;
}

/**
 * Every import cycle, one per strongly connected component (Tarjan), each shown as one path around it:
 * `a.ts → b.ts ⇢ a.ts` (⇢ an `import()`). A dynamic import closes a cycle too: the modules still depend on
 * each other, and the bundle puts them in chunks that import each other.
 */
function cyclesOf(graph: Graph): string[] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const { path } of graph.get(node) ?? []) {
      if (!index.has(path)) {
        visit(path);
        low.set(node, Math.min(low.get(node)!, low.get(path)!));
      } else if (onStack.has(path)) {
        low.set(node, Math.min(low.get(node)!, index.get(path)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    const selfImport = (graph.get(node) ?? []).some(({ path }) => path === node);
    if (component.length > 1 || selfImport) components.push(component);
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components.map((component) => {
    // A path around the component from its first module (breadth-first back to the start).
    const members = new Set(component);
    const start = [...members].sort()[0]!;
    const came = new Map<string, { from: string; dynamic: boolean }>();
    const queue = [start];
    let closing: { from: string; dynamic: boolean } | undefined;
    while (queue.length > 0 && !closing) {
      const node = queue.shift()!;
      for (const { path, dynamic } of graph.get(node) ?? []) {
        if (!members.has(path)) continue;
        if (path === start) {
          closing = { from: node, dynamic };
          break;
        }
        if (!came.has(path)) {
          came.set(path, { from: node, dynamic });
          queue.push(path);
        }
      }
    }
    const steps: string[] = [`${closing!.dynamic ? '⇢' : '→'} ${start}`];
    for (let at = closing!.from; at !== start; at = came.get(at)!.from) {
      steps.unshift(`${came.get(at)!.dynamic ? '⇢' : '→'} ${at}`);
    }
    return [start, ...steps].join(' ');
  });
}

/** Every module specifier written in a file, `import type` included: for rules about what a layer may name. */
function specifiersIn(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const found = [
    ...text.matchAll(/\bfrom\s+['"]([^'"]+)['"]/g),
    ...text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
  ];
  return found.map((match) => match[1]!);
}

function resolvesInto(file: string, specifier: string, dir: string): boolean {
  if (!specifier.startsWith('.')) return false;
  const target = relative(root, join(root, dirname(file), specifier))
    .split('\\')
    .join('/');
  return target === dir || target.replace(/\.js$/, '') === dir || target.startsWith(`${dir}/`);
}

/** The text of a file with its comments blanked out (strings kept: a header name in a string counts). */
function withoutComments(file: string): string {
  return readFileSync(join(root, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** The src/ file a relative specifier of `file` names (`./x.js` → `src/…/x.ts`), or undefined. */
function resolved(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = relative(root, join(root, dirname(file), specifier))
    .split('\\')
    .join('/')
    .replace(/\.js$/, '.ts');
  return target.startsWith('src/') ? target : undefined;
}

/** Every module of src/ reachable from `start` through any import: static, `import()`, `import type`. */
function reachableFrom(start: string): string[] {
  const seen = new Set<string>([start]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const specifier of specifiersIn(file)) {
      const target = resolved(file, specifier);
      if (target !== undefined && !seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  seen.delete(start);
  return [...seen].sort();
}

/**
 * The layers of docs/architecture.md (rule 13), by every specifier a file writes, `import type` included:
 * a type names its layer as surely as a value does.
 */
const LAYERS: Array<[string, string[]]> = [
  [
    'src/api',
    [
      'src/config',
      'src/output',
      'src/journal',
      'src/events',
      'src/approvals',
      'src/sandbox',
      'src/commands',
      'src/cli',
      'src/wiring.ts',
    ],
  ],
  [
    'src/config',
    [
      'src/api',
      'src/output',
      'src/journal',
      'src/events',
      'src/approvals',
      'src/sandbox',
      'src/commands',
      'src/cli',
      'src/wiring.ts',
    ],
  ],
  [
    'src/journal',
    ['src/api', 'src/events', 'src/approvals', 'src/sandbox', 'src/commands', 'src/cli', 'src/wiring.ts'],
  ],
  // pix listen's state (its log, cursor and stores): beside the journal, above nothing but it and storage.
  [
    'src/events',
    ['src/api', 'src/config', 'src/approvals', 'src/sandbox', 'src/commands', 'src/cli', 'src/wiring.ts'],
  ],
  // The approvals' files, reviews and stores: over the journal (the account's history), never the API.
  [
    'src/approvals',
    ['src/api', 'src/config', 'src/events', 'src/sandbox', 'src/commands', 'src/cli', 'src/wiring.ts'],
  ],
  [
    'src/domain',
    [
      'src/api',
      'src/config',
      'src/output',
      'src/journal',
      'src/events',
      'src/approvals',
      'src/sandbox',
      'src/storage',
      'src/commands',
      'src/cli',
    ],
  ],
  [
    'src/storage',
    [
      'src/api',
      'src/config',
      'src/output',
      'src/journal',
      'src/events',
      'src/approvals',
      'src/sandbox',
      'src/commands',
      'src/cli',
    ],
  ],
  [
    'src/output',
    [
      'src/api',
      'src/config',
      'src/journal',
      'src/events',
      'src/approvals',
      'src/sandbox',
      'src/commands',
      'src/cli',
    ],
  ],
  // The simulated server: a wing of its own, which knows nothing of pix's commands or what they keep.
  ['src/sandbox', ['src/journal', 'src/events', 'src/approvals', 'src/commands', 'src/cli', 'src/wiring.ts']],
  // The command line names the commands (its table loads them) and nothing they keep or ask.
  [
    'src/cli',
    ['src/api', 'src/journal', 'src/events', 'src/approvals', 'src/sandbox', 'src/storage', 'src/wiring.ts'],
  ],
  // The commands are handed their context: they name neither the command line nor the wiring nor this machine.
  [
    'src/commands',
    [
      'src/cli',
      'src/main.ts',
      'src/wiring.ts',
      'src/wiring-lazy.ts',
      'src/wiring-stores.ts',
      'src/system.ts',
    ],
  ],
  ['src/wiring.ts', ['src/commands']],
  ['src/wiring-lazy.ts', ['src/commands']],
  ['src/wiring-stores.ts', ['src/commands']],
];

/** `file: specifier` for each import of a module under `dir` (or `dir` itself) that names one of `forbidden`. */
function layerViolations(dir: string, forbidden: string[]): string[] {
  const files = dir.endsWith('.ts') ? [dir] : sourcesOf(dir);
  return files.flatMap((file) =>
    specifiersIn(file)
      .filter((specifier) =>
        forbidden.some((layer) => resolvesInto(file, specifier, layer.replace(/\.ts$/, ''))),
      )
      .map((specifier) => `${file}: ${specifier}`),
  );
}

/** The most lines of code a function of src/ may have (biome's noExcessiveLinesPerFunction, biome.jsonc). */
const MOST_FUNCTION_LINES = 80;

type RuleConfig = { level: string; options?: { maxLines?: number } };
interface Override {
  includes: string[];
  linter?: { rules?: { complexity?: { noExcessiveLinesPerFunction?: RuleConfig } } };
}

/** biome.jsonc's overrides (parsed as JSON with comments, by the TypeScript compiler's own reader). */
function biomeOverrides(): Override[] {
  const file = join(root, 'biome.jsonc');
  const parsed = ts.parseConfigFileTextToJson(file, readFileSync(file, 'utf8'));
  if (parsed.error) throw new Error(ts.flattenDiagnosticMessageText(parsed.error.messageText, '\n'));
  return (parsed.config as { overrides: Override[] }).overrides;
}

/**
 * The longest function of a file, in lines of code of its body: blank lines and lines that are only comment
 * left out, near enough to biome's count to tell a function that is still long from one that was split.
 */
function longestFunction(file: string): number {
  const text = readFileSync(join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  let longest = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const body = node.body as ts.Node;
      const lines = text.slice(body.getStart(source), body.getEnd()).split('\n');
      const code = lines.filter((line) => !/^\s*($|\/\/|\/\*|\*)/.test(line)).length;
      longest = Math.max(longest, code);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return longest;
}

describe('architecture: the shape of src/', () => {
  let graph: Graph;
  beforeAll(async () => {
    graph = await runTimeGraph();
  });

  it('sees the whole program (so the rules below are not vacuous)', () => {
    expect([...graph.keys()].sort()).toEqual(sourcesOf('src'));
    expect(graph.get('src/main.ts')).toContainEqual({ path: 'src/wiring.ts', dynamic: false });
    expect(graph.get('src/wiring.ts')).toContainEqual({ path: 'src/wiring-lazy.ts', dynamic: true });
  });

  it('has no import cycle at run time (static or import(); `import type` does not count)', () => {
    // Joined, so a failure prints each cycle's path.
    expect(cyclesOf(graph).join('\n')).toBe('');
  });

  it('finds a cycle when there is one, through a dynamic import too', () => {
    const made: Graph = new Map([
      ['a.ts', [{ path: 'b.ts', dynamic: false }]],
      ['b.ts', [{ path: 'c.ts', dynamic: true }]],
      ['c.ts', [{ path: 'a.ts', dynamic: false }]],
      ['d.ts', [{ path: 'd.ts', dynamic: false }]],
      ['e.ts', [{ path: 'a.ts', dynamic: false }]],
    ]);
    expect(cyclesOf(made).sort()).toEqual(['a.ts → b.ts ⇢ c.ts → a.ts', 'd.ts → d.ts']);
  });

  it('context.ts, the shared types, is a leaf: it loads nothing of src/', () => {
    expect(graph.get('src/context.ts')).toEqual([]);
  });

  it.each(LAYERS)('%s names nothing of %j, not even for a type', (dir, forbidden) => {
    expect(layerViolations(dir, forbidden)).toEqual([]);
  });

  it('api/ knows no sandbox: no credential kind, header or word for it outside comments', () => {
    const offenders = sourcesOf('src/api').filter((file) => /sandbox/i.test(withoutComments(file)));
    expect(offenders).toEqual([]);
  });

  it('domain/ names no exit code: it says what happened (an error kind), main.ts says the code', () => {
    const offenders = sourcesOf('src/domain').filter((file) =>
      /\b(SIGNAL_)?EXIT_CODES\b/.test(withoutComments(file)),
    );
    expect(offenders).toEqual([]);
  });

  it('the wiring (src/wiring.ts) reaches nothing of src/commands/ or src/cli/table.ts, through any import, types included', () => {
    const reached = reachableFrom('src/wiring.ts');
    expect(reached.length).toBeGreaterThan(10);
    expect(reached.filter((file) => file.startsWith('src/commands/') || file === 'src/cli/table.ts')).toEqual(
      [],
    );
  });

  it('time, randomness and pids are read in src/system.ts alone; every other module is handed them', () => {
    const reads = /\bDate\.now\(|\bMath\.random\b|\bprocess\.pid\b|\bprocess\.kill\(|\bnew Date\(\)/;
    const offenders = sourcesOf('src')
      .filter((file) => file !== 'src/system.ts')
      .filter((file) => reads.test(withoutComments(file)));
    expect(offenders).toEqual([]);
  });

  it('nothing in api/, config/, output/ or domain/ names sandbox/, not even for a type', () => {
    const offenders = ['src/api', 'src/config', 'src/output', 'src/domain'].flatMap((dir) =>
      sourcesOf(dir).flatMap((file) =>
        specifiersIn(file)
          .filter((specifier) => resolvesInto(file, specifier, 'src/sandbox'))
          .map((specifier) => `${file}: ${specifier}`),
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('outside src/sandbox/, code names the sandbox only through its door, sandbox/index.ts, types included', () => {
    const offenders = sourcesOf('src')
      .filter((file) => !file.startsWith('src/sandbox/'))
      .flatMap((file) =>
        specifiersIn(file)
          .filter((specifier) => resolvesInto(file, specifier, 'src/sandbox'))
          .filter((specifier) => !resolvesInto(file, specifier, 'src/sandbox/index.js'))
          .map((specifier) => `${file}: ${specifier}`),
      );
    expect(offenders).toEqual([]);
    // Not vacuous: the factory and the sandbox commands do come through the door.
    const door = [...graph].filter(([, edges]) => edges.some(({ path }) => path === 'src/sandbox/index.ts'));
    expect(door.map(([file]) => file)).toContain('src/wiring-lazy.ts');
  });

  it('every directory of src/ is a layer with a row above', () => {
    const dirs = readdirSync(join(root, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `src/${entry.name}`);
    expect(dirs.length).toBeGreaterThan(8);
    expect(dirs.filter((dir) => !LAYERS.some(([layer]) => layer === dir))).toEqual([]);
  });

  it('a command folder names no other command folder: what two share is in commands/shared/ or below', () => {
    const offenders = sourcesOf('src/commands').flatMap((file) => {
      const own = file.split('/')[2]!;
      return specifiersIn(file)
        .map((specifier) => ({ specifier, target: resolved(file, specifier) }))
        .filter(({ target }) => target?.startsWith('src/commands/') && target.split('/').length > 3)
        .filter(({ target }) => {
          const folder = target!.split('/')[2]!;
          return folder !== own && (folder !== 'shared' || own === 'shared');
        })
        .map(({ specifier }) => `${file}: ${specifier}`);
    });
    expect(offenders).toEqual([]);
    // Not vacuous: the folders do share, through shared/.
    const viaShared = sourcesOf('src/commands/pay').flatMap((file) =>
      specifiersIn(file).filter((specifier) => resolved(file, specifier)?.startsWith('src/commands/shared/')),
    );
    expect(viaShared.length).toBeGreaterThan(3);
  });

  /**
   * Where the profile's ledger is asked which it is, beside the wiring's src/wiring-stores.ts: commands
   * that administer or report the ledger itself, and open none of its stores by it.
   */
  const LEDGER_READERS: Record<string, string> = {
    'src/commands/auth/status.ts': 'says which ledger the profile uses',
    'src/commands/ledger/status.ts': "reports the ledger itself: a file's checks, or the database's schema",
    'src/commands/ledger/shared.ts': "the URL a ledger command addresses (--url, else the profile's)",
    'src/commands/schedule/run.ts': 'refuses without a database: its runner is one (pg-boss)',
  };

  it('a store is chosen in the wiring alone: `ledger.kind` is read in src/wiring-stores.ts and the commands that report the ledger', () => {
    const readers = sourcesOf('src').filter((file) => /\bledger\.kind\b/.test(withoutComments(file)));
    expect(readers).toContain('src/wiring-stores.ts');
    expect(readers.filter((file) => file !== 'src/wiring-stores.ts' && !(file in LEDGER_READERS))).toEqual(
      [],
    );
    // A listed file that no longer reads it leaves the list, so the list stays true.
    expect(Object.keys(LEDGER_READERS).filter((file) => !readers.includes(file))).toEqual([]);
  });

  it('a store is opened in the wiring alone: the database stores are named by src/wiring-stores.ts and their own modules', () => {
    const openers =
      /\b(openPostgresJournal|openPostgresSchedules|postgresApprovalStores|postgresEventStore|fileApprovalStores|fileEventStore|fileSchedules)\b/;
    const named = sourcesOf('src')
      .filter((file) => openers.test(withoutComments(file)))
      .filter((file) => !new RegExp(`export function ${openers.source}`).test(withoutComments(file)));
    expect(named).toEqual(['src/wiring-stores.ts']);
    // No per-run memo of a store outside the wiring: a WeakMap keyed by the context holds one.
    const memos = sourcesOf('src').filter((file) =>
      /new WeakMap<Deps, Promise<\w*Store/.test(withoutComments(file)),
    );
    expect(memos).toEqual([]);
  });

  it('SYSTEM (src/system.ts, this machine) is named by the wiring alone: everything below is handed it', () => {
    const naming = sourcesOf('src').filter((file) =>
      specifiersIn(file).some((specifier) => resolved(file, specifier) === 'src/system.ts'),
    );
    expect(naming).toContain('src/wiring.ts');
    // The sandbox stands for the server, a program of its own: started bare (a test's), it is this machine.
    const allowed = ['src/wiring.ts', 'src/wiring-stores.ts', 'src/sandbox/server.ts'];
    expect(naming.filter((file) => !allowed.includes(file))).toEqual([]);
  });

  it(`holds every function of src/ to ${MOST_FUNCTION_LINES} lines (biome), but the files on its allow-list`, () => {
    const [budget, ...allowed] = biomeOverrides();
    // The first override is the budget itself, on all of src/ and at error level (`npm run lint` fails on it).
    expect(budget!.includes).toEqual(['src/**']);
    const rule = budget!.linter?.rules?.complexity?.noExcessiveLinesPerFunction;
    expect(rule?.level).toBe('error');
    expect(rule?.options?.maxLines).toBeLessThanOrEqual(MOST_FUNCTION_LINES);
    // Each later one raises the ceiling for one file of src/ and nothing else; a file whose functions all fit
    // now leaves the list, so the list stays true and only shrinks.
    const sources = new Set(sourcesOf('src'));
    const entries = allowed.map((entry) => ({
      file: entry.includes.join(','),
      keys: Object.keys(entry.linter?.rules ?? {}),
      ceiling: entry.linter?.rules?.complexity?.noExcessiveLinesPerFunction?.options?.maxLines ?? 0,
    }));
    expect(entries.filter((entry) => !sources.has(entry.file) || entry.keys.join() !== 'complexity')).toEqual(
      [],
    );
    const stale = entries
      .filter(
        (entry) => entry.ceiling <= MOST_FUNCTION_LINES || longestFunction(entry.file) <= MOST_FUNCTION_LINES,
      )
      .map((entry) => `${entry.file}: its longest function is ${longestFunction(entry.file)} lines`);
    expect(stale).toEqual([]);
  });
});
