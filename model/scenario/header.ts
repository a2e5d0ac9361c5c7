import type { Diagnostic, Directive } from '../isa/program.ts';
import type { Launch } from '../lanes/launch.ts';
import type { LcpItem } from '../mechanisms/lcpHints.ts';

/**
 * The launch header of a listing (SEMANTICS §5, syntax a project decision): comment lines
 * `// @warpcheck <item> <item> …` whose items are
 *
 * | item | meaning |
 * | --- | --- |
 * | `warp-size=4`, `warps=2` | block shape |
 * | `entry=NAME` | the kernel's entry function (default: the first function) |
 * | `mem[0x100]=5` | initial memory word |
 * | `c[0x0][0x160]=0x100` | constant-bank word (a kernel parameter) |
 * | `R5=3`, `R5@2=7`, `R5@0,1=7` | initial register value, for all threads or the listed thread ids |
 * | `expect:its=terminates`, `expect:simt-stack=deadlock/livelock` | the verdict a test expects |
 * | `lcp=BRANCH:POINT` | a likely convergence point for the `lcp` mechanism (seed 002 §3.11; `lcpHints.ts`) |
 */
export interface Header {
  readonly launch: Partial<Launch>;
  readonly entry: string | null;
  /** Where the `entry=` item is, for an error about the name (issue 14). */
  readonly entryAt?: { readonly line: number; readonly column: number };
  readonly expect: Readonly<Record<string, string>>;
  /** `lcp=BRANCH:POINT` items, unresolved (labels are resolved with the program). */
  readonly lcp?: readonly LcpItem[];
}

const NUM = String.raw`(-?(?:0x[0-9a-fA-F]+|\d+))`;
const ITEM_PATTERNS: readonly [RegExp, string][] = [
  [new RegExp(String.raw`^warp-size=${NUM}$`), 'warp-size'],
  [new RegExp(String.raw`^warps=${NUM}$`), 'warps'],
  [/^entry=(\S+)$/, 'entry'],
  [new RegExp(String.raw`^mem\[${NUM}\]=${NUM}$`), 'mem'],
  [new RegExp(String.raw`^c\[${NUM}\]\[${NUM}\]=${NUM}$`), 'const'],
  [new RegExp(String.raw`^R(\d+)(?:@([\d,]+))?=${NUM}$`), 'reg'],
  [/^expect:([a-z0-9-]+)=([a-z-]+(?:\/[a-z]+)?)$/, 'expect'],
  [/^lcp=([^:\s]+):([^:\s]+)$/, 'lcp'],
];

const num = (s: string): number => (s.startsWith('-') ? -Number(s.slice(1)) : Number(s));

/**
 * Range problems of one header item (SEMANTICS §1), or null — reported at the item, with its line
 * and column, instead of later without a position when the launch is resolved (issue 14).
 */
function rangeProblem(kind: string, r: RegExpExecArray): string | null {
  const word = (v: number, what: string) =>
    v < -0x80000000 || v > 0xffffffff
      ? `${what} ${r.input.split('=').pop()} does not fit in 32 bits`
      : null;
  switch (kind) {
    case 'warp-size': {
      const v = num(r[1]!);
      return v >= 1 && v <= 32 ? null : `warp size must be an integer from 1 to 32 (got ${v})`;
    }
    case 'warps': {
      const v = num(r[1]!);
      return v >= 1 && v <= 8 ? null : `warps per block must be an integer from 1 to 8 (got ${v})`;
    }
    case 'mem': {
      const a = num(r[1]!);
      if (a < 0 || !Number.isSafeInteger(a)) return `memory address ${r[1]} is out of range`;
      return word(num(r[2]!), 'the value');
    }
    case 'const':
      if (num(r[1]!) < 0 || num(r[2]!) < 0) return 'a constant bank or offset is negative';
      return word(num(r[3]!), 'the value');
    case 'reg': {
      const bad = r[2]?.split(',').find((t) => t === '' || Number(t) > 255);
      if (bad !== undefined) return `thread id '${bad}' is out of range (0..255: 8 warps of 32)`;
      return word(num(r[3]!), 'the value');
    }
    default:
      return null;
  }
}

/** Reads every `// @warpcheck` directive; unknown items are errors with their line and column. */
export function parseHeader(
  directives: readonly Directive[],
  file: string,
): { ok: true; value: Header } | { ok: false; error: Diagnostic[] } {
  const launch: { -readonly [K in keyof Launch]?: Launch[K] } = {};
  const memory: [number, number][] = [];
  const constants: { bank: number; offset: number; value: number }[] = [];
  const registers: { reg: number; value: number; threads?: number[] }[] = [];
  const expect: Record<string, string> = {};
  const lcp: LcpItem[] = [];
  let entry: string | null = null;
  let entryAt: { line: number; column: number } | undefined;
  const errors: Diagnostic[] = [];
  for (const d of directives) {
    const re = /\S+/g;
    for (let m = re.exec(d.text); m; m = re.exec(d.text)) {
      const item = m[0];
      const at = { file, line: d.line, column: d.column + m.index };
      const hit = ITEM_PATTERNS.map(([p, k]) => [p.exec(item), k] as const).find(([r]) => r);
      if (!hit) {
        errors.push({
          ...at,
          message: `unknown header item '${item}' (expected warp-size=N, warps=N, entry=NAME, mem[ADDR]=V, c[B][OFF]=V, Rn[@tids]=V, expect:MECHANISM=VERDICT or lcp=BRANCH:POINT)`,
        });
        continue;
      }
      const [r, kind] = hit as [RegExpExecArray, string];
      const range = rangeProblem(kind, r);
      if (range !== null) {
        errors.push({ ...at, message: `${range} in '${item}'` });
        continue;
      }
      switch (kind) {
        case 'warp-size':
          launch.warpSize = num(r[1]!);
          break;
        case 'warps':
          launch.warps = num(r[1]!);
          break;
        case 'entry':
          entry = r[1]!;
          entryAt = { line: at.line, column: at.column };
          break;
        case 'mem':
          memory.push([num(r[1]!), num(r[2]!) >>> 0]);
          break;
        case 'const':
          constants.push({ bank: num(r[1]!), offset: num(r[2]!), value: num(r[3]!) >>> 0 });
          break;
        case 'reg': {
          const reg = Number(r[1]);
          if (reg > 254) {
            errors.push({ ...at, message: `register R${reg} does not exist (R0..R254)` });
            break;
          }
          const threads = r[2] ? r[2].split(',').map(Number) : undefined;
          registers.push({ reg, value: num(r[3]!) >>> 0, ...(threads ? { threads } : {}) });
          break;
        }
        case 'expect':
          expect[r[1]!] = r[2]!;
          break;
        case 'lcp':
          lcp.push({ branch: r[1]!, point: r[2]!, ...at });
          break;
      }
    }
  }
  if (errors.length) return { ok: false, error: errors };
  if (memory.length) launch.memory = memory;
  if (constants.length) launch.constants = constants;
  if (registers.length) launch.registers = registers;
  return {
    ok: true,
    value: {
      launch,
      entry,
      ...(entryAt ? { entryAt } : {}),
      expect,
      ...(lcp.length ? { lcp } : {}),
    },
  };
}
