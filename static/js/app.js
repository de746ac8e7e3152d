// Kanri's only script besides htmx: no inline scripts, so the CSP can forbid them.
// It is loaded in <head> without defer, so its listeners exist before any
// form is parsed: with defer, a click on a destructive button before the
// page finished loading would submit without the data-confirm question.
(function () {
  // Send the CSRF token with every htmx request.
  document.addEventListener("htmx:configRequest", function (e) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta) e.detail.headers["X-CSRF-Token"] = meta.content;
  });
  // Auto-submit selects marked data-autosubmit (tenant switcher, filters).
  document.addEventListener("change", function (e) {
    var el = e.target;
    if (el.matches && el.matches("[data-autosubmit]") && el.form) {
      if (el.form.requestSubmit) el.form.requestSubmit(); else el.form.submit();
    }
  });
  // Copy buttons (data-copy="#id") copy that element's text, or the
  // button's data-copy-text where the text must keep its lines (a list's
  // items), and say so (data-copied, in the button and in a status beside
  // it). Where the
  // clipboard is unavailable (no secure context, permission refused), the
  // text is selected instead and the status says to copy it by hand
  // (data-selected).
  function copyStatus(btn, msg) {
    var status = btn.parentNode && btn.parentNode.querySelector("[data-copy-status]");
    if (status) status.textContent = msg;
  }
  function selectText(btn, src) {
    var range = document.createRange();
    range.selectNodeContents(src);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    btn.setAttribute("data-done", "selected");
    copyStatus(btn, btn.getAttribute("data-selected") || "");
  }
  document.addEventListener("click", function (e) {
    var btn = e.target.closest && e.target.closest("[data-copy]");
    if (!btn) return;
    var src = document.querySelector(btn.getAttribute("data-copy"));
    if (!src) return;
    if (!navigator.clipboard || !navigator.clipboard.writeText) { selectText(btn, src); return; }
    var text = btn.hasAttribute("data-copy-text") ? btn.getAttribute("data-copy-text") : src.textContent.trim();
    navigator.clipboard.writeText(text).then(function () {
      var msg = btn.getAttribute("data-copied") || btn.textContent;
      if (btn.hasAttribute("data-selected")) copyStatus(btn, msg); else btn.textContent = msg;
      btn.setAttribute("data-done", "1");
    }, function () { selectText(btn, src); });
  });
  // Switching language or theme on a form shown again with its errors (the
  // answer to a POST) leads to the page a GET opens, the form's own page:
  // what the person typed goes with them, kept for that one page load in
  // sessionStorage (never passwords, files or the CSRF token; the version
  // the form was read at goes too, so a stale edit is still detected), and
  // is put back into the form that posts to the same address.
  var keepKey = "kanri:kept-form";
  document.addEventListener("submit", function (e) {
    var sw = e.target;
    if (!sw.matches || !sw.matches("form.lang, form.theme")) return;
    var form = document.querySelector("main form[method=post][data-keep]");
    if (!form) return;
    var fields = [];
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.name === "_csrf" || /^(password|file|submit|button)$/.test(el.type)) return;
      if ((el.type === "checkbox" || el.type === "radio") && !el.checked) return;
      fields.push([el.name, el.value]);
    });
    try { sessionStorage.setItem(keepKey, JSON.stringify({ action: form.getAttribute("action"), fields: fields })); } catch (_) {}
  });
  document.addEventListener("DOMContentLoaded", function () {
    var kept;
    try { kept = JSON.parse(sessionStorage.getItem(keepKey) || "null"); sessionStorage.removeItem(keepKey); } catch (_) { return; }
    if (!kept) return;
    var form = Array.prototype.find.call(document.querySelectorAll("main form[method=post][data-keep]"), function (f) {
      return f.getAttribute("action") === kept.action;
    });
    if (!form) return;
    var has = function (name, value) {
      return kept.fields.some(function (f) { return f[0] === name && (value === undefined || f[1] === value); });
    };
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.name === "_csrf" || /^(password|file|submit|button)$/.test(el.type)) return;
      if (el.type === "checkbox" || el.type === "radio") { el.checked = has(el.name, el.value); return; }
      var f = kept.fields.find(function (f) { return f[0] === el.name; });
      if (f) el.value = f[1];
    });
  });
  // Confirm destructive plain forms (those without htmx) before submitting:
  // the question is the clicked button's (a form with several actions,
  // each with its formaction), else the form's.
  document.addEventListener("submit", function (e) {
    var by = e.submitter;
    var msg = by && by.hasAttribute("data-confirm") ? by.getAttribute("data-confirm") :
      e.target.getAttribute && e.target.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) e.preventDefault();
  }, true);
  // A request of htmx that fails says so on the page: the server refused it
  // (4xx), failed (5xx), or could not be reached or answer in time.
  function showRequestError(key) {
    var box = document.getElementById("request-error");
    if (!box) return;
    box.textContent = box.getAttribute("data-msg-" + key) || box.getAttribute("data-msg-5xx");
    box.hidden = false;
    box.scrollIntoView({ block: "nearest" });
  }
  function hideRequestError() {
    var box = document.getElementById("request-error");
    if (box) box.hidden = true;
  }
  document.addEventListener("htmx:responseError", function (e) {
    var status = e.detail.xhr ? e.detail.xhr.status : 0;
    showRequestError(status === 403 || status === 404 ? String(status) : status >= 500 ? "5xx" : "4xx");
  });
  document.addEventListener("htmx:sendError", function () { showRequestError("network"); });
  document.addEventListener("htmx:timeout", function () { showRequestError("timeout"); });

  // While a request runs, the element that sent it shows it is busy and its
  // buttons are disabled, so that a second click sends nothing.
  function buttonsOf(el) {
    if (el.matches("button")) return [el];
    return Array.prototype.slice.call(el.querySelectorAll("button"));
  }
  // A live search (a GET) is never blocked: the newest one wins.
  document.addEventListener("htmx:beforeRequest", function (e) {
    var el = e.detail.elt;
    var read = e.detail.requestConfig && e.detail.requestConfig.verb === "get";
    if (!read && el.getAttribute("aria-busy") === "true") {
      e.preventDefault(); // already sending
      return;
    }
    hideRequestError();
    el.setAttribute("aria-busy", "true");
    if (!read) buttonsOf(el).forEach(function (b) { b.disabled = true; });
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    var el = e.detail.elt;
    el.removeAttribute("aria-busy");
    buttonsOf(el).forEach(function (b) { b.disabled = false; });
  });
  // A plain form is sent once: its buttons are disabled once it is on its
  // way (after the browser took the clicked button's value).
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (e.defaultPrevented || form.hasAttribute("hx-post") || form.hasAttribute("hx-get") || form.method === "get") return;
    if (form.getAttribute("aria-busy") === "true") { e.preventDefault(); return; }
    form.setAttribute("aria-busy", "true");
    setTimeout(function () { buttonsOf(form).forEach(function (b) { b.disabled = true; }); }, 0);
  });
  // Coming back to a page (Back after a submit) finds its forms ready again.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[aria-busy]").forEach(function (f) {
      f.removeAttribute("aria-busy");
      buttonsOf(f).forEach(function (b) { b.disabled = false; });
    });
  });

  // After a refused form, focus goes to the first field in error, or to
  // the message about the whole form.
  document.addEventListener("DOMContentLoaded", function () {
    var el = document.querySelector('[aria-invalid="true"]') || document.querySelector('[data-testid="form-error"]');
    if (el) el.focus();
  });

  // The mobile menu toggle says whether the menu is open (aria-expanded).
  document.addEventListener("click", function (e) {
    var t = e.target.closest && e.target.closest("[data-toggle-nav]");
    if (!t) return;
    var open = document.body.classList.toggle("nav-open");
    t.setAttribute("aria-expanded", String(open));
  });

  // On a narrow screen a list's rows are cards (static/css/app.css): each
  // cell shows its column's heading from data-label. The labels come from
  // the table's own headings, so that no view repeats them; a cell that has
  // one already keeps it.
  function labelCells(root) {
    var tables = root.querySelectorAll ? root.querySelectorAll(".table-wrap table") : [];
    Array.prototype.forEach.call(tables, function (table) {
      var heads = table.querySelectorAll("thead th");
      if (!heads.length) return;
      var labels = Array.prototype.map.call(heads, function (th) {
        var c = th.cloneNode(true);
        Array.prototype.forEach.call(c.querySelectorAll("[aria-hidden]"), function (n) { n.remove(); });
        return c.textContent.replace(/\s+/g, " ").trim();
      });
      Array.prototype.forEach.call(table.querySelectorAll("tbody tr"), function (tr) {
        var col = 0;
        Array.prototype.forEach.call(tr.children, function (cell) {
          if (labels[col] && !cell.hasAttribute("data-label")) cell.setAttribute("data-label", labels[col]);
          col += cell.colSpan || 1;
        });
      });
    });
  }
  document.addEventListener("DOMContentLoaded", function () { labelCells(document); });
  document.addEventListener("htmx:afterSwap", function (e) { labelCells(document); });

  // The tab's title leads with the number of unread messages of the
  // navigation's badge (which a live page keeps current), so a tab left
  // open in the background says so.
  var baseTitle = null;
  function titleUnread() {
    if (baseTitle === null) baseTitle = document.title;
    var b = document.getElementById("nav-unread");
    var n = b && !b.hidden ? b.getAttribute("data-count") : "";
    document.title = n ? "(" + n + ") " + baseTitle : baseTitle;
  }
  document.addEventListener("DOMContentLoaded", titleUnread);
  document.addEventListener("htmx:oobAfterSwap", titleUnread);
})();
