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
  var drawn = 0, expected = 0;
  Array.prototype.forEach.call(document.querySelectorAll('div.chart[data-chart]'), function (box) {
    var c = page.charts[Number(box.getAttribute('data-chart'))];
    expected += 1;
    try { chart(box, c); drawn += 1; } catch (e) {
      errors += 1;
      box.insertBefore(el('p', 'warning', 'chart "' + (c ? c.title : '?') + '" failed: ' + e), box.firstChild);
      if (window.console) console.error(e);
    }
  });
  document.body.setAttribute('data-charts', String(drawn));
  document.body.setAttribute('data-charts-expected', String(expected));
  document.body.setAttribute('data-script-errors', String(errors));
}());
