/**
 * The replay view as HTML: `replaySection` is one view (header, step controls, the CFG drawn by
 * `cfgSvg`, the state pane filled by the script) with its data embedded as JSON; `htmlDocument`
 * wraps sections into one self-contained page (inline CSS, JS and SVG; no network).
 */
import { cfgSvg } from './cfgSvg.ts';
import { esc, scriptJson } from './escape.ts';
import { PAGE_SCRIPT } from './pageScript.ts';
import { PAGE_STYLE } from './pageStyle.ts';
import type { ReplayViewData } from './replayModel.ts';

/** `good` for terminates, `bad` for findings, `other` for budgets and incomplete runs. */
export const verdictClass = (verdict: string): 'good' | 'bad' | 'other' =>
  verdict.startsWith('terminates')
    ? 'good'
    : /^(bound-reached|incomplete|resource-exhausted|unsupported)/.test(verdict)
      ? 'other'
      : 'bad';

/**
 * One replay view with id `id` (unique in the page). `back`: a link back to the verdict matrix
 * (explore --html), shown in the header.
 */
export function replaySection(
  d: ReplayViewData,
  id: string,
  opts: { hidden?: boolean; back?: boolean } = {},
): string {
  const last = d.steps.length - 1;
  const meta = [
    `${d.mechanism}${d.options ? ` (${d.options})` : ''}`,
    `${d.warps} warp${d.warps > 1 ? 's' : ''} of ${d.warpSize} lanes`,
    ...(d.source ? [`source: ${d.source}`] : []),
  ].join(' · ');
  return `<div class="replay" id="${esc(id)}"${opts.hidden ? ' hidden' : ''}>
<header>${opts.back ? '<button class="back-link" data-open="">← matrix</button>' : ''}<h1 title="${esc(d.title)}">${esc(d.title)}</h1><span class="meta" title="${esc(meta)}">${esc(meta)}</span><span class="verdict ${verdictClass(d.verdict)}" title="${esc(d.message)}">${esc(d.verdict)}</span><button class="theme" title="switch light / dark">◐ theme</button></header>
<div class="controls"><button class="prev" aria-label="previous step">◀</button><div class="track">${d.loop !== null ? `<div class="cycle-band" title="the livelock’s cycle: after step ${last} the state is the one after step ${d.loop}, so it repeats forever"><span>↻ cycle ${d.loop + 1}–${last}</span></div>` : ''}<input class="slider" type="range" min="0" max="${last}" value="0" aria-label="step"></div><button class="next" aria-label="next step">▶</button><button class="play">play</button><span class="counter">step 0 / ${last}</span><span class="keys">← → keys</span></div>
<main><section class="cfg-pane"><div class="legend"><span><i class="sw" style="background:var(--issued)"></i>issued PC</span><span><i class="sw" style="background:var(--occupied)"></i>lanes here (● lane numbers${d.warps > 1 ? ', wK: warp' : ''})</span><span style="color:var(--reconv)">◆ reconvergence point (IPDOM)</span><span style="color:var(--back)">⇠ back edge</span></div>${cfgSvg(d.cfg)}</section><aside class="state-pane" aria-live="polite"></aside></main>
</div>
<script type="application/json" id="data-${esc(id)}">${scriptJson(d)}</script>`;
}

/** A whole page: `body` (sections, a matrix) with the style and script inlined. */
export function htmlDocument(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
${body}
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

/** The page of `warpcheck replay --html`. */
export const replayPage = (d: ReplayViewData): string =>
  htmlDocument(`${d.title} — warpcheck replay`, replaySection(d, 'r0'));
