/**
 * The operand collector with a banked register file (seed 002 §2.5, Figs. 11–16): an issued
 * instruction takes a collector unit, reads its source registers from single-ported banks
 * (bank = register mod banks, one read per bank per cycle), and dispatches to execution once every
 * operand is read; its write-back is then `dispatch + latency`. Decisions (docs/semantics.md
 * "Issue core: dual scoreboard and operand collector"):
 * - reads start the cycle after issue; a bank serves the oldest waiting unit first (issue order,
 *   all warps), so an instruction's read cycles are fixed when it issues — computed here as a
 *   reservation table of the banks (a unit reads several operands per cycle from distinct banks);
 * - write-backs use their own port (seed 002 §2.5 lets writes pre-empt reads; not modelled);
 * - only general registers are banked (predicates and barrier registers are read at issue);
 * - a unit is held from issue to dispatch; with no free unit the warp cannot issue that cycle;
 * - dispatch is the cycle after the last read (the cycle after issue with no register source);
 *   `in-order` also waits for the dispatch of the warp's previous instruction, `out-of-order`
 *   does not;
 * - a merged issue (opcode-convergent) is one instruction reading and writing both halves' registers.
 *
 * The write-after-read hazard: a younger instruction's write-back to a register that an older
 * instruction of the same warp, for a shared lane, reads at or after that write-back cycle (a
 * write completes at its cycle, as in the scoreboard). The scoreboard tracks only RAW and WAW, so
 * nothing stops it. In order it cannot happen: the older one's reads precede its dispatch, which
 * precedes the younger one's dispatch, which precedes its write-back (latency ≥ 1).
 */
export type CollectorKind = 'none' | 'in-order' | 'out-of-order';
export const COLLECTOR_KINDS: readonly CollectorKind[] = ['none', 'in-order', 'out-of-order'];

export interface CollectorConfig {
  readonly kind: 'in-order' | 'out-of-order';
  readonly banks: number;
  readonly units: number;
}

export const DEFAULT_BANKS = 4;
export const DEFAULT_UNITS = 2;

/** An instruction holding a collector unit (issued, not yet dispatched). */
export interface InFlight {
  readonly warp: number;
  readonly pc: number;
  readonly mask: number;
  readonly issue: number;
  /** Each source register and the cycle its bank reads it. */
  readonly reads: readonly { readonly reg: number; readonly cycle: number }[];
  readonly dispatch: number;
  readonly writeback: number;
}

/** Instructions in the collector units, oldest first. */
export type Collector = readonly InFlight[];

export interface WarHazard {
  readonly older: InFlight;
  readonly younger: InFlight;
  readonly reg: number;
}

export const bankOf = (reg: number, banks: number): number => reg % banks;

/** Units still held at `cycle` (a unit frees at its dispatch cycle). */
export const held = (c: Collector, cycle: number): Collector =>
  c.some((f) => f.dispatch <= cycle) ? c.filter((f) => f.dispatch > cycle) : c;

export const freeUnits = (c: Collector, cycle: number, cfg: CollectorConfig): number =>
  cfg.units - c.filter((f) => f.dispatch > cycle).length;

/**
 * Books the reads of an instruction issued at `cycle` behind every instruction already in the
 * units (oldest first) and returns it with its dispatch and write-back cycles.
 */
export function collect(
  c: Collector,
  cfg: CollectorConfig,
  x: {
    readonly warp: number;
    readonly pc: number;
    readonly mask: number;
    readonly cycle: number;
    readonly sources: readonly number[];
    readonly latency: number;
  },
): InFlight {
  const booked = new Set<number>();
  for (const f of c)
    for (const r of f.reads) booked.add(r.cycle * cfg.banks + bankOf(r.reg, cfg.banks));
  const reads: { reg: number; cycle: number }[] = [];
  let last = x.cycle;
  for (const reg of x.sources) {
    let t = x.cycle + 1;
    while (booked.has(t * cfg.banks + bankOf(reg, cfg.banks))) t++;
    booked.add(t * cfg.banks + bankOf(reg, cfg.banks));
    reads.push({ reg, cycle: t });
    if (t > last) last = t;
  }
  let dispatch = last + 1;
  if (cfg.kind === 'in-order')
    for (const f of c) if (f.warp === x.warp && f.dispatch > dispatch) dispatch = f.dispatch;
  return {
    warp: x.warp,
    pc: x.pc,
    mask: x.mask,
    issue: x.cycle,
    reads,
    dispatch,
    writeback: dispatch + x.latency,
  };
}

/**
 * The first older instruction of the same warp that reads, for a shared lane, a register the
 * younger one writes, at or after the younger one's write-back (structural, by cycles).
 */
export function warHazard(
  c: Collector,
  younger: InFlight,
  written: readonly number[],
): WarHazard | null {
  for (const older of c) {
    if (older.warp !== younger.warp || (older.mask & younger.mask) === 0) continue;
    for (const r of older.reads)
      if (written.includes(r.reg) && r.cycle >= younger.writeback)
        return { older, younger, reg: r.reg };
  }
  return null;
}
