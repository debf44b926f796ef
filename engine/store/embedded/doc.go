// Package embedded runs FerretDB v1 in-process, with its SQLite backend, as
// the default store: with no WFPP_MONGO_URI, wfpp serve calls Start and the
// Mongo store connects to Server.URI with the same driver code as production.
// Tests get a database of their own on one shared server with
// NewTestDatabase.
//
// The server listens on loopback only and has no authentication. It sends
// nothing over the network: FerretDB's telemetry is disabled and locked by
// ferretdb.New, and the embedded build has no telemetry reporter or update
// check. One Server owns a data directory (a flock on DataDir/wfpp.lock);
// every MongoDB database is one SQLite file in it.
//
// Clients connect to a small wire-protocol proxy in front of FerretDB that
// runs insert, update, delete and findAndModify commands one at a time per
// database (reads pass through concurrently). FerretDB v1 alone executes an
// update as read, filter in Go, write by _id, with nothing holding the
// document in between: 2-8 of 16 racing {_id, seq: N} updates all won and 80
// concurrent $inc left a counter at 6-16. With the proxy, single-document
// updates are atomic as on MongoDB (TestConcurrent*). It holds only because
// one process owns the data directory.
//
// The proxy runs the store's hot writes on SQLite itself (direct.go), in
// FerretDB's storage format: inserts, and updates whose statements each
// replace one document by _id, where FerretDB would decode every document
// into its own types and commit each update statement on its own. The
// commands waiting for a database's write lock go in one SQLite transaction
// (group commit); one that fails is undone alone. A guarded update's guard
// reads only the fields it names, and finds by string _id are answered from
// SQLite too (direct_read.go, direct_find.go). Anything else, and any error,
// goes to FerretDB as it came, so answers and errors are FerretDB's. On one
// machine this took the durable benchmark from about 900 to about 3,800
// instances/s (BENCHMARKS.md).
//
// # Rules for store code
//
// FerretDB v1.24 is not MongoDB. Store code must run on both, so it keeps to
// what both do alike. TestCapabilities checks every rule below; when an
// upgrade lifts one, that test fails until this list is updated.
//
// Works as on MongoDB (the store may rely on it):
//   - InsertOne, InsertMany (ordered or not; with ordered=false the other
//     documents are inserted and the error is a BulkWriteException),
//     BulkWrite with mixed models, UpdateOne, UpdateMany, ReplaceOne,
//     DeleteOne, DeleteMany, FindOneAndUpdate/Replace/Delete with sort and
//     ReturnDocument After, upserts (also on FindOneAndUpdate and UpdateMany).
//   - Optimistic concurrency (UpdateOne with {_id, seq: N}, $inc seq) and
//     atomic claims (FindOneAndUpdate) under concurrency, thanks to the proxy.
//   - Update operators $set, $unset, $inc, $min, $max, $mul, $rename,
//     $currentDate, $setOnInsert, $push (plain value), $addToSet, $pop,
//     $pull by value, set by array index (items.0.s).
//   - Unique (also compound) indexes on scalar fields: InsertOne, InsertMany
//     and BulkWrite inserts report E11000, so mongo.IsDuplicateKeyError holds.
//     int32 1, int64 1 and 1.0 are equal keys, as on MongoDB.
//   - Queries: equality, $in, $nin, $ne, $lt/$lte/$gt/$gte (also on dates,
//     millisecond precision), $or, $and, $exists, $regex, dotted paths into
//     embedded documents and arrays of documents (items.s), $elemMatch with
//     operators on arrays of scalars; sort on several keys, skip, limit,
//     projection by inclusion/exclusion, hint, batch size and getMore.
//   - CountDocuments, EstimatedDocumentCount, Drop (also of a missing
//     collection), index create/list/drop, renameCollection, capped
//     collections, write concern majority, read concern majority.
//   - Aggregation stages $match, $group (one accumulator, $sum or $count),
//     $sort, $skip, $limit, $project, $unwind, $count, $addFields/$set and
//     $unset with field paths or literals only.
//   - Data, including indexes, persists across Close and Start on a DataDir.
//
// Performs differently; the store should plan for it:
//   - Only a filter that is exactly {_id: <string or ObjectID>} is run by
//     SQLite. Any other filter, including {_id: <int>} and {_id, seq: N},
//     scans and decodes the whole collection in Go (1000 small documents:
//     UpdateOne 3 ms by string _id, 8-9 ms with a guard). Secondary indexes
//     only enforce uniqueness; sort, skip and limit run in memory. Use string
//     _ids, keep hot collections small (delete finished work), and prefer
//     point lookups by _id.
//   - Writes to one database run one at a time; a large InsertMany delays
//     the other writers of that database.
//   - An update command (UpdateMany statements, BulkWrite of updates or
//     replaces) of about 100 statements never returns: each statement keeps
//     the SQLite connection of its lookup until the command ends and needs
//     another for its write, from a pool of 100. Send at most a few dozen
//     per command (mongostore sends 32).
//
// Does not work; the store must not use it:
//   - Multi-document transactions, and change streams (Watch). Use
//     single-document atomic updates and unique indexes, as DESIGN.md §5 says.
//   - An update or replace that would break a unique index fails with an
//     InternalError, not E11000; IsDuplicateKeyError is false. Make unique
//     keys immutable: write them once, at insert.
//   - A unique index ignores documents missing the field (MongoDB treats
//     missing as null and refuses a second one). Two explicit nulls collide.
//     Always write unique-key fields, never null.
//   - Arrays in unique indexes: no per-element (multikey) uniqueness; two
//     documents with overlapping arrays are both accepted, silently.
//   - Silently wrong, no error: $push with $slice/$position ignores the
//     modifier (bound arrays yourself); $pull with a condition document
//     removes nothing (pull by value only); $elemMatch on an array of
//     documents matches nothing (use dotted paths); a $group with two
//     accumulators feeds the documents to the first only (the second sums
//     to 0; run one $group per accumulator).
//   - Positional $ and $[<id>] updates (arrayFilters), updates with an
//     aggregation pipeline, $expr queries, collation, findAndModify with a
//     projection (FindOneAndUpdate SetProjection), projection operators
//     ($slice, $elemMatch), TTL indexes (expireAfterSeconds: expire in code),
//     partial indexes, nested arrays ([[1]]).
//   - Aggregation: $lookup, $facet, $replaceRoot, $sortByCount, $out,
//     $merge, expression operators ($add, $gt, ... in $addFields/$project),
//     $group accumulators other than $sum/$count ($first, $push, $max...).
//   - Distinct under a ctx with a deadline: the v2 driver then adds maxTimeMS
//     to every command and FerretDB's distinct rejects it. Use Find or
//     $group instead.
//   - Decimal128 values (FerretDB drops the connection); likewise keep to
//     the BSON types double, string, document, array, binary, ObjectID, bool,
//     date, null, int32, int64, timestamp, regex.
//   - Field names starting with $ or containing a dot are rejected.
//   - Sessions are not implemented (endSessions fails; the driver ignores
//     that on Disconnect). The server is a standalone, not a replica set.
//
// Close closes open client connections; disconnect clients first.
package embedded
