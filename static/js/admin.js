/* Settings > Members (workspace/admin). The copy button itself is app.js's
   [data-copy]; this selects the one-time invitation link when it gets focus or is
   clicked, so it can also be copied by hand (Ctrl+C) where the clipboard is refused.
   It also makes the rows' <details> menus behave like menus: one open at a time,
   Escape closes it and puts the focus back on its button, a click or focus elsewhere
   closes it. Without this script the menus still open and close by click, Enter and
   Space (the browser's own <details>).
   Delegated from document, like app.js, so it needs no inline handler (CSP). */
(function () {
  "use strict";

  function selectAll(event) {
    var el = event.target;
    if (el && el.matches && el.matches("input[data-select-on-focus]")) {
      el.select();
    }
  }

  function openMenus() {
    return Array.prototype.slice.call(document.querySelectorAll("details.row-menu[open]"));
  }

  function closeOthers(keep) {
    openMenus().forEach(function (menu) {
      if (menu !== keep && !menu.contains(keep)) menu.removeAttribute("open");
    });
  }

  document.addEventListener("focusin", selectAll);
  document.addEventListener("click", selectAll);

  // A menu opening closes the others ("toggle" does not bubble: listen capturing).
  document.addEventListener(
    "toggle",
    function (event) {
      var menu = event.target;
      if (menu.matches && menu.matches("details.row-menu") && menu.open) closeOthers(menu);
    },
    true
  );

  document.addEventListener("click", function (event) {
    var inside = event.target.closest && event.target.closest("details.row-menu");
    closeOthers(inside);
  });

  document.addEventListener("focusin", function (event) {
    var inside = event.target.closest && event.target.closest("details.row-menu");
    closeOthers(inside);
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var menu = event.target.closest && event.target.closest("details.row-menu[open]");
    if (!menu) return;
    menu.removeAttribute("open");
    menu.querySelector("summary").focus();
    event.preventDefault();
  });
})();
