'use strict';
// launcher.js starts @vercel/cosmosdb-server (pinned 1.0.1, in-memory) for Go
// tests; cosmostest.go runs it. It listens on 127.0.0.1, a free port, prints
//
//   Ready to accept HTTPS connections at 127.0.0.1:PORT
//
// on stdout, and exits when stdin closes (the parent test binary died or let go
// of it) or on SIGTERM/SIGINT.
//
// It patches four defects of the server so that it behaves like real Azure
// Cosmos DB for the product's tests:
//   A. a point read of a missing item answers 500 instead of 404;
//   B. transactional batch: only Create works, and a failed batch is not
//      rolled back;
//   C. per-item TTL (and container default TTL) is ignored;
//   D. the change feed is not served (304 with a constant ETag to every
//      request), and partition key ranges carry numeric ids, which the Go
//      SDK cannot read.
//
// Deliberately NOT fixed: queries ignore the partition key (every query is
// cross-partition). The product must filter `c.tenantId = @tenantId` in its
// SQL anyway; leaving the defect in place lets the product's tests catch a
// missing tenant filter, which real Azure would hide inside one partition.
//
// The patches replace or wrap the server's own modules before lib/index.js
// (and so lib/routes.js, which captures the handlers) is loaded.

const path = require('path');

// Resolved like any require from this file (…/node_modules up the tree from
// here, i.e. the repository root), else through NODE_PATH set by the harness.
const LIB = path.dirname(require.resolve('@vercel/cosmosdb-server'));
const load = (rel) => require(path.join(LIB, rel));

const docOps = load('handler/_document-operations');
const { patchOperation } = load('handler/_patch-operations');
const readJson = load('json').default;
const pkHeader = load('utils/get-partition-from-header');
const Items = load('account/items').default;
const Documents = load('account/documents').default;

const notFound = () => ({
  code: 'NotFound',
  message: 'Entity with the specified id does not exist in the system.',
});

function wrapHandler(name, wrap) {
  const mod = load(`handler/${name}`);
  mod.default = wrap(mod.default);
}

// ---------------------------------------------------------------------------
// A. 404 for missing items.
// read-document.js dereferences the looked-up document without checking that
// it exists (TypeError -> 500), also when the id exists only in another
// partition (the lookup is keyed by partition key + id). Answer 404 first.
// Replace, delete and patch already answer 404 but with an empty body; give
// all four Cosmos' error body.
wrapHandler('read-document', (orig) => (account, req, res, params) => {
  const coll = account.database(params.dbId).collection(params.collId);
  if (coll.read()) {
    let pk;
    try {
      pk = pkHeader.parsePartitionKey(pkHeader.default(req), params.docId);
    } catch (err) {
      return orig(account, req, res, params); // bad header: server's answer
    }
    if (!coll.document(params.docId, pk).read()) {
      res.statusCode = 404;
      return notFound();
    }
  }
  return orig(account, req, res, params);
});
for (const name of ['read-document', 'replace-document', 'delete-document', 'patch-document']) {
  wrapHandler(name, (orig) => async (account, req, res, params) => {
    const body = await orig(account, req, res, params);
    return res.statusCode === 404 && !(body && body.code) ? notFound() : body;
  });
}

// ---------------------------------------------------------------------------
// B. Transactional batch (POST …/docs with x-ms-cosmos-is-batch-request).
// The original handler passes each operation's (absent) partitionKey to the
// document operations, which throw (500) for everything but Create, and it
// keeps the effects of the operations before a failure. Real Cosmos runs the
// batch atomically inside the partition named by x-ms-documentdb-partitionkey:
//  - all succeed: HTTP 200, one result per operation {statusCode, eTag,
//    resourceBody}; with "Prefer: return=minimal" (azcosmos' default unless
//    EnableContentResponseOnWrite, and forced off when the batch has a Read)
//    writes carry no resourceBody;
//  - one fails: nothing is applied, HTTP 207, the failing operation has its
//    own status (404, 409, 412, 400…) and every other one 424.
// The whole batch runs synchronously, so rollback is a copy of the
// collection's maps, taken before and restored after a failure (document
// objects are never mutated in place, only replaced).
const MAX_BATCH_OPERATIONS = 100; // real Cosmos rejects larger batches (400)

function runBatchOperation(coll, op, header) {
  if (!op || typeof op !== 'object') {
    return { statusCode: 400, body: { code: 'BadRequest', message: 'invalid operation' } };
  }
  const body = op.resourceBody;
  const id = op.id !== undefined ? op.id : body && body.id;
  const input = { ...op, id, partitionKey: header };
  let pk;
  try {
    pk = pkHeader.parsePartitionKey(header, id);
  } catch (err) {
    return { statusCode: 400, body: { code: 'BadRequest', message: err.message } };
  }
  if (body && op.operationType !== 'Patch') {
    const docPk = coll.documents._getPartition(body);
    if ((docPk !== undefined && docPk !== pk) || (op.id !== undefined && op.id !== body.id)) {
      return {
        statusCode: 400,
        body: { code: 'BadRequest', message: 'id or partition key of the document does not match the operation' },
      };
    }
  }
  switch (op.operationType) {
    case 'Create': return docOps.createOperation(coll, input);
    case 'Upsert': return docOps.upsertOperation(coll, input);
    case 'Read': return docOps.readOperation(coll, input);
    case 'Replace': return docOps.replaceOperation(coll, input);
    case 'Delete': return docOps.deleteOperation(coll, input);
    case 'Patch':
      return patchOperation(coll, {
        ...input,
        operations: body && body.operations,
        condition: body && body.condition,
      });
    default:
      return {
        statusCode: 400,
        body: { code: 'BadRequest', message: `operation type '${op.operationType}' is not supported in a batch` },
      };
  }
}

wrapHandler('batch-documents', () => async (account, req, res, { dbId, collId }) => {
  const ops = await readJson(req);
  const coll = account.database(dbId).collection(collId);
  if (!coll.read()) {
    res.statusCode = 404;
    return notFound();
  }
  if (!Array.isArray(ops) || ops.length === 0 || ops.length > MAX_BATCH_OPERATIONS) {
    res.statusCode = 400;
    return { code: 'BadRequest', message: `a batch needs 1 to ${MAX_BATCH_OPERATIONS} operations` };
  }
  const header = pkHeader.default(req);
  const minimal = /return=minimal/i.test(String(req.headers.prefer || ''));
  const docs = coll.documents;
  const saved = { data: new Map(docs._data), index: new Map(docs._index), ridCount: docs._ridCount };
  const rollback = () => Object.assign(docs, { _data: saved.data, _index: saved.index, _ridCount: saved.ridCount });

  const results = [];
  try {
    for (const op of ops) {
      const r = runBatchOperation(coll, op, header);
      results.push(r);
      if (r.statusCode >= 400) break;
    }
  } catch (err) {
    rollback();
    throw err; // 500, as for any other unexpected error
  }
  const failed = results[results.length - 1];
  if (failed.statusCode >= 400) {
    rollback();
    res.statusCode = 207;
    return ops.map((_, i) => (i === results.length - 1
      ? { statusCode: failed.statusCode, requestCharge: 1, ...(failed.body && failed.body.message ? { message: failed.body.message } : {}) }
      : { statusCode: 424, requestCharge: 0 }));
  }
  res.statusCode = 200;
  return results.map((r, i) => {
    const withBody = r.body && r.statusCode !== 204 && (ops[i].operationType === 'Read' || !minimal);
    return {
      statusCode: r.statusCode,
      requestCharge: 1,
      eTag: r.body && r.body._etag,
      resourceBody: withBody ? r.body : undefined,
    };
  });
});

// ---------------------------------------------------------------------------
// C. Time to live.
// Cosmos semantics: the container's defaultTtl switches TTL on (absent/null =
// off, and then item ttl is ignored; -1 = on without a default; n > 0 = items
// live n seconds). An item's own "ttl" (n > 0 seconds, -1 = never) overrides
// the default while TTL is on. An item expires when now >= last write + ttl.
// The last write is kept to the millisecond (not the whole-second _ts), so an
// item with ttl 1 lives a full second rather than 0-1 s.
// Expired items are purged lazily: every document lookup (_item: point
// operations and create's uniqueness check), query and read feed of a
// collection first drops its expired items, so they are invisible at once
// (404, absent from queries, id free for create). Only items that can
// expire are looked at: those with a ttl of their own, or every item while
// the collection has a positive default. A collection with TTL on but no
// default (Kanri's mixed containers) costs nothing until an item sets a ttl.
const writtenAt = new WeakMap(); // document data -> Date.now() of its write

function expired(doc, defaultTtl, now) {
  const ttl = typeof doc.ttl === 'number' ? doc.ttl : defaultTtl;
  if (!(ttl > 0)) return false;
  const at = writtenAt.has(doc) ? writtenAt.get(doc) : doc._ts * 1000;
  return now >= at + ttl * 1000;
}

let lastLSN = 0; // the change feed's position: every write, in order
const lsnOf = new WeakMap(); // document data -> its write's LSN

Documents.prototype._set = function set(data) {
  writtenAt.set(data, Date.now());
  lsnOf.set(data, ++lastLSN);
  if (!this._ownTtl) this._ownTtl = new Set(); // _rids of items with a ttl > 0
  if (typeof data.ttl === 'number' && data.ttl > 0) this._ownTtl.add(data._rid);
  else this._ownTtl.delete(data._rid);
  return Items.prototype._set.call(this, data);
};

Documents.prototype._purgeExpired = function purgeExpired() {
  const coll = this._parent.read();
  if (this._purging || !coll || typeof coll.defaultTtl !== 'number') return;
  const rids = coll.defaultTtl > 0 ? [...this._data.keys()] : [...(this._ownTtl || [])];
  if (rids.length === 0) return;
  this._purging = true; // delete() below calls _item() again
  try {
    const now = Date.now();
    for (const rid of rids) {
      const item = this._data.get(rid);
      const doc = item && item.read();
      if (!doc) {
        if (this._ownTtl) this._ownTtl.delete(rid);
      } else if (expired(doc, coll.defaultTtl, now)) {
        this.delete(doc._rid, this._getPartition(doc));
        if (this._ownTtl) this._ownTtl.delete(rid);
      }
    }
  } finally {
    this._purging = false;
  }
};

for (const method of ['_item', 'query', 'read']) {
  const orig = Items.prototype[method];
  Documents.prototype[method] = function purgeFirst(...args) {
    this._purgeExpired();
    return orig.apply(this, args);
  };
}

// ---------------------------------------------------------------------------
// D. Change feed (GET …/docs with "A-IM: Incremental feed") in its "latest
// version" mode, as the Go SDK reads it: the container is one partition key
// range, id "0"; the continuation is the ETag of the last answer, sent back
// in If-None-Match ("*" for from now); without one the feed starts at the
// beginning, or at If-Modified-Since. Each document appears once, in its
// latest version, in the order of its last write (its _lsn); deletions do
// not appear. An answer holds at most x-ms-max-item-count documents (100
// by default); with nothing new it is 304 with the same ETag. With
// x-ms-documentdb-partitionkey only that logical partition is read.
wrapHandler('read-partition-key-ranges', (orig) => async (account, req, res, params) => {
  const body = await orig(account, req, res, params);
  if (body && Array.isArray(body.PartitionKeyRanges)) {
    body.PartitionKeyRanges = body.PartitionKeyRanges.map((r) => ({ ...r, id: String(r.id) }));
  }
  return body;
});
wrapHandler('read-documents', (orig) => async (account, req, res, params) => {
  if (String(req.headers['a-im'] || '').toLowerCase() !== 'incremental feed') {
    return orig(account, req, res, params);
  }
  delete req.headers['a-im']; // the server's own (wrong) answer keys on it
  const coll = account.database(params.dbId).collection(params.collId);
  const c = coll.read();
  if (!c) {
    res.statusCode = 404;
    return notFound();
  }
  const inm = String(req.headers['if-none-match'] || '').replace(/"/g, '');
  let after = 0;
  if (inm === '*') {
    after = lastLSN;
  } else if (inm !== '') {
    after = Number(inm);
    if (!Number.isInteger(after) || after < 0) {
      res.statusCode = 400;
      return { code: 'BadRequest', message: `invalid continuation ${inm}` };
    }
  }
  const since = req.headers['if-modified-since'] && inm === '' ? Date.parse(req.headers['if-modified-since']) : NaN;
  const max = parseInt(req.headers['x-ms-max-item-count'], 10) > 0 ? parseInt(req.headers['x-ms-max-item-count'], 10) : 100;
  let pk;
  if (req.headers['x-ms-documentdb-partitionkey']) pk = JSON.stringify(JSON.parse(req.headers['x-ms-documentdb-partitionkey']));
  coll.documents._purgeExpired();
  const changed = [];
  for (const item of coll.documents._data.values()) {
    const doc = item.read();
    const lsn = doc && lsnOf.get(doc);
    if (!lsn || lsn <= after) continue;
    if (!Number.isNaN(since) && writtenAt.get(doc) < since) continue;
    if (pk !== undefined && JSON.stringify([coll.documents._getPartition(doc)].flat()) !== pk) continue;
    changed.push([lsn, doc]);
  }
  changed.sort((a, b) => a[0] - b[0]);
  const page = changed.slice(0, max);
  const etag = page.length > 0 ? page[page.length - 1][0] : Math.max(after, inm === '' ? lastLSN : after);
  res.setHeader('etag', `"${etag}"`);
  res.setHeader('x-ms-continuation', `"${etag}"`);
  if (page.length === 0) {
    res.statusCode = 304;
    return {};
  }
  res.statusCode = 200;
  return { _rid: c._rid, Documents: page.map(([lsn, doc]) => ({ ...doc, _lsn: lsn })), _count: page.length };
});

// ---------------------------------------------------------------------------
// Start.
const { createHttpsServer } = require(LIB);

// keepAlive: the CLI closes every connection, which makes it 3-7x slower.
const server = createHttpsServer({ keepAlive: true });
// Longer than the harness client's idle timeout, so the client never reuses a
// connection the server is closing.
server.keepAliveTimeout = 120 * 1000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`Ready to accept HTTPS connections at 127.0.0.1:${server.address().port}\n`);
});
server.on('error', (err) => {
  console.error(err);
  process.exit(1);
});

process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
