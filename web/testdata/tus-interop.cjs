// tus-interop.cjs drives Kanri's tus endpoint with the real tus-js-client
// (the npm package pinned in package.json) under Node, for
// web/tusinterop_test.go. It is not part of the product.
//
// Usage: node tus-interop.cjs '<json>' where the JSON holds
//   endpoint   the uploads' collection, e.g. http://127.0.0.1:PORT/t/ID/uploads
//   cookie     the Cookie header of a signed-in session
//   csrf       the session's CSRF token (sent as X-CSRF-Token)
//   file       the path of the file to upload
//   name, type the file's name and content type (tus metadata)
//   chunkSize  the bytes of one PATCH
//   mode       "resume": upload, abort while a PATCH is under way once
//                abortAt of the file was sent, then finish with a new
//                Upload given the first one's URL;
//              "plain": one upload with tus-js-client's defaults;
//              "creation-with-upload": one upload whose POST carries the
//                first chunk (uploadDataDuringCreation).
//   abortAt    the fraction of the file sent before the abort ("resume")
//
// It prints one JSON object on stdout: the upload's URL, the offsets at
// the abort and at the resume, the file id of the last response
// (Kanri-File-Id) and a log of every response tus-js-client received. On
// failure it prints the same object with "error" set and exits with 1.
"use strict";

const fs = require("node:fs");
const tus = require("tus-js-client");

const cfg = JSON.parse(process.argv[2]);
const out = {
  mode: cfg.mode,
  size: fs.statSync(cfg.file).size,
  uploadUrl: null,
  sentAtAbort: null,
  acceptedAtAbort: null,
  abortAfterDrain: false,
  resumeUrl: null,
  resumeOffset: null,
  fileId: null,
  log: [],
  error: null,
};

// number reads a header's value as a number, or null without it.
function number(v) {
  return v === undefined || v === null || v === "" ? null : Number(v);
}

// options are the Upload options of a phase (1: before the abort, 2: the
// resume), logging every response.
function options(phase, extra) {
  return {
    headers: { Cookie: cfg.cookie, "X-CSRF-Token": cfg.csrf },
    metadata: { filename: cfg.name, filetype: cfg.type },
    chunkSize: cfg.chunkSize,
    onAfterResponse(req, res) {
      out.log.push({
        phase,
        method: req.getMethod(),
        url: req.getURL(),
        sentOffset: number(req.getHeader("Upload-Offset")),
        status: res.getStatus(),
        offset: number(res.getHeader("Upload-Offset")),
        fileId: res.getHeader("Kanri-File-Id") || null,
      });
    },
    ...extra,
  };
}

// abortMidway starts an upload and aborts it during the first PATCH that
// is under way once abortAt of the file was sent. tus-js-client also
// reports the offsets a request starts at and a response confirmed; those
// are whole chunks, so an offset that is not one was reported while a
// PATCH's body was being sent. It reports that before the bytes reach the
// request, so the abort waits until the request has handed what it holds
// to the socket ('drain'): the server then has part of the PATCH's body
// when the connection closes (TCP delivers those bytes before the close).
function abortMidway() {
  return new Promise((resolve, reject) => {
    let accepted = 0;
    let aborted = false;
    let current = null; // the request being sent
    const file = fs.createReadStream(cfg.file);
    const abort = () => {
      up.abort().then(() => {
        file.destroy();
        resolve(up.url);
      }, reject);
    };
    const up = new tus.Upload(
      file,
      options(1, {
        endpoint: cfg.endpoint,
        onBeforeRequest(req) {
          current = req;
        },
        onChunkComplete(_size, bytesAccepted) {
          accepted = bytesAccepted;
        },
        onProgress(sent, total) {
          if (aborted || sent < total * cfg.abortAt || sent % cfg.chunkSize === 0 || sent >= total) {
            return;
          }
          aborted = true;
          out.uploadUrl = up.url;
          out.sentAtAbort = sent;
          out.acceptedAtAbort = accepted;
          const creq = current && current.getUnderlyingObject();
          setImmediate(() => {
            if (creq && creq.writableNeedDrain) {
              out.abortAfterDrain = true;
              creq.once("drain", abort);
            } else {
              abort();
            }
          });
        },
        onSuccess() {
          reject(new Error("the upload finished before it was aborted (no progress was reported during a PATCH)"));
        },
        onError: reject,
      }),
    );
    up.start();
  });
}

// finish uploads the file with a new Upload: to url when it is given
// (resuming; without an endpoint, so it cannot quietly start again), else
// to the endpoint. It resolves with the last response's file id.
function finish(phase, url, extra) {
  return new Promise((resolve, reject) => {
    const where = url ? { uploadUrl: url } : { endpoint: cfg.endpoint };
    const up = new tus.Upload(
      fs.createReadStream(cfg.file),
      options(phase, {
        ...where,
        ...extra,
        onSuccess({ lastResponse }) {
          out.resumeUrl = url ? up.url : null;
          if (!url) out.uploadUrl = up.url;
          resolve(lastResponse.getHeader("Kanri-File-Id") || null);
        },
        onError: reject,
      }),
    );
    up.start();
  });
}

async function main() {
  switch (cfg.mode) {
    case "resume": {
      const url = await abortMidway();
      out.fileId = await finish(2, url, {});
      const head = out.log.find((r) => r.phase === 2);
      out.resumeOffset = head && head.method === "HEAD" ? head.offset : null;
      break;
    }
    case "plain":
      out.fileId = await finish(1, null, {});
      break;
    case "creation-with-upload":
      out.fileId = await finish(1, null, { uploadDataDuringCreation: true });
      break;
    default:
      throw new Error(`unknown mode ${cfg.mode}`);
  }
}

// done prints the result and exits (idle keep-alive sockets would
// otherwise keep Node running).
function done(code) {
  process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(code));
}

main().then(
  () => done(0),
  (err) => {
    out.error = String(err && err.stack ? err.stack : err);
    if (err && err.originalResponse) {
      out.error += ` (status ${err.originalResponse.getStatus()}: ${err.originalResponse.getBody()})`;
    }
    done(1);
  },
);
