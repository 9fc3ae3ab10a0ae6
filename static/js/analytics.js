/* The one chart drawer, for the analytics tabs, the Ask box, dashboards and the
   printable export. Each [data-plotly="id"] element is drawn from the figure JSON in
   <script type="application/json" id="id">, which the server rendered with Plotly
   (workspace/analytics/charts.py).

   On a page: drawn on load and after every HTMX swap (tabs, filters and widget bodies
   arrive as partials, some as out-of-band swaps outside the element that asked).
   Plotly (1.2 MB) loads async (script[data-plotly-lib]): the page, and a dashboard's
   request for its widget bodies, do not wait for it; charts that arrive first are
   drawn the moment it has loaded.
   In the printable export (<html data-print>): static charts sized to their box, then
   the print dialog once every chart is drawn. */
(function () {
  "use strict";

  var INTERACTIVE = { displayModeBar: false, responsive: true };
  var PRINTED = { staticPlot: true, displayModeBar: false };
  var FAILED = "This chart could not be drawn.";

  /* Draw every chart under root not drawn yet; resolves when all are. */
  function draw(root, printed) {
    if (!window.Plotly || !root || !root.querySelectorAll) return Promise.resolve(0);
    var jobs = [];
    var targets = root.querySelectorAll("[data-plotly]");
    for (var i = 0; i < targets.length; i++) {
      var el = targets[i];
      if (el.getAttribute("data-drawn")) continue;
      var source = document.getElementById(el.getAttribute("data-plotly"));
      if (!source) continue;
      try {
        var figure = JSON.parse(source.textContent);
        if (printed) figure.layout.width = el.clientWidth || 600;
        var job = window.Plotly.newPlot(el, figure.data, figure.layout, printed ? PRINTED : INTERACTIVE);
        if (!printed) job = job.then(drillable);
        jobs.push(job);
        el.setAttribute("data-drawn", "1");
      } catch (e) {
        el.textContent = el.getAttribute("data-plotly-failed") || FAILED;
      }
    }
    return Promise.all(jobs).then(function () { return jobs.length; });
  }

  /* Drill-down (workspace/analytics/drill.py): a click on a bar, slice or point opens
     the task list behind it: the point's customdata when it is a link, else the link
     of its label in <script type="application/json" id="links-..."> named by the
     chart's data-drill. Tables and headline numbers are plain links beside it, so the
     chart is never the only way (keyboard, no JavaScript). */
  function linkOf(el, point) {
    var data = point.customdata;
    if (Array.isArray(data)) data = data[0];
    if (typeof data === "string" && data.charAt(0) === "/") return data;
    var source = el.getAttribute("data-drill");
    var map = source && document.getElementById(source);
    if (!map) return null;
    var links;
    try { links = JSON.parse(map.textContent); } catch (e) { return null; }
    var horizontal = point.data && point.data.orientation === "h";
    var candidates = [point.label, horizontal ? point.y : point.x, point.text, horizontal ? point.x : point.y];
    for (var i = 0; i < candidates.length; i++) {
      var label = candidates[i];
      if (label === undefined || label === null) continue;
      label = String(label);
      if (links[label]) return links[label];
      if (links[label.toLowerCase()]) return links[label.toLowerCase()];
    }
    return null;
  }

  function drillable(el) {
    if (!el || !el.on || el.getAttribute("data-drill-bound")) return el;
    el.setAttribute("data-drill-bound", "1");
    el.on("plotly_click", function (event) {
      var point = event && event.points && event.points[0];
      var href = point && linkOf(el, point);
      if (href) window.location.assign(href);
    });
    // A pointer over a point that opens something (Plotly's drag layer sets its own).
    function cursor(value) {
      var layer = el.querySelector(".nsewdrag") || el.querySelector(".pielayer");
      if (layer) layer.style.cursor = value;
    }
    el.on("plotly_hover", function (event) {
      var point = event && event.points && event.points[0];
      cursor(point && linkOf(el, point) ? "pointer" : "");
    });
    el.on("plotly_unhover", function () { cursor(""); });
    return el;
  }

  var printed = document.documentElement.hasAttribute("data-print");

  /* Run fn once Plotly is there: now, or when its async script has loaded. */
  function withPlotly(fn) {
    if (window.Plotly) { fn(); return; }
    var lib = document.querySelector("script[data-plotly-lib]");
    if (lib) lib.addEventListener("load", fn);
  }

  function start() {
    if (!printed) {
      withPlotly(function () { draw(document, false); });
      return;
    }
    draw(document, true).then(function () {
      window.print();
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
  if (!printed) {
    // After the swap, not the settle: the settle waits htmx's 20 ms settle delay.
    document.addEventListener("htmx:afterSwap", function () { draw(document, false); });
    document.addEventListener("htmx:afterSettle", function () { draw(document, false); });
  }
})();
