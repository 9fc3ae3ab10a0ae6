/* The @mention people picker (docs/inbox.md#mentions) on the task page's description
   and comment boxes (textarea name=description or name=body). Typing "@" and letters
   lists matching members in #mention-options, a listbox the box points at with
   aria-controls and aria-activedescendant (the box keeps focus); Up and Down move,
   Enter or Tab insert "@handle ", Escape closes. A click inserts too. Without JS,
   a handle typed by hand mentions the same person. */
(function () {
  "use strict";

  var BOXES = "textarea[name=description], textarea[name=body]";
  // "@" at the start or after a space or opening punctuation, then the handle so far.
  var TRIGGER = /(^|[\s([{"'])@([A-Za-z0-9._%+-]*)$/;
  var picker, list, status, api;
  var box = null, people = [], active = -1, start = -1, timer = null, asked = "";

  function setup() {
    picker = document.getElementById("mention-picker");
    list = document.getElementById("mention-options");
    status = document.getElementById("mention-status");
    if (!picker) return false;
    api = picker.getAttribute("data-api");
    document.body.appendChild(picker); // above any swapped region, placed by position()
    return true;
  }

  function announce(text) { if (status) status.textContent = text; }

  function close() {
    if (picker) picker.hidden = true;
    if (box) {
      box.removeAttribute("aria-activedescendant");
      box.removeAttribute("aria-controls");
    }
    people = [];
    active = -1;
    start = -1;
  }

  function position() {
    var rect = box.getBoundingClientRect();
    picker.style.top = (rect.bottom + window.scrollY + 4) + "px";
    picker.style.left = (rect.left + window.scrollX) + "px";
    picker.style.width = Math.min(rect.width, 340) + "px";
  }

  function highlight(index) {
    active = index;
    window.Workspace.highlightOption(box, list, index);
  }

  function render() {
    list.textContent = "";
    people.forEach(function (person, i) {
      var li = document.createElement("li");
      li.id = "mention-option-" + i;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      li.className = "mention-option";
      var name = document.createElement("span");
      name.textContent = person.name + (person.is_agent ? " (agent)" : "");
      var handle = document.createElement("span");
      handle.className = "mention-handle";
      handle.textContent = "@" + person.handle;
      li.appendChild(name);
      li.appendChild(handle);
      li.addEventListener("mousedown", function (event) {
        event.preventDefault(); // keep the focus in the box
        choose(i);
      });
      list.appendChild(li);
    });
    if (!people.length) {
      close();
      announce("No one to mention matches.");
      return;
    }
    picker.hidden = false;
    box.setAttribute("aria-controls", "mention-options");
    box.setAttribute("aria-autocomplete", "list");
    position();
    highlight(0);
    announce(people.length + (people.length === 1 ? " person" : " people") +
      " to mention. Up and Down to choose, Enter to insert, Escape to close.");
  }

  function lookup(query) {
    asked = query;
    var url = api + "?q=" + encodeURIComponent(query);
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : []; })
      .then(function (found) {
        if (query !== asked || start < 0) return; // typed on since
        people = found;
        render();
      })
      .catch(function () { close(); });
  }

  function check() {
    var before = box.value.slice(0, box.selectionStart);
    var match = TRIGGER.exec(before);
    if (!match || box.selectionStart !== box.selectionEnd) { close(); return; }
    start = before.length - match[2].length - 1;
    window.clearTimeout(timer);
    timer = window.setTimeout(function () { lookup(match[2]); }, 120);
  }

  function choose(index) {
    var person = people[index];
    if (!person || start < 0) return;
    var caret = box.selectionStart;
    var text = "@" + person.handle + " ";
    box.value = box.value.slice(0, start) + text + box.value.slice(caret);
    var at = start + text.length;
    box.setSelectionRange(at, at);
    announce(person.name + " mentioned.");
    close();
    box.focus();
  }

  document.addEventListener("input", function (event) {
    var target = event.target;
    if (!(target instanceof HTMLTextAreaElement) || !target.matches(BOXES)) return;
    if (!picker && !setup()) return;
    if (box && box !== target) close();
    box = target;
    check();
  });

  document.addEventListener("keydown", function (event) {
    if (!picker || picker.hidden || event.target !== box) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      var step = event.key === "ArrowDown" ? 1 : -1;
      highlight((active + step + people.length) % people.length);
    } else if (event.key === "Enter" || event.key === "Tab") {
      if (active < 0) return;
      event.preventDefault();
      choose(active);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation(); // closes the picker only, not a dialog around it
      close();
    }
  }, true);

  document.addEventListener("focusout", function (event) {
    if (event.target === box) window.setTimeout(close, 150);
  });
})();
