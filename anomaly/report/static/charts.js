/* Charts, drawn with BokehJS (embedded from the installed bokeh package): a series with its
 * expected band, anomalies, annotated points and annotation spans; and the anomaly timeline.
 * A chart is drawn when its placeholder scrolls near the viewport (IntersectionObserver), so a
 * page with a thousand series draws only the dozen on screen. */
"use strict";

/* Colours and markers come from the page (anomaly/chart_style.py, shared with the PNG plots). */
const STYLE = JSON.parse(document.getElementById("chart-style").textContent);
const COLORS = STYLE.colors, FRAME = STYLE.frame;
const KINDS = STYLE.annotationKinds;
const DAY = 86400000;

Report.charts = { views: new Map(), pendingFocus: new Map(), queue: [] };

const MARGIN = 200;
const observer = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    observer.unobserve(entry.target);
    Report.charts.queue.push(entry.target);
  }
  drain();
}, { rootMargin: MARGIN + "px 0px" });

/** Register a chart placeholder (``data-sid``) to be drawn when it comes into view. */
Report.charts.watch = (node) => observer.observe(node);

/* Charts are drawn one at a time, each in its own task, so the page keeps answering input while
 * they draw; one scrolled far away before its turn goes back to waiting for the viewport. */
let draining = false;
async function drain() {
  if (draining) return;
  draining = true;
  try {
    while (Report.charts.queue.length) {
      const node = Report.charts.queue.shift();
      const box = node.getBoundingClientRect();
      const near = box.bottom > -MARGIN && box.top < window.innerHeight + MARGIN;
      if (!near || node.closest("[hidden]")) { observer.observe(node); continue; }
      await Report.charts.draw(node);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  } finally {
    draining = false;
  }
}

/** The chart's value axis: the payload's ``y`` (it follows the values; anomaly.chart_scale),
 * in the unit durations are shown in (``size`` seconds per unit). */
function axisOf(series) {
  const [low, high] = series.y || [0, 1];
  const unit = series.unit === "s" ? Report.durationUnit(Math.max(Math.abs(low), Math.abs(high)))
    : null;
  const size = unit ? unit[1] : 1;
  return { low: low / size, high: high / size, size, unit: unit ? unit[0] : null };
}

function seriesSource(series, axis) {
  const times = Report.data.timelines[series.d].times;
  const cols = { t: [], v: [], lo: [], hi: [], value: [], band: [], verdict: [], notes: [] };
  const names = { n: "normal", a: "anomaly", e: "error", i: "insufficient history", o: "other", "-": "-" };
  const scaled = (x) => x === null ? NaN : x / axis.size;
  for (let i = 0; i < times.length; i++) {
    const v = series.v[i], lo = series.lo[i], hi = series.hi[i];
    if (v === null && lo === null && hi === null) continue;
    cols.t.push(times[i]);
    cols.v.push(scaled(v));
    cols.lo.push(scaled(lo));
    cols.hi.push(scaled(hi));
    cols.value.push(Report.fmt.value(v, series.unit));
    cols.band.push(Report.fmt.band(lo, hi, series.unit));
    cols.verdict.push(names[series.st[i]] || "-");
    const flags = series.ann ? Number(series.ann[i]) : 0;
    cols.notes.push(KINDS.filter((k, bit) => flags & (1 << bit)).join(", ") || "-");
  }
  // The band is drawn within the axis: a one-sided band is shaded to the axis' edge, and a band
  // beyond the axis is cut there (cutMarks shows where it goes on).
  const hold = (x) => Math.min(Math.max(x, axis.low), axis.high);
  cols.fill_lo = cols.lo.map((lo, i) => Number.isFinite(lo) ? hold(lo)
    : Number.isFinite(cols.hi[i]) ? axis.low : NaN);
  cols.fill_hi = cols.hi.map((hi, i) => Number.isFinite(hi) ? hold(hi)
    : Number.isFinite(cols.lo[i]) ? axis.high : NaN);
  return cols;
}

/** Where the band leaves the axis: a triangle just inside the edge it crosses, pointing on. */
function cutMarks(cols, axis) {
  const inset = (axis.high - axis.low) * 0.04;
  const marks = { t: [], y: [], marker: [], band: [] };
  cols.t.forEach((t, i) => {
    for (const [edge, out, y, marker] of [
      [cols.hi[i], cols.hi[i] > axis.high, axis.high - inset, "triangle"],
      [cols.lo[i], cols.lo[i] < axis.low, axis.low + inset, "inverted_triangle"]]) {
      if (!out || !Number.isFinite(edge)) continue;
      marks.t.push(t); marks.y.push(y); marks.marker.push(marker); marks.band.push(cols.band[i]);
    }
  });
  return marks;
}

function annotatedPoints(series, kind, axis) {
  const bit = 1 << KINDS.indexOf(kind), times = Report.data.timelines[series.d].times;
  const t = [], v = [];
  if (!series.ann) return { t, v };
  for (let i = 0; i < times.length; i++) {
    if ((Number(series.ann[i]) & bit) && series.v[i] !== null) {
      t.push(times[i]); v.push(series.v[i] / axis.size);
    }
  }
  return { t, v };
}

function figure(options) {
  return Bokeh.Plotting.figure(Object.assign({
    sizing_mode: "stretch_width", height: 200, x_axis_type: "datetime",
    tools: "xpan,xwheel_zoom,box_zoom,reset,save", active_drag: "xpan", toolbar_location: "right",
    min_border_left: 40, min_border_right: 10, min_border_top: 6, min_border_bottom: 6,
    background_fill_color: "#ffffff", border_fill_color: "#ffffff", outline_line_color: null,
  }, options));
}

function style(p) {
  p.xgrid.grid_line_color = FRAME.grid;
  p.ygrid.grid_line_color = FRAME.grid;
  for (const axis of [...p.xaxis, ...p.yaxis]) {
    axis.axis_line_color = FRAME.axis;
    axis.major_tick_line_color = FRAME.axis;
    axis.minor_tick_line_color = null;
    axis.major_label_text_color = FRAME.label;
    axis.major_label_text_font_size = "11px";
  }
  p.toolbar.logo = null;
  p.toolbar.autohide = true;
}

/** Ticks as plain numbers (no exponent on a count of millions), or with exponents when tiny. */
function valueTicks(p, axis) {
  const biggest = Math.max(Math.abs(axis.low), Math.abs(axis.high));
  if (biggest < 1e-3 || biggest >= 1e15) return;
  for (const y of p.yaxis) {  // a figure's axes are iterable, not indexable
    y.formatter = new Bokeh.NumeralTickFormatter({ format: "0,0.[0000]" });
    if (!axis.unit) continue;
    y.axis_label = axis.unit;
    y.axis_label_text_font_size = "11px";
    y.axis_label_standoff = 4;
  }
}

/** Draw the chart of the placeholder ``node`` (its ``data-sid`` names the series). */
Report.charts.draw = function (node) {
  const series = Report.data.series[Number(node.dataset.sid)];
  const axis = axisOf(series);
  const cols = seriesSource(series, axis);
  const source = new Bokeh.ColumnDataSource({ data: cols });
  const p = figure({ y_range: new Bokeh.Range1d({ start: axis.low, end: axis.high }) });
  style(p);
  valueTicks(p, axis);
  for (const id of series.annotations) {
    const a = Report.annotationsById.get(id);
    if (!a) continue;
    const pad = a.end === a.start ? DAY / 4 : 0;
    p.add_layout(new Bokeh.BoxAnnotation({ left: a.start - pad, right: a.end + pad,
      fill_color: COLORS[a.kind], fill_alpha: STYLE.spanAlpha, line_color: null, level: "underlay" }));
  }
  p.varea({ x: { field: "t" }, y1: { field: "fill_lo" }, y2: { field: "fill_hi" }, source,
            fill_color: COLORS.band, fill_alpha: STYLE.bandAlpha });
  const cut = new Bokeh.ColumnDataSource({ data: cutMarks(cols, axis) });
  const cuts = p.scatter({ x: { field: "t" }, y: { field: "y" }, source: cut,
                           marker: { field: "marker" }, size: 7, fill_color: COLORS.band,
                           line_color: COLORS.value, line_width: 0.8, fill_alpha: 0.9 });
  const line = p.line({ x: { field: "t" }, y: { field: "v" }, source, line_color: COLORS.value,
                        line_width: 1.6 });
  for (const kind of KINDS) {
    const pts = annotatedPoints(series, kind, axis);
    if (!pts.t.length) continue;
    p.scatter({ x: { field: "t" }, y: { field: "v" }, source: new Bokeh.ColumnDataSource({ data: pts }),
                marker: STYLE.annotationMarkers[kind], size: 11, fill_color: null,
                line_color: COLORS[kind], line_width: 2 });
  }
  const found = (Report.anomaliesBySeries.get(series.id) || []).filter((a) => a.value !== null);
  const marks = new Bokeh.ColumnDataSource({ data: {
    t: found.map((a) => a.ts), v: found.map((a) => a.value / axis.size),
    value: found.map((a) => Report.fmt.value(a.value, series.unit)),
    band: found.map((a) => Report.bandOf(a)),
    detector: found.map((a) => a.detector), detail: found.map((a) => Report.fmt.text(a.detail)),
  } });
  const dots = p.scatter({ x: { field: "t" }, y: { field: "v" }, source: marks, marker: "circle",
                           size: 9, fill_color: COLORS.anomaly, line_color: "#ffffff", line_width: 1.5 });
  p.add_tools(new Bokeh.HoverTool({ renderers: [line], mode: "vline", tooltips: [
    ["time", "@t{%F %H:%M}"], ["value", "@value"], ["expected", "@band"],
    ["verdict", "@verdict"], ["annotated", "@notes"]], formatters: { "@t": "datetime" } }));
  p.add_tools(new Bokeh.HoverTool({ renderers: [cuts], tooltips: [
    ["time", "@t{%F %H:%M}"], ["expected", "@band (beyond the axis)"]],
    formatters: { "@t": "datetime" } }));
  p.add_tools(new Bokeh.HoverTool({ renderers: [dots], tooltips: [
    ["anomaly", "@t{%F %H:%M}"], ["value", "@value"], ["expected", "@band"],
    ["detector", "@detector"], ["detail", "@detail"]], formatters: { "@t": "datetime" } }));
  const focus = Report.charts.pendingFocus.get(series.id);
  if (focus !== undefined) mark(p, focus);
  node.dataset.state = "drawing";
  const done = Bokeh.Plotting.show(p, node).then(() => {
    node.dataset.state = "drawn";
    node.dataset.anomalyMarkers = String(marks.data.t.length);
    node.dataset.cutMarkers = String(cut.data.t.length);
    node.dataset.yRange = JSON.stringify([p.y_range.start * axis.size, p.y_range.end * axis.size]);
    Report.charts.views.set(series.id, p);
    document.dispatchEvent(new Event("chart-drawn"));
  }).catch((error) => {
    node.dataset.state = "failed";
    node.append(el("p", { class: "chart-error", text: "chart failed: " + error }));
  });
  return done;
};

function mark(p, time) {
  p.add_layout(new Bokeh.Span({ location: time, dimension: "height", line_color: FRAME.focus,
                                line_dash: [4, 3], line_width: 1 }));
}

/** Mark `time` on the chart of series `sid` (now if drawn, else when it is). */
Report.charts.focus = function (sid, time) {
  if (time === undefined || Number.isNaN(time)) return;
  const p = Report.charts.views.get(sid);
  if (p) mark(p, time); else Report.charts.pendingFocus.set(sid, time);
};

/** The anomaly timeline: one row per dataset and metric, a dot per anomaly or failure. */
Report.charts.timeline = function (node) {
  const rows = Report.data.anomalies;
  const label = (r) => Report.fmt.dataset(r.dataset) + " · " + r.metric;
  const factors = [...new Set(rows.map(label))].sort().reverse();
  const source = new Bokeh.ColumnDataSource({ data: {
    t: rows.map((r) => r.ts), y: rows.map(label), sid: rows.map((r) => r.sid ?? -1),
    group: rows.map((r) => r.group), value: rows.map((r) => Report.valueOf(r)),
    band: rows.map((r) => Report.bandOf(r)), status: rows.map((r) => r.status),
    color: rows.map((r) => r.status === "anomaly" ? COLORS.anomaly : COLORS.error),
  } });
  const firsts = Report.data.datasets.map((d) => d.first).filter(Number.isFinite);
  const lasts = Report.data.datasets.map((d) => d.last).filter(Number.isFinite);
  const span = firsts.length ? { x_range: new Bokeh.Range1d({
    start: Math.min(...firsts) - DAY, end: Math.max(...lasts) + DAY }) } : {};
  const p = figure(Object.assign(span, { y_range: factors, height: Math.min(60 + 24 * factors.length, 720),
                   tools: "xpan,xwheel_zoom,box_zoom,reset,tap,save", min_border_left: 10 }));
  style(p);
  p.scatter({ x: { field: "t" }, y: { field: "y" }, source, size: 10, marker: "circle",
              fill_color: { field: "color" }, line_color: "#ffffff", fill_alpha: 0.85 });
  p.add_tools(new Bokeh.HoverTool({ tooltips: [["time", "@t{%F %H:%M}"], ["series", "@y"],
    ["group", "@group"], ["status", "@status"], ["value", "@value"], ["expected", "@band"]],
    formatters: { "@t": "datetime" } }));
  source.selected.change.connect(() => {
    const picked = source.selected.indices[0];
    if (picked === undefined || source.data.sid[picked] < 0) return;
    location.hash = "#s-" + source.data.sid[picked] + "@" + source.data.t[picked];
  });
  Bokeh.Plotting.show(p, node).then(() => { node.dataset.state = "drawn"; })
    .catch(() => { node.dataset.state = "failed"; });
};
