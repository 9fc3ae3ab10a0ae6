/* Workspace page wiring. No framework; every handler is delegated from document so
   it also covers fragments that HTMX swaps in later, and none assumes an element exists.

   - [data-copy="#selector"] / [data-copy-text="..."]: copy to the clipboard, say "Copied".
   - .flash-close: remove the flash message it sits in.
   - <details class="dropdown">: close on outside click or Escape.
   - htmx:responseError / htmx:sendError: a readable error flash at the top of <main>.
   - form[data-confirm="question"] (or a submit button carrying it): submits only when the
     person confirms, for plain forms and HTMX ones alike (htmx:confirm), so hx-confirm is
     never needed; every destructive form carries it (tests/test_confirmations.py).
   - [data-nav-toggle] (the menu button at phone width): opens and closes the side nav
     named by its aria-controls, keeping aria-expanded true to what is shown.
   - [data-reset-on-success] (an hx- form): cleared after a successful request, and the
     element named by data-removes-on-success removed; the task count named by
     data-counts-on-success counts the added task (when it has data-counts-new) and
     names it.
   - select[data-commit-select] (the task list's inline state select, in an hx- form
     triggered by "ws:commit"): commits only on an explicit choice, a mouse pick or
     Enter, never on each arrow key; leaving it uncommitted puts the saved value back.
     After the row is swapped, focus returns to the row's select.
   - [data-bulk-bar] with [data-bulk-select] row boxes and a [data-select-all] box:
     the bulk bar shows (class has-selection) while something is selected.
   - on load, the page's #fragment's [data-return-focus] control, else its first flash
     message, gets the focus (docs/architecture.md, "comes back where it acted").
   The pages' Content-Security-Policy runs no inline handler (onsubmit=, hx-on), so
   behaviour lives here. */
/* One listbox's "active option" for every combobox we draw (the mention picker, the
   PQL autocomplete, the people picker): option ``index`` of ``list`` is selected, and
   ``box`` (the text input) points at it with aria-activedescendant; -1 selects none.
   Defined before the pages' own scripts, which are deferred after this one. */
window.Workspace = window.Workspace || {};
window.Workspace.highlightOption = function (box, list, index) {
  var options = list.querySelectorAll("[role=option]");
  for (var i = 0; i < options.length; i++) {
    options[i].setAttribute("aria-selected", i === index ? "true" : "false");
  }
  if (index >= 0 && options[index]) {
    box.setAttribute("aria-activedescendant", options[index].id);
    options[index].scrollIntoView({ block: "nearest" });
  } else {
    box.removeAttribute("aria-activedescendant");
  }
};

(function () {
  "use strict";

  var GENERIC_ERROR = "Something went wrong; try again.";
  var NETWORK_ERROR = "Could not reach the server. Check your connection and try again.";
  var MAX_MESSAGE = 300;

  function query(selector) {
    try {
      return document.querySelector(selector);
    } catch (e) {
      return null; // not a valid selector
    }
  }

  function elementText(el) {
    if (!el) return "";
    if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") return el.value;
    return (el.textContent || "").trim();
  }

  /* ---------- Copy to clipboard ---------- */

  function writeClipboard(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    // Plain-http fallback (the Clipboard API needs a secure context).
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.top = "-1000px";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try {
        ok = document.execCommand("copy");
      } catch (e) {
        ok = false;
      }
      area.parentNode.removeChild(area);
      if (ok) resolve(); else reject(new Error("copy failed"));
    });
  }

  function showButtonState(button, label, cssClass) {
    if (button.dataset.originalLabel === undefined) {
      button.dataset.originalLabel = button.textContent;
    }
    button.textContent = label;
    button.classList.add(cssClass);
    window.clearTimeout(button._wsCopyTimer);
    button._wsCopyTimer = window.setTimeout(function () {
      button.textContent = button.dataset.originalLabel;
      button.classList.remove(cssClass);
    }, 1600);
  }

  function handleCopy(button) {
    var text = button.hasAttribute("data-copy-text")
      ? button.getAttribute("data-copy-text")
      : elementText(query(button.getAttribute("data-copy") || ""));
    if (!text) return;
    writeClipboard(text).then(
      function () { showButtonState(button, "Copied", "copied"); },
      function () { showButtonState(button, "Press Ctrl+C", "copy-failed"); }
    );
  }

  /* ---------- Flash messages ---------- */

  function flashArea() {
    var area = document.getElementById("flash-area");
    if (area) return area;
    var main = document.getElementById("main") || document.querySelector("main") || document.body;
    if (!main) return null;
    area = document.createElement("div");
    area.id = "flash-area";
    area.className = "flashes";
    main.insertBefore(area, main.firstChild);
    return area;
  }

  function showFlash(message, category) {
    var area = flashArea();
    if (!area) return;
    // One client-side error at a time: a newer one replaces the last.
    var previous = area.querySelector("[data-client-flash]");
    if (previous) previous.parentNode.removeChild(previous);

    var flash = document.createElement("div");
    flash.className = "flash flash-" + (category || "error");
    flash.setAttribute("role", category === "error" ? "alert" : "status");
    flash.setAttribute("data-client-flash", "");
    var text = document.createElement("span");
    text.className = "flash-text";
    text.textContent = message;
    var close = document.createElement("button");
    close.type = "button";
    close.className = "flash-close";
    close.setAttribute("aria-label", "Dismiss");
    close.textContent = "\u00d7";
    flash.appendChild(text);
    flash.appendChild(close);
    area.appendChild(flash);

    var rect = flash.getBoundingClientRect();
    if (rect.top < 0 || rect.bottom > window.innerHeight) {
      flash.scrollIntoView({ block: "nearest" });
    }
  }

  function usable(text) {
    if (typeof text !== "string") return "";
    text = text.replace(/\s+/g, " ").trim();
    if (!text || text.length > MAX_MESSAGE) return "";
    return text;
  }

  /* The message to show for a failed HTMX request: a problem+json "detail", a short
     plain-text body, the [data-error-message] of an HTML error page, else generic. */
  function errorMessage(xhr) {
    if (!xhr) return GENERIC_ERROR;
    var type = (xhr.getResponseHeader("Content-Type") || "").toLowerCase();
    var body = typeof xhr.responseText === "string" ? xhr.responseText : "";
    var message = "";

    if (type.indexOf("json") !== -1) {
      try {
        var data = JSON.parse(body);
        if (data && typeof data === "object") {
          message = usable(data.detail) || usable(data.title);
        }
      } catch (e) {
        message = "";
      }
    } else if (type.indexOf("text/html") !== -1) {
      try {
        var doc = new DOMParser().parseFromString(body, "text/html");
        message = usable(elementText(doc.querySelector("[data-error-message]")));
      } catch (e) {
        message = "";
      }
    } else if (type === "" || type.indexOf("text/plain") === 0) {
      message = /[<>]/.test(body) ? "" : usable(body);
    }
    return message || GENERIC_ERROR;
  }

  /* ---------- Event wiring ---------- */

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) return;

    var copyButton = target.closest("[data-copy], [data-copy-text]");
    if (copyButton) {
      event.preventDefault();
      handleCopy(copyButton);
      return;
    }

    var close = target.closest(".flash-close");
    if (close) {
      var flash = close.closest(".flash");
      // The focus was on the message or its ×: dismissed, it goes to the page's
      // content (main takes it, tabindex -1), not to <body> at the top.
      var hadFocus = flash && flash.contains(document.activeElement);
      if (flash && flash.parentNode) flash.parentNode.removeChild(flash);
      var main = document.getElementById("main");
      if (hadFocus && main) main.focus();
      return;
    }

    // Close open dropdown menus when clicking elsewhere.
    var openMenus = document.querySelectorAll("details.dropdown[open]");
    for (var i = 0; i < openMenus.length; i++) {
      if (!openMenus[i].contains(target)) openMenus[i].removeAttribute("open");
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var openMenus = document.querySelectorAll("details.dropdown[open]");
    for (var i = 0; i < openMenus.length; i++) {
      openMenus[i].removeAttribute("open");
      var summary = openMenus[i].querySelector("summary");
      if (summary && openMenus[i].contains(document.activeElement)) summary.focus();
    }
  });

  // A refused form answers 400/422 with the message by its field (and the request's
  // writes rolled back); a rate-limited one (the Ask box) answers 429 with its message.
  // HTMX drops 4xx answers by default; a form marked data-swap-errors shows that
  // answer where its result goes instead.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail || {};
    var status = detail.xhr ? detail.xhr.status : 0;
    // htmx 2 names the swap target in detail.elt; the element that asked is in requestConfig.
    var source = (detail.requestConfig && detail.requestConfig.elt) || detail.elt;
    if ((status === 400 || status === 422 || status === 429) && source && source.closest && source.closest("[data-swap-errors]")) {
      detail.shouldSwap = true;
      detail.isError = false;
    }
  });

  /* The question a submission must be confirmed with: the submit button's own, else the
     form's. An element that is not a form or a submit button asks nothing. */
  function confirmQuestion(elt, submitter) {
    if (!elt || !elt.getAttribute) return null;
    if (submitter && submitter.hasAttribute && submitter.hasAttribute("data-confirm")) {
      return submitter.getAttribute("data-confirm");
    }
    if (elt.hasAttribute("data-confirm")) return elt.getAttribute("data-confirm");
    var form = elt.tagName === "FORM" ? null : elt.form;
    if (form && form.hasAttribute("data-confirm") && elt.type === "submit") {
      return form.getAttribute("data-confirm");
    }
    return null;
  }

  // A plain form: ask before the browser submits. An HTMX form's submit was already
  // cancelled by htmx (defaultPrevented); it asks in htmx:confirm below instead.
  document.addEventListener("submit", function (event) {
    if (event.defaultPrevented) return;
    var form = event.target instanceof Element ? event.target : null;
    var question = confirmQuestion(form, event.submitter);
    if (question !== null && !window.confirm(question)) event.preventDefault();
  });

  document.addEventListener("htmx:confirm", function (event) {
    var detail = event.detail || {};
    var trigger = detail.triggeringEvent;
    var question = confirmQuestion(detail.elt, trigger && trigger.submitter);
    if (question === null) return;
    event.preventDefault();
    if (window.confirm(question)) detail.issueRequest(true);
  });

  /* ---------- Side nav at phone width ---------- */

  document.documentElement.classList.add("js-nav");

  function setNavOpen(toggle, open) {
    var nav = document.getElementById(toggle.getAttribute("aria-controls") || "");
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    if (nav) nav.classList.toggle("nav-open", open);
  }

  document.addEventListener("click", function (event) {
    var toggle = event.target instanceof Element ? event.target.closest("[data-nav-toggle]") : null;
    if (toggle) setNavOpen(toggle, toggle.getAttribute("aria-expanded") !== "true");
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var toggle = document.querySelector('[data-nav-toggle][aria-expanded="true"]');
    if (!toggle) return;
    setNavOpen(toggle, false);
    toggle.focus();
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var detail = event.detail || {};
    var elt = detail.elt;
    if (!detail.successful || !elt || !elt.hasAttribute || !elt.hasAttribute("data-reset-on-success")) return;
    if (typeof elt.reset === "function") elt.reset();
    // A refusal shown before is answered now: its message and marks go.
    var stale = elt.querySelectorAll(".flash-error, .field-error");
    for (var i = 0; i < stale.length; i++) stale[i].parentNode.removeChild(stale[i]);
    var marked = elt.querySelectorAll('[aria-invalid="true"]');
    for (var j = 0; j < marked.length; j++) {
      marked[j].removeAttribute("aria-invalid");
      var kept = (marked[j].getAttribute("aria-describedby") || "").split(/\s+/).filter(function (id) {
        return id && document.getElementById(id);
      });
      if (kept.length) marked[j].setAttribute("aria-describedby", kept.join(" "));
      else marked[j].removeAttribute("aria-describedby");
    }
    var gone = query(elt.getAttribute("data-removes-on-success") || "");
    if (gone && gone.parentNode) gone.parentNode.removeChild(gone);
    countAdded(elt, detail.target);
  });

  // A task added above the list: the count beside it says so. An unfiltered list
  // counts it; a filtered one says what was added, which it may not match.
  function countAdded(form, rows) {
    var count = query(form.getAttribute("data-counts-on-success") || "");
    var added = rows && rows.firstElementChild && rows.firstElementChild.getAttribute("data-task-key");
    if (!count || !added) return;
    var total = count.querySelector("[data-task-total]");
    if (count.hasAttribute("data-counts-new") && total) {
      var n = parseInt(total.textContent.replace(/[^0-9]/g, ""), 10) + 1;
      total.textContent = n.toLocaleString("en-US");
      var noun = count.querySelector("[data-task-noun]");
      if (noun) noun.textContent = n === 1 ? "task" : "tasks";
    }
    var note = count.querySelector("[data-task-added]");
    if (note) note.textContent = " · " + added + " added";
  }

  document.addEventListener("htmx:responseError", function (event) {
    var detail = event.detail || {};
    showFlash(errorMessage(detail.xhr), "error");
  });

  document.addEventListener("htmx:sendError", function () {
    showFlash(NETWORK_ERROR, "error");
  });

  /* ---------- Back at the row acted on, else at what the action did ---------- */

  // A row or form action that reloads the page (a member's role, a state moved, a
  // cycle added) comes back at #<row or section id>: its [data-return-focus] control
  // gets the focus, so a keyboard goes on from there instead of from the top. After
  // "load": the browser's own move to the fragment would take the focus back.
  // An action whose place is gone or hidden after the reload (a revoked token's row,
  // the bulk bar once nothing is selected) or that names none (Send test event) comes
  // back with the flash that says what it did: that message gets the focus, as an
  // error's does (focusFirstError), so a screen reader reads it (a live region on a
  // new page is not announced) and the keyboard goes on from the top of the content.
  // A page's own choice (autofocus, an error, a script) keeps the focus.
  window.addEventListener("load", function () {
    var id = window.location.hash.slice(1);
    var row = id && /^[A-Za-z][\w-]*$/.test(id) ? document.getElementById(id) : null;
    if (row) {
      // The first that can take it: a state moved to the top has its Up disabled.
      var control = row.querySelector("[data-return-focus]:not(:disabled)");
      if (control) control.focus();
      return;
    }
    var active = document.activeElement;
    if ((active && active !== document.body) || document.querySelector("[autofocus]")) return;
    var message = document.querySelector("#flash-area > .flash");
    if (!message) return;
    if (!message.hasAttribute("tabindex")) message.setAttribute("tabindex", "-1");
    message.focus();
  });

  /* ---------- Inline state select: commit on an explicit choice ---------- */

  // Arrow keys on a closed <select> change its value (and fire "change") at once in
  // some browsers; a person arrowing through the states has not chosen one yet. A
  // change that a key press caused waits for Enter; a mouse pick commits at once.
  var keyChange = false;
  var refocusRow = null;

  function commitSelect(select) {
    var saved = select.querySelector("option[selected]");
    select.classList.remove("uncommitted");
    if (saved && saved.value === select.value) return;
    var form = select.form;
    var row = select.closest("tr");
    if (!form || !window.htmx) {
      if (form) form.submit();
      return;
    }
    refocusRow = row && row.id ? row.id : null;
    window.htmx.trigger(form, "ws:commit");
  }

  function revertSelect(select) {
    var saved = select.querySelector("option[selected]");
    if (saved && select.value !== saved.value) select.value = saved.value;
    select.classList.remove("uncommitted");
  }

  document.addEventListener("keydown", function (event) {
    var select = event.target instanceof Element ? event.target.closest("select[data-commit-select]") : null;
    if (!select) return;
    if (event.key === "Enter") {
      event.preventDefault();
      commitSelect(select);
      return;
    }
    if (event.key === "Escape") {
      revertSelect(select);
      return;
    }
    keyChange = true;
    window.setTimeout(function () { keyChange = false; }, 0);
  }, true);

  document.addEventListener("change", function (event) {
    var select = event.target instanceof Element ? event.target.closest("select[data-commit-select]") : null;
    if (!select) return;
    if (keyChange) {
      select.classList.add("uncommitted");
      return;
    }
    commitSelect(select);
  });

  document.addEventListener("focusout", function (event) {
    var select = event.target instanceof Element ? event.target.closest("select[data-commit-select]") : null;
    if (select && select.classList.contains("uncommitted")) revertSelect(select);
  });

  document.addEventListener("htmx:afterSettle", function () {
    if (!refocusRow) return;
    var select = document.querySelector("#" + CSS.escape(refocusRow) + " select[data-commit-select]");
    refocusRow = null;
    if (select) select.focus();
  });

  /* ---------- Bulk selection on the task list ---------- */

  function updateBulkBar() {
    var bar = document.querySelector("[data-bulk-bar]");
    if (!bar) return;
    var boxes = document.querySelectorAll("[data-bulk-select]");
    var chosen = 0;
    for (var i = 0; i < boxes.length; i++) if (boxes[i].checked) chosen++;
    bar.classList.toggle("has-selection", chosen > 0 || !!bar.querySelector(".bulk-error"));
    var count = bar.querySelector("[data-bulk-count]");
    if (count) count.textContent = chosen === 1 ? "1 task selected" : chosen + " tasks selected";
    var all = document.querySelector("[data-select-all]");
    if (all) {
      all.checked = boxes.length > 0 && chosen === boxes.length;
      all.indeterminate = chosen > 0 && chosen < boxes.length;
    }
  }

  document.addEventListener("change", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    if (target.matches("[data-select-all]")) {
      var boxes = document.querySelectorAll("[data-bulk-select]");
      for (var i = 0; i < boxes.length; i++) boxes[i].checked = target.checked;
      updateBulkBar();
    } else if (target.matches("[data-bulk-select]")) {
      updateBulkBar();
    }
  });

  document.addEventListener("htmx:afterSettle", updateBulkBar);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", updateBulkBar);
  } else {
    updateBulkBar();
  }
  /* ---------- Where focus goes after a page answers ---------- */

  var FOCUSABLE = 'a[href], button:not([disabled]), input:not([type="hidden"]):not([disabled]), ' +
    'select:not([disabled]), textarea:not([disabled]), summary, [tabindex="0"]';

  function focusWithin(el) {
    if (!el) return;
    // A container with a tabindex of its own (the inbox list) is the focus target.
    var target = el.matches(FOCUSABLE) || el.hasAttribute("tabindex") ? el : el.querySelector(FOCUSABLE);
    if (!target) {
      target = el;
      if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
    }
    target.focus();
  }

  // A form answered with its errors: the first field at fault (else the message) is
  // brought into view and focused, so a phone user sees what to fix instead of the
  // top of a long page that looks unchanged.
  function focusFirstError(root) {
    var field = root.querySelector('[aria-invalid="true"]');
    if (field && field.getClientRects().length) {
      field.focus({ preventScroll: true });
      field.scrollIntoView({ block: "center" });
      return true;
    }
    var message = root.querySelector('.flash-error[role="alert"], .form-error[role="alert"]');
    if (message && message.textContent.trim()) {
      if (!message.hasAttribute("tabindex")) message.setAttribute("tabindex", "-1");
      message.focus({ preventScroll: true });
      message.scrollIntoView({ block: "center" });
      return true;
    }
    return false;
  }

  var main = document.querySelector("main");
  if (main) focusFirstError(main);

  // A swap that replaced the element holding the focus would leave it on <body>, and
  // a keyboard user back at the top of the page: it goes to the same place in the new
  // content (the element with the same id), else to what followed the removed part.
  var focusAnchor = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail && event.detail.target;
    var active = document.activeElement;
    focusAnchor = null;
    if (!target || !active || active === document.body || !target.contains(active)) return;
    var holder = active.closest("[id]");
    focusAnchor = {
      id: holder && target.contains(holder) ? holder.id : target.id,
      next: target.nextElementSibling,
      parent: target.parentElement,
    };
    // A swap that removes its target (a row deleted, an empty answer) settles on an
    // element no longer in the page, whose events never reach this document's
    // listener: the focus is put back after it all the same.
    window.setTimeout(function () { refocus(null); }, 60);
  });
  function refocus(swapped) {
    var anchor = focusAnchor;
    focusAnchor = null;
    // Where htmx kept it (an element with the same id) or a page's script put it stays.
    if (document.activeElement && document.activeElement !== document.body) return;
    if (swapped && swapped.querySelector && focusFirstError(swapped)) return;
    if (!anchor) return;
    var place = (anchor.id && document.getElementById(anchor.id)) ||
      (anchor.next && anchor.next.isConnected ? anchor.next : null) ||
      (anchor.parent && anchor.parent.isConnected ? anchor.parent : null);
    focusWithin(place);
  }
  document.addEventListener("htmx:afterSettle", function (event) {
    refocus(event.detail && event.detail.elt);
  });

  // A swap that removes what it acted on says what it did (HX-Trigger "ws-flash",
  // {message, category}), as the page it replaces would have with a flash.
  document.addEventListener("ws-flash", function (event) {
    var detail = event.detail || {};
    if (detail.message) showFlash(String(detail.message), detail.category || "success");
  });
})();
