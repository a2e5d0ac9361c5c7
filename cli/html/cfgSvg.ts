/**
 * Draws a CFG picture (`model/cfg/picture.ts`) as inline SVG, laid out by dagre (layered
 * Sugiyama layout: ranks top to bottom, back edges reversed for ranking then drawn upwards).
 * Every instruction row carries `data-pc`, so the page's script can highlight the issued PC and
 * put each lane's marker beside the row where the lane is. Colours come from CSS variables
 * (`pageStyle.ts`), so light and dark mode share the markup.
 */
import dagre from '@dagrejs/dagre';
import type { PictureBlock, PictureFunction } from '../../model/cfg/index.ts';
import { esc } from './escape.ts';

/** Monospace metrics of the page's CFG font (12 px): width of a character, height of a row. */
const CHAR = 7.25;
const ROW = 17;
const PAD = 8;
/** Room at a row's right for the lane markers (`lanes` text, filled by the script). */
const LANE_ROOM = 72;

interface Sized {
  readonly block: PictureBlock;
  readonly width: number;
  readonly height: number;
}

function size(b: PictureBlock): Sized {
  if (b.lines.length === 0) return { block: b, width: 64, height: 30 };
  const pcWidth = Math.max(...b.lines.map((l) => l.pcText.length));
  const text = Math.max(b.title.length + 2, ...b.lines.map((l) => pcWidth + 2 + l.text.length + 2));
  return {
    block: b,
    width: Math.ceil(text * CHAR + 2 * PAD + LANE_ROOM),
    height: (b.lines.length + 1) * ROW + PAD,
  };
}

function blockSvg(s: Sized, x: number, y: number): string {
  const b = s.block;
  const left = x - s.width / 2;
  const top = y - s.height / 2;
  if (b.lines.length === 0)
    return `<g class="node exit"><rect x="${left}" y="${top}" width="${s.width}" height="${s.height}" rx="15"/><text x="${x}" y="${y + 4}" text-anchor="middle">exit</text></g>`;
  const pcWidth = Math.max(...b.lines.map((l) => l.pcText.length));
  const rows = b.lines.map((l, i) => {
    // Characters free between the instruction's text and the box's right edge, for lane markers.
    const room = Math.floor((s.width - 2 * PAD) / CHAR) - (pcWidth + 2 + l.text.length) - 1;
    const ry = top + ROW * (i + 1) + PAD / 2;
    const mark = l.reconverges.length
      ? `<title>reconvergence point: IPDOM of the branch at ${esc(l.reconverges.join(', '))}</title>`
      : '';
    return (
      `<g class="ins${l.reconverges.length ? ' reconv' : ''}" data-pc="${l.pc}">${mark}` +
      `<rect class="row" x="${left + 1}" y="${ry}" width="${s.width - 2}" height="${ROW}"/>` +
      `<text x="${left + PAD}" y="${ry + 12.5}"><tspan class="pc">${esc(l.pcText.padEnd(pcWidth))}</tspan>  ${esc(l.text)}</text>` +
      (l.reconverges.length
        ? `<text class="reconv-mark" x="${left - 4}" y="${ry + 12.5}" text-anchor="end">◆</text>`
        : '') +
      `<text class="lanes" data-room="${room}" x="${left + s.width - PAD}" y="${ry + 12.5}" text-anchor="end"></text></g>`
    );
  });
  return (
    `<g class="node${b.reachable ? '' : ' unreachable'}" data-block="${b.id}">` +
    `<rect class="box" x="${left}" y="${top}" width="${s.width}" height="${s.height}" rx="4"/>` +
    `<text class="title" x="${left + PAD}" y="${top + 13}">${esc(b.title)}</text>` +
    rows.join('') +
    `</g>`
  );
}

const pathOf = (pts: readonly { x: number; y: number }[]): string => {
  if (pts.length < 3) return `M${pts.map((p) => `${p.x},${p.y}`).join(' L')}`;
  // A smooth curve through dagre's points: quadratic segments between midpoints.
  let d = `M${pts[0]!.x},${pts[0]!.y}`;
  for (let i = 1; i < pts.length - 1; i++) {
    const mid = { x: (pts[i]!.x + pts[i + 1]!.x) / 2, y: (pts[i]!.y + pts[i + 1]!.y) / 2 };
    d += ` Q${pts[i]!.x},${pts[i]!.y} ${i === pts.length - 2 ? `${pts[i + 1]!.x},${pts[i + 1]!.y}` : `${mid.x},${mid.y}`}`;
  }
  return d;
};

/**
 * A block that branches to itself (a spin loop in one block): an arc on its right, from its last
 * row back into its title row (dagre leaves room there for self edges).
 */
function selfLoop(n: { x: number; y: number }, s: Sized): string {
  const right = n.x + s.width / 2;
  const from = n.y + s.height / 2 - ROW / 2 - PAD / 2;
  const to = n.y - s.height / 2 + ROW / 2 + 2;
  return `M${right},${from} C${right + 34},${from} ${right + 34},${to} ${right + 2},${to}`;
}

/** One function's graph as an SVG group, with its width and height. */
function functionSvg(f: PictureFunction): { svg: string; width: number; height: number } {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 36, ranksep: 44, edgesep: 16, marginx: 24, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  const sized = new Map(f.blocks.map((b) => [b.key, size(b)]));
  for (const [key, s] of sized) g.setNode(key, { width: s.width, height: s.height });
  f.edges.forEach((e, i) => g.setEdge(e.from, e.to, { minlen: 1 }, `e${i}`));
  dagre.layout(g);
  const nodes = [...sized].map(([key, s]) => {
    const n = g.node(key);
    return blockSvg(s, n.x, n.y);
  });
  const edges = f.edges.map((e, i) => {
    const d =
      e.from === e.to
        ? selfLoop(g.node(e.from), sized.get(e.from)!)
        : pathOf(g.edge({ v: e.from, w: e.to, name: `e${i}` }).points ?? []);
    return `<path class="edge ${e.kind}" d="${d}" marker-end="url(#arrow-${e.kind})"/>`;
  });
  // dagre routes some edges (reversed back edges, self loops) outside the width it reports:
  // the group is shifted and sized to the box of every node and edge point.
  let minX = 0;
  let maxX = g.graph().width ?? 0;
  let maxY = g.graph().height ?? 0;
  for (const [key, s] of sized) {
    const n = g.node(key);
    minX = Math.min(minX, n.x - s.width / 2 - 8);
    maxX = Math.max(
      maxX,
      n.x + s.width / 2 + (f.edges.some((e) => e.from === key && e.to === key) ? 44 : 8),
    );
  }
  f.edges.forEach((e, i) => {
    for (const p of g.edge({ v: e.from, w: e.to, name: `e${i}` }).points ?? []) {
      minX = Math.min(minX, p.x - 8);
      maxX = Math.max(maxX, p.x + 8);
      maxY = Math.max(maxY, p.y + 8);
    }
  });
  return {
    svg: `<g transform="translate(${-minX},0)">${edges.join('')}${nodes.join('')}</g>`,
    width: Math.ceil(maxX - minX),
    height: Math.ceil(maxY),
  };
}

/** The whole CFG: functions side by side, each under its name, with arrow markers defined once. */
export function cfgSvg(functions: readonly PictureFunction[]): string {
  let x = 0;
  let height = 0;
  const parts: string[] = [];
  for (const f of functions) {
    const one = functionSvg(f);
    parts.push(
      `<g transform="translate(${x},24)"><text class="fn" x="24" y="0">function ${esc(f.name)}</text>${one.svg}</g>`,
    );
    x += one.width + 24;
    height = Math.max(height, one.height + 24);
  }
  const marker = (id: string) =>
    `<marker id="arrow-${id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="arrowhead ${id}" d="M0,0 L10,5 L0,10 z"/></marker>`;
  return (
    `<svg class="cfg" xmlns="http://www.w3.org/2000/svg" width="${x}" height="${height}" viewBox="0 0 ${x} ${height}" role="img" aria-label="control-flow graph">` +
    `<defs>${marker('taken')}${marker('fall')}${marker('back')}</defs>${parts.join('')}</svg>`
  );
}
