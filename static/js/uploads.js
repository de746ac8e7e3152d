// Uploads of the files pages: files dropped on or picked in the upload zone
// go to Kanri's tus endpoint with tus-js-client (vendored beside this file),
// each with its progress bar and a pause/resume button. An upload broken by
// the network or a server restart continues where it stopped: the client
// retries, asks the server how far it got, and sends the rest; the address
// of each upload is remembered (localStorage) so that adding the same file
// again after a reload resumes it too.
(function () {
  "use strict";
  var zone = document.querySelector("[data-upload-zone]");
  if (!zone || !window.tus) return;
  var list = zone.querySelector("[data-uploads]");
  var input = zone.querySelector("input[type=file]");
  var msg = function (name) { return zone.getAttribute("data-msg-" + name) || name; };
  var csrf = (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  var running = 0;

  // refresh replaces the list and the storage meter with the folder's
  // page as it is now, once no upload is running.
  function refresh() {
    if (running > 0) return;
    fetch(zone.getAttribute("data-refresh"), { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (resp) { return resp.ok ? resp.text() : Promise.reject(resp.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        ["#file-results", "#storage", "#unfinished"].forEach(function (sel) {
          var fresh = doc.querySelector(sel);
          var old = document.querySelector(sel);
          if (!fresh || !old) return;
          old.replaceWith(fresh);
          if (window.htmx) htmx.process(fresh);
        });
      })
      .catch(function () { /* the list stays as it was; a reload shows it */ });
  }

  function row(file) {
    var li = document.createElement("li");
    li.setAttribute("data-testid", "upload-row");
    li.setAttribute("data-name", file.name);
    var name = document.createElement("span");
    name.className = "upload-name";
    name.textContent = file.name;
    var bar = document.createElement("progress");
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute("data-testid", "upload-progress");
    bar.setAttribute("aria-label", file.name);
    var pct = document.createElement("span");
    pct.className = "upload-pct";
    pct.setAttribute("data-testid", "upload-percent");
    pct.textContent = "0%";
    var btn = document.createElement("button");
    btn.type = "button";
    btn.className = "btn small";
    btn.textContent = msg("pause");
    btn.setAttribute("data-testid", "upload-toggle");
    var status = document.createElement("span");
    status.className = "upload-status";
    status.setAttribute("data-testid", "upload-status");
    status.setAttribute("role", "status");
    li.append(name, bar, pct, btn, status);
    list.appendChild(li);
    return { li: li, bar: bar, pct: pct, btn: btn, status: status };
  }

  // start uploads file: anew, or continuing the upload at resumeURL.
  function start(file, resumeURL) {
    var ui = row(file);
    var meta = { filename: file.name, filetype: file.type || "" };
    var folder = zone.getAttribute("data-folder");
    if (folder) meta.folderId = folder;
    var done = false;
    var upload = new tus.Upload(file, {
      endpoint: zone.getAttribute("data-endpoint"),
      uploadUrl: resumeURL || null,
      metadata: meta,
      headers: { "X-CSRF-Token": csrf },
      retryDelays: [0, 1000, 3000, 5000, 10000, 20000],
      removeFingerprintOnSuccess: true,
      onProgress: function (sent, total) {
        var p = total > 0 ? Math.floor((sent / total) * 100) : 100;
        ui.bar.value = p;
        ui.pct.textContent = p + "%";
        ui.li.setAttribute("data-sent", String(sent));
      },
      onShouldRetry: function (err) {
        var st = err.originalResponse ? err.originalResponse.getStatus() : 0;
        if (st === 0 || st === 409 || st === 423 || st >= 500) {
          ui.status.textContent = msg("retrying");
          return true;
        }
        return false;
      },
      onSuccess: function () {
        done = true;
        running--;
        ui.bar.value = 100;
        ui.pct.textContent = "100%";
        ui.status.textContent = msg("done");
        ui.li.setAttribute("data-state", "done");
        ui.btn.remove();
        refresh();
      },
      onError: function (err) {
        running--;
        var text = msg("failed");
        if (err.originalResponse && err.originalResponse.getBody()) text = err.originalResponse.getBody();
        ui.status.textContent = text;
        ui.li.setAttribute("data-state", "failed");
        ui.li.classList.add("error");
        ui.btn.remove();
        refresh();
      },
    });
    ui.btn.addEventListener("click", function () {
      if (done) return;
      if (ui.li.getAttribute("data-state") === "paused") {
        ui.li.setAttribute("data-state", "uploading");
        ui.btn.textContent = msg("pause");
        ui.status.textContent = "";
        running++;
        upload.start();
      } else {
        ui.li.setAttribute("data-state", "paused");
        ui.btn.textContent = msg("resume");
        ui.status.textContent = msg("paused");
        running--;
        upload.abort();
      }
    });
    ui.li.setAttribute("data-state", "uploading");
    running++;
    if (resumeURL) {
      upload.start();
      return;
    }
    upload.findPreviousUploads().then(function (previous) {
      if (previous.length > 0) upload.resumeFromPreviousUpload(previous[0]);
      upload.start();
    });
  }

  function add(files) {
    for (var i = 0; i < files.length; i++) start(files[i]);
  }

  // Resume: the same file picked again for an upload in progress of the
  // list continues it where the server has it.
  document.addEventListener("change", function (e) {
    var pick = e.target;
    if (!pick.matches || !pick.matches("input[data-resume]") || !pick.files || !pick.files[0]) return;
    var item = pick.closest("[data-upload-url]");
    var file = pick.files[0];
    pick.value = "";
    if (file.name !== item.getAttribute("data-name") || String(file.size) !== item.getAttribute("data-size")) {
      item.querySelector("[role=status]").textContent = msg("mismatch")
        .replace("{name}", item.getAttribute("data-name"))
        .replace("{size}", item.getAttribute("data-size") + " B");
      return;
    }
    item.remove();
    start(file, item.getAttribute("data-upload-url"));
  });

  input.addEventListener("change", function () {
    add(input.files);
    input.value = "";
  });
  zone.addEventListener("dragover", function (e) {
    e.preventDefault();
    zone.classList.add("dragging");
  });
  zone.addEventListener("dragleave", function () { zone.classList.remove("dragging"); });
  zone.addEventListener("drop", function (e) {
    e.preventDefault();
    zone.classList.remove("dragging");
    if (e.dataTransfer && e.dataTransfer.files) add(e.dataTransfer.files);
  });
})();
