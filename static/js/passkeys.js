// Passkeys: a form with data-passkey runs a WebAuthn ceremony before it
// posts (views/passkeys.templ). It asks data-options-url for the options
// (posting the form's fields, CSRF token included), has the browser
// create ("add") or use ("signin", "step") a passkey, puts the answer in
// the hidden field credential as JSON and posts the form. What goes wrong
// is said in the form, in the page's language: in the browser from the
// form's data-msg-*, a refusal of the options from the server's JSON;
// the server's verdict on the answer comes back as a page.
(function () {
  "use strict";
  var PKC = window.PublicKeyCredential;
  var native = !!PKC && typeof PKC.parseCreationOptionsFromJSON === "function" &&
    typeof PKC.parseRequestOptionsFromJSON === "function" && typeof PKC.prototype.toJSON === "function";

  // base64url without padding, to and from bytes: for browsers without
  // the JSON forms of the options and credentials.
  function enc(buf) {
    var s = "", b = new Uint8Array(buf);
    for (var i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function dec(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    return Uint8Array.from(atob(s), function (c) { return c.charCodeAt(0); }).buffer;
  }
  function ids(list) {
    return (list || []).map(function (c) { return Object.assign({}, c, { id: dec(c.id) }); });
  }
  function creationOptions(j) {
    if (native) return PKC.parseCreationOptionsFromJSON(j);
    return Object.assign({}, j, { challenge: dec(j.challenge), user: Object.assign({}, j.user, { id: dec(j.user.id) }), excludeCredentials: ids(j.excludeCredentials) });
  }
  function requestOptions(j) {
    if (native) return PKC.parseRequestOptionsFromJSON(j);
    return Object.assign({}, j, { challenge: dec(j.challenge), allowCredentials: ids(j.allowCredentials) });
  }
  function toJSON(cred) {
    if (native) return cred.toJSON();
    var r = cred.response;
    var o = { id: cred.id, rawId: enc(cred.rawId), type: cred.type, clientExtensionResults: cred.getClientExtensionResults(), response: { clientDataJSON: enc(r.clientDataJSON) } };
    if (cred.authenticatorAttachment) o.authenticatorAttachment = cred.authenticatorAttachment;
    if (r.attestationObject) {
      o.response.attestationObject = enc(r.attestationObject);
      o.response.transports = r.getTransports ? r.getTransports() : [];
    } else {
      o.response.authenticatorData = enc(r.authenticatorData);
      o.response.signature = enc(r.signature);
      if (r.userHandle) o.response.userHandle = enc(r.userHandle);
    }
    return o;
  }

  function say(form, msg) {
    var out = form.querySelector("[data-passkey-error]");
    if (!out) return;
    out.textContent = msg;
    out.hidden = !msg;
  }

  function message(form, err) {
    switch (err && err.name) {
      case "Refused":
        return err.message;
      case "NotAllowedError":
      case "AbortError":
        return form.dataset.msgCancelled;
      case "InvalidStateError":
        return form.dataset.msgExists;
      case "NotSupportedError":
        return form.dataset.msgUnsupported;
    }
    return form.dataset.msgFailed;
  }

  function run(form) {
    var body = new URLSearchParams(new FormData(form));
    body.delete("credential");
    return fetch(form.dataset.optionsUrl, {
      method: "POST", credentials: "same-origin", body: body,
      headers: { "Accept": "application/json" }
    }).then(function (res) {
      if (res.redirected) {
        // The session ended meanwhile: the server sent the sign-in page.
        window.location.assign(res.url);
        return new Promise(function () {});
      }
      return res.json().catch(function () { return {}; }).then(function (body) {
        if (!res.ok || !body.publicKey) {
          // The server's refusal (no passkeys at this address, a sign-in
          // run out), in the page's language.
          var err = new Error(body.message || form.dataset.msgFailed);
          err.name = "Refused";
          throw err;
        }
        return body;
      });
    }).then(function (opts) {
      if (form.dataset.passkey === "add") {
        return navigator.credentials.create({ publicKey: creationOptions(opts.publicKey) });
      }
      return navigator.credentials.get({ publicKey: requestOptions(opts.publicKey) });
    }).then(function (cred) {
      form.querySelector('input[name="credential"]').value = JSON.stringify(toJSON(cred));
      // The password confirmed the options; the answer goes without it.
      form.querySelectorAll('input[type="password"]').forEach(function (i) { i.value = ""; });
      form.dataset.passkeyReady = "true";
      form.submit();
    });
  }

  // A page shown again from the back-forward cache runs a new ceremony.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-passkey]").forEach(function (f) {
      delete f.dataset.passkeyReady;
      f.querySelector('input[name="credential"]').value = "";
    });
  });

  document.addEventListener("submit", function (e) {
    var form = e.target.closest("form[data-passkey]");
    if (!form || form.dataset.passkeyReady === "true") return;
    e.preventDefault();
    if (!PKC || !navigator.credentials) {
      say(form, form.dataset.msgUnsupported);
      return;
    }
    if (!form.reportValidity()) return;
    var buttons = form.querySelectorAll("button");
    buttons.forEach(function (b) { b.disabled = true; });
    say(form, "");
    run(form).catch(function (err) {
      delete form.dataset.passkeyReady;
      say(form, message(form, err));
    }).finally(function () {
      buttons.forEach(function (b) { b.disabled = false; });
    });
  });
})();
