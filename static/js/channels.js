// Channels: the live stream's updates, the composer and the scrolling of
// a channel's messages.
(function () {
  "use strict";

  // keepOpen carries what the person is doing in a message into its new
  // rendering, so a live update (a reaction, the message delivered again)
  // never closes it under their hands: an open reaction picker stays open,
  // and an open edit keeps its typed text and the caret. An edit is carried
  // only while the message's text is unchanged: its new rendering holds
  // the new version tag, and carrying the typed text over a change made
  // elsewhere would overwrite that change unseen. It returns what to do
  // once the new rendering is in the page.
  function keepOpen(old, el) {
    var focused = old.contains(document.activeElement) ? document.activeElement : null;
    var caret = null;
    old.querySelectorAll("details[open]").forEach(function (d) {
      var twin = el.querySelector("details." + d.classList[0]);
      if (!twin) return;
      if (d.classList.contains("message-edit")) {
        var was = d.querySelector('input[name="state"]'), now = twin.querySelector('input[name="state"]');
        if (!was || !now || was.value !== now.value) return;
        var typed = d.querySelector("textarea"), into = twin.querySelector("textarea");
        if (typed && into) {
          into.value = typed.value;
          if (focused === typed) caret = { el: into, start: typed.selectionStart, end: typed.selectionEnd };
        }
      }
      twin.open = true;
    });
    return function () {
      if (caret) {
        caret.el.focus();
        caret.el.setSelectionRange(caret.start, caret.end);
      }
    };
  }

  // A message the page already shows (sent from this tab, or delivered
  // again after a reconnect) is replaced, never shown twice; when it is
  // shown as it is (the same data-rev), it is left alone.
  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    var frag = e.detail.fragment;
    if (!frag || !frag.querySelectorAll) return;
    var root = frag.nodeType === 11 ? frag.firstElementChild : frag;
    if (!root || root.id === "messages" || root.getAttribute("hx-swap-oob") === "delete") return;
    var fresh = frag.querySelectorAll('article[id^="msg-"]');
    var replaced = 0;
    Array.prototype.forEach.call(fresh, function (el) {
      var old = document.getElementById(el.id);
      if (old && old !== el && old.dataset.rev && old.dataset.rev === el.dataset.rev) {
        // The page shows it as it is: the element stays, and with it a
        // click the person has begun on it.
        el.remove();
        replaced++;
      } else if (old && old !== el) {
        var keep = keepOpen(old, el);
        old.replaceWith(el);
        keep();
        htmx.process(el);
        replaced++;
      }
    });
    if (replaced > 0 && replaced === fresh.length && !(frag.nodeType === 11 ? frag.firstElementChild : frag.firstElementChild)) {
      e.detail.shouldSwap = false;
    }
  });

  // The body says whether its live stream is open (for people, the
  // styles; for tests, a condition to wait on).
  document.addEventListener("htmx:sseOpen", function () { document.body.dataset.live = "open"; });
  // A stream the extension opens again (it sends no Last-Event-ID) must
  // bring the channel's messages whole: edits and deletions made meanwhile
  // do not change the number of the latest message the URL carries.
  document.addEventListener("htmx:sseError", function () {
    document.body.dataset.live = "closed";
    var url = document.body.getAttribute("sse-connect");
    if (url && /[?&]seq=/.test(url)) {
      document.body.setAttribute("sse-connect", url.replace(/([?&]seq=)[^&]*/, "$1-1"));
    }
  });

  function scroller() { return document.getElementById("message-scroll"); }
  function nearBottom(el) { return el.scrollHeight - el.scrollTop - el.clientHeight < 120; }

  var stick = true;
  document.addEventListener("scroll", function (e) {
    var el = scroller();
    if (el && e.target === el) stick = nearBottom(el);
  }, true);
  document.addEventListener("htmx:oobAfterSwap", function () {
    var el = scroller();
    if (el && stick) el.scrollTop = el.scrollHeight;
  });

  // Older messages come in above what the person reads: the pane keeps
  // its distance from the bottom, so what was in view stays in view (the
  // pane's own scroll anchoring is off: it would move it twice).
  var fromBottom = null;
  document.addEventListener("htmx:beforeSwap", function (e) {
    var el = scroller();
    if (el && e.detail.target && e.detail.target.matches && e.detail.target.matches(".older")) {
      fromBottom = el.scrollHeight - el.scrollTop;
    }
  });
  document.addEventListener("htmx:afterSwap", function () {
    var el = scroller();
    if (el && fromBottom !== null) {
      el.scrollTop = el.scrollHeight - fromBottom;
      fromBottom = null;
    }
  });

  // The composer's text is kept in the tab (sessionStorage) as it is
  // typed, so a message not sent (the session ended on another device, a
  // reload, the network) is still there when the person comes back to the
  // channel; once the composer comes back emptied (sent), it is forgotten.
  function composers() { return document.querySelectorAll('form.composer'); }
  function draftKey(form) { return "kanri-draft:" + form.getAttribute("action"); }
  function keepDraft(form) {
    var text = form.querySelector('textarea[name="content"]');
    if (!text) return;
    try {
      if (text.value.trim() === "") sessionStorage.removeItem(draftKey(form));
      else sessionStorage.setItem(draftKey(form), text.value);
    } catch (_) { /* storage full or refused: the text stays on the page */ }
  }
  document.addEventListener("input", function (e) {
    var form = e.target.closest && e.target.closest("form.composer");
    if (form && e.target.name === "content") keepDraft(form);
  });
  document.addEventListener("htmx:afterSwap", function () { composers().forEach(keepDraft); });
  function restoreDrafts() {
    composers().forEach(function (form) {
      var text = form.querySelector('textarea[name="content"]'), saved = null;
      try { saved = sessionStorage.getItem(draftKey(form)); } catch (_) { return; }
      if (text && saved && text.value === "") text.value = saved;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    restoreDrafts();
    var el = scroller();
    if (!el) return;
    var first = document.getElementById("first-unread");
    if (first) {
      el.scrollTop = first.offsetTop - el.offsetTop - 40;
      stick = nearBottom(el);
    } else {
      el.scrollTop = el.scrollHeight;
    }
  });

  // The channel's path, under which its messages' actions are posted.
  function channelPath() { var el = scroller(); return el ? el.dataset.channel : ""; }

  // A message's reaction picker is filled with the page's one set of
  // emoji (ReactChoices) when it opens, posting to the message: a message
  // carries no set of its own, neither in the page nor in what the live
  // stream delivers. "toggle" does not bubble: it is heard on its way down.
  document.addEventListener("toggle", function (e) {
    var picker = e.target;
    if (!picker.matches || !picker.matches("details.react-picker") || !picker.open || picker.querySelector("form")) return;
    var choices = document.getElementById("react-choices");
    var article = picker.closest('article[id^="msg-"]');
    if (!choices || !article || !channelPath()) return;
    var url = channelPath() + "/messages/" + encodeURIComponent(article.id.slice(4)) + "/react";
    var form = choices.content.firstElementChild.cloneNode(true);
    form.setAttribute("action", url);
    form.setAttribute("hx-post", url);
    picker.appendChild(form);
    htmx.process(form);
  }, true);

  // A message marked to be read (the newest the person had not read) tells
  // the server once it scrolls into view (inside the scrolling pane: the
  // observer sees the clipping of its ancestors).
  var reader = "IntersectionObserver" in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (en) {
      if (!en.isIntersecting) return;
      reader.unobserve(en.target);
      var article = en.target.closest("article[data-seq]");
      if (article && channelPath()) {
        // Once, like htmx's "intersect once": a tab offline now tells the
        // server with a later message (its read mark covers this one).
        var sent = htmx.ajax("POST", channelPath() + "/read", { source: en.target, values: { seq: article.dataset.seq }, swap: "none" });
        if (sent && sent.catch) sent.catch(function () {});
      }
    });
  }) : null;
  function watchMarks(root) {
    if (!reader || !root.querySelectorAll) return;
    if (root.matches && root.matches(".read-mark")) reader.observe(root);
    root.querySelectorAll(".read-mark").forEach(function (m) { reader.observe(m); });
  }
  document.addEventListener("DOMContentLoaded", function () {
    var el = scroller();
    if (!el) return;
    watchMarks(el);
    new MutationObserver(function (changes) {
      changes.forEach(function (c) { c.addedNodes.forEach(watchMarks); });
    }).observe(el, { childList: true, subtree: true });
  });

  // A reaction chosen closes its picker (a live update keeps open ones
  // open).
  document.addEventListener("submit", function (e) {
    var picker = e.target.closest && e.target.closest("details.react-picker");
    if (picker) picker.open = false;
  });

  // Enter sends the composer's message (Shift+Enter starts a new line).
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing && t.matches && t.matches("textarea[data-submit-on-enter]")) {
      e.preventDefault();
      if (t.value.trim() !== "" && t.form) t.form.requestSubmit();
    }
  });
})();
