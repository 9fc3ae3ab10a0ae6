/* PQL autocomplete (docs/pql.md#autocomplete). Every input or textarea carrying
   data-pql="<suggest API URL>" (and optionally data-pql-project="<project id>")
   becomes a combobox: typing asks the API, after a short pause, what may come next at
   the cursor (fields, operators, values, functions) and lists it in a listbox the
   box points at with aria-controls and aria-activedescendant (the box keeps focus).
   Up and Down move (Down also opens the list), Enter or Tab insert the chosen one,
   Escape closes, a click inserts too. No option is chosen until an arrow key
   chooses one, so Enter still submits the filter. A polite status announces the
   count. Without JS the box is a plain text box. */
(function () {
  "use strict";
  if (window.pqlAssist) return; // included again by a swapped-in fragment
  window.pqlAssist = true;

  var DELAY = 150;
  var list = null, status = null, box = null;
  var items = [], active = -1, range = null, timer = null, asked = 0, seq = 0;

  // The API counts characters (code points); the box counts UTF-16 units.
  function points(text) { return Array.from(text).length; }
  function units(text, count) { return Array.from(text).slice(0, count).join("").length; }

  function setup() {
    if (list) return;
    list = document.createElement("ul");
    list.id = "pql-options";
    list.className = "pql-options";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "PQL suggestions");
    list.hidden = true;
    status = document.createElement("p");
    status.id = "pql-status";
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    document.body.appendChild(list);
    document.body.appendChild(status);
  }

  function enhance(el) {
    if (el.hasAttribute("data-pql-ready")) return;
    el.setAttribute("data-pql-ready", "");
    // An input is a combobox; a textarea cannot take that role, so it stays a
    // textbox that owns the list through aria-controls (as the @mention picker does).
    if (el instanceof HTMLInputElement) {
      el.setAttribute("role", "combobox");
      el.setAttribute("aria-expanded", "false");
    }
    el.setAttribute("aria-autocomplete", "list");
    el.setAttribute("autocomplete", "off");
  }

  function enhanceAll(root) {
    // Inputs drawn by a form macro are named by id on a hidden marker (_pql_assist.html).
    var markers = (root || document).querySelectorAll("[data-pql-for]");
    for (var m = 0; m < markers.length; m++) {
      markers[m].getAttribute("data-pql-for").split(/\s+/).forEach(function (id) {
        var input = document.getElementById(id);
        if (input && !input.hasAttribute("data-pql")) {
          input.setAttribute("data-pql", markers[m].getAttribute("data-pql"));
        }
      });
    }
    var found = (root || document).querySelectorAll("[data-pql]:not([data-pql-for])");
    for (var i = 0; i < found.length; i++) enhance(found[i]);
  }

  function announce(text) { if (status) status.textContent = text; }

  function close() {
    if (list) { list.hidden = true; list.textContent = ""; }
    if (box) {
      box.removeAttribute("aria-activedescendant");
      box.removeAttribute("aria-controls");
      if (box.getAttribute("role") === "combobox") box.setAttribute("aria-expanded", "false");
    }
    items = [];
    active = -1;
    seq += 1; // an answer still on its way is no longer wanted
  }

  function position() {
    var rect = box.getBoundingClientRect();
    var width = Math.min(Math.max(rect.width, 240), window.innerWidth - 16);
    var left = Math.min(rect.left, window.innerWidth - width - 8);
    list.style.top = (rect.bottom + window.scrollY + 4) + "px";
    list.style.left = (Math.max(left, 8) + window.scrollX) + "px";
    list.style.width = width + "px";
  }

  function highlight(index) {
    active = index;
    window.Workspace.highlightOption(box, list, index);
  }

  function render() {
    list.textContent = "";
    if (!items.length) { close(); return; }
    items.forEach(function (item, i) {
      var li = document.createElement("li");
      li.id = "pql-option-" + i;
      li.className = "pql-option";
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      var label = document.createElement("span");
      label.textContent = item.label;
      li.appendChild(label);
      if (item.detail) {
        var detail = document.createElement("span");
        detail.className = "pql-option-detail";
        detail.textContent = item.detail;
        li.appendChild(detail);
      }
      li.addEventListener("mousedown", function (event) {
        event.preventDefault(); // keep the focus in the box
        choose(i);
      });
      list.appendChild(li);
    });
    list.hidden = false;
    box.setAttribute("aria-controls", "pql-options");
    if (box.getAttribute("role") === "combobox") box.setAttribute("aria-expanded", "true");
    position();
    highlight(-1);
    announce(items.length + (items.length === 1 ? " suggestion" : " suggestions") +
      ". Up and Down to choose, Enter or Tab to insert, Escape to close.");
  }

  function lookup() {
    var text = box.value;
    var params = new URLSearchParams({
      q: text,
      cursor: String(points(text.slice(0, box.selectionStart)))
    });
    var project = box.getAttribute("data-pql-project");
    if (project) params.set("project", project);
    var mine = ++seq;
    asked = mine;
    box.setAttribute("aria-busy", "true");
    fetch(box.getAttribute("data-pql") + "?" + params.toString(), {
      credentials: "same-origin", headers: { Accept: "application/json" }
    })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (answer) {
        if (mine !== seq || !box) return; // typed on, or closed, since
        box.removeAttribute("aria-busy");
        if (!answer) { close(); return; }
        range = { start: answer.start, end: answer.end };
        items = answer.suggestions;
        render();
      })
      .catch(function () { if (box) box.removeAttribute("aria-busy"); close(); });
  }

  function schedule() {
    window.clearTimeout(timer);
    timer = window.setTimeout(lookup, DELAY);
  }

  function choose(index) {
    var item = items[index];
    if (!item || !range) return;
    var text = box.value;
    var start = units(text, range.start), end = units(text, range.end);
    // Keep one space between the insert and what follows it.
    var insert = item.insert;
    if (/^\s/.test(text.slice(end)) && /\s$/.test(insert)) insert = insert.replace(/\s+$/, "");
    box.value = text.slice(0, start) + insert + text.slice(end);
    var at = start + insert.length;
    box.setSelectionRange(at, at);
    box.dispatchEvent(new Event("change", { bubbles: true }));
    close();
    announce(item.label + " inserted.");
    box.focus();
    schedule(); // what may come next
  }

  document.addEventListener("input", function (event) {
    var target = event.target;
    if (!target.matches || !target.matches("[data-pql]:not([data-pql-for])")) return;
    setup();
    enhance(target);
    if (box && box !== target) close();
    box = target;
    schedule();
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (!target.matches || !target.matches("[data-pql]:not([data-pql-for])")) return;
    var open = list && !list.hidden && box === target;
    if (!open) {
      if (event.key === "ArrowDown" && !event.altKey) {
        setup();
        box = target;
        event.preventDefault();
        lookup();
      }
      return;
    }
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      var step = event.key === "ArrowDown" ? 1 : -1;
      var next = active < 0 ? (step > 0 ? 0 : items.length - 1) : (active + step + items.length) % items.length;
      highlight(next);
    } else if (event.key === "Enter" || event.key === "Tab") {
      if (active < 0) { if (event.key === "Tab") close(); return; }
      event.preventDefault();
      event.stopPropagation(); // a textarea's Enter-applies handler must not also run
      choose(active);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation(); // closes the list only, not a dialog around it
      close();
    }
  }, true);

  document.addEventListener("focusout", function (event) {
    if (event.target === box) window.setTimeout(function () {
      if (document.activeElement !== box) close();
    }, 150);
  });

  window.addEventListener("resize", function () { if (list && !list.hidden && box) position(); });
  document.addEventListener("htmx:load", function (event) { enhanceAll(event.target); });
  enhanceAll(document);
})();
