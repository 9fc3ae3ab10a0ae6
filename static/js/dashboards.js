/* Dashboard pages: the owner's sortable grid, the card menus, the grid packing, the
   refresh and auto-refresh of the widget bodies, the growing view filter and the widget
   form's live preview. Charts are drawn by analytics.js, the one chart drawer every
   page shares.

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
        fallbackTolerance: 3,
        onEnd: function (event) { pack(event.from); }
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

  // The widget form shows while the page's scripts still load, before htmx attaches
  // its "change" trigger. A choice made in that gap sent no preview
  // request, so the preview kept the old chart: ask for it once htmx listens.
  function catchUpPreview(root) {
    if (!window.htmx || !root.querySelectorAll) return;
    var forms = root.querySelectorAll("form.widget-form[hx-get]");
    for (var i = 0; i < forms.length; i++) {
      window.htmx.process(forms[i]);
      if (edited(forms[i])) window.htmx.trigger(forms[i], "change");
    }
  }


  // -- the grid without holes ------------------------------------------------------
  // CSS packs the grid densely (grid-auto-flow: dense), so a narrow card fills the
  // cell a wide one left. One hole can remain: a narrow card alone in its row, followed
  // only by wide ones. That card is drawn across the row (.fill-row; its saved span is
  // unchanged). The same placement as the browser's, on the DOM order and spans.
  function columns(grid) {
    var template = window.getComputedStyle(grid).gridTemplateColumns || "";
    return template.split(" ").filter(function (t) { return t; }).length || 1;
  }

  function pack(grid) {
    if (!grid || !grid.querySelectorAll) return;
    var cards = grid.querySelectorAll(".widget-card");
    for (var i = 0; i < cards.length; i++) cards[i].classList.remove("fill-row");
    if (columns(grid) !== 2) return;
    var rows = []; // each row: [card or null, card or null]
    function row(r) { while (rows.length <= r) rows.push([null, null]); return rows[r]; }
    for (var c = 0; c < cards.length; c++) {
      var card = cards[c], wide = card.classList.contains("span-2"), r = 0;
      if (wide) {
        while (row(r)[0] || row(r)[1]) r++;
        rows[r][0] = rows[r][1] = card;
      } else {
        while (row(r)[0] && row(r)[1]) r++;
        rows[r][rows[r][0] ? 1 : 0] = card;
      }
    }
    for (var k = 0; k < rows.length - 1; k++) {
      if (rows[k][0] && !rows[k][1]) rows[k][0].classList.add("fill-row");
    }
  }

  function packAll(root) {
    var grids = (root.querySelectorAll ? root : document).querySelectorAll(".grid-dashboard");
    for (var i = 0; i < grids.length; i++) pack(grids[i]);
  }

  // -- card menus ------------------------------------------------------------------
  // A <details> (app.js closes it on Escape and on a click elsewhere, focus back on
  // its button). Here: it opens while a mouse hovers it, and arrow keys move between
  // its items.
  function menuItems(menu) {
    // Only the items shown: the first card's "Move earlier" is hidden by CSS.
    return Array.prototype.slice.call(menu.querySelectorAll("[role=menuitem]")).filter(function (item) {
      return item.getClientRects().length > 0;
    });
  }

  function focusItem(menu, index) {
    var items = menuItems(menu);
    if (!items.length) return;
    items[(index + items.length) % items.length].focus();
  }

  var hoverable = window.matchMedia && window.matchMedia("(hover: hover) and (pointer: fine)").matches;

  document.addEventListener("mouseover", function (event) {
    if (!hoverable || !event.target.closest) return;
    var menu = event.target.closest("details[data-card-menu]");
    if (menu && !menu.open) {
      menu.open = true;
      menu.setAttribute("data-hover-open", "");
    }
  });

  document.addEventListener("mouseout", function (event) {
    if (!event.target.closest) return;
    var menu = event.target.closest("details[data-card-menu][data-hover-open]");
    if (menu && !(event.relatedTarget && menu.contains(event.relatedTarget))) {
      menu.open = false;
      menu.removeAttribute("data-hover-open");
    }
  });

  document.addEventListener("click", function (event) {
    if (!event.target.closest) return;
    var summary = event.target.closest("details[data-card-menu] > summary");
    if (!summary) return;
    var menu = summary.parentNode;
    if (menu.hasAttribute("data-hover-open")) {
      // Opened by hovering: a click keeps it open rather than closing it under the pointer.
      event.preventDefault();
      menu.removeAttribute("data-hover-open");
    }
  });

  document.addEventListener("keydown", function (event) {
    if (!event.target.closest) return;
    var menu = event.target.closest("details[data-card-menu]");
    if (!menu) return;
    var key = event.key;
    if (key !== "ArrowDown" && key !== "ArrowUp" && key !== "Home" && key !== "End") return;
    var items = menuItems(menu);
    var at = items.indexOf(document.activeElement);
    event.preventDefault();
    if (!menu.open) menu.open = true;
    menu.removeAttribute("data-hover-open");
    if (key === "Home") focusItem(menu, 0);
    else if (key === "End") focusItem(menu, -1);
    else if (at < 0) focusItem(menu, key === "ArrowDown" ? 0 : -1);
    else focusItem(menu, at + (key === "ArrowDown" ? 1 : -1));
  });

  // -- refresh and auto-refresh --------------------------------------------------------
  var STORE = "workspace.dashboard.autoRefresh.";
  var lastComputed = 0;

  function refreshBodies() {
    var loader = document.getElementById("bodies-loader");
    if (!loader || !window.htmx) return false;
    // The same request the page made on load; its answer swaps out of band.
    window.htmx.ajax("GET", loader.getAttribute("hx-get"), { source: loader, swap: "none" });
    return true;
  }

  function storedMinutes(id) {
    try {
      var value = window.localStorage.getItem(STORE + id);
      return ["1", "5", "15"].indexOf(value) >= 0 ? value : "0";
    } catch (e) {
      return "0";
    }
  }

  function showComputedAt(root) {
    var times = (root.querySelectorAll ? root : document).querySelectorAll("time[data-computed-at][datetime]");
    for (var i = 0; i < times.length; i++) {
      var when = new Date(times[i].getAttribute("datetime"));
      if (isNaN(when.getTime())) continue;
      if (times[i].getAttribute("data-shown") !== times[i].getAttribute("datetime")) {
        lastComputed = Date.now();
        times[i].setAttribute("data-shown", times[i].getAttribute("datetime"));
      }
      // The text stays the server's: the time in the org's zone, as every page
      // writes a moment (docs/tasks.md#dates), not the browser's own clock.
    }
  }

  function refreshBar(root) {
    var bars = (root.querySelectorAll ? root : document).querySelectorAll("[data-refresh-bar]");
    for (var i = 0; i < bars.length; i++) {
      var bar = bars[i];
      if (bar._wired) continue;
      bar._wired = true;
      var id = bar.getAttribute("data-dashboard-id");
      var select = bar.querySelector("select[data-auto-refresh]");
      var field = bar.querySelector("[data-auto-refresh-field]");
      if (field) field.hidden = false;
      if (select) {
        select.value = storedMinutes(id);
        select.addEventListener("change", function (event) {
          try {
            if (event.target.value === "0") window.localStorage.removeItem(STORE + id);
            else window.localStorage.setItem(STORE + id, event.target.value);
          } catch (e) { /* storage refused (private mode): the choice lasts this page */ }
        });
      }
      var now = bar.querySelector("[data-refresh]");
      if (now) {
        now.addEventListener("click", function (event) {
          if (refreshBodies()) event.preventDefault();
        });
      }
      // Checked every few seconds; a hidden tab refreshes nothing, and a tab shown
      // again after its interval refreshes at once.
      window.setInterval(function () { tick(select); }, 5000);
      document.addEventListener("visibilitychange", function () { tick(select); });
    }
  }

  function tick(select) {
    if (!select || document.hidden) return;
    var minutes = parseInt(select.value, 10) || 0;
    if (minutes > 0 && lastComputed && Date.now() - lastComputed >= minutes * 60000) {
      lastComputed = Date.now(); // one request per interval, even if it is slow
      refreshBodies();
    }
  }

  // -- the view filter: a textarea that grows; Enter applies ------------------------------
  var sizesItself = window.CSS && window.CSS.supports && window.CSS.supports("field-sizing", "content");

  function grow(area) {
    if (sizesItself) return;
    area.style.height = "auto";
    area.style.height = area.scrollHeight + 2 + "px";
  }

  function autogrow(root) {
    var areas = (root.querySelectorAll ? root : document).querySelectorAll("textarea[data-autogrow]");
    for (var i = 0; i < areas.length; i++) {
      var area = areas[i];
      if (area._grows) continue;
      area._grows = true;
      grow(area);
      area.addEventListener("input", function (event) { grow(event.target); });
      area.addEventListener("keydown", function (event) {
        if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
        event.preventDefault();
        var form = event.target.form;
        if (form && form.requestSubmit) form.requestSubmit();
        else if (form) form.submit();
      });
    }
  }

  /* After a card's action (Move earlier or later, Duplicate) the page comes back at
     #widget-<id>: the focus goes to that card's menu button, so a keyboard goes on
     from where it acted instead of from the top of the page. */
  function focusNamedCard() {
    var id = window.location.hash.slice(1);
    var card = /^widget-[0-9a-f-]{36}$/.test(id) && document.getElementById(id);
    var button = card && card.querySelector(".card-menu-button");
    if (button) button.focus();
  }

  function menuButtonNear(card) {
    var cards = Array.prototype.slice.call(document.querySelectorAll(".widget-card"));
    var index = cards.indexOf(card);
    var next = cards[index + 1] || cards[index - 1];
    return next ? next.querySelector(".card-menu-button") : null;
  }

  // A removed card takes its menu (and the focus) with it: the next card's menu gets
  // the focus, or the previous one's for the last card. The swap's own events fire on
  // the card, gone from the page by then: the focus moves once the swap is done.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var elt = event.detail && event.detail.requestConfig && event.detail.requestConfig.elt;
    if (!(elt instanceof Element) || !elt.matches(".remove-widget")) return;
    var next = menuButtonNear(elt.closest(".widget-card"));
    window.setTimeout(function () {
      if (next && document.contains(next)) next.focus();
    }, 0);
  });

  function init(root) {
    sortable(root);
    catchUpPreview(root);
    packAll(root);
    refreshBar(root);
    autogrow(root);
    showComputedAt(root);
  }

  document.addEventListener("htmx:afterSettle", function () {
    packAll(document);
    showComputedAt(document);
  });
  window.addEventListener("resize", function () { packAll(document); });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { init(document); });
  } else {
    init(document);
  }
  // After "load": the browser's own move to the #fragment focuses the viewport when the
  // card itself cannot take focus, which would undo an earlier focus.
  if (document.readyState === "complete") {
    window.setTimeout(focusNamedCard, 0);
  } else {
    window.addEventListener("load", function () { window.setTimeout(focusNamedCard, 0); });
  }
})();
