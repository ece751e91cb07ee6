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
  num(value) {
    if (value === null || value === undefined || Number.isNaN(value)) return "-";
    const abs = Math.abs(value);
    if (abs >= 1000) return value.toLocaleString("en-US", { maximumFractionDigits: 0 });
    if (Number.isInteger(value)) return String(value);
    return String(Number(value.toPrecision(4)));
  },
  band(lower, upper) {
    const lo = lower === null || lower === undefined ? null : lower;
    const hi = upper === null || upper === undefined ? null : upper;
    if (lo === null && hi === null) return "-";
    if (hi === null) return ">= " + Report.fmt.num(lo);
    if (lo === null) return "<= " + Report.fmt.num(hi);
    return "[" + Report.fmt.num(lo) + ", " + Report.fmt.num(hi) + "]";
  },
  age(ms) {
    if (ms === null || ms === undefined) return "-";
    const hours = (Report.data.generated - ms) / 3600000;
    if (hours < 0) return "in the future";
    if (hours < 1) return Math.round(hours * 60) + " min ago";
    if (hours < 48) return Math.round(hours) + " h ago";
    return Math.round(hours / 24) + " days ago";
  },
  duration(start, end) {
    if (start === null || end === null || start === undefined || end === undefined) return "-";
    const s = (end - start) / 1000;
    return s < 120 ? s.toFixed(1) + " s" : (s / 60).toFixed(1) + " min";
  },
  dataset(name) { return name === "" ? "(no dataset)" : name; },
};

/** A status badge: ok / warning / error / failed / anomaly / normal / running ... */
Report.badge = function (status) {
  const text = status === null || status === undefined || status === "" ? "-" : String(status);
  return el("span", { class: "badge badge-" + text.toLowerCase().replace(/[^a-z]+/g, "_"), text });
};

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

Report.annotationsById = new Map(Report.data.annotations.map((a) => [a.id, a]));

/** Link to a series' chart: switches to its dataset and scrolls to it. */
Report.chartLink = function (sid, text, time) {
  if (sid === null || sid === undefined) return document.createTextNode(text);
  const href = "#s-" + sid + (time === undefined ? "" : "@" + time);
  return el("a", { href, class: "chart-link", title: "show the chart", text });
};

/**
 * A sortable, filterable table.
 * columns: [{key, label, type: "text"|"num"|"time", wrap: long text, render(row) -> Node|string}]
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
  const heads = columns.map((c) => el("th", {
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
    body.replaceChildren(...visible.map((i) => el("tr", {},
      columns.map((c) => el("td", { class: c.type === "num" ? "num" : c.wrap ? "wrap" : "" },
        show(c, rows[i]))))));
    count.textContent = kept.length === rows.length ? rows.length + " rows"
      : kept.length + " of " + rows.length + " rows";
    more.textContent = "Show all " + kept.length + " rows";
    more.hidden = kept.length <= visible.length;
  }
  search.addEventListener("input", draw);
  selects.forEach(({ select }) => select.addEventListener("change", draw));
  draw();
  return el("div", { class: "table-block" },
    el("div", { class: "table-tools" }, search, selects.map((s) => s.select), count),
    el("div", { class: "table-scroll" }, table), more);
};

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
