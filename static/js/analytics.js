/* Analytics charts: each [data-plotly="id"] element is drawn from the figure JSON in
   <script type="application/json" id="id">, which the server rendered with Plotly.
   Runs on load and after every HTMX swap (tabs and filters replace the panel). */
(function () {
  "use strict";

  var CONFIG = { displayModeBar: false, responsive: true };

  function draw(root) {
    if (!window.Plotly || !root || !root.querySelectorAll) return;
    var targets = root.querySelectorAll("[data-plotly]");
    for (var i = 0; i < targets.length; i++) {
      var el = targets[i];
      if (el.getAttribute("data-drawn")) continue;
      var source = document.getElementById(el.getAttribute("data-plotly"));
      if (!source) continue;
      try {
        var figure = JSON.parse(source.textContent);
        window.Plotly.newPlot(el, figure.data, figure.layout, CONFIG);
        el.setAttribute("data-drawn", "1");
      } catch (e) {
        el.textContent = "This chart could not be drawn; the table shows the same figures.";
      }
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { draw(document); });
  } else {
    draw(document);
  }
  document.addEventListener("htmx:afterSettle", function (event) { draw(event.target); });
})();
