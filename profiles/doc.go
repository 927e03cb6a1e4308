// Package profiles is the one store for what the sidecar learns and must not
// lose across restarts: SAMR stage weights, ERUL node capabilities, TMaR
// execution-time matrices, classifier counts and weights.
//
// # Model
//
// A record lives in a namespace (by convention the policy name, e.g. "samr")
// under a key (e.g. "node/host17/sort"). Its value is any JSON-encodable Go
// value. Every record carries two versions:
//
//   - schema: the version of the value's shape, chosen by the writer. A value
//     that implements [Versioned] sets it; otherwise it is 1. Readers use it to
//     migrate or to ignore records they no longer understand ([DB.GetRecord]).
//   - rev: the store revision of the transaction that last wrote the record.
//     The store keeps one counter; every write transaction that changes
//     anything takes the next value, and all records written by one
//     transaction ([DB.Batch], [DB.Import]) share it. Revisions therefore
//     increase monotonically per record and across the store.
//
// # Implementations
//
// [Open] returns a [DB] backed by an embedded bbolt file: writes are bbolt
// transactions (copy-on-write pages, fsync on commit), so a crash leaves the
// store at the last committed transaction and never with a half-written
// record. [NewMemory] returns a [DB] with the same semantics kept in memory,
// for the simulator and tests. Policies should depend on the small [Store]
// interface (or a smaller one of their own), not on the backend.
//
// # Export format
//
// [DB.Export] writes, and [DB.Import] reads, one JSON document:
//
//	{"v":1,"records":[
//	  {"ns":"samr","key":"weights/sort","schema":1,"rev":42,"value":{"m1":1,"m2":0}}
//	]}
//
// Records are sorted by namespace, then key. On import every record must have a
// non-empty ns and key, a schema >= 1 and a value that is not null; a
// violation is reported as records[i].field. Import merges: records in the
// document overwrite records with the same ns and key, other records stay.
// All imported records are written in one transaction and get a fresh
// revision from the importing store (the file's rev is informational), which
// keeps revisions monotonic in the importing store.
package profiles
