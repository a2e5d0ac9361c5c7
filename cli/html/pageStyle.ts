/**
 * The pages' CSS, inlined (a page is one self-contained file: no network). Colours are variables:
 * light by default, dark under `prefers-color-scheme: dark`, and either one forced by the theme
 * button (`data-theme` on <html>). Sized for a 1280×800 window: the CFG pane scrolls beside a
 * fixed-width state pane.
 */
export const PAGE_STYLE = `
:root {
  --bg: #fbfbfd; --fg: #1c1e24; --muted: #5d6472; --panel: #ffffff; --border: #d5d9e0;
  --node: #ffffff; --node-border: #9aa3b2; --title: #2b4a86; --edge: #7b8494; --back: #b0561f;
  --issued: #ffd84d; --issued-border: #c79a00; --occupied: #e3efff; --lane: #1f5fbf;
  --reconv: #2e8b57; --ok: #1d7a3a; --bad: #b3261e; --warn: #8a5a00; --cycle: #f3d7ff;
  --cycle-strong: #8e3fb5; --bit-on: #1f5fbf; --bit-off: #e6e9ef; --tos: #fff6cc;
  color-scheme: light;
}
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) {
    --bg: #14161b; --fg: #e6e8ee; --muted: #9aa2b1; --panel: #1c1f26; --border: #343a46;
    --node: #1f232b; --node-border: #5b6475; --title: #8fb3ff; --edge: #8b93a3; --back: #f0965a;
    --issued: #6b5500; --issued-border: #ffd84d; --occupied: #1d3350; --lane: #8fb3ff;
    --reconv: #5fd38d; --ok: #5fd38d; --bad: #ff8a80; --warn: #ffc266; --cycle: #3d2450;
    --cycle-strong: #d59cff; --bit-on: #6f9cff; --bit-off: #343a46; --tos: #3a3414;
    color-scheme: dark;
  }
}
:root[data-theme="dark"] {
  --bg: #14161b; --fg: #e6e8ee; --muted: #9aa2b1; --panel: #1c1f26; --border: #343a46;
  --node: #1f232b; --node-border: #5b6475; --title: #8fb3ff; --edge: #8b93a3; --back: #f0965a;
  --issued: #6b5500; --issued-border: #ffd84d; --occupied: #1d3350; --lane: #8fb3ff;
  --reconv: #5fd38d; --ok: #5fd38d; --bad: #ff8a80; --warn: #ffc266; --cycle: #3d2450;
  --cycle-strong: #d59cff; --bit-on: #6f9cff; --bit-off: #343a46; --tos: #3a3414;
  color-scheme: dark;
}
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body { background: var(--bg); color: var(--fg); font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
code, .mono, table.state td, .issue-line { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
button { font: inherit; color: var(--fg); background: var(--panel); border: 1px solid var(--border); border-radius: 6px; padding: 3px 10px; cursor: pointer; }
button:hover { border-color: var(--lane); }
button:focus-visible, input:focus-visible, a:focus-visible { outline: 2px solid var(--lane); outline-offset: 2px; }
.replay { display: flex; flex-direction: column; height: 100vh; }
.replay[hidden] { display: none; }
.replay > header { display: flex; align-items: center; gap: 14px; padding: 8px 16px; border-bottom: 1px solid var(--border); background: var(--panel); }
.replay > header h1 { font-size: 16px; margin: 0; font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.replay > header .meta { color: var(--muted); font-size: 12.5px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; flex: 1; }
.verdict { font-weight: 600; padding: 2px 8px; border-radius: 10px; border: 1px solid currentColor; white-space: nowrap; font-size: 12.5px; }
.verdict.good { color: var(--ok); } .verdict.bad { color: var(--bad); } .verdict.other { color: var(--warn); }
.controls { display: flex; align-items: center; gap: 10px; padding: 8px 16px; border-bottom: 1px solid var(--border); }
.controls .track { position: relative; flex: 1; height: 28px; display: flex; align-items: center; }
.controls input[type=range] { width: 100%; margin: 0; position: relative; z-index: 1; accent-color: var(--lane); }
.controls .cycle-band { position: absolute; top: 2px; bottom: 2px; background: var(--cycle); border: 1px dashed var(--cycle-strong); border-radius: 6px; }
.controls .cycle-band span { position: absolute; bottom: -15px; left: 2px; font-size: 10.5px; color: var(--cycle-strong); white-space: nowrap; }
.controls { padding-bottom: 14px; }
.controls .counter { min-width: 150px; text-align: right; font-variant-numeric: tabular-nums; color: var(--muted); }
.controls .keys { color: var(--muted); font-size: 12px; white-space: nowrap; }
.replay main { flex: 1; display: flex; min-height: 0; }
.cfg-pane { flex: 1; overflow: auto; padding: 8px; min-width: 0; }
.state-pane { width: 460px; flex: none; overflow: auto; border-left: 1px solid var(--border); background: var(--panel); padding: 12px 16px; }
.state-pane h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 14px 0 6px; }
.state-pane h2:first-child { margin-top: 0; }
.issue-line { font-size: 13px; padding: 6px 8px; border-radius: 6px; background: var(--bg); border: 1px solid var(--border); }
.issue-line .pc { font-weight: 700; }
.issue-line .warp { color: var(--muted); }
.maskrow { display: flex; align-items: center; gap: 8px; margin-top: 6px; font-size: 12px; color: var(--muted); }
.bits { display: inline-flex; gap: 2px; vertical-align: middle; }
.bits i { display: inline-block; width: 9px; height: 13px; border-radius: 2px; background: var(--bit-off); }
.bits i.on { background: var(--bit-on); }
.bits.wide { gap: 1px; } .bits.wide i { width: 4px; }
.cycle-note { margin-top: 8px; padding: 5px 8px; border-radius: 6px; background: var(--cycle); color: var(--fg); border: 1px dashed var(--cycle-strong); font-size: 12.5px; }
.stop { margin-top: 8px; color: var(--bad); font-weight: 600; }
table.state { border-collapse: collapse; font-size: 12.5px; margin: 2px 0 10px; min-width: 60%; }
table.state caption { white-space: nowrap; text-align: left; font-weight: 600; padding: 2px 0 4px; color: var(--title); font-family: system-ui, sans-serif; }
table.state th { text-align: left; font-weight: 600; color: var(--muted); border-bottom: 1px solid var(--border); padding: 2px 10px 2px 4px; font-family: system-ui, sans-serif; font-size: 12px; }
table.state td { padding: 2px 10px 2px 4px; border-bottom: 1px solid var(--border); white-space: nowrap; }
table.state.stack tbody tr:first-child:not(.empty) td { background: var(--tos); }
table.state td .bits { margin-right: 6px; }
table.state .empty td { color: var(--muted); font-style: italic; }
.expect { margin-top: 10px; padding: 6px 8px; border-radius: 6px; border: 1px solid var(--border); font-size: 12.5px; }
.expect.ok { border-color: var(--ok); } .expect.ok b { color: var(--ok); }
.expect.bad { border-color: var(--bad); } .expect.bad b { color: var(--bad); }
.final { margin-top: 12px; font-size: 12.5px; color: var(--muted); }
.final .mismatch { color: var(--bad); }
svg.cfg { display: block; font: 12px ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
svg.cfg .fn { fill: var(--muted); font: 600 12px system-ui, sans-serif; }
svg.cfg .node .box { fill: var(--node); stroke: var(--node-border); stroke-width: 1; }
svg.cfg .node.unreachable .box { stroke-dasharray: 4 3; }
svg.cfg .node.active .box { stroke: var(--issued-border); stroke-width: 2; }
svg.cfg .node.exit rect { fill: var(--node); stroke: var(--node-border); }
svg.cfg .node.exit text { fill: var(--muted); }
svg.cfg text { fill: var(--fg); white-space: pre; }
svg.cfg .title { fill: var(--title); font-weight: 700; }
svg.cfg .pc { fill: var(--muted); }
svg.cfg .row { fill: transparent; }
svg.cfg .ins.occupied .row { fill: var(--occupied); }
svg.cfg .ins.issued .row { fill: var(--issued); stroke: var(--issued-border); }
svg.cfg .ins.issued .pc { fill: var(--fg); font-weight: 700; }
svg.cfg .reconv-mark { fill: var(--reconv); font-size: 11px; }
svg.cfg .ins.reconv .pc { fill: var(--reconv); font-weight: 700; }
svg.cfg .lanes { fill: var(--lane); font-weight: 700; font-size: 11px; }
svg.cfg .edge { fill: none; stroke: var(--edge); stroke-width: 1.3; }
svg.cfg .edge.back { stroke: var(--back); stroke-dasharray: 5 3; }
svg.cfg .arrowhead { fill: var(--edge); } svg.cfg .arrowhead.back { fill: var(--back); }
.legend { color: var(--muted); font-size: 12px; margin: 4px 8px 8px; }
.legend span { margin-right: 14px; white-space: nowrap; }
.legend .sw { display: inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: -2px; margin-right: 4px; border: 1px solid var(--border); }
/* explore --html: the verdict matrix */
.matrix-page { padding: 16px 24px; }
.matrix-page h1 { font-size: 18px; margin: 0 0 4px; }
.matrix-page .meta { color: var(--muted); margin-bottom: 14px; }
table.matrix { border-collapse: collapse; font-size: 13px; }
table.matrix th, table.matrix td { border: 1px solid var(--border); padding: 6px 10px; text-align: left; vertical-align: top; }
table.matrix th { background: var(--panel); font-weight: 600; }
table.matrix td.good { color: var(--ok); } table.matrix td.bad { color: var(--bad); } table.matrix td.other { color: var(--warn); }
table.matrix th small { display: block; color: var(--muted); font-weight: 400; font-size: 12px; margin-top: 2px; }
table.matrix td small { display: block; color: var(--muted); font-weight: 400; }
table.matrix a { color: inherit; font-weight: 600; }
table.matrix tbody th { white-space: nowrap; }
table.matrix td { min-width: 260px; max-width: 560px; }
table.matrix td .why { display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; color: var(--muted); font-size: 12px; font-weight: 400; }
table.matrix td small b { color: var(--bad); }
.matrix-wrap { overflow-x: auto; }
.back-link { margin-right: 6px; }
`;
