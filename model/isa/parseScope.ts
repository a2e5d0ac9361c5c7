/**
 * Name lookup for code targets, shared by the parser (which resolves `` `(NAME) `` and bare names)
 * and the printer (which must only print a name that the parser resolves back to the same PC).
 *
 * Order, from a reference in function `f`:
 * 1. a label declared in `f`;
 * 2. a function of that name (`f` itself if it has the name, else the first one: listings with
 *    several `code for` blocks may repeat a name);
 * 3. a label declared in another function, if every such label names the same PC.
 */
import type { Program } from './program.ts';

/** The names visible to a target lookup. */
export interface NameScope {
  /** Function names and start PCs, in program order. */
  readonly functions: readonly { readonly name: string; readonly start: number }[];
  /** Labels declared in each function (by function index): name → PC. */
  readonly labelsByFunction: readonly ReadonlyMap<string, number>[];
  /** Every label name → the PCs it names, across functions. */
  readonly labelsByName: ReadonlyMap<string, readonly number[]>;
}

/** What a name means from one function. */
export type NameLookup =
  | { readonly kind: 'pc'; readonly pc: number }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'ambiguous'; readonly pcs: readonly number[] };

/** Looks `name` up from function `fn` (an index into `scope.functions`, or -1 for none). */
export function lookupName(scope: NameScope, name: string, fn: number): NameLookup {
  const own = scope.labelsByFunction[fn]?.get(name);
  if (own !== undefined) return { kind: 'pc', pc: own };
  const self = scope.functions[fn];
  if (self !== undefined && self.name === name) return { kind: 'pc', pc: self.start };
  const named = scope.functions.find((f) => f.name === name);
  if (named !== undefined) return { kind: 'pc', pc: named.start };
  const pcs = [...new Set(scope.labelsByName.get(name) ?? [])];
  if (pcs.length === 1) return { kind: 'pc', pc: pcs[0]! };
  return pcs.length === 0 ? { kind: 'unknown' } : { kind: 'ambiguous', pcs };
}

/** Builds a scope from labels that each know their function. */
export function makeScope(
  functions: readonly { readonly name: string; readonly start: number }[],
  labels: readonly { readonly name: string; readonly pc: number; readonly fn: number }[],
): NameScope {
  const labelsByFunction = functions.map(() => new Map<string, number>());
  const labelsByName = new Map<string, number[]>();
  for (const l of labels) {
    const own = labelsByFunction[l.fn];
    if (own !== undefined && !own.has(l.name)) own.set(l.name, l.pc);
    const list = labelsByName.get(l.name);
    if (list === undefined) labelsByName.set(l.name, [l.pc]);
    else list.push(l.pc);
  }
  return { functions, labelsByFunction, labelsByName };
}

/**
 * The index of the function that a label at `pc` belongs to as printed: the function holding
 * `pc`, or the last function when `pc` is one past the last instruction (-1 if none).
 */
export function printedFunctionOf(program: Program, pc: number): number {
  const fs = program.functions;
  for (let i = 0; i < fs.length; i++) {
    if (pc >= fs[i]!.start && pc < fs[i]!.end) return i;
  }
  return fs.length - 1;
}

/** The scope that the printed text of `program` will have when it is parsed back. */
export function scopeOfProgram(program: Program): NameScope {
  const labels = program.labels.map((l) => ({ ...l, fn: printedFunctionOf(program, l.pc) }));
  return makeScope(program.functions, labels);
}
