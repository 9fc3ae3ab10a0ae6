/* Dashboard pages. Draws each [data-plotly] chart from the figure JSON the server put
   in <script type="application/json" id="...">, on load and after every HTMX swap
   (each widget body arrives as a partial), and makes the owner's grid sortable.

   Reordering: SortableJS moves the cards inside form#widget-grid; its "end" event
   triggers the form's hx-post, which sends the hidden widget inputs in their new
   order, and the server rewrites the positions. */
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
        el.textContent = "This chart could not be drawn.";
      }
    }
  }

  function sortable(root) {
    if (!window.Sortable || !root || !root.querySelectorAll) return;
    var grids = root.matches && root.matches("[data-sortable]") ? [root] : root.querySelectorAll("[data-sortable]");
    for (var i = 0; i < grids.length; i++) {
      if (grids[i]._sortable) continue;
      grids[i]._sortable = window.Sortable.create(grids[i], {
        handle: ".drag-handle",
        draggable: ".widget-card",
        animation: 150,
        // Pointer events rather than native HTML5 drag and drop: the same code path
        // for mouse, touch and pen, and no ghost image that hides the drop target.
        forceFallback: true,
        fallbackTolerance: 3
      });
    }
  }

  function init(root) {
    draw(root);
    sortable(root);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { init(document); });
  } else {
    init(document);
  }
  // Widget bodies arrive as out-of-band swaps, outside the element that asked.
  document.addEventListener("htmx:afterSettle", function () { draw(document); });
})();
