/**
 * `npm run matrix`: the mechanism matrix of docs/mechanisms.md — every registered mechanism ×
 * six programs (issue 5 item 6) — produced by running the tool itself (`warpcheck explore --json`,
 * and `warpcheck compile --target turing` for the compiled spinlock) and written into
 * docs/mechanisms.md between the markers.
 *
 *   npm run matrix               regenerate the table in docs/mechanisms.md
 *   npm run matrix -- --check    exit 1 when the table in the file differs from the tool's output
 *   npm run matrix -- --no-write print only
 *
 * Cells are verdicts with their state counts (deterministic: BFS over the same machine), never
 * times, so the table is reproducible on any machine and `matrixTable` can be compared in tests.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cli, formatted, sectionIn, withSection } from './cli.ts';
import { MECHANISMS } from '../model/mechanisms/registry.ts';
import { EXPECTATIONS } from '../properties/laws/expectations.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const MATRIX_DOC = join(ROOT, 'docs', 'mechanisms.md');
export const BEGIN = '<!-- matrix:begin (written by `npm run matrix`; do not edit) -->';
export const END = '<!-- matrix:end -->';
export const LAWS_BEGIN =
  '<!-- expectations:begin (written by `npm run matrix` from properties/laws/expectations.ts; do not edit) -->';
export const LAWS_END = '<!-- expectations:end -->';

/**
 * The expected law failures, per mechanism, as declared in properties/laws/expectations.ts (the
 * table the law tests enforce: an undeclared failure and a declared one that never shows both
 * fail `npm test`).
 */
export function expectationsTable(): string {
  const cell = (t: string) => t.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = ['| mechanism | law | kernel class | why |', '| --- | --- | --- | --- |'];
  for (const m of MECHANISMS)
    for (const e of EXPECTATIONS.filter((x) => x.mechanism === m.id && x.expect === 'fails'))
      lines.push(
        `| \`${m.id}\` | ${e.law} | ${e.class}${e.with ? ` + ${e.with}` : ''} | ${cell(e.reason)} |`,
      );
  return lines.join('\n') + '\n';
}

/** A column: a listing explored as it is, or compiled first for a target. */
export interface Column {
  readonly id: string;
  readonly title: string;
  readonly file: string;
  readonly compile?: string;
}

export const COLUMNS: readonly Column[] = [
  { id: 'spinlock', title: 'spinlock (plain)', file: 'scenarios/spinlock.sass' },
  {
    id: 'spinlock-turing',
    title: 'spinlock compiled for Turing',
    file: 'scenarios/spinlock.sass',
    compile: 'turing',
  },
  {
    id: 'fig6',
    title: 'Fig. 6 early reconvergence (BREAK)',
    file: 'scenarios/seed000-fig6-early-break.sass',
  },
  {
    id: 'warpsync-partial',
    title: 'WARPSYNC, partial mask',
    file: 'scenarios/matrix/warpsync-partial.sass',
  },
  { id: 'loop-break', title: 'loop with break', file: 'scenarios/matrix/loop-break.sass' },
  { id: 'recursion', title: 'recursive call', file: 'scenarios/matrix/recursion.sass' },
];

/** Budgets per cell: every program here is small; a bound is reported as such. */
const BUDGET = ['--max-states', '200000', '--timeout', '20'];

interface Cell {
  readonly verdict: string;
  readonly states: number;
  readonly bound: string | null;
}

/** One column: every mechanism's verdict on the column's program. */
async function runColumn(c: Column, dir: string): Promise<Map<string, Cell>> {
  let file = join(ROOT, c.file);
  if (c.compile) {
    const out = join(dir, `${c.id}.sass`);
    const r = await cli(['compile', file, '--target', c.compile, '-o', out]);
    if (r.code !== 0) throw new Error(`warpcheck compile ${c.file} failed: ${r.err || r.out}`);
    file = out;
  }
  const r = await cli(['explore', file, '--mechanism', 'all', '--json', '--no-save', ...BUDGET]);
  if (r.code === 2) throw new Error(`warpcheck explore ${c.file} failed: ${r.err}`);
  const json = JSON.parse(r.out) as {
    results: {
      mechanism: string;
      verdict: string;
      kind: string | null;
      states: number;
      bound: string | null;
    }[];
  };
  return new Map(
    json.results.map((x) => [
      x.mechanism,
      { verdict: x.kind ? `${x.verdict}/${x.kind}` : x.verdict, states: x.states, bound: x.bound },
    ]),
  );
}

/** The markdown table (without markers): mechanisms in registry order × COLUMNS. */
export async function matrixTable(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'wc-matrix-'));
  try {
    const cols: Map<string, Cell>[] = [];
    for (const c of COLUMNS) {
      process.stderr.write(`  ${c.title} …\n`);
      cols.push(await runColumn(c, dir));
    }
    const lines = [
      `| mechanism | ${COLUMNS.map((c) => c.title).join(' | ')} |`,
      `| --- | ${COLUMNS.map(() => '---').join(' | ')} |`,
    ];
    for (const m of MECHANISMS) {
      const cells = cols.map((col) => {
        const x = col.get(m.id);
        if (!x) return '–';
        const bound = x.bound ? `, ${x.bound} bound` : '';
        return `${x.verdict} (${x.states.toLocaleString('en-US')} states${bound})`;
      });
      lines.push(`| \`${m.id}\` | ${cells.join(' | ')} |`);
    }
    return lines.join('\n') + '\n';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The document's text with the table between the markers replaced. */
export const withTable = (doc: string, tableText: string): string =>
  withSection(doc, BEGIN, END, tableText);

/** The table currently in the document, between the markers. */
export const tableIn = (doc: string): string | null => sectionIn(doc, BEGIN, END);

/** The document with both generated sections replaced, formatted as prettier would write it. */
export async function freshDoc(doc: string, matrix: string): Promise<string> {
  return formatted(
    MATRIX_DOC,
    withSection(withTable(doc, matrix), LAWS_BEGIN, LAWS_END, expectationsTable()),
  );
}

async function run(argv: readonly string[]): Promise<number> {
  const t = await matrixTable();
  const doc = readFileSync(MATRIX_DOC, 'utf8');
  // The document as the tool would write it (prettier pads the table's columns).
  const fresh = await freshDoc(doc, t);
  if (argv.includes('--check')) {
    const same = fresh === doc;
    process.stdout.write(
      same
        ? 'docs/mechanisms.md matches the tool\n'
        : `docs/mechanisms.md differs; the tool says:\n${t}`,
    );
    return same ? 0 : 1;
  }
  process.stdout.write(t);
  if (!argv.includes('--no-write')) {
    writeFileSync(MATRIX_DOC, fresh);
    process.stderr.write(`wrote ${MATRIX_DOC}\n`);
  }
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  run(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: Error) => {
      process.stderr.write(`matrix: ${e.message}\n`);
      process.exit(2);
    },
  );
