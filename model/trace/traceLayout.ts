/**
 * The columns of an instruction line, decided from the header before the first instruction.
 * Sources: `shared/sass/SYNTAX.md` §2d; Accel-Sim's tracer writes `-accelsim tracer version = N`
 * (absent in older files) and names its columns in `#traces format = …`:
 * - older: `threadblock_x threadblock_y threadblock_z warpid_tb PC mask dest_num reg_dests opcode
 *   src_num reg_srcs mem_width mem_addresses`;
 * - v4: `PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?]
 *   [mem_addresses]`;
 * - v5: the same followed by `immediate` (so the immediate is the last column, after the
 *   addresses); an optional leading `[line_num]` is present only with `-enable lineinfo = 1`.
 */
import type { TraceFormat } from './trace.ts';

/** How to read the columns of one instruction line. */
export interface TraceLayout {
  readonly format: TraceFormat;
  /** Whether an `immediate` column ends each line. */
  readonly immediate: boolean;
  /**
   * Whether `mem_addresses` starts with a compression mode (0 list, 1 base+stride, 2 base+deltas).
   * `'auto'` when the header does not say (no tracer version, no `compress` in the format): a
   * bare `0`/`1`/`2` after `mem_width` is then a mode, since uncompressed addresses are `0x…`.
   */
  readonly compressed: boolean | 'auto';
}

/** The layout the header describes, or a message saying why it cannot be read. */
export function traceLayout(
  header: Readonly<Record<string, string>>,
):
  | { readonly ok: true; readonly layout: TraceLayout }
  | { readonly ok: false; readonly message: string } {
  const formatText = header['traces format'];
  if (formatText === undefined) {
    return {
      ok: false,
      message:
        "instruction line before any '#traces format = …' header line; the header decides which columns a line has",
    };
  }
  const words = formatText.split(/\s+/).filter((w) => w !== '');
  if (words.some((w) => /^immediate\d|val/i.test(w))) {
    return {
      ok: false,
      message: `unsupported trace format '${formatText}' (tracer v6 value columns); only the older format and v4/v5 are read`,
    };
  }
  if ((header['-enable lineinfo'] ?? '0').trim() !== '0') {
    return {
      ok: false,
      message:
        "unsupported trace: '-enable lineinfo' is on, so lines carry a leading line_num column",
    };
  }
  const format: TraceFormat = words[0] === 'threadblock_x' ? 'with-tb-warp' : 'compact';
  const immediate = words.some((w) => /^\[?(immediate|imm)\]?$/i.test(w));
  const versionText = header['-accelsim tracer version'];
  const version =
    versionText !== undefined && /^\s*\d+\s*$/.test(versionText) ? Number(versionText) : null;
  const compressed: boolean | 'auto' =
    version !== null ? version >= 3 : /compress/i.test(formatText) ? true : 'auto';
  return { ok: true, layout: { format, immediate, compressed } };
}
