/* The task page (templates/tracker/task/, docs/tasks.md#editing-in-place): the title
   and the description edit where they are read.

   Each is a [data-inplace] field holding what is read (.inplace-view), its light Edit
   link (.inplace-edit, "Edit title") and its form (form.inplace-form, hidden). Without
   JavaScript the Edit link loads the page with the form open (?edit=title) and Cancel
   is a link back; this script opens and closes the form in place instead:

   - a click on the title or the description text (not on a link in it, not while
     selecting text), or the Edit button (Enter or Space), opens the form and focuses it;
   - in the title, Enter saves (the form's own submit, HTMX swaps the field back);
     in the description, Ctrl+Enter or Cmd+Enter saves;
   - Escape (or Cancel) puts the saved text back, closes the form and returns the focus
     to the Edit button; after a save the focus goes there too (or stays in the box when
     the value was refused). A description or comment whose text was changed asks
     first ("Discard your changes?"), and leaving the page with one asks the browser's
     own question: Escape had thrown away paragraphs without a word;
   - the description's Write / Preview buttons show the draft rendered by the server's
     own safe Markdown (POST data-preview-url, the same size limit as a save). */
(function () {
  "use strict";

  var refocus = null; // the field whose save is on its way, to focus after the swap
  var previews = 0; // the latest preview asked for; an older answer is dropped

  function parts(field) {
    var form = field.querySelector("form.inplace-form");
    return {
      view: field.querySelector(".inplace-view"),
      edit: field.querySelector(".inplace-edit"),
      form: form,
      box: form && form.querySelector("input[type=text], textarea"),
      preview: field.querySelector(".inplace-preview"),
      status: field.querySelector("[data-inplace-status]"),
    };
  }

  function enhance(root) {
    // Edit and Cancel are links without JavaScript; here they act in place, as buttons.
    var links = root.querySelectorAll(".inplace-edit:not([role]), [data-inplace-cancel]:not([role])");
    for (var i = 0; i < links.length; i++) links[i].setAttribute("role", "button");
    var hidden = root.querySelectorAll("[data-inplace-keys][hidden], [data-inplace-mode=write][hidden]");
    for (var j = 0; j < hidden.length; j++) hidden[j].hidden = false;
  }

  function setMode(field, mode) {
    var p = parts(field);
    if (!p.preview) return;
    var buttons = field.querySelectorAll("[data-inplace-mode]");
    for (var i = 0; i < buttons.length; i++) {
      var on = buttons[i].getAttribute("data-inplace-mode") === mode;
      buttons[i].setAttribute("aria-pressed", on ? "true" : "false");
    }
    var previewing = mode === "preview";
    p.box.hidden = previewing;
    p.preview.hidden = !previewing;
    if (!previewing) {
      previews++;
      return;
    }
    var asked = ++previews;
    var button = field.querySelector("[data-inplace-mode=preview]");
    p.preview.setAttribute("aria-busy", "true");
    p.preview.textContent = "Rendering the preview…";
    fetch(button.getAttribute("data-preview-url"), {
      method: "POST",
      body: new FormData(p.form),
      credentials: "same-origin",
      headers: { "HX-Request": "true" },
    })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        if (asked !== previews) return; // back to Write, or asked again since
        // The server's own rendering: raw HTML off, links vetted (markdown.py).
        p.preview.innerHTML = html;
        p.preview.removeAttribute("aria-busy");
        if (p.status) p.status.textContent = "Preview shown. Write returns to the text.";
      })
      .catch(function () {
        if (asked !== previews) return;
        p.preview.removeAttribute("aria-busy");
        p.preview.textContent = "Could not reach the server for a preview; try again.";
      });
  }

  function open(field) {
    var p = parts(field);
    if (!p.form) return;
    p.view.hidden = true;
    if (p.edit) p.edit.hidden = true;
    p.form.hidden = false;
    setMode(field, "write");
    p.box.focus();
    var end = p.box.value.length;
    p.box.setSelectionRange(end, end);
  }

  // A text box whose words would be lost: a description or comment changed from what is
  // saved. A one-line title is quick to type again and does not ask.
  function unsaved(box) {
    if (!box || box.tagName !== "TEXTAREA") return false;
    var saved = box.hasAttribute("data-saved") ? box.getAttribute("data-saved") : box.defaultValue;
    return box.value.trim() !== saved.trim();
  }

  function mayDiscard(box) {
    return !unsaved(box) || window.confirm("Discard your changes? What you typed is lost.");
  }

  var submitting = false; // a form on its way: leaving the page is what it asked for
  document.addEventListener("submit", function () { submitting = true; }, true);
  document.addEventListener("htmx:afterRequest", function () { submitting = false; });
  window.addEventListener("beforeunload", function (event) {
    if (submitting) return;
    var open = document.querySelectorAll(
      "form.inplace-form:not([hidden]) textarea, details.task-edit[open] textarea, #comment-form textarea"
    );
    if (Array.prototype.some.call(open, unsaved)) {
      event.preventDefault();
      event.returnValue = ""; // the browser words the question itself
    }
  });

  function close(field) {
    var p = parts(field);
    if (!p.form || !mayDiscard(p.box)) return;
    setMode(field, "write");
    p.box.value = p.box.getAttribute("data-saved") || "";
    p.form.hidden = true;
    p.view.hidden = false;
    if (p.edit) {
      p.edit.hidden = false;
      p.edit.focus();
    }
  }

  function selecting() {
    var selection = window.getSelection && window.getSelection();
    return !!selection && !selection.isCollapsed && String(selection).trim() !== "";
  }

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (!(target instanceof Element)) return;
    var field = target.closest("[data-inplace]");
    if (!field) return;
    var opener = target.closest("[data-inplace-open]");
    if (opener) {
      var text = !opener.classList.contains("inplace-edit");
      if (text && (target.closest("a") || selecting())) return; // follow the link, keep the selection
      event.preventDefault();
      open(field);
      return;
    }
    if (target.closest("[data-inplace-cancel]")) {
      event.preventDefault();
      close(field);
      return;
    }
    var mode = target.closest("[data-inplace-mode]");
    if (mode) {
      event.preventDefault(); // Preview's formaction is the no-JavaScript path
      setMode(field, mode.getAttribute("data-inplace-mode"));
    }
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (!(target instanceof Element) || event.defaultPrevented) return;
    if (event.key === " " && target.matches("a[role=button]") && target.closest("[data-inplace]")) {
      event.preventDefault(); // a button opens on Space as on Enter
      target.click();
      return;
    }
    // A comment, new or edited: Ctrl+Enter (Cmd+Enter) posts it, as in the
    // description; Escape closes an edit, back to its Edit button.
    var comment = target.matches("textarea") && target.closest("#comment-form, details.task-edit form");
    if (comment) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        comment.requestSubmit();
      } else if (event.key === "Escape" && comment.closest("details.task-edit")) {
        event.preventDefault();
        if (!mayDiscard(target)) return;
        var edit = comment.closest("details.task-edit");
        target.value = target.defaultValue; // Escape discards, as the title's does
        edit.open = false;
        edit.querySelector("summary").focus();
      }
      return;
    }
    var form = target.closest("form.inplace-form");
    if (!form) return;
    var field = form.closest("[data-inplace]");
    if (event.key === "Escape") {
      event.preventDefault();
      close(field);
    } else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  // A comment edit saved swaps the whole discussion: the focus goes back to that
  // comment's Edit button, not to the page.
  var editedComment = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    var item = elt instanceof Element && elt.closest("details.task-edit") && elt.closest("li.tl-comment");
    editedComment = item ? item.id : null;
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (!editedComment) return;
    var edit = document.querySelector("#" + CSS.escape(editedComment) + " details.task-edit");
    editedComment = null;
    if (!edit) return;
    // Refused (left open with its message): back in the text; saved: on Edit.
    (edit.open ? edit.querySelector("textarea") : edit.querySelector("summary")).focus();
  });

  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    var field = elt instanceof Element && elt.matches("form.inplace-form") && elt.closest("[data-inplace]");
    if (field) refocus = field.id;
  });

  document.addEventListener("htmx:afterSettle", function () {
    enhance(document);
    if (!refocus) return;
    var field = document.getElementById(refocus);
    refocus = null;
    if (!field) return;
    var p = parts(field);
    if (p.form && !p.form.hidden) p.box.focus(); // refused: the message is by the box
    else if (p.edit) p.edit.focus();
  });

  /* The due date and the select fields (state, priority, kind, cycle, module) save on
     "change". A browser's date field fires it at every step of typing a date (the
     month typed makes 2026-01-01 of 2026-03-01, and the save's swap then takes the
     field from under the next digits), and a closed select fires it at every arrow
     key, so arrowing from Backlog to Cancelled saved each state on the way (Done
     included: a completion, a notification to every follower). A value typed or
     stepped with the keys saves once, when the field is left or Enter is pressed;
     Escape puts the saved value back. A value picked with the mouse (the calendar,
     the open list) saves at once. */
  function heldField(target) {
    if (target instanceof HTMLInputElement && target.type === "date" && target.form) return true;
    return target instanceof HTMLSelectElement && !!target.closest(".task-field-form[hx-trigger]");
  }

  function steppingKey(target, event) {
    var key = event.key;
    // Space, Alt+Down/Up and F4 open a select's list: its pick (Enter there, which the
    // page never sees) is a choice, saved at once like a mouse pick.
    if (target instanceof HTMLSelectElement && (key === " " || key === "F4" || (event.altKey && /^Arrow(Up|Down)$/.test(key)))) return false;
    if (key.length === 1 || /^(ArrowUp|ArrowDown)$/.test(key)) return true;
    if (target instanceof HTMLSelectElement) return /^(ArrowLeft|ArrowRight|Home|End|PageUp|PageDown)$/.test(key);
    return /^(Backspace|Delete)$/.test(key);
  }

  document.addEventListener(
    "keydown",
    function (event) {
      var input = event.target;
      if (!heldField(input)) return;
      if (event.key === "Enter") {
        if (input.dataset.pending === "1") {
          event.preventDefault();
          send(input);
        }
      } else if (event.key === "Escape" && input instanceof HTMLSelectElement && input.dataset.pending === "1") {
        var saved = input.querySelector("option[selected]");
        if (saved) input.value = saved.value;
        delete input.dataset.pending;
        delete input.dataset.typing;
      } else if (steppingKey(input, event)) {
        input.dataset.typing = "1";
      } else if (input instanceof HTMLSelectElement && !/^(Shift|Control|Alt|Meta|Tab)$/.test(event.key)) {
        delete input.dataset.typing; // its list opened
      }
    },
    true
  );

  document.addEventListener(
    "change",
    function (event) {
      var input = event.target;
      if (!heldField(input) || input.dataset.sending === "1") return;
      if (input.dataset.typing === "1") {
        event.stopImmediatePropagation(); // the form's autosave waits for the choice
        input.dataset.pending = "1";
      }
    },
    true
  );

  document.addEventListener("focusout", function (event) {
    var input = event.target;
    if (!heldField(input)) return;
    delete input.dataset.typing;
    if (input.dataset.pending === "1") send(input);
  });

  // A pick with the mouse is a choice, whatever keys were pressed before it.
  document.addEventListener("pointerdown", function (event) {
    if (heldField(event.target)) delete event.target.dataset.typing;
  }, true);

  function send(input) {
    delete input.dataset.pending;
    delete input.dataset.typing;
    input.dataset.sending = "1";
    input.dispatchEvent(new Event("change", { bubbles: true }));
    delete input.dataset.sending;
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { enhance(document); });
  } else {
    enhance(document);
  }
})();
