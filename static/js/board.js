/* The project board (templates/tracker/_board.html): drag a card to another column to
   change its state. The move posts to the same state-change route as the list's
   select (and its keyboard twin, the card's "Move to…" form), which answers the board
   again; the board is swapped in whole, so counts and the "+N more" links stay true.
   A refused move shows the error flash (app.js) and reloads the board as it is. */
(function () {
  "use strict";

  var refocusTask = null;

  function boardUrl() {
    return window.location.pathname + window.location.search;
  }

  function move(card, stateId) {
    var form = card.querySelector("[data-board-move]");
    var token = form ? form.querySelector("input[name=csrf_token]") : null;
    refocusTask = card.getAttribute("data-task-id");
    window.htmx.ajax("POST", card.getAttribute("data-move-url"), {
      target: "#board",
      swap: "outerHTML",
      values: { state_id: stateId, csrf_token: token ? token.value : "" },
    });
  }

  function init() {
    if (!window.Sortable) return;
    var lists = document.querySelectorAll("#board .board-cards");
    for (var i = 0; i < lists.length; i++) {
      if (lists[i]._wsSortable) continue;
      lists[i]._wsSortable = window.Sortable.create(lists[i], {
        group: "board",
        animation: 120,
        // On a touch screen a finger first scrolls; holding it picks the card up.
        delay: 200,
        delayOnTouchOnly: true,
        filter: "select, button, label, input",
        preventOnFilter: false,
        onEnd: function (event) {
          if (event.to === event.from) return;
          move(event.item, event.to.getAttribute("data-state-id"));
        },
      });
    }
  }

  // The keyboard move: remember the card so focus comes back to its control.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (elt && elt.matches && elt.matches("[data-board-move]")) {
      var card = elt.closest("[data-task-id]");
      refocusTask = card ? card.getAttribute("data-task-id") : null;
    }
  });

  document.addEventListener("htmx:afterSettle", function () {
    init();
    if (!refocusTask) return;
    var select = document.getElementById("move-" + refocusTask);
    refocusTask = null;
    if (select) select.focus();
  });

  document.addEventListener("htmx:responseError", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.id === "board") {
      window.htmx.ajax("GET", boardUrl(), { target: "#board", select: "#board", swap: "outerHTML" });
    }
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
