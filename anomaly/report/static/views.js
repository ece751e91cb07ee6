/* The report's pages (overview, one per dataset, anomalies, checks, schema & monitors) and the
 * routing between them by location.hash: #overview, #dataset-N, #anomalies, #checks,
 * #monitors, and #s-ID[@TIME] for one series' chart (with TIME marked on it). */
"use strict";

(function () {
  const D = Report.data, fmt = Report.fmt;
  const views = new Map();
  const builders = new Map();
  const nav = el("nav", { class: "tabs", "aria-label": "report pages" });
  const main = document.getElementById("app");

  function page(id, title, build, count) {
    const view = el("section", { class: "view", id: "view-" + id, hidden: true });
    views.set(id, view);
    builders.set(id, () => build(view));
    main.append(view);
    nav.append(el("a", { href: "#" + id, "data-view": id }, title,
      count ? el("span", { class: "tab-count", text: count }) : null));
  }

  const openCount = D.anomalies.filter((a) => a.open).length;
  page("overview", "Overview", overview);
  D.timelines.forEach((t, i) => page("dataset-" + i, fmt.dataset(t.dataset), (v) => dataset(v, i)));
  page("anomalies", "Anomalies", anomalies, openCount ? String(openCount) : "");
  page("checks", "Checks", checks);
  page("monitors", "Schema & monitors", monitors);
  document.getElementById("nav").append(nav);
  document.getElementById("subtitle").textContent = D.repository + " · generated "
    + fmt.time(D.generated) + (Object.keys(D.filters).length ? " · runs with "
    + Object.entries(D.filters).map(([k, v]) => k + "=" + v).join(", ") : "")
    + (D.live ? " · live: reload the page for new runs" : "");

  function card(label, value, tone) {
    return el("div", { class: "card" + (tone ? " card-" + tone : "") },
      el("div", { class: "card-value", text: value }), el("div", { class: "card-label", text: label }));
  }

  function overview(view) {
    const failing = D.scans.filter((s) => s.status === "failed").length;
    const newest = Math.max(...D.datasets.map((d) => d.last ?? -Infinity));
    view.append(el("div", { class: "cards" },
      card("datasets", D.datasets.length), card("series", D.series.length),
      card("open anomalies", openCount, openCount ? "bad" : "good"),
      card("scans failed (last run)", failing, failing ? "bad" : "good"),
      card("newest data", Number.isFinite(newest) ? fmt.age(newest) : "-", "text")));
    if (D.problems.length) view.append(el("div", { class: "problems" }, D.problems.map((p) => el("p", { text: p }))));
    view.append(el("h2", { text: "Anomaly timeline" }));
    if (D.anomalies.length) {
      const chart = el("div", { class: "timeline", id: "timeline" });
      view.append(el("p", { class: "hint", text: "Every anomaly and failed metric across all series; click a dot for its chart." }), chart);
      Report.charts.timeline(chart);
    } else {
      view.append(el("p", { class: "empty", text: "No anomalies or failed metrics stored." }));
    }
    view.append(el("h2", { text: "Scans" }));
    const scanColumns = [
      { key: "scan", label: "scan" },
      { key: "datasets", label: "datasets", render: (r) => r.datasets.map(fmt.dataset).join(", ") || "-" },
      { key: "started", label: "last run", type: "time" },
      { key: "status", label: "status", render: (r) => Report.badge(r.status, r.stored) },
      { key: "recent", label: "recent runs", render: (r) => el("span", { class: "strip" },
        r.recent.map((s) => el("i", { class: "dot badge-" + Report.badgeClass(s), title: s }))) },
      { key: "duration", label: "took", render: (r) => fmt.duration(r.started, r.ended) },
      { key: "runs", label: "runs", type: "num" },
      { key: "failed", label: "failed", type: "num" },
      ...D.scanColumns.map((c) => ({ key: "x:" + c, label: c, render: (r) => cell(r.extra[c]) })),
      { key: "error", label: "error", wrap: true, render: (r) => r.error ?? "" },
    ];
    view.append(D.scans.length ? Report.table({ columns: scanColumns, rows: D.scans, id: "scans" })
      : el("p", { class: "empty", text: "No scan has run against this repository (the scan log is empty)." }));
    view.append(el("h2", { text: "Datasets" }));
    view.append(Report.table({ id: "datasets", rows: D.datasets, columns: [
      { key: "dataset", label: "dataset", render: (r) => {
        const page = D.timelines.findIndex((t) => t.dataset === r.dataset);
        return page < 0 ? fmt.dataset(r.dataset) : el("a", { href: "#dataset-" + page, text: fmt.dataset(r.dataset) });
      } },
      { key: "scans", label: "scans", render: (r) => r.scans.join(", ") || "-" },
      { key: "last", label: "newest point", type: "time" },
      { key: "fresh", label: "freshness", render: (r) => fmt.age(r.last) },
      { key: "saved", label: "last saved", type: "time" },
      { key: "metrics", label: "metrics", type: "num" },
      { key: "groups", label: "groups", type: "num" },
      { key: "series", label: "series", type: "num" },
      { key: "open", label: "open anomalies", type: "num", render: (r) => r.open ? el("strong", { class: "bad", text: r.open }) : "0" },
    ] }));
  }

  function cell(value) {
    if (value === null || value === undefined) return "-";
    return typeof value === "number" ? fmt.num(value) : typeof value === "object" ? JSON.stringify(value) : String(value);
  }

  function dataset(view, index) {
    const name = D.timelines[index].dataset;
    const mine = D.series.filter((s) => s.d === index);
    const info = D.datasets.find((d) => d.dataset === name) || {};
    view.append(el("h2", { text: fmt.dataset(name) }),
      el("p", { class: "hint", text: mine.length + " series · newest point " + fmt.time(info.last)
        + " (" + fmt.age(info.last) + ") · scans: " + ((info.scans || []).join(", ") || "-") }));
    const search = el("input", { type: "search", class: "filter-text series-search",
      placeholder: "Search groups and metrics...", "aria-label": "search series" });
    const shown = el("span", { class: "row-count" });
    view.append(el("div", { class: "table-tools" }, search, shown));
    const byMetric = new Map();
    for (const s of mine) {
      const key = s.metric + "\u0000" + s.name + "\u0000" + s.scan;
      if (!byMetric.has(key)) byMetric.set(key, []);
      byMetric.get(key).push(s);
    }
    const cards = [];
    const weight = (members) => members.reduce((n, s) => n + hits(s), 0);
    const blocks = [...byMetric.values()].sort((a, b) => weight(b) - weight(a)
      || a[0].metric.localeCompare(b[0].metric));
    for (const members of blocks) {
      const first = members[0];
      const several = new Set(mine.map((s) => s.scan)).size > 1;
      const open = (s) => (Report.anomaliesBySeries.get(s.id) || []).some((a) => a.open);
      members.sort((a, b) => (open(b) - open(a)) || (hits(b) - hits(a)) || a.label.localeCompare(b.label));
      const grid = el("div", { class: members.length > 1 ? "grid" : "grid single" });
      view.append(el("div", { class: "metric-block" },
        el("h3", {}, first.metric, first.name && !first.metric.startsWith(first.name) ? " · " + first.name : "",
          several && first.scan ? el("span", { class: "muted", text: " (scan " + first.scan + ")" }) : "",
          el("span", { class: "muted", text: " · " + members.length + (members.length === 1 ? " series" : " groups") })),
        grid));
      for (const s of members) {
        const chart = el("div", { class: "chart", "data-sid": s.id });
        const notes = s.annotations.map((id) => Report.annotationsById.get(id)).filter(Boolean);
        const node = el("article", { class: "chart-card", id: "s-" + s.id, "data-sid": s.id,
                                     "data-search": (s.label + " " + s.metric + " " + s.name).toLowerCase() },
          el("header", {},
            el("span", { class: "series-label", text: s.label }),
            el("span", { class: "muted", text: s.detectors.join(", ") || "not judged" }),
            hits(s) ? el("span", { class: "badge badge-anomaly", text: hits(s) + (hits(s) === 1 ? " anomaly" : " anomalies") }) : null),
          chart,
          notes.length ? el("ul", { class: "notes" }, notes.map((a) => el("li", {},
            el("span", { class: "badge badge-" + a.kind, text: a.kind }), " ",
            fmt.time(a.start) + (a.end !== a.start ? " – " + fmt.time(a.end) : ""),
            a.note ? el("span", { class: "note", text: " " + a.note }) : null))) : null);
        grid.append(node);
        cards.push(node);
        Report.charts.watch(chart);
      }
    }
    const filter = () => {
      const needle = search.value.trim().toLowerCase();
      let count = 0;
      for (const c of cards) {
        c.hidden = Boolean(needle) && !c.dataset.search.includes(needle);
        count += c.hidden ? 0 : 1;
      }
      for (const block of view.querySelectorAll(".metric-block")) {
        block.hidden = !block.querySelector(".chart-card:not([hidden])");
      }
      shown.textContent = count === cards.length ? cards.length + " series" : count + " of " + cards.length + " series";
    };
    search.addEventListener("input", filter);
    filter();
  }

  function hits(s) { return (Report.anomaliesBySeries.get(s.id) || []).length; }

  // The anomaly and check-outcome tables: one row per judged point, newest first, with the
  // columns they share defined once.
  const NEWEST_FIRST = { key: "ts", desc: true };
  const JUDGED = {
    time: { key: "ts", label: "time", type: "time" },
    dataset: { key: "dataset_label", label: "dataset" },
    group: { key: "group", label: "group" },
    status: { key: "status", label: "status", render: (r) => Report.badge(r.status) },
    value: { key: "value", label: "value", type: "num", render: (r) => Report.valueOf(r) },
  };

  // Copies of `points` with their dataset's label and the view's own fields (`extra(r)`).
  function judged(points, extra) {
    return points.map((r) => Object.assign({}, r, { dataset_label: fmt.dataset(r.dataset) }, extra(r)));
  }

  // One filter per [key, label] pair, offering the values the rows hold.
  function foundFilters(rows, pairs) {
    return pairs.map(([key, label]) => ({ key, label, values: Report.values(rows, key) }));
  }

  function anomalies(view) {
    view.append(el("h2", { text: "Anomalies and failed metrics" }),
      el("p", { class: "hint", text: "Every stored verdict that is an anomaly or a metric that could not be computed. "
        + "Open: the newest verdict of its series. Click a metric for its chart." }));
    if (!D.anomalies.length) { view.append(el("p", { class: "empty", text: "None stored." })); return; }
    const rows = judged(D.anomalies, (r) => ({ band: Report.bandOf(r), state: r.open ? "open" : "past" }));
    view.append(Report.table({ id: "anomaly-table", rows, sort: NEWEST_FIRST, filters: [
      { key: "state", label: "states", values: ["open", "past"] },
      ...foundFilters(rows, [["status", "statuses"], ["dataset_label", "datasets"], ["detector", "detectors"]]),
    ], columns: [
      JUDGED.time,
      { key: "state", label: "state" },
      JUDGED.dataset,
      { key: "metric", label: "metric", narrow: true, render: (r) => Report.chartLink(r.sid, r.metric, r.ts) },
      JUDGED.group,
      JUDGED.status,
      JUDGED.value,
      { key: "band", label: "expected", narrow: true },
      { key: "detector", label: "detector", narrow: true },
      { key: "score", label: "score", type: "num" },
      { key: "history", label: "history", type: "num" },
      ...D.verdictColumns.map((c) => ({ key: "x:" + c, label: c, render: (r) => cell(r.extra[c]) })),
      { key: "detail", label: "detail", below: true, render: (r) => fmt.text(r.detail) },
    ] }));
  }

  function checks(view) {
    view.append(el("h2", { text: "Check outcomes" }));
    if (!D.outcomes.length) {
      view.append(el("p", { class: "empty", text: "No check outcomes stored (VerificationSuite.save_or_append_result stores them)." }));
      return;
    }
    if (D.outcomeTotal > D.outcomes.length) {
      view.append(el("p", { class: "hint", text: "The newest " + D.outcomes.length + " of " + D.outcomeTotal + " stored outcomes." }));
    }
    const rows = judged(D.outcomes, (r) => ({ band: fmt.band(r.lower, r.upper, (Report.seriesOf(r) || {}).unit) }));
    view.append(Report.table({ id: "outcome-table", rows, sort: NEWEST_FIRST,
      filters: foundFilters(rows, [["status", "statuses"], ["level", "levels"], ["dataset_label", "datasets"]]),
      columns: [
        JUDGED.time,
        JUDGED.dataset,
        { key: "check", label: "check" },
        { key: "constraint", label: "constraint", narrow: true, render: (r) => Report.chartLink(r.sid, r.constraint, r.ts) },
        JUDGED.group,
        { key: "level", label: "level" },
        JUDGED.status,
        JUDGED.value,
        { key: "band", label: "bounds" },
        { key: "message", label: "message", below: true, render: (r) => fmt.text(r.message) },
      ] }));
  }

  function monitors(view) {
    view.append(el("h2", { text: "Schema changes and monitors" }));
    if (!D.sections.length) {
      view.append(el("p", { class: "empty", text: "No schema changes or monitor results are stored in this repository." }));
    }
    for (const s of D.sections) {
      const long = (i) => s.rows.some((row) => typeof row[i] === "string" && row[i].length > 60);
      const columns = s.columns.map((c, i) => ({ key: "c" + i, label: c, wrap: long(i),
        render: i === 0 && s.links.length ? (r) => Report.chartLink(r.sid, cell(r["c0"])) : (r) => cell(r["c" + i]) }));
      const rows = s.rows.map((row, n) => Object.assign({ sid: s.links[n] ?? null },
        Object.fromEntries(row.map((v, i) => ["c" + i, v]))));
      view.append(el("h3", { text: s.title }));  // (append() would show a null as "null")
      if (s.note) view.append(el("p", { class: "hint", text: s.note }));
      view.append(Report.table({ columns, rows, id: "section-" + s.key }));
    }
  }

  function route() {
    let target = location.hash.slice(1) || "overview", sid = null, time;
    const series = /^s-(\d+)(?:@(-?\d+))?$/.exec(target);
    if (series && D.series[Number(series[1])]) {
      sid = Number(series[1]);
      time = series[2] === undefined ? undefined : Number(series[2]);
      target = "dataset-" + D.series[sid].d;
    }
    if (!views.has(target)) target = "overview";
    for (const [id, view] of views) view.hidden = id !== target;
    if (builders.has(target)) { builders.get(target)(); builders.delete(target); }
    for (const link of nav.querySelectorAll("a")) {
      link.setAttribute("aria-current", link.dataset.view === target ? "page" : "false");
    }
    if (sid !== null) {
      const cardNode = document.getElementById("s-" + sid);
      Report.charts.focus(sid, time);
      if (cardNode) {
        cardNode.hidden = false;
        cardNode.closest(".metric-block").hidden = false;
        cardNode.scrollIntoView({ block: "center" });
        cardNode.classList.remove("flash");
        void cardNode.offsetWidth;
        cardNode.classList.add("flash");
      }
    } else {
      window.scrollTo(0, 0);
    }
    settle(target);
  }

  /** Mark the view interactive (its page built, the first chart on screen drawn:
   * body[data-interactive]) and then ready (every chart on screen drawn: body[data-ready]),
   * for the tests and the benchmark. */
  function settle(target) {
    const body = document.body;
    body.dataset.ready = "";
    body.dataset.interactive = "";
    requestAnimationFrame(async () => {
      const onScreen = [...views.get(target).querySelectorAll(".chart, .timeline")].filter((c) => {
        const box = c.getBoundingClientRect();
        return c.offsetParent !== null && box.bottom > 0 && box.top < window.innerHeight;
      });
      const drawn = (c) => ["drawn", "failed"].includes(c.dataset.state);
      const until = async (test) => { while (!test()) await new Promise((r) => setTimeout(r, 10)); };
      await until(() => !onScreen.length || onScreen.some(drawn));
      body.dataset.interactive = target;
      window.reportInteractiveAt = performance.now();
      await until(() => onScreen.every(drawn));
      body.dataset.ready = target;
      window.reportReadyAt = performance.now();
    });
  }

  window.addEventListener("hashchange", route);
  route();
})();
