/**
 * Loaded with `node --require` into the HyperDX API server that the management CLI's tests run
 * (test/hyperdx-api/server.ts). It leaves HyperDX's files untouched and bridges what FerretDB v1
 * (the MongoDB stand-in, SQLite backend) does not do, as measured in
 * ../shared/reference/clickstack-destination.md §4:
 * - TTL indexes (`expireAfterSeconds`, error 238): connect-mongo's session store creates one at
 *   start, and its failure breaks register and login. Dropped: sessions then never expire, which
 *   a test server does not mind.
 * - `findAndModify` with a projection: Mongoose sends one with every `findOneAndDelete`, so each
 *   `/api/v2` DELETE would answer 500. The projection is taken off the command and applied to the
 *   returned document instead.
 * It also binds the API's listeners to loopback: the server listens on all interfaces otherwise.
 */
'use strict';
const net = require('node:net');
const path = require('node:path');

/** Every copy of the driver the API loads: its own and the one Mongoose pins. */
function mongoDrivers() {
  const fromApi = (request, base) => require.resolve(request, { paths: [base] });
  const apiDir = process.cwd();
  const mongooseDir = path.dirname(fromApi('mongoose/package.json', apiDir));
  const found = new Set();
  for (const base of [apiDir, mongooseDir]) {
    try {
      found.add(fromApi('mongodb', base));
    } catch {
      // the API does not depend on this copy
    }
  }
  return [...found].map((file) => require(file));
}

const withoutTtl = (options) => {
  if (!options || typeof options !== 'object' || !('expireAfterSeconds' in options)) return options;
  const { expireAfterSeconds: _ttl, ...rest } = options;
  return rest;
};

/** A MongoDB projection (`{a: 1}` keeps, `{a: 0}` drops) applied to top-level fields. */
function project(doc, projection) {
  if (!doc || !projection || Object.keys(projection).length === 0) return doc;
  const entries = Object.entries(projection);
  const keeps = entries.some(([name, v]) => name !== '_id' && Boolean(v));
  if (!keeps) return Object.fromEntries(Object.entries(doc).filter(([name]) => !(name in projection)));
  const wanted = new Set(entries.filter(([, v]) => Boolean(v)).map(([name]) => name));
  if (projection._id === undefined || projection._id) wanted.add('_id');
  return Object.fromEntries(Object.entries(doc).filter(([name]) => wanted.has(name)));
}

/** Both result shapes: driver 4 resolves `{value, ok}`, driver 6 the document unless asked for metadata. */
const projectResult = (result, projection) => (result && typeof result === 'object' && 'value' in result && 'ok' in result ? { ...result, value: project(result.value, projection) } : project(result, projection));

function patchCollection(Collection) {
  const { createIndex, createIndexes, findOneAndDelete } = Collection.prototype;
  Collection.prototype.createIndex = function (spec, options, ...rest) {
    return createIndex.call(this, spec, withoutTtl(options), ...rest);
  };
  Collection.prototype.createIndexes = function (specs, ...rest) {
    return createIndexes.call(this, Array.isArray(specs) ? specs.map(withoutTtl) : specs, ...rest);
  };
  Collection.prototype.findOneAndDelete = function (filter, options, callback) {
    if (typeof options === 'function' || !options?.projection) return findOneAndDelete.call(this, filter, options, callback);
    const { projection, ...rest } = options;
    if (typeof callback === 'function') return findOneAndDelete.call(this, filter, rest, (err, result) => callback(err, err ? result : projectResult(result, projection)));
    return findOneAndDelete.call(this, filter, rest).then((result) => projectResult(result, projection));
  };
}

for (const driver of mongoDrivers()) patchCollection(driver.Collection);

/** `listen(port, cb)` with no host means every interface; a test server stays on loopback. */
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' && typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
  return listen.apply(this, args);
};
