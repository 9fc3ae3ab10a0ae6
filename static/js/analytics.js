/* The one chart drawer, for the analytics tabs, the Ask box, dashboards and the
   printable export. Each [data-plotly="id"] element is drawn from the figure JSON in
   <script type="application/json" id="id">, which the server rendered with Plotly
   (workspace/analytics/charts.py).

   On a page: drawn on load and after every HTMX swap (tabs, filters and widget bodies
   arrive as partials, some as out-of-band swaps outside the element that asked).
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
        jobs.push(window.Plotly.newPlot(el, figure.data, figure.layout, printed ? PRINTED : INTERACTIVE));
        el.setAttribute("data-drawn", "1");
      } catch (e) {
        el.textContent = el.getAttribute("data-plotly-failed") || FAILED;
      }
    }
    return Promise.all(jobs).then(function () { return jobs.length; });
  }

  var printed = document.documentElement.hasAttribute("data-print");

  function start() {
    if (!printed) {
      draw(document, false);
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
    document.addEventListener("htmx:afterSettle", function () { draw(document, false); });
  }
})();
