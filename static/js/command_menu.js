/* The command menu (templates/_command_menu.html, docs/command_menu.md).

   - Ctrl-K / Cmd-K anywhere, even in a field, or the top bar's [data-command-menu-open]
     button: opens the menu, a modal <dialog> holding a combobox and its listbox.
   - "C" (not while typing): the menu's create-task form. "?": the shortcuts dialog.
   - Typing asks the server (debounced, the previous request aborted) for what this
     person may open; arrows move, Enter opens, Escape closes and focus goes back to
     where it was, Tab stays inside the dialog.
   - Recent items live in this browser's localStorage, per org and account; the server
     checks each again before it is shown, so a stale one simply drops out.
   No inline handlers: the pages' Content-Security-Policy runs none. */
(function () {
  "use strict";

  var DEBOUNCE_MS = 150;
  var MAX_RECENT = 10;
  var KIND_LABELS = {
    task: "Task", project: "Project", dashboard: "Dashboard",
    person: "Person", page: "Page", action: "Action"
  };

  var menu = document.getElementById("command-menu");
  if (!menu || typeof menu.showModal !== "function") return;
  var shortcuts = document.getElementById("shortcuts-dialog");
  var input = document.getElementById("command-menu-input");
  var list = document.getElementById("command-menu-list");
  var status = document.getElementById("command-menu-status");
  var empty = menu.querySelector("[data-cmdk-empty]");
  var searchPanel = menu.querySelector('[data-cmdk-panel="search"]');
  var createForm = menu.querySelector('[data-cmdk-panel="create"]');
  var projectSelect = document.getElementById("command-menu-project");
  var titleInput = document.getElementById("command-menu-title-input");
  var createError = menu.querySelector("[data-cmdk-error]");

  var items = [];
  var active = -1;
  var timer = null;
  var controller = null;
  var sequence = 0;
  var pending = false;   // a search is waiting or in flight
  var enterWaiting = false;  // Enter was pressed before its results came
  var opener = null;

  /* ---------- Recent items (localStorage) ---------- */

  function readRecent() {
    try {
      var value = JSON.parse(window.localStorage.getItem(menu.dataset.store) || "[]");
      return Array.isArray(value) ? value.filter(function (r) { return typeof r === "string"; }) : [];
    } catch (e) {
      return []; // storage off or garbled: no recent items
    }
  }

  function remember(ref) {
    if (!ref) return;
    var refs = readRecent().filter(function (r) { return r !== ref; });
    refs.unshift(ref);
    try {
      window.localStorage.setItem(menu.dataset.store, JSON.stringify(refs.slice(0, MAX_RECENT)));
    } catch (e) { /* storage full or off: nothing to keep */ }
  }

  // Opening a task's or a project's page counts as opening it, however it was reached.
  remember(menu.dataset.currentRef);

  /* ---------- Opening and closing ---------- */

  function typingIn(el) {
    if (!el) return false;
    var tag = el.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
  }

  function anyDialogOpen() {
    return !!document.querySelector("dialog[open]");
  }

  function showPanel(name) {
    searchPanel.hidden = name !== "search";
    createForm.hidden = name !== "create";
    // The dialog is named by the heading of what it shows.
    menu.setAttribute("aria-labelledby", name === "create" ? "command-menu-create-title" : "command-menu-title");
  }

  function openMenu(mode) {
    if (shortcuts && shortcuts.open) shortcuts.close();
    if (!menu.open) {
      opener = document.activeElement;
      menu.showModal();
    }
    if (mode === "create") {
      openCreate();
    } else {
      showPanel("search");
      input.value = "";
      search("");
      input.focus();
    }
  }

  function openShortcuts() {
    if (!shortcuts || shortcuts.open) return;
    opener = document.activeElement;
    shortcuts.showModal();
    shortcuts.querySelector("[data-cmdk-close]").focus();
  }

  function restoreFocus() {
    var target = opener;
    opener = null;
    // Opened with Ctrl+K from nowhere in particular (the page itself had the focus):
    // back to the Search button, where the menu lives, not to the top of the page.
    if (!target || target === document.body || !document.contains(target)) {
      target = document.querySelector("[data-command-menu-open]");
    }
    if (target) target.focus();
  }

  // A close event is queued: when the dialog is open again by the time it runs (closed and
  // reopened in one keystroke's work), it belongs to the earlier opening and is ignored.
  menu.addEventListener("close", function () {
    if (menu.open) return;
    if (controller) controller.abort();
    window.clearTimeout(timer);
    pending = enterWaiting = false;
    showPanel("search");
    restoreFocus();
  });
  if (shortcuts) {
    shortcuts.addEventListener("close", function () {
      // Closed to open the menu: the menu's own close gives the focus back.
      if (!anyDialogOpen()) restoreFocus();
    });
  }

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    if (target === menu || target === shortcuts) {
      // The panels fill the dialog, so a click on the dialog itself is on its backdrop.
      target.close();
      return;
    }
    if (target.closest("[data-command-menu-open]")) {
      event.preventDefault();
      openMenu("search");
    } else if (target.closest("[data-cmdk-close]")) {
      var dialog = target.closest("dialog");
      if (dialog) dialog.close();
    } else if (target.closest("[data-cmdk-back]")) {
      openMenu("search");
    } else {
      var option = target.closest(".cmdk-option");
      if (option && list.contains(option)) choose(Number(option.dataset.index));
    }
  });

  document.addEventListener("keydown", function (event) {
    var key = event.key;
    if ((event.ctrlKey || event.metaKey) && !event.altKey && (key === "k" || key === "K")) {
      // Works inside fields too: it is a chord, not a letter someone types.
      event.preventDefault();
      openMenu("search");
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    if (typingIn(event.target) || anyDialogOpen()) return;
    if (key === "c" || key === "C") {
      event.preventDefault();
      openMenu("create");
    } else if (key === "?") {
      event.preventDefault();
      openShortcuts();
    }
  });

  // Tab and Shift-Tab cycle inside an open dialog instead of leaving for the browser.
  function trapTab(event) {
    if (event.key !== "Tab") return;
    var dialog = event.currentTarget;
    var focusable = Array.prototype.filter.call(
      dialog.querySelectorAll(
        'a[href], button:not([disabled]), input:not([type="hidden"]):not([disabled]), ' +
        'select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])'
      ),
      function (el) { return el.getClientRects().length > 0; }
    );
    if (!focusable.length) return;
    var first = focusable[0];
    var last = focusable[focusable.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  }
  menu.addEventListener("keydown", trapTab);
  if (shortcuts) shortcuts.addEventListener("keydown", trapTab);

  /* ---------- Searching ---------- */

  function search(q) {
    window.clearTimeout(timer);
    // What was typed before is moot: its request stops and its answer is dropped.
    if (controller) controller.abort();
    sequence++;
    pending = true;
    timer = window.setTimeout(function () { fetchItems(q); }, q ? DEBOUNCE_MS : 0);
  }

  function fetchItems(q) {
    if (controller) controller.abort();
    controller = typeof AbortController === "function" ? new AbortController() : null;
    var mine = ++sequence;
    var url = menu.dataset.api + "?q=" + encodeURIComponent(q) +
      "&recent=" + encodeURIComponent(readRecent().join(","));
    fetch(url, {
      credentials: "same-origin",
      headers: { Accept: "application/json" },
      signal: controller ? controller.signal : undefined
    })
      .then(function (response) {
        if (!response.ok) throw new Error("status " + response.status);
        return response.json();
      })
      .then(function (body) {
        if (mine !== sequence) return;
        render(body.items || [], q);
      })
      .catch(function (error) {
        if (error && error.name === "AbortError") return;
        if (mine !== sequence) return;
        render([], q);
        status.textContent = "The search failed; try again.";
      });
  }

  // Text only (textContent): a task's title is never read as HTML.
  function span(parent, className, text) {
    var el = document.createElement("span");
    el.className = className;
    el.textContent = text;
    parent.appendChild(el);
  }

  function render(found, q) {
    items = found;
    pending = false;
    list.textContent = "";
    var recent = q ? [] : readRecent();
    items.forEach(function (item, index) {
      var li = document.createElement("li");
      li.className = "cmdk-option";
      li.id = "command-menu-option-" + index;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      li.dataset.index = String(index);
      span(li, "cmdk-kind", KIND_LABELS[item.kind] || item.kind);
      span(li, "cmdk-title", item.title);
      if (recent.indexOf(item.ref) !== -1) span(li, "cmdk-recent", "Recent");
      if (item.detail) span(li, "cmdk-detail", item.detail);
      list.appendChild(li);
    });
    empty.hidden = items.length > 0 || !q;
    input.setAttribute("aria-expanded", items.length ? "true" : "false");
    status.textContent = items.length === 1 ? "1 result" :
      (items.length ? items.length + " results" : "No results");
    highlight(items.length ? 0 : -1);
    if (enterWaiting) {
      enterWaiting = false;
      if (items.length) choose(0);
    }
  }

  function highlight(index) {
    var previous = document.getElementById("command-menu-option-" + active);
    if (previous) previous.setAttribute("aria-selected", "false");
    active = index;
    var current = document.getElementById("command-menu-option-" + index);
    if (current) {
      current.setAttribute("aria-selected", "true");
      input.setAttribute("aria-activedescendant", current.id);
      current.scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function choose(index) {
    var item = items[index];
    if (!item) return;
    remember(item.ref);
    if (item.ref === "action:create-task") {
      openCreate();
    } else if (item.url) {
      window.location.assign(item.url);
    }
  }

  input.addEventListener("input", function () { search(input.value.trim()); });

  input.addEventListener("keydown", function (event) {
    var count = items.length;
    if (event.key === "ArrowDown" && count) {
      event.preventDefault();
      highlight((active + 1) % count);
    } else if (event.key === "ArrowUp" && count) {
      event.preventDefault();
      highlight((active - 1 + count) % count);
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (pending) {
        enterWaiting = true; // the results of what was typed decide
      } else {
        choose(active);
      }
    }
  });

  list.addEventListener("mousemove", function (event) {
    var option = event.target instanceof Element ? event.target.closest(".cmdk-option") : null;
    if (option && Number(option.dataset.index) !== active) highlight(Number(option.dataset.index));
  });

  /* ---------- Creating a task ---------- */

  var targets = null;

  function openCreate() {
    showPanel("create");
    createError.textContent = "";
    titleInput.removeAttribute("aria-invalid");
    titleInput.value = "";
    titleInput.focus();
    var load = targets ? Promise.resolve(targets) : fetch(menu.dataset.targetsApi, {
      credentials: "same-origin", headers: { Accept: "application/json" }
    }).then(function (response) {
      if (!response.ok) throw new Error("status " + response.status);
      return response.json();
    });
    load.then(function (found) {
      targets = found;
      projectSelect.textContent = "";
      found.forEach(function (project) {
        var option = document.createElement("option");
        option.value = project.create_url;
        option.textContent = project.name + " (" + project.identifier + ")";
        option.selected = project.id === menu.dataset.currentProject;
        projectSelect.appendChild(option);
      });
      if (!found.length) {
        createError.textContent = "You cannot create tasks in any project of this organization.";
      }
    }).catch(function () {
      createError.textContent = "Could not load your projects; try again.";
    });
  }

  createForm.addEventListener("submit", function (event) {
    event.preventDefault();
    var title = titleInput.value.trim();
    if (!title) {
      titleInput.setAttribute("aria-invalid", "true");
      createError.textContent = "Give the task a title.";
      titleInput.focus();
      return;
    }
    if (!projectSelect.value) {
      createError.textContent = "Choose a project.";
      projectSelect.focus();
      return;
    }
    var token = createForm.elements.csrf_token.value;
    var body = new URLSearchParams();
    body.set("title", title);
    body.set("csrf_token", token);
    createError.textContent = "";
    // The task list's own create route; as an HTMX request it answers the new row,
    // which names the task's key.
    fetch(projectSelect.value, {
      method: "POST",
      credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRFToken": token },
      body: body
    }).then(function (response) {
      return response.text().then(function (text) {
        if (!response.ok) {
          var plain = (response.headers.get("Content-Type") || "").indexOf("text/plain") === 0;
          throw new Error(plain && text ? text.slice(0, 300) : "The task was not created; try again.");
        }
        var match = /data-task-key="([^"]+)"/.exec(text);
        if (!match) throw new Error("The task was created; find it in its project.");
        remember("task:" + match[1]);
        window.location.assign(menu.dataset.taskUrl.replace("KEY", encodeURIComponent(match[1])));
      });
    }).catch(function (error) {
      createError.textContent = error.message || "The task was not created; try again.";
    });
  });

  /* ---------- The top bar's hint ---------- */

  if (/Mac|iPhone|iPad/.test(navigator.platform || "")) {
    Array.prototype.forEach.call(document.querySelectorAll(".cmdk-open-kbd"), function (kbd) {
      kbd.textContent = "⌘K";
    });
  }
})();
