/* Settings > Members (workspace/admin). The copy button itself is app.js's
   [data-copy]; this selects the one-time invitation link when it gets focus or is
   clicked, so it can also be copied by hand (Ctrl+C) where the clipboard is refused.
   Delegated from document, like app.js, so it needs no inline handler (CSP). */
(function () {
  "use strict";

  function selectAll(event) {
    var el = event.target;
    if (el && el.matches && el.matches("input[data-select-on-focus]")) {
      el.select();
    }
  }

  document.addEventListener("focusin", selectAll);
  document.addEventListener("click", selectAll);
})();
