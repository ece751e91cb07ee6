/* The report's helpers: DOM building (text only, never HTML from data), formatting, tables.
 * Every string from the repository (dataset, group, tag, column names, notes) goes into the
 * page through textContent or an attribute, so it is shown as text, never parsed as markup. */
"use strict";

const Report = {};

Report.data = JSON.parse(document.getElementById("report-data").textContent);

/** An element with attributes, properties ("on*" functions are listeners) and children. */
Report.el = function (tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = String(value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
};

const el = Report.el;

Report.fmt = {
  time(ms) {
    if (ms === null || ms === undefined) return "-";
    const iso = new Date(ms).toISOString();
    return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.slice(0, 16).replace("T", " ");
  },
  /** A number to 4 significant digits, thousands separated (anomaly.chart_scale.significant). */
  num(value) {
    if (value === null || value === undefined || !Number.isFinite(value)) return "-";
    const abs = Math.abs(value);
    if (abs >= 1000) return value.toLocaleString("en-US", { maximumFractionDigits: 0 });
    if (Number.isInteger(value)) return String(value);
    return String(Number(value.toPrecision(4)));
  },
  /** Seconds in their own unit: "42.1 s", "90 min", "231 d" (anomaly.chart_scale.human_duration). */
  seconds(value) {
    if (value === null || value === undefined || !Number.isFinite(value)) return "-";
    const [name, size] = Report.durationUnit(Math.abs(value));
    return Report.fmt.num(Number((value / size).toPrecision(3))) + " " + name;
  },
  /** A metric's value: durations (unit "s") in human units, other numbers to 4 digits. */
  value(value, unit) {
    return unit === "s" ? Report.fmt.seconds(value) : Report.fmt.num(value);
  },
  band(lower, upper, unit) {
    const lo = lower === null || lower === undefined ? null : lower;
    const hi = upper === null || upper === undefined ? null : upper;
    const show = (v) => Report.fmt.value(v, unit);
    if (lo === null && hi === null) return "-";
    if (hi === null) return ">= " + show(lo);
    if (lo === null) return "<= " + show(hi);
    return "[" + show(lo) + ", " + show(hi) + "]";
  },
  /** Free text (a verdict's detail) with its long decimals cut to 4 significant digits. */
  text(value) {
    if (value === null || value === undefined || value === "") return "-";
    return String(value).replace(/-?\d+\.\d{5,}(?:e[+-]?\d+)?/gi, (m) => Report.fmt.num(Number(m)));
  },
  age(ms) {
    if (ms === null || ms === undefined) return "-";
    const hours = (Report.data.generated - ms) / 3600000;
    if (hours < 0) return "in the future";
    if (hours < 1) return Math.round(hours * 60) + " min ago";
    if (hours < 48) return Math.round(hours) + " h ago";
    return Report.fmt.count(Math.round(hours / 24), "day") + " ago";
  },
  duration(start, end) {
    if (start === null || end === null || start === undefined || end === undefined) return "-";
    return Report.fmt.seconds((end - start) / 1000);
  },
  /** "1 row", "2 rows". */
  count(n, noun) { return n + " " + noun + (n === 1 ? "" : "s"); },
  dataset(name) { return name === "" ? "(no dataset)" : name; },
};

/** The unit to show durations of up to `seconds` in, and its length in seconds: the largest
 * unit that keeps the number at least 2 (anomaly.chart_scale.duration_unit). */
Report.durationUnit = function (seconds) {
  const units = [["s", 1], ["min", 60], ["h", 3600], ["d", 86400]];
  return units.filter(([, size]) => seconds >= 2 * size).pop() || units[0];
};

/** A status badge: ok / warning / error / failed / anomaly / normal / running ... */
Report.badge = function (status, stored) {
  const text = status === null || status === undefined || status === "" ? "-" : String(status);
  const title = stored && stored !== text ? "stored in the scan log as " + stored : null;
  return el("span", { class: "badge badge-" + Report.badgeClass(text), text, title });
};
Report.badgeClass = (status) => String(status).toLowerCase().replace(/[^a-z]+/g, "_");

/** Series id -> its anomaly rows (status "anomaly"), for chart markers. */
Report.anomaliesBySeries = (function () {
  const found = new Map();
  for (const row of Report.data.anomalies) {
    if (row.sid === null || row.status !== "anomaly") continue;
    if (!found.has(row.sid)) found.set(row.sid, []);
    found.get(row.sid).push(row);
  }
  return found;
})();

/** A verdict row's value and band as its series shows them: durations in human units, the band
 * held to the metric's domain (the series' ``kind``, see anomaly/metric_domain.py). */
const DOMAINS = { share: [0, 1], count: [0, null], duration: [0, null], correlation: [-1, 1] };
Report.seriesOf = (row) => row.sid === null || row.sid === undefined ? null : Report.data.series[row.sid];
Report.valueOf = (row) => Report.fmt.value(row.value, (Report.seriesOf(row) || {}).unit);
Report.bandOf = function (row) {
  const series = Report.seriesOf(row) || {};
  const [low, high] = DOMAINS[series.kind] || [null, null];
  const hold = (x) => x === null || x === undefined ? x
    : Math.min(Math.max(x, low === null ? -Infinity : low), high === null ? Infinity : high);
  return Report.fmt.band(hold(row.lower), hold(row.upper), series.unit);
};

Report.annotationsById = new Map(Report.data.annotations.map((a) => [a.id, a]));

/** Link to a series' chart: switches to its dataset and scrolls to it. */
Report.chartLink = function (sid, text, time) {
  if (sid === null || sid === undefined) return document.createTextNode(text);
  const href = "#s-" + sid + (time === undefined ? "" : "@" + time);
  return el("a", { href, class: "chart-link", title: "show the chart", text });
};

/**
 * A sortable, filterable table.
 * columns: [{key, label, type: "text"|"num"|"time", wrap: long text, narrow: text that may wrap
 *            between words (a metric id), below: long text shown on a
 *            line of its own under its row (never cut off, whatever the width),
 *            render(row) -> Node|string}]
 * filters: [{key, label, values}] rendered as selects; a text box searches every column.
 */
Report.table = function ({ columns, rows, filters = [], sort = null, limit = 500, id = null }) {
  const state = { sort: sort || { key: columns[0].key, desc: false }, shown: limit };
  const search = el("input", { type: "search", placeholder: "Filter rows...", class: "filter-text",
                               "aria-label": "filter rows" });
  const selects = filters.map((f) => {
    const select = el("select", { "aria-label": f.label, "data-filter": f.key },
      el("option", { value: "", text: "all " + f.label }),
      f.values.map((v) => el("option", { value: v, text: v === "" ? "(none)" : v })));
    return { filter: f, select };
  });
  const count = el("span", { class: "row-count" });
  const body = el("tbody");
  const more = el("button", { type: "button", class: "more", onclick() {
    state.shown = Infinity; draw(); } });
  const inline = columns.filter((c) => !c.below), below = columns.filter((c) => c.below);
  const heads = inline.map((c) => el("th", {
    scope: "col", tabindex: 0, "data-key": c.key, class: c.type === "num" ? "num" : "",
    onclick() { toggle(c.key); },
    onkeydown(event) { if (event.key === "Enter") toggle(c.key); },
  }, c.label));
  const table = el("table", { class: "data-table", id },
    el("thead", {}, el("tr", {}, heads)), body);
  const text = (row) => columns.map((c) => String(row[c.key] ?? "")).join(" ").toLowerCase();
  const haystack = rows.map(text);

  function toggle(key) {
    state.sort = { key, desc: state.sort.key === key ? !state.sort.desc : false };
    draw();
  }
  function draw() {
    const needle = search.value.trim().toLowerCase();
    let kept = rows.map((row, i) => i).filter((i) => (!needle || haystack[i].includes(needle))
      && selects.every(({ filter, select }) => !select.value
        || String(rows[i][filter.key] ?? "") === select.value));
    const { key, desc } = state.sort;
    kept.sort((a, b) => compare(rows[a][key], rows[b][key]) * (desc ? -1 : 1));
    heads.forEach((th) => th.setAttribute("aria-sort", th.dataset.key !== key ? "none"
      : desc ? "descending" : "ascending"));
    const visible = kept.slice(0, state.shown);
    body.replaceChildren(...visible.flatMap((i) => [
      el("tr", { class: below.some((c) => !blank(rows[i][c.key])) ? "has-below" : null },
        inline.map((c) => el("td", { class: c.type === "num" ? "num" : c.wrap ? "wrap" : c.narrow
          ? "narrow" : "" }, show(c, rows[i])))),
      ...below.filter((c) => !blank(rows[i][c.key])).map((c) => el("tr", { class: "below" },
        el("td", { colspan: inline.length }, el("div", {},
          el("span", { class: "below-label", text: c.label }), " ", show(c, rows[i]))))),
    ]));
    count.textContent = kept.length === rows.length ? Report.fmt.count(rows.length, "row")
      : kept.length + " of " + Report.fmt.count(rows.length, "row");
    more.textContent = "Show all " + Report.fmt.count(kept.length, "row");
    more.hidden = kept.length <= visible.length;
  }
  search.addEventListener("input", draw);
  selects.forEach(({ select }) => select.addEventListener("change", draw));
  draw();
  return el("div", { class: "table-block" },
    el("div", { class: "table-tools" }, search, selects.map((s) => s.select), count),
    el("div", { class: "table-scroll" }, table), more);
};

function blank(value) { return value === null || value === undefined || value === ""; }

function show(column, row) {
  if (column.render) return column.render(row);
  const value = row[column.key];
  if (column.type === "time") return Report.fmt.time(value);
  if (column.type === "num") return Report.fmt.num(value);
  return value === null || value === undefined || value === "" ? "-" : String(value);
}

function compare(a, b) {
  const missingA = a === null || a === undefined, missingB = b === null || b === undefined;
  if (missingA || missingB) return missingA === missingB ? 0 : missingA ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), "en", { numeric: true });
}

/** Distinct values of a column, sorted, for a filter select. */
Report.values = (rows, key) => [...new Set(rows.map((r) => String(r[key] ?? "")))].sort();
