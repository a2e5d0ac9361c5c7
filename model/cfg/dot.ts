/**
 * The CFG in Graphviz DOT (`warpcheck parse --dot`): a cluster per function, a node per basic
 * block listing its instructions, solid edges for control flow (bold for back edges), dashed grey
 * edges from each branch's block to its IPDOM, and the reconvergence instructions marked ◆.
 */
import { cfgPicture, type PictureBlock } from './picture.ts';
import type { ProgramCfg } from './programCfg.ts';

/** Escapes text for a DOT HTML-like label. */
const html = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function nodeLabel(b: PictureBlock): string {
  if (b.lines.length === 0) return `<<b>${html(b.title)}</b>>`;
  const rows = b.lines.map((l) => {
    const mark = l.reconverges.length ? ` ◆ IPDOM of ${l.reconverges.join(', ')}` : '';
    const text = `${html(l.pcText)}  ${html(l.text)}${html(mark)}`;
    return `<tr><td align="left">${l.reconverges.length ? `<b>${text}</b>` : text}</td></tr>`;
  });
  return `<<table border="0" cellspacing="0" cellpadding="2"><tr><td align="left"><b>${html(b.title)}</b></td></tr>${rows.join('')}</table>>`;
}

/** The DOT text of `cfg`; `pcText` prints PCs (labels where the program has them). */
export function cfgDot(cfg: ProgramCfg, pcText: (pc: number) => string): string {
  const out = [
    'digraph cfg {',
    '  node [shape=box, fontname="monospace", fontsize=10];',
    '  edge [fontname="monospace", fontsize=9];',
  ];
  cfgPicture(cfg, pcText).forEach((f, i) => {
    out.push(`  subgraph cluster_${i} {`, `    label="${html(f.name)}";`);
    for (const b of f.blocks)
      out.push(
        `    ${b.key} [label=${nodeLabel(b)}${b.lines.length === 0 ? ', shape=doublecircle' : ''}${b.reachable ? '' : ', style=dashed'}];`,
      );
    for (const e of f.edges)
      out.push(
        `    ${e.from} -> ${e.to}${e.kind === 'back' ? ' [style=bold, label="back"]' : ''};`,
      );
    for (const d of f.ipdoms)
      out.push(
        `    ${d.from} -> ${d.to} [style=dashed, color=gray50, constraint=false, label="ipdom ${html(d.branch)}"];`,
      );
    out.push('  }');
  });
  out.push('}');
  return out.join('\n') + '\n';
}
