/**
 * The pages' script, inlined as text (the page is one file; no build step for the browser). It
 * mounts every `.replay` element on its embedded JSON (`replayModel.ts`): slider, ←/→ (Home/End)
 * keys, play; at each step it highlights the issued PC's row and block in the CFG, writes each
 * lane's number beside the row where the lane is, and renders the mechanism's tables (masks as
 * lane bits, lane W−1 first as the views print them). A livelock's cycle (steps loop+1 … last) is
 * a band on the slider, and stepping past the last step goes back to its start.
 * Plain ES2020 without template literals, so it can live in a TypeScript template string.
 */
export const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var views = [];
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function ranges(lanes) {
    var out = [], i = 0;
    while (i < lanes.length) {
      var j = i;
      while (j + 1 < lanes.length && lanes[j + 1] === lanes[j] + 1) j++;
      out.push(j > i + 1 ? lanes[i] + '\u2013' + lanes[j] : j === i + 1 ? lanes[i] + ',' + lanes[j] : String(lanes[i]));
      i = j + 1;
    }
    return out.join(',');
  }
  function bits(mask, width) {
    var b = el('span', 'bits' + (width > 16 ? ' wide' : ''));
    b.setAttribute('aria-hidden', 'true');
    for (var i = 0; i < mask.length; i++) {
      var on = mask[i] === '1';
      var x = el('i', on ? 'on' : '');
      x.title = 'lane ' + (mask.length - 1 - i) + (on ? ' on' : ' off');
      b.appendChild(x);
    }
    return b;
  }
  function mount(root) {
    var data = JSON.parse(document.getElementById('data-' + root.id).textContent);
    var steps = data.steps, last = steps.length - 1, loop = data.loop;
    var slider = root.querySelector('.slider');
    var counter = root.querySelector('.counter');
    var pane = root.querySelector('.state-pane');
    var cfgPane = root.querySelector('.cfg-pane');
    var rows = {};
    root.querySelectorAll('svg.cfg .ins').forEach(function (g) { rows[g.getAttribute('data-pc')] = g; });
    var timer = null;
    var W = data.warpSize;
    var maskRe = new RegExp('^[01]{' + W + '}$');
    // Masks of more than 8 lanes: the bits, then hex (the binary text as a tooltip).
    function maskText(text) {
      return W > 8 ? '0x' + parseInt(text, 2).toString(16).padStart(Math.ceil(W / 4), '0') : text;
    }
    function cell(text) {
      var td = el('td');
      if (W > 1 && maskRe.test(text)) {
        td.appendChild(bits(text, W));
        td.appendChild(document.createTextNode(maskText(text)));
        td.title = text + ' (lane ' + (W - 1) + ' first)';
      } else td.appendChild(document.createTextNode(text));
      return td;
    }
    function table(t) {
      var tb = el('table', 'state' + (/top first/.test(t.title) ? ' stack' : ''));
      tb.appendChild(el('caption', null, t.title));
      var head = el('thead'), hr = el('tr');
      t.columns.forEach(function (c) { hr.appendChild(el('th', null, c)); });
      head.appendChild(hr); tb.appendChild(head);
      var body = el('tbody');
      if (t.rows.length === 0) {
        var er = el('tr', 'empty'), td = el('td', null, '(empty)');
        td.colSpan = t.columns.length; er.appendChild(td); body.appendChild(er);
      }
      t.rows.forEach(function (r) {
        var tr = el('tr');
        r.forEach(function (c) { tr.appendChild(cell(c)); });
        body.appendChild(tr);
      });
      tb.appendChild(body);
      return tb;
    }
    function inCycle(i) { return loop !== null && i > loop; }
    function show(i) {
      i = Math.max(0, Math.min(last, i));
      var s = steps[i];
      slider.value = String(i);
      counter.textContent = 'step ' + i + ' / ' + last + (inCycle(i) ? '  \u21bb cycle' : '');
      root.setAttribute('data-step', String(i));
      // The CFG: the issued row and its block, lanes beside the rows where they are.
      root.querySelectorAll('svg.cfg .issued').forEach(function (g) { g.classList.remove('issued'); });
      root.querySelectorAll('svg.cfg .node.active').forEach(function (g) { g.classList.remove('active'); });
      root.querySelectorAll('svg.cfg .occupied').forEach(function (g) { g.classList.remove('occupied'); });
      root.querySelectorAll('svg.cfg .lanes').forEach(function (t) { t.textContent = ''; });
      root.querySelectorAll('svg.cfg title.lanes-tip').forEach(function (t) { t.textContent = ''; });
      var at = {};
      s.lanes.forEach(function (pcs, w) {
        pcs.forEach(function (pc, lane) {
          if (pc === null) return;
          (at[pc] = at[pc] || {});
          (at[pc][w] = at[pc][w] || []).push(lane);
        });
      });
      Object.keys(at).forEach(function (pc) {
        var g = rows[pc];
        if (!g) return;
        g.classList.add('occupied');
        var parts = Object.keys(at[pc]).map(function (w) {
          return (data.warps > 1 ? 'w' + w + ':' : '') + ranges(at[pc][w]);
        });
        var full = '\u25cf ' + parts.join(' ');
        var t = g.querySelector('.lanes');
        // Too long for the room left at the row's end: counts, the lanes in the tooltip.
        if (full.length > Number(t.getAttribute('data-room'))) {
          var counts = Object.keys(at[pc]).map(function (w) {
            return (data.warps > 1 ? 'w' + w + '\u00d7' : '') + at[pc][w].length;
          });
          t.textContent = '\u25cf ' + counts.join(' ') + (data.warps > 1 ? '' : ' lanes');
        } else t.textContent = full;
        var tip = g.querySelector('title.lanes-tip');
        if (!tip) {
          tip = document.createElementNS('http://www.w3.org/2000/svg', 'title');
          tip.setAttribute('class', 'lanes-tip');
          g.appendChild(tip);
        }
        tip.textContent = 'lanes here: ' + parts.join('  ');
      });
      var issued = s.pc === null ? null : rows[s.pc];
      if (issued) {
        issued.classList.add('issued');
        issued.parentNode.classList.add('active');
        var r = issued.getBoundingClientRect(), p = cfgPane.getBoundingClientRect();
        if (r.top < p.top || r.bottom > p.bottom || r.left < p.left || r.right > p.right)
          issued.scrollIntoView({ block: 'center', inline: 'nearest' });
      }
      // The state pane.
      pane.textContent = '';
      pane.appendChild(el('h2', null, i === 0 ? 'Initial state' : 'Step ' + i));
      var line = el('div', 'issue-line');
      if (i === 0) line.textContent = 'before the first issue';
      else {
        if (data.warps > 1) line.appendChild(el('span', 'warp', 'warp ' + s.warp + '  '));
        line.appendChild(el('span', 'pc', s.pcText));
        line.appendChild(document.createTextNode('  ' + s.instruction));
      }
      pane.appendChild(line);
      if (i > 0) {
        var mr = el('div', 'maskrow');
        mr.appendChild(el('span', null, 'mask'));
        mr.appendChild(bits(s.mask, W));
        mr.appendChild(el('span', 'mono', (W > 8 ? maskText(s.mask) : s.mask) + '  (lane ' + (W - 1) + ' \u2026 lane 0)'));
        mr.title = s.mask;
        pane.appendChild(mr);
      }
      if (inCycle(i))
        pane.appendChild(el('div', 'cycle-note', 'in the livelock\u2019s cycle (steps ' + (loop + 1) + '\u2013' + last + '): after step ' + last + ' the state is the one after step ' + loop + ', so the run repeats forever'));
      if (s.stop) pane.appendChild(el('div', 'stop', s.stop));
      s.tables.forEach(function (tables, w) {
        pane.appendChild(el('h2', null, (data.warps > 1 ? 'warp ' + w + ': ' : '') + data.mechanism + ' state'));
        tables.forEach(function (t) { pane.appendChild(table(t)); });
      });
      if (s.expected) {
        var ex = el('div', 'expect ' + (s.expected.ok ? 'ok' : 'bad'));
        ex.appendChild(el('b', null, s.expected.ok ? '\u2713 matches the expected state' : '\u2717 differs from the expected state'));
        if (s.note) ex.appendChild(el('div', null, s.note));
        pane.appendChild(ex);
      } else if (s.note) pane.appendChild(el('div', 'expect', s.note));
      if (i === last) {
        var fin = el('div', 'final');
        fin.appendChild(el('div', null, 'verdict: ' + data.verdict + ' \u2014 ' + data.message));
        fin.appendChild(el('div', null, 'expected: ' + data.expected + (data.ok ? ' \u2014 matches' : ' \u2014 does NOT match')));
        data.mismatches.forEach(function (m) { fin.appendChild(el('div', 'mismatch', m)); });
        pane.appendChild(fin);
      }
    }
    function step(d) {
      var i = Number(slider.value);
      if (d > 0 && i === last && loop !== null && loop < last) show(loop + 1);
      else show(i + d);
    }
    function play() {
      var b = root.querySelector('.play');
      if (timer) { clearInterval(timer); timer = null; b.textContent = 'play'; return; }
      b.textContent = 'pause';
      timer = setInterval(function () {
        if (Number(slider.value) === last && loop === null) { play(); return; }
        step(1);
      }, 800);
    }
    slider.addEventListener('input', function () { show(Number(slider.value)); });
    root.querySelector('.prev').addEventListener('click', function () { step(-1); });
    root.querySelector('.next').addEventListener('click', function () { step(1); });
    root.querySelector('.play').addEventListener('click', play);
    var band = root.querySelector('.cycle-band');
    if (band && loop !== null && last > 0) {
      // From the step whose state the cycle returns to, to the last step.
      band.style.left = 'calc(' + (loop / last) * 100 + '% - 6px)';
      band.style.right = '-6px';
    }
    // A graph wider than its pane is scaled down to fit, but never below 72 % (text stays
    // readable); beyond that the pane scrolls.
    var svg = root.querySelector('svg.cfg');
    function fit() {
      if (!svg) return;
      var natural = Number(svg.getAttribute('width'));
      var room = cfgPane.clientWidth - 16;
      var w = natural > room ? Math.max(room, natural * 0.72) : natural;
      svg.style.width = w + 'px';
      svg.style.height = (Number(svg.getAttribute('height')) * w) / natural + 'px';
    }
    fit();
    window.addEventListener('resize', fit);
    show(0);
    return { root: root, step: step, show: show, last: last, fit: fit };
  }
  document.querySelectorAll('.replay').forEach(function (r) { views.push(mount(r)); });
  function visible() {
    for (var i = 0; i < views.length; i++) if (!views[i].root.hidden) return views[i];
    return null;
  }
  document.addEventListener('keydown', function (e) {
    var v = visible();
    if (!v || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target && e.target.tagName === 'INPUT' && e.target.type === 'range' && e.target.closest('.replay') === v.root) e.preventDefault();
    if (e.key === 'ArrowRight') { v.step(1); e.preventDefault(); }
    else if (e.key === 'ArrowLeft') { v.step(-1); e.preventDefault(); }
    else if (e.key === 'Home') { v.show(0); e.preventDefault(); }
    else if (e.key === 'End') { v.show(v.last); e.preventDefault(); }
  });
  document.querySelectorAll('.theme').forEach(function (b) {
    b.addEventListener('click', function () {
      var dark = document.documentElement.getAttribute('data-theme') === 'dark' ||
        (!document.documentElement.getAttribute('data-theme') && matchMedia('(prefers-color-scheme: dark)').matches);
      document.documentElement.setAttribute('data-theme', dark ? 'light' : 'dark');
    });
  });
  // explore --html: a failing cell opens its replay; "back to the matrix" closes it.
  function open(id) {
    views.forEach(function (v) { v.root.hidden = v.root.id !== id; if (!v.root.hidden) v.fit(); });
    var m = document.querySelector('.matrix-page');
    if (m) m.hidden = !!id;
    window.scrollTo(0, 0);
  }
  document.querySelectorAll('[data-open]').forEach(function (a) {
    a.addEventListener('click', function (e) { e.preventDefault(); open(a.getAttribute('data-open')); if (a.getAttribute('data-open')) history.replaceState(null, '', '#' + a.getAttribute('data-open')); else history.replaceState(null, '', '#'); });
  });
  if (document.querySelector('.matrix-page') && location.hash.length > 1 && document.getElementById(location.hash.slice(1))) open(location.hash.slice(1));
})();
`;
