/* The inbox page (templates/tracker/inbox.html): after "Mark all read" swaps the list,
   the button that had the focus is gone; the focus goes to the list (tabindex=-1),
   whose status line says what changed, rather than back to the top of the page. */
(function () {
  "use strict";
  document.addEventListener("htmx:afterSettle", function () {
    var list = document.getElementById("inbox-list");
    var lost = !document.activeElement || document.activeElement === document.body;
    if (list && lost) list.focus();
  });
})();
