/**
 * Reads an Accel-Sim `.traceg` file (`shared/sass/SYNTAX.md` §2d): header lines (`-key = value`,
 * `#traces format = …`), then `#BEGIN_TB` … `#END_TB` sections, each with `thread block = x,y,z`
 * and, per warp, `warp = N`, `insts = N` and N instruction lines. Lines end with a trailing space.
 *
 * Never throws; returns up to `MAX_ERRORS` diagnostics (1-based line and column) instead.
 */
import { err, ok, type Diagnostic, type Result } from '../isa/program.ts';
import { parseTraceInst, tokenize } from './parseTraceInst.ts';
import type { Trace, TraceBlock, TraceInst, TraceWarp } from './trace.ts';
import { traceLayout, type TraceLayout } from './traceLayout.ts';

/** At most this many diagnostics are reported; parsing stops once they are collected. */
export const MAX_ERRORS = 20;

/** Options of `parseTraceg`. */
export interface ParseTracegOptions {
  /** File name used in diagnostics; `<traceg>` when absent. */
  readonly file?: string;
}

interface OpenWarp {
  readonly warp: number;
  readonly line: number;
  declared: number | null;
  declaredLine: number;
  /** Instruction lines seen, malformed ones included (so one bad line is one error, not two). */
  lines: number;
  readonly insts: TraceInst[];
}

interface OpenBlock {
  readonly line: number;
  block: readonly [number, number, number] | null;
  readonly warps: TraceWarp[];
}

/** Parses `.traceg` text into a `Trace`, or the diagnostics of its malformed lines. */
export function parseTraceg(text: string, options: ParseTracegOptions = {}): Result<Trace> {
  const file = options.file ?? '<traceg>';
  const errors: Diagnostic[] = [];
  const report = (line: number, column: number, message: string): void => {
    if (errors.length < MAX_ERRORS) errors.push({ file, line, column, message });
  };
  const header: Record<string, string> = {};
  const blocks: TraceBlock[] = [];
  let layout: TraceLayout | null = null;
  let layoutFailed = false;
  let block: OpenBlock | null = null;
  let warp: OpenWarp | null = null;

  const closeWarp = (): void => {
    if (warp === null || block === null) return;
    if (warp.declared === null) {
      report(warp.line, 1, `warp ${warp.warp} has no 'insts = N' line after 'warp = ${warp.warp}'`);
    } else if (warp.declared !== warp.lines) {
      report(
        warp.declaredLine,
        1,
        `warp ${warp.warp} declares insts = ${warp.declared} but ${warp.lines} instruction lines follow; fix the count or the truncated section`,
      );
    }
    block.warps.push({
      warp: warp.warp,
      declared: warp.declared ?? warp.insts.length,
      insts: warp.insts,
    });
    warp = null;
  };
  const closeBlock = (): void => {
    closeWarp();
    if (block === null) return;
    if (block.block === null)
      report(block.line, 1, "thread block section has no 'thread block = x,y,z' line");
    else blocks.push({ block: block.block, warps: block.warps });
    block = null;
  };

  const lines = text.split(/\r\n|\n|\r/);
  for (let n = 0; n < lines.length && errors.length < MAX_ERRORS; n++) {
    const lineNo = n + 1;
    const raw = lines[n]!;
    const body = raw.trim();
    if (body === '') continue;
    const indent = raw.length - raw.trimStart().length + 1;

    if (body.startsWith('#')) {
      if (body === '#BEGIN_TB') {
        if (block !== null) {
          report(
            lineNo,
            indent,
            `'#BEGIN_TB' inside the thread block opened on line ${(block as OpenBlock).line}; add '#END_TB' before it`,
          );
          closeBlock();
        }
        block = { line: lineNo, block: null, warps: [] };
      } else if (body === '#END_TB') {
        if (block === null) report(lineNo, indent, "'#END_TB' without a matching '#BEGIN_TB'");
        closeBlock();
      } else {
        const eq = body.indexOf('=');
        if (eq > 0) header[body.slice(1, eq).trim()] = body.slice(eq + 1).trim();
        // Other `#` lines are comments.
      }
      continue;
    }
    if (body.startsWith('-')) {
      const eq = body.indexOf('=');
      if (eq < 0)
        report(lineNo, indent, `header line '${body}' has no '=': expected '-key = value'`);
      else header[body.slice(0, eq).trim()] = body.slice(eq + 1).trim();
      continue;
    }
    const keyed = /^(thread block|warp|insts)\s*=\s*(.*)$/.exec(body);
    if (keyed !== null) {
      const [, key, value] = keyed;
      const valueColumn = indent + body.indexOf(value!);
      if (key === 'thread block') {
        const m = /^([0-9]{1,10}),([0-9]{1,10}),([0-9]{1,10})$/.exec(value!.replace(/\s+/g, ''));
        if (block === null)
          report(lineNo, indent, "'thread block =' outside a '#BEGIN_TB' … '#END_TB' section");
        else if (m === null)
          report(
            lineNo,
            valueColumn,
            `expected 'thread block = x,y,z' with decimal x, y, z, found '${value}'`,
          );
        else if (block.block !== null)
          report(
            lineNo,
            indent,
            `second 'thread block =' line in the section opened on line ${block.line}`,
          );
        else block.block = [Number(m[1]), Number(m[2]), Number(m[3])];
      } else if (key === 'warp') {
        closeWarp();
        if (block === null)
          report(lineNo, indent, "'warp =' outside a '#BEGIN_TB' … '#END_TB' section");
        else if (!/^[0-9]{1,10}$/.test(value!))
          report(lineNo, valueColumn, `expected 'warp = N' with a decimal N, found '${value}'`);
        else if (block.warps.some((w) => w.warp === Number(value)))
          report(lineNo, indent, `warp ${value} appears twice in this thread block`);
        else
          warp = {
            warp: Number(value),
            line: lineNo,
            declared: null,
            declaredLine: lineNo,
            lines: 0,
            insts: [],
          };
      } else {
        if (warp === null) report(lineNo, indent, "'insts =' without a preceding 'warp = N' line");
        else if (!/^[0-9]{1,10}$/.test(value!))
          report(lineNo, valueColumn, `expected 'insts = N' with a decimal N, found '${value}'`);
        else if (warp.declared !== null || warp.lines > 0)
          report(lineNo, indent, `'insts =' must come once, right after 'warp = ${warp.warp}'`);
        else {
          warp.declared = Number(value);
          warp.declaredLine = lineNo;
        }
      }
      continue;
    }

    // An instruction line.
    if (warp === null) {
      report(
        lineNo,
        indent,
        "instruction line outside a warp section: expected 'warp = N' and 'insts = N' before it",
      );
      continue;
    }
    (warp as OpenWarp).lines++;
    if (layout === null) {
      if (layoutFailed) continue;
      const l = traceLayout(header);
      if (!l.ok) {
        layoutFailed = true;
        report(lineNo, indent, l.message);
        continue;
      }
      layout = l.layout;
    }
    const parsed = parseTraceInst(tokenize(raw), layout, lineNo);
    if (!parsed.ok) {
      report(lineNo, parsed.column, parsed.message);
      continue;
    }
    const current = warp as OpenWarp;
    const open = block as OpenBlock | null;
    if (parsed.prefix !== null && open !== null && open.block !== null) {
      const [x, y, z] = parsed.prefix.block;
      const [bx, by, bz] = open.block;
      if (x !== bx || y !== by || z !== bz || parsed.prefix.warp !== current.warp) {
        report(
          lineNo,
          indent,
          `leading columns say thread block ${x},${y},${z} warp ${parsed.prefix.warp}, but the line is in thread block ${bx},${by},${bz} warp ${current.warp}`,
        );
        continue;
      }
    }
    current.insts.push(parsed.inst);
  }
  if (errors.length < MAX_ERRORS && block !== null) {
    report(
      lines.length,
      1,
      `file ends inside the thread block opened on line ${(block as OpenBlock).line}; expected '#END_TB'`,
    );
    closeBlock();
  }
  if (errors.length > 0) return err(errors);
  if (layout === null) {
    const l = traceLayout(header);
    if (!l.ok)
      return err([{ file, line: 1, column: 1, message: "no '#traces format = …' header line" }]);
    layout = l.layout;
  }
  return ok({ header, format: layout.format, blocks });
}
