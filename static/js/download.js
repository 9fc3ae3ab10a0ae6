/* Downloads that take a while (the dashboard PDF): a link marked
   [data-download-progress] is fetched in the background while a status next to it
   says "Preparing PDF…" with a spinner (role=status, aria-live, so screen readers
   hear it), then the file is saved through a temporary object URL and the status says
   "Downloaded". On an error the status shows the server's own message (the problem's
   "detail"). Without fetch or object URLs the link stays a plain download link.
   data-download-progress="<label>" names what is prepared (default "PDF"). */
(function () {
  "use strict";

  var REVOKE_AFTER_MS = 60000;

  function statusFor(link) {
    var el = link._downloadStatus;
    if (!el) {
      el = document.createElement("span");
      el.className = "download-status small";
      el.setAttribute("role", "status");
      el.setAttribute("aria-live", "polite");
      link.insertAdjacentElement("afterend", el);
      link._downloadStatus = el;
    }
    return el;
  }

  function show(el, text, state) {
    el.textContent = "";
    el.setAttribute("data-state", state);
    el.classList.toggle("muted", state !== "error");
    el.classList.toggle("field-error", state === "error"); // app.css: danger colour
    if (state === "busy") {
      var spinner = document.createElement("span");
      spinner.className = "spinner";
      spinner.setAttribute("aria-hidden", "true");
      el.appendChild(spinner);
      el.appendChild(document.createTextNode(" "));
    }
    el.appendChild(document.createTextNode(text));
  }

  // RFC 6266: prefer filename*=UTF-8''…, fall back to filename="…".
  function fileName(header, fallback) {
    if (header) {
      var star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
      if (star) {
        try { return decodeURIComponent(star[1].trim()); } catch (e) { /* use the next */ }
      }
      var plain = /filename\s*=\s*"([^"]+)"/i.exec(header) || /filename\s*=\s*([^;\s]+)/i.exec(header);
      if (plain) return plain[1];
    }
    return fallback;
  }

  function fallbackName(href) {
    var path = href.split("?")[0].split("#")[0];
    return path.substring(path.lastIndexOf("/") + 1) || "download";
  }

  // The server's message: a problem's detail (or title), else its text, else the status.
  function messageOf(resp) {
    var generic = "The download failed (HTTP " + resp.status + "). Try again.";
    var type = resp.headers.get("Content-Type") || "";
    if (type.indexOf("json") !== -1) {
      return resp.json().then(function (body) {
        return (body && (body.detail || body.title || body.message)) || generic;
      }, function () { return generic; });
    }
    return resp.text().then(function (text) {
      text = (text || "").trim();
      return text && text.length < 500 && text.indexOf("<") === -1 ? text : generic;
    }, function () { return generic; });
  }

  function save(blob, name) {
    var url = URL.createObjectURL(blob);
    var a = document.createElement("a");
    a.href = url;
    a.download = name;
    a.hidden = true;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, REVOKE_AFTER_MS);
  }

  function download(link) {
    var what = link.getAttribute("data-download-progress") || "PDF";
    var status = statusFor(link);
    link.setAttribute("aria-busy", "true");
    show(status, "Preparing " + what + "\u2026", "busy");
    return fetch(link.href, { credentials: "same-origin" })
      .then(function (resp) {
        if (!resp.ok) {
          return messageOf(resp).then(function (message) { throw new Error(message); });
        }
        var name = fileName(resp.headers.get("Content-Disposition"), fallbackName(link.href));
        return resp.blob().then(function (blob) {
          save(blob, name);
          show(status, "Downloaded", "done");
        });
      })
      .catch(function (err) {
        var message = err && err.message && err.message !== "Failed to fetch"
          ? err.message
          : "The download failed: the server could not be reached. Try again.";
        show(status, message, "error");
      })
      .then(function () { link.removeAttribute("aria-busy"); });
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-download-progress]");
    if (!link || event.defaultPrevented || event.button !== 0) return;
    // A modified click (new tab, save as) keeps the browser's own behaviour.
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if (!window.fetch || !window.URL || !URL.createObjectURL) return;
    event.preventDefault();
    if (link.getAttribute("aria-busy") === "true") return; // one download at a time
    download(link);
  });
})();
