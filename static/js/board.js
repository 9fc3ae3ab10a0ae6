/* The project board (templates/tracker/_board.html), for people who may change tasks.

   Cards carry no form: drag and drop moves a card (SortableJS), and ONE menu per page
   (the <dialog id="board-menu">) moves, assigns and reprioritises the card it is opened
   on. A card is focusable; Enter (or Space, or the card's "Actions" button) opens the
   menu; Tab moves between its fields, arrows change a field, Escape closes it and focus
   goes back to the card.

   Every write goes through the task routes the pages already have, with the CSRF
   header base.html sets: a move posts to the state-change route, which answers the
   board again (so counts and "+N more" stay true); an assignee or priority posts to
   the task page's field route, and the card is redrawn in place. A refused write
   (a viewer now, a deleted state) keeps the menu open with the choices made and says
   why; a refused drag puts the card back and says why above the board.

   When ready it marks performance "board-ready" (bench/board_page.py reads it) and sets
   data-board-ready on #board (the browser tests wait for it). */
(function () {
  "use strict";

  var GENERIC_ERROR = "Something went wrong; try again.";
  var NETWORK_ERROR = "Could not reach the server. Check your connection and try again.";
  var openCard = null; // the card the menu is open on
  var opened = {}; // the menu's values when it opened: Apply sends only what differs
  var refocusTask = null; // the card to focus once the board is swapped

  function board() {
    return document.getElementById("board");
  }

  function csrfHeaders() {
    var headers = { "HX-Request": "true" };
    try {
      var set = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
      for (var name in set) headers[name] = set[name];
    } catch (e) {
      /* no token: the server refuses and says why */
    }
    return headers;
  }

  /* A card's parts, by position (see _board_card.html): the key link, the title, the
     meta line of priority badge, assignee and due date. */
  function cardKey(card) {
    return card.children[0].textContent.trim();
  }

  function cardTitle(card) {
    return card.children[1].textContent;
  }

  function cardBadge(card) {
    return card.children[2].children[0];
  }

  function cardAssignee(card) {
    return card.children[2].children[1];
  }

  function cardPriority(card) {
    var match = /\bprio-(\w+)/.exec(cardBadge(card).className);
    return match ? match[1] : "";
  }

  function cardState(card) {
    var list = card.closest("[data-state-id]");
    return list ? list.getAttribute("data-state-id") : "";
  }

  /* The message of a refused request: an error page's [data-error-message], a field's
     .field-error, or a short plain-text body. */
  function refusal(response, body) {
    var type = (response.headers.get("Content-Type") || "").toLowerCase();
    var text = "";
    if (type.indexOf("text/html") !== -1) {
      var doc = new DOMParser().parseFromString(body, "text/html");
      var el = doc.querySelector("[data-error-message], .field-error");
      text = el ? el.textContent : "";
    } else if (!/[<>]/.test(body)) {
      text = body;
    }
    text = (text || "").replace(/\s+/g, " ").trim();
    return text && text.length < 300 ? text : GENERIC_ERROR;
  }

  /* POST ``values`` to ``url``; resolves with the response text, rejects with the
     message to show. */
  function post(url, values) {
    var data = new URLSearchParams();
    for (var name in values) data.append(name, values[name]);
    return fetch(url, {
      method: "POST",
      headers: csrfHeaders(),
      body: data,
      credentials: "same-origin",
    }).then(
      function (response) {
        return response.text().then(function (body) {
          if (!response.ok) throw new Error(refusal(response, body));
          return body;
        });
      },
      function () {
        throw new Error(NETWORK_ERROR);
      }
    );
  }

  function moveUrl(card) {
    return board().getAttribute("data-move-url")
      .replace("00000000-0000-0000-0000-000000000000", card.getAttribute("data-task-id"));
  }

  function fieldUrl(card, field) {
    return board().getAttribute("data-field-url")
      .replace("__KEY__", encodeURIComponent(cardKey(card)))
      .replace("__FIELD__", field);
  }

  function swapBoard(html) {
    var current = board();
    var doc = new DOMParser().parseFromString(html, "text/html");
    var fresh = doc.getElementById("board");
    if (!current || !fresh) return;
    current.replaceWith(document.adoptNode(fresh));
    init();
    if (refocusTask) {
      var card = document.querySelector('#board .board-card[data-task-id="' + refocusTask + '"]');
      refocusTask = null;
      if (card) card.focus();
    }
  }

  function showBoardError(message) {
    var area = document.querySelector("#board [data-board-error]");
    if (!area) return;
    area.textContent = message;
    area.hidden = false;
  }

  function clearBoardError() {
    var area = document.querySelector("#board [data-board-error]");
    if (area) {
      area.textContent = "";
      area.hidden = true;
    }
  }

  /* ---------- Drag and drop ---------- */

  function dropped(event) {
    if (event.to === event.from) return;
    var card = event.item;
    clearBoardError();
    post(moveUrl(card), { state_id: event.to.getAttribute("data-state-id") }).then(
      swapBoard,
      function (error) {
        // Put the card back where it was: nothing moved.
        var before = event.from.children[event.oldIndex] || null;
        event.from.insertBefore(card, before);
        showBoardError(cardKey(card) + " was not moved: " + error.message);
      }
    );
  }

  /* ---------- The menu ---------- */

  function menu() {
    return document.getElementById("board-menu");
  }

  function field(name) {
    return menu().querySelector("[name=" + name + "]");
  }

  function menuError(message) {
    var el = menu().querySelector("[data-menu-error]");
    el.textContent = message || "";
  }

  function openMenu(card) {
    var dialog = menu();
    if (!dialog || !card) return;
    openCard = card;
    dialog.querySelector("[data-menu-key]").textContent = cardKey(card);
    dialog.querySelector("[data-menu-title]").textContent = cardTitle(card);
    dialog.querySelector("[data-menu-link]").href = card.children[0].href;
    field("state_id").value = cardState(card);
    field("assignee_id").value = card.getAttribute("data-assignee") || "";
    field("priority").value = cardPriority(card);
    // A former member's id has no option: the select shows none, and Apply leaves the
    // assignee alone unless someone is chosen.
    opened = {
      state_id: field("state_id").value,
      assignee_id: field("assignee_id").value,
      priority: field("priority").value,
    };
    menuError("");
    setBusy(false);
    dialog.showModal();
    field("state_id").focus();
  }

  function closeMenu() {
    var dialog = menu();
    if (dialog && dialog.open) dialog.close();
  }

  function setBusy(busy) {
    var button = menu().querySelector("button[type=submit]");
    button.disabled = busy;
    button.textContent = busy ? "Saving…" : "Apply";
  }

  /* The card shows what was saved (the column is unchanged, so are the counts). */
  function redraw(card, changes) {
    if ("priority" in changes) {
      var badge = cardBadge(card);
      badge.className = "badge prio-" + changes.priority;
      badge.textContent = changes.priority;
    }
    if ("assignee_id" in changes) {
      var span = cardAssignee(card);
      var option = field("assignee_id").selectedOptions[0];
      span.textContent = "";
      if (changes.assignee_id) {
        span.appendChild(document.createTextNode(option.textContent));
        if (option.hasAttribute("data-agent")) {
          var agent = document.createElement("span");
          agent.className = "badge badge-agent";
          agent.textContent = "agent";
          span.appendChild(document.createTextNode(" "));
          span.appendChild(agent);
        }
      } else {
        var none = document.createElement("span");
        none.className = "muted";
        none.textContent = "Unassigned";
        span.appendChild(none);
      }
      card.setAttribute("data-assignee", changes.assignee_id);
    }
  }

  function refreshBoard() {
    return fetch(window.location.pathname + window.location.search, {
      headers: { "HX-Request": "true" },
      credentials: "same-origin",
    })
      .then(function (response) { return response.text(); })
      .then(swapBoard);
  }

  function apply(event) {
    event.preventDefault();
    var card = openCard;
    if (!card) return;
    var changes = {};
    ["assignee_id", "priority"].forEach(function (name) {
      if (field(name).value !== opened[name]) changes[name] = field(name).value;
    });
    var stateId = field("state_id").value;
    var moving = stateId !== opened.state_id;
    var names = Object.keys(changes);
    if (!names.length && !moving) {
      closeMenu();
      return;
    }
    setBusy(true);
    menuError("");
    var taskId = card.getAttribute("data-task-id");
    // One field at a time, in order; the first refusal stops the rest.
    var chain = Promise.resolve();
    names.forEach(function (name) {
      chain = chain.then(function () {
        var values = {};
        values[name] = changes[name];
        return post(fieldUrl(card, name === "assignee_id" ? "assignee" : name), values).then(
          function () {
            var one = {};
            one[name] = changes[name];
            redraw(card, one);
            opened[name] = changes[name]; // saved: another Apply does not send it again
          }
        );
      });
    });
    chain
      .then(function () {
        if (moving) return post(moveUrl(card), { state_id: stateId });
        // A filtered board may no longer show the card: ask for it again.
        if (board().getAttribute("data-filtered") === "true") return refreshBoard();
        return null;
      })
      .then(
        function (html) {
          openCard = null;
          refocusTask = taskId;
          closeMenu();
          if (typeof html === "string") {
            swapBoard(html);
          } else {
            refocusTask = null;
            card.focus();
          }
        },
        function (error) {
          setBusy(false);
          menuError(error.message);
        }
      );
  }

  /* ---------- Wiring ---------- */

  function init() {
    var root = board();
    if (!root) return;
    var cards = root.querySelectorAll(".board-card");
    var template = document.createElement("button");
    template.type = "button";
    template.className = "board-menu-btn";
    template.tabIndex = -1; // keyboard users press Enter on the card itself
    template.setAttribute("data-menu-open", "");
    template.textContent = "\u22ef";
    for (var i = 0; i < cards.length; i++) {
      var card = cards[i];
      card.tabIndex = 0;
      card.setAttribute("aria-describedby", "board-help");
      // One Tab stop a card: Enter on it opens the menu, which links to the task
      // page; the key stays a link for the mouse and for reading.
      card.querySelector("a").tabIndex = -1;
      var button = template.cloneNode(true);
      button.setAttribute("aria-label", "Actions for " + cardKey(card));
      card.appendChild(button);
    }
    if (window.Sortable) {
      var lists = root.querySelectorAll(".board-cards");
      for (var j = 0; j < lists.length; j++) {
        window.Sortable.create(lists[j], {
          group: "board",
          animation: 120,
          // On a touch screen a finger first scrolls; holding it picks the card up.
          delay: 200,
          delayOnTouchOnly: true,
          filter: "button",
          preventOnFilter: false,
          onEnd: dropped,
        });
      }
    }
    root.setAttribute("data-board-ready", "");
    if (window.performance && performance.mark) performance.mark("board-ready");
  }

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    var opener = target.closest("#board [data-menu-open]");
    if (opener) {
      openMenu(opener.closest(".board-card"));
      return;
    }
    if (target.closest("#board-menu [data-menu-close]")) {
      closeMenu();
      return;
    }
    // A click on the dialog's backdrop (outside its box) closes it.
    if (target === menu()) {
      var box = target.getBoundingClientRect();
      var inside = event.clientX >= box.left && event.clientX <= box.right &&
        event.clientY >= box.top && event.clientY <= box.bottom;
      if (!inside) closeMenu();
    }
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target || !target.matches("#board .board-card")) return;
    var opens = event.key === "Enter" || event.key === " " || event.key === "ContextMenu" ||
      (event.key === "F10" && event.shiftKey);
    if (opens) {
      event.preventDefault();
      openMenu(target);
    }
  });

  document.addEventListener("submit", function (event) {
    if (event.target.matches && event.target.matches("#board-menu [data-board-menu-form]")) {
      apply(event);
    }
  });

  // The dialog closed (Escape, Cancel, Apply): focus goes back to the card.
  document.addEventListener(
    "close",
    function (event) {
      if (event.target !== menu()) return;
      // The close event is queued: when Escape closes the menu and Enter opens it again
      // for a card before the event runs, the menu is open and its card must stay.
      if (event.target.open) return;
      var card = openCard;
      openCard = null;
      if (card && card.isConnected) card.focus();
    },
    true
  );

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
