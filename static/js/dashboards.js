/* Dashboard pages: the owner's sortable grid and the widget form's live preview.
   Charts are drawn by analytics.js, the one chart drawer every page shares.

   Reordering: SortableJS moves the cards inside form#widget-grid; its "end" event
   triggers the form's hx-post, which sends the hidden widget inputs in their new
   order, and the server rewrites the positions. */
(function () {
  "use strict";

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

  // True when a field no longer holds the value the server rendered.
  function edited(form) {
    for (var i = 0; i < form.elements.length; i++) {
      var el = form.elements[i];
      if (el.tagName === "SELECT") {
        for (var j = 0; j < el.options.length; j++) {
          if (el.options[j].selected !== el.options[j].defaultSelected) return true;
        }
      } else if (el.type !== "hidden" && "defaultValue" in el && el.value !== el.defaultValue) {
        return true;
      }
    }
    return false;
  }

  // The widget form shows while Plotly (at the end of the page) still loads, before
  // htmx attaches its "change" trigger. A choice made in that gap sent no preview
  // request, so the preview kept the old chart: ask for it once htmx listens.
  function catchUpPreview(root) {
    if (!window.htmx || !root.querySelectorAll) return;
    var forms = root.querySelectorAll("form.widget-form[hx-get]");
    for (var i = 0; i < forms.length; i++) {
      window.htmx.process(forms[i]);
      if (edited(forms[i])) window.htmx.trigger(forms[i], "change");
    }
  }

  function init(root) {
    sortable(root);
    catchUpPreview(root);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { init(document); });
  } else {
    init(document);
  }
})();
