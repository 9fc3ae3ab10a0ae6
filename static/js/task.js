/* The task page (templates/tracker/task/): the assignee select's search box.
   [data-assignee-filter] is hidden until this runs (without JS the select alone
   works); typing into its input[data-filter-select="#select"] hides the options whose
   text does not contain what was typed. The selected option always stays. */
(function () {
  "use strict";

  function reveal(root) {
    var boxes = (root || document).querySelectorAll("[data-assignee-filter][hidden]");
    for (var i = 0; i < boxes.length; i++) boxes[i].hidden = false;
  }

  function filter(input) {
    var select = document.querySelector(input.getAttribute("data-filter-select") || "");
    if (!select) return;
    var needle = input.value.trim().toLowerCase();
    for (var i = 0; i < select.options.length; i++) {
      var option = select.options[i];
      var match = !needle || option.selected || option.text.toLowerCase().indexOf(needle) !== -1;
      option.hidden = !match;
    }
  }

  document.addEventListener("input", function (event) {
    var target = event.target;
    if (target instanceof Element && target.hasAttribute("data-filter-select")) filter(target);
  });

  // Enter in the search box moves to the list, so arrows and Enter pick a match.
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.key !== "Enter" || !(target instanceof Element)) return;
    if (!target.hasAttribute("data-filter-select")) return;
    event.preventDefault();
    var select = document.querySelector(target.getAttribute("data-filter-select") || "");
    if (select) select.focus();
  });

  document.addEventListener("DOMContentLoaded", function () { reveal(document); });
  document.addEventListener("htmx:afterSwap", function () { reveal(document); });
  if (document.readyState !== "loading") reveal(document);
})();
