/**
 * Writes a `Trace` as Accel-Sim trace text: the per-kernel `.traceg` and the `kernelslist.g` that
 * Accel-Sim's trace-driven mode reads. The inverse of `parseTraceg` (a test checks
 * `parseTraceg(printTraceg(t))` gives `t` back).
 *
 * Field by field as Accel-Sim's own reader takes them (accel-sim/accel-sim-framework,
 * `gpu-simulator/trace-parser/trace_parser.cc` at commit 4a752ebbd9750785b5efe03d95ef54497a9653a6,
 * `kernel_trace_t` header and `inst_trace_t::parse_from_string`), and as the real trace in
 * `shared/traces/` is laid out:
 * - header lines `-key = value`; the first `#` line ends the header, so the only `#` line before
 *   the blocks is `#traces format = …` (no comments anywhere: every other line inside a block is
 *   read as an instruction);
 * - no `-accelsim tracer version` line: version 0, the older layout whose lines start with
 *   `threadblock_x threadblock_y threadblock_z warpid_tb` (`trace_version < 3`);
 * - `PC` and `mask` in hex (`std::hex`), `dest_num` then at most one `R<n>` (`MAX_DST` 1), the
 *   opcode with its modifiers, `src_num` then at most four `R<n>` (`MAX_SRC` 4), `mem_width`;
 * - when `mem_width > 0` the reader always takes an address mode next (`address_format`: 0 one
 *   address per set bit of the mask, 1 base and stride, 2 base and deltas), whatever the version;
 * - an `immediate` column only for the compact v5 layout (`ss >> imm` at the end of the line);
 * - every instruction line ends with a space, as NVBit's tracer writes it.
 * `kernelslist.g` names each kernel's file on a line starting with `kernel` (relative to itself).
 */
import type { Trace, TraceAddresses, TraceInst } from './trace.ts';

/** The `#traces format` line of the older layout (the real trace's). */
export const OLDER_TRACE_FORMAT =
  'threadblock_x threadblock_y threadblock_z warpid_tb PC mask dest_num reg_dests opcode src_num reg_srcs mem_width mem_addresses';

const hex = (n: number, digits: number) => n.toString(16).padStart(digits, '0');
const address = (a: number) => '0x' + hex(a, 16);

function addressColumns(a: TraceAddresses): string[] {
  switch (a.kind) {
    case 'none':
      return [];
    case 'list':
      return ['0', ...a.addrs.map(address)];
    case 'stride':
      return ['1', address(a.base), String(a.stride)];
    case 'delta':
      return ['2', address(a.base), ...a.deltas.map(String)];
  }
}

/**
 * The addresses of one memory instruction, one per active lane in lane order, compressed as the
 * tracer does: base and stride when every step between consecutive active lanes is the same,
 * else the full list.
 */
export function compressAddresses(addrs: readonly number[]): TraceAddresses {
  if (addrs.length === 0) return { kind: 'list', addrs: [] };
  const stride = addrs.length > 1 ? addrs[1]! - addrs[0]! : 0;
  for (let i = 1; i < addrs.length; i++)
    if (addrs[i]! - addrs[i - 1]! !== stride) return { kind: 'list', addrs: [...addrs] };
  return { kind: 'stride', base: addrs[0]!, stride };
}

/** One instruction line (without the block/warp prefix of the older layout). */
function instColumns(i: TraceInst): string[] {
  if (i.dests.length > 1 || i.srcs.length > 4)
    throw new Error(
      `printTraceg: Accel-Sim reads at most 1 destination and 4 sources (line for pc ${i.pc})`,
    );
  return [
    hex(i.pc, 4),
    hex(i.mask >>> 0, 8),
    String(i.dests.length),
    ...i.dests.map((r) => `R${r}`),
    [i.opcode, ...i.modifiers].join('.'),
    String(i.srcs.length),
    ...i.srcs.map((r) => `R${r}`),
    String(i.memWidth),
    ...(i.memWidth > 0 ? addressColumns(i.addresses) : []),
    ...(i.imm !== null ? [String(i.imm)] : []),
  ];
}

/** The `.traceg` text of `trace`. Header keys are written as stored (with their leading `-`). */
export function printTraceg(trace: Trace): string {
  const out: string[] = [];
  for (const [k, v] of Object.entries(trace.header))
    if (k !== 'traces format') out.push(`${k} = ${v}`);
  out.push('', `#traces format = ${trace.header['traces format'] ?? OLDER_TRACE_FORMAT}`, '');
  const older = trace.format === 'with-tb-warp';
  for (const b of trace.blocks) {
    out.push('', '#BEGIN_TB', '', `thread block = ${b.block.join(',')}`, '');
    for (const w of b.warps) {
      out.push(`warp = ${w.warp}`, `insts = ${w.insts.length}`);
      const prefix = older ? `${b.block.join(' ')} ${w.warp} ` : '';
      for (const i of w.insts) out.push(`${prefix}${instColumns(i).join(' ')} `);
      out.push('');
    }
    out.push('#END_TB', '');
  }
  return out.join('\n');
}

/** The `kernelslist.g` naming `files` (relative to the list's own folder), one kernel per line. */
export function printKernelsList(files: readonly string[]): string {
  return files.map((f) => `${f}\n`).join('');
}
