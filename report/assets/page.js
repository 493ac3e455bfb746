// hpcsens report page: the tables and text are already in the HTML (readable without JavaScript);
// this draws the charts described by the JSON in #hpcsens-data with Chart.js (inlined above this
// script) into their placeholders, above the table of their numbers. Text goes in with
// textContent only, never as HTML.
(function () {
  'use strict';
  var errors = 0;
  window.addEventListener('error', function () {
    errors += 1;
    document.body.setAttribute('data-script-errors', String(errors));
  });
  var palette = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#9c755f',
                 '#ff9da7', '#bab0ac'];
  var page = JSON.parse(document.getElementById('hpcsens-data').textContent);

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmt(v) {
    if (v === null || v === undefined) return '-';
    if (Array.isArray(v)) return fmt(v[0]) + ' to ' + fmt(v[1]);
    if (typeof v === 'object') return fmt(v.x) + ', ' + fmt(v.y) + (v.r !== undefined ? ' (' + fmt(v.v) + ')' : '');
    // Large values (bytes, counts) with thousands separators, never in exponent form.
    if (typeof v === 'number') return Math.abs(v) >= 1e6 ? Math.round(v).toLocaleString('en-US')
                                    : v !== 0 && Math.abs(v) < 1e-3 ? v.toExponential(4) : String(+v.toPrecision(6));
    return String(v);
  }
  function dataset(c, s, i) {
    var color = palette[(s.color !== undefined ? s.color : i) % palette.length];
    var d = {label: s.name, data: s.data, backgroundColor: color, borderColor: color};
    if (s.kind) d.type = s.kind;
    if (s.stack) d.stack = s.stack;
    if (s.kind === 'line' || s.line) {
      d.showLine = !s.noline; d.fill = false; d.pointRadius = s.noline ? 6 : (s.points ? 3 : 0);
    }
    if (s.dash) d.borderDash = [6, 4];
    if (c.horizontal && s.kind === 'line') d.indexAxis = 'y';  // points along the bars' axis
    if (s.kind === 'bubble' && s.colors) d.backgroundColor = s.colors;
    if (s.kind === 'bar' || (!s.kind && c.type === 'bar')) d.barPercentage = s.thin ? 0.35 : 0.9;
    if (s.order !== undefined) d.order = s.order;
    if (s.radius) { d.pointRadius = s.radius; d.pointHoverRadius = s.radius + 2; }  // marks that may coincide stay visible as rings
    return d;
  }
  function axis(title, log, stacked) {
    var a = {title: {display: true, text: title}, stacked: !!stacked};
    if (log) a.type = 'logarithmic';
    return a;
  }
  function rendered(ch) {
    var scales = {};
    Object.keys(ch.scales).forEach(function (id) {
      var s = ch.scales[id];
      scales[id] = {title: s.options.title && s.options.title.text, min: s.min, max: s.max, type: s.type};
    });
    return {
      title: ch.options.plugins.title.text,
      labels: ch.data.labels || null,
      scales: scales,
      datasets: ch.data.datasets.map(function (d, i) {
        return {label: d.label, data: d.data, drawn: ch.getDatasetMeta(i).data.length, hidden: !ch.isDatasetVisible(i)};
      })
    };
  }
  function chart(box, c) {
    var canvas = el('canvas');
    var holder = el('div', 'canvas-holder');
    holder.style.height = (c.height || 320) + 'px';
    holder.appendChild(canvas);
    box.insertBefore(holder, box.firstChild);
    var emulated = c.emulated;
    var title = c.title + (emulated ? ' \u2014 EMULATED' : '');
    var horizontal = !!c.horizontal;
    var x = axis(c.x, c.logx, c.stacked), y = axis(c.y, c.logy, c.stacked);
    if (c.type !== 'bar') { x.type = c.logx ? 'logarithmic' : 'linear'; }
    if (c.rank_axes) {  // rank x rank: whole ranks only, half a rank of margin so edge bubbles show
      [x, y].forEach(function (a) {
        a.min = -0.5; a.max = c.rank_axes - 0.5;
        a.afterBuildTicks = function (scale) {
          var step = Math.max(1, Math.ceil(c.rank_axes / 16)), t = [];
          for (var i = 0; i < c.rank_axes; i += step) t.push({value: i});
          scale.ticks = t;
        };
      });
    }
    var cfg = {
      type: c.type,
      data: {labels: c.labels, datasets: c.series.map(function (s, i) { return dataset(c, s, i); })},
      options: {
        animation: false, responsive: true, maintainAspectRatio: false, indexAxis: horizontal ? 'y' : 'x',
        plugins: {
          title: {display: true, text: title, color: emulated ? '#b00020' : '#222', font: {size: 15}},
          subtitle: {display: !!emulated, text: 'EMULATED data: computed from a model, not measured', color: '#b00020'},
          legend: {display: c.series.length > 1},
          tooltip: {callbacks: {label: function (ctx) {
            return ctx.dataset.label + ': ' + fmt(ctx.raw);
          }}}
        },
        scales: horizontal ? {x: y, y: x} : {x: x, y: y}
      }
    };
    var drawnChart = new Chart(canvas, cfg);
    // What Chart.js actually holds and laid out, for tests to read back with --dump-dom.
    box.setAttribute('data-rendered', JSON.stringify(rendered(drawnChart)));
    // Drawn: the chart shows its own title, and its numbers fold away under it.
    Array.prototype.forEach.call(box.querySelectorAll('.chart-title'), function (t) { t.hidden = true; });
    var numbers = box.querySelector('details.numbers');
    if (numbers) numbers.open = false;
  }
  // Ranks x time (no Chart.js type fits): one row per rank, one cell per bin at its own time, the
  // colour mixing blue (compute), red (MPI) and green (I/O) by their shares of the bin; phase marks
  // as dashed lines. The hovered cell's numbers show in the canvas title.
  var heat = {compute: [78, 121, 167], mpi: [225, 87, 89], io: [89, 161, 79]};
  function heatmap(box, c) {
    var canvas = el('canvas'), holder = el('div', 'canvas-holder');
    holder.style.height = (c.height || 320) + 'px';
    holder.appendChild(canvas);
    box.insertBefore(holder, box.firstChild);
    var W = holder.clientWidth || 900, H = c.height || 320, left = 60, right = 10, top = 30, bottom = 40;
    canvas.width = W; canvas.height = H;
    var g = canvas.getContext('2d'), n = c.rows.length, rowH = (H - top - bottom) / Math.max(1, n);
    var span = c.span_s > 0 ? c.span_s : 1, x = function (t) { return left + (W - left - right) * t / span; };
    var cells = 0, drawnRows = [];
    g.fillStyle = '#222'; g.font = '15px sans-serif'; g.textAlign = 'center';
    g.fillText(c.title, W / 2, 18);
    g.font = '11px sans-serif';
    c.rows.forEach(function (r, k) {
      var y = top + k * rowH, shares = [];
      for (var i = 0; i < r.mpi_s.length; i++) {
        var cs = r.compute_s[i], ms = r.mpi_s[i], is = r.io_s[i], all = cs + ms + is || 1, rgb = [0, 1, 2].map(function (j) {
          return Math.round((cs * heat.compute[j] + ms * heat.mpi[j] + is * heat.io[j]) / all);
        });
        g.fillStyle = 'rgb(' + rgb.join(',') + ')';
        // Half a pixel of overlap: no seams between cells at fractional pixel edges.
        g.fillRect(x(i * r.bin_s), y, Math.max(1, x((i + 1) * r.bin_s) - x(i * r.bin_s) + 0.5), Math.max(1, rowH - (rowH > 4 ? 1 : 0)));
        shares.push([cs, ms, is]);
        cells += 1;
      }
      drawnRows.push({rank: r.rank, cells: shares});
      if (n <= 40 || k % Math.ceil(n / 40) === 0) { g.fillStyle = '#222'; g.textAlign = 'right'; g.fillText(String(r.rank), left - 6, y + rowH / 2 + 4); }
    });
    g.textAlign = 'center'; g.fillStyle = '#222';
    // Round ticks: a step of 1, 2 or 5 x 10^k giving at most 10 labels.
    var step = Math.pow(10, Math.floor(Math.log10(span / 10)));
    step *= span / step <= 10 ? 1 : span / (2 * step) <= 10 ? 2 : span / (5 * step) <= 10 ? 5 : 10;
    for (var t = 0; t <= span + 1e-12; t += step) g.fillText(String(+t.toPrecision(6)), x(t), H - bottom + 14);
    g.fillText(c.x, (left + W - right) / 2, H - 6);
    g.save(); g.translate(14, (top + H - bottom) / 2); g.rotate(-Math.PI / 2); g.fillText(c.y, 0, 0); g.restore();
    g.setLineDash([5, 4]); g.strokeStyle = '#111';
    (c.marks || []).forEach(function (m) {
      g.beginPath(); g.moveTo(x(m.t_s), top - 4); g.lineTo(x(m.t_s), H - bottom); g.stroke();
      g.textAlign = 'left'; g.fillText(m.phase, x(m.t_s) + 3, top - 2);
    });
    canvas.addEventListener('mousemove', function (e) {
      var b = canvas.getBoundingClientRect(), k = Math.floor((e.clientY - b.top - top) / rowH), r = c.rows[k];
      if (!r) return;
      var i = Math.floor((e.clientX - b.left - left) / (W - left - right) * span / r.bin_s);
      if (i < 0 || i >= r.mpi_s.length) return;
      canvas.title = 'rank ' + r.rank + ', ' + fmt(i * r.bin_s) + ' s: compute ' + fmt(r.compute_s[i]) + ' s, MPI ' +
        fmt(r.mpi_s[i]) + ' s' + (r.top_mpi[i] ? ' (' + r.top_mpi[i] + ')' : '') + ', I/O ' + fmt(r.io_s[i]) + ' s';
    });
    box.setAttribute('data-rendered', JSON.stringify({title: c.title, kind: 'heatmap', cells: cells, rows: drawnRows,
                                                      marks: (c.marks || []).map(function (m) { return m.phase; })}));
    Array.prototype.forEach.call(box.querySelectorAll('.chart-title'), function (t) { t.hidden = true; });
    var numbers = box.querySelector('details.numbers');
    if (numbers) numbers.open = false;
  }
  var drawn = 0, expected = 0;
  Array.prototype.forEach.call(document.querySelectorAll('div.chart[data-chart]'), function (box) {
    var c = page.charts[Number(box.getAttribute('data-chart'))];
    expected += 1;
    try { (c.type === 'heatmap' ? heatmap : chart)(box, c); drawn += 1; } catch (e) {
      errors += 1;
      box.insertBefore(el('p', 'warning', 'chart "' + (c ? c.title : '?') + '" failed: ' + e), box.firstChild);
      if (window.console) console.error(e);
    }
  });
  document.body.setAttribute('data-charts', String(drawn));
  document.body.setAttribute('data-charts-expected', String(expected));
  document.body.setAttribute('data-script-errors', String(errors));
}());
