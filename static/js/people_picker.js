/* The assignee's searchable people picker on the task page
   (templates/tracker/task/_people_picker.html, docs/tasks.md#the-assignee-picker).

   One ARIA combobox (the WAI-ARIA 1.2 pattern with a listbox popup and list
   autocomplete): the text box keeps the focus and points at the highlighted option
   with aria-activedescendant. Typing asks the @mention picker's lookup (data-api,
   GET ?q=, the org's active people and agents) and lists what matches, with
   "Unassigned" first while the box is blank. Down opens the list and moves, Up moves,
   Enter assigns the highlighted person (the field's form posts assignee_id, HTMX swaps
   the field back and the focus returns to the box), Escape closes the list and then
   puts the saved name back; a click on an option assigns too. Leaving the box without
   choosing changes nothing.

   [data-people-picker] is hidden until this runs; it then hides and disables the plain
   select before it (the no-JavaScript path) and points the "Assignee" label at the
   box, so exactly one control sends assignee_id. */
(function () {
  "use strict";

  var DELAY = 120; // ms of quiet typing before asking the server
  var refocus = null; // the box to focus once its field is swapped back

  function setup(picker) {
    var select = document.querySelector(picker.getAttribute("data-select"));
    var label = document.querySelector(picker.getAttribute("data-label"));
    var box = picker.querySelector("[role=combobox]");
    if (select) {
      select.hidden = true;
      select.disabled = true;
    }
    picker.querySelector("input[type=hidden]").disabled = false;
    if (label) label.htmlFor = box.id;
    picker.hidden = false;
    picker._state = { people: [], active: -1, asked: null, typed: false, timer: null };
  }

  function enhance(root) {
    var pickers = root.querySelectorAll("[data-people-picker][hidden]");
    for (var i = 0; i < pickers.length; i++) setup(pickers[i]);
  }

  function parts(picker) {
    return {
      box: picker.querySelector("[role=combobox]"),
      list: picker.querySelector("[role=listbox]"),
      value: picker.querySelector("input[type=hidden]"),
      status: picker.querySelector("[data-picker-status]"),
      state: picker._state,
    };
  }

  function announce(picker, text) {
    var status = parts(picker).status;
    if (status) status.textContent = text;
  }

  function isOpen(picker) { return !parts(picker).list.hidden; }

  function closeList(picker) {
    var p = parts(picker);
    window.clearTimeout(p.state.timer);
    p.state.asked = null; // an answer still on its way opens nothing
    p.list.hidden = true;
    p.list.textContent = "";
    p.state.people = [];
    p.state.active = -1;
    p.box.setAttribute("aria-expanded", "false");
    p.box.removeAttribute("aria-activedescendant");
  }

  function restore(picker) {
    var p = parts(picker);
    p.box.value = p.box.getAttribute("data-current-name") || "";
    p.state.typed = false;
  }

  function highlight(picker, index) {
    var p = parts(picker);
    p.state.active = index;
    window.Workspace.highlightOption(p.box, p.list, index);
  }

  function show(picker, query, found) {
    var p = parts(picker);
    var needle = query.trim().toLowerCase();
    var people = [];
    if (!needle || "unassigned".indexOf(needle) === 0) people.push({ id: "", name: "Unassigned" });
    people = people.concat(found);
    p.state.people = people;
    p.list.textContent = "";
    if (!people.length) {
      closeList(picker);
      announce(picker, "No one matches “" + query.trim() + "”.");
      return;
    }
    var current = p.box.getAttribute("data-current-id") || "";
    var start = 0;
    people.forEach(function (person, i) {
      var option = document.createElement("li");
      option.id = p.list.id + "-" + i;
      option.setAttribute("role", "option");
      option.className = "people-picker-option" + (person.id ? "" : " muted");
      option.textContent = person.name + (person.is_agent ? " (agent)" : "");
      if (person.id === current) {
        start = i;
        option.setAttribute("data-current", "");
      }
      p.list.appendChild(option);
    });
    p.list.hidden = false;
    p.box.setAttribute("aria-expanded", "true");
    highlight(picker, start);
    announce(picker, people.length + (people.length === 1 ? " choice" : " choices") +
      ". Up and Down to move, Enter to assign, Escape to close.");
  }

  function lookup(picker, query) {
    var p = parts(picker);
    p.state.asked = query;
    var url = picker.getAttribute("data-api") + "?q=" + encodeURIComponent(query.trim());
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : []; })
      .then(function (found) {
        if (p.state.asked !== query) return; // typed on, or closed, since
        show(picker, query, found);
      })
      .catch(function () {
        if (p.state.asked === query) show(picker, query, []);
      });
  }

  /* Open on the text typed, or on everyone when the box still shows the saved name. */
  function openList(picker) {
    var p = parts(picker);
    lookup(picker, p.state.typed ? p.box.value : "");
  }

  function choose(picker, index) {
    var p = parts(picker);
    var person = p.state.people[index];
    if (!person) return;
    closeList(picker);
    p.state.typed = false;
    p.box.value = person.id ? person.name : "";
    if (person.id === (p.box.getAttribute("data-current-id") || "")) {
      announce(picker, "No change.");
      return;
    }
    p.value.value = person.id;
    announce(picker, person.id ? "Assigning " + person.name + "…" : "Unassigning…");
    refocus = p.box.id;
    p.box.form.requestSubmit();
  }

  function pickerOf(target) {
    return target instanceof Element ? target.closest("[data-people-picker]") : null;
  }

  document.addEventListener("input", function (event) {
    var picker = pickerOf(event.target);
    if (!picker || !event.target.matches("[role=combobox]")) return;
    var state = picker._state;
    state.typed = true;
    window.clearTimeout(state.timer);
    state.timer = window.setTimeout(function () { lookup(picker, event.target.value); }, DELAY);
  });

  document.addEventListener("keydown", function (event) {
    var picker = pickerOf(event.target);
    if (!picker || !event.target.matches("[role=combobox]")) return;
    var state = picker._state;
    var count = state.people.length;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!isOpen(picker)) {
        openList(picker);
        return;
      }
      var step = event.key === "ArrowDown" ? 1 : -1;
      highlight(picker, (state.active + step + count) % count);
    } else if (event.key === "Enter") {
      event.preventDefault(); // never the form's own submit: only a choice saves
      if (isOpen(picker) && state.active >= 0) choose(picker, state.active);
      else openList(picker);
    } else if (event.key === "Escape") {
      if (!isOpen(picker) && !state.typed) return;
      event.preventDefault();
      event.stopPropagation();
      if (isOpen(picker)) closeList(picker);
      else restore(picker);
    }
  });

  document.addEventListener("mousedown", function (event) {
    var picker = pickerOf(event.target);
    if (!picker || !(event.target instanceof Element)) return;
    var option = event.target.closest("[role=option]");
    if (option) {
      event.preventDefault(); // the box keeps the focus
      var options = Array.prototype.slice.call(parts(picker).list.children);
      choose(picker, options.indexOf(option));
    } else if (event.target.matches("[role=combobox]") && !isOpen(picker)) {
      openList(picker);
    }
  });

  document.addEventListener("focusout", function (event) {
    var picker = pickerOf(event.target);
    if (!picker || !event.target.matches("[role=combobox]")) return;
    closeList(picker);
    restore(picker);
  });

  document.addEventListener("htmx:afterSettle", function () {
    enhance(document);
    if (!refocus) return;
    var box = document.getElementById(refocus);
    refocus = null;
    if (box) box.focus();
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { enhance(document); });
  } else {
    enhance(document);
  }
})();
