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
  // Confirm destructive plain forms (those without htmx) before submitting.
  document.addEventListener("submit", function (e) {
    var msg = e.target.getAttribute && e.target.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) e.preventDefault();
  }, true);
  // The mobile menu toggle.
  document.addEventListener("click", function (e) {
    var t = e.target.closest && e.target.closest("[data-toggle-nav]");
    if (t) document.body.classList.toggle("nav-open");
  });
})();
