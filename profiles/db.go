package profiles

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// reader is a consistent read view of a backend.
type reader interface {
	get(ns, key string) (envelope, bool, error)
	// has reports whether ns/key exists without decoding it (deleting a
	// large record need not copy it first).
	has(ns, key string) (bool, error)
	keys(ns string) ([]string, error)
	namespaces() ([]string, error)
	rev() (uint64, error)
}

// writer is a read-write transaction of a backend. Everything done through
// one writer commits or rolls back together.
type writer interface {
	reader
	put(ns, key string, e envelope) error
	del(ns, key string) error
	setRev(rev uint64) error
}

// backend is the storage under a DB: bbolt or memory.
type backend interface {
	view(fn func(r reader) error) error
	update(fn func(w writer) error) error
	close() error
}

// DB is a profiles store. It is safe for concurrent use; reads run in
// parallel, write transactions are serialized by the backend.
type DB struct {
	b    backend
	path string

	mu     sync.RWMutex // guards closed; held for reading by every operation
	closed bool
}

var _ Store = (*DB)(nil)

// Path returns the file backing the store, or "" for a memory store.
func (db *DB) Path() string { return db.path }

// enter marks the start of an operation; the returned func ends it. Close
// waits for operations in flight, so no transaction races with closing.
func (db *DB) enter(ctx context.Context) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	db.mu.RLock()
	if db.closed {
		db.mu.RUnlock()
		return nil, ErrClosed
	}
	return db.mu.RUnlock, nil
}

// Close releases the store (and the file lock of a bbolt store).
// It is safe to call more than once.
func (db *DB) Close() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return nil
	}
	db.closed = true
	if err := db.b.close(); err != nil {
		return fmt.Errorf("profiles: close %s: %w", db.path, err)
	}
	return nil
}

// Get decodes the record ns/key into v. found is false when there is no such
// record; v is then untouched.
func (db *DB) Get(ctx context.Context, ns, key string, v any) (found bool, err error) {
	rec, found, err := db.GetRecord(ctx, ns, key)
	if err != nil || !found {
		return found, err
	}
	if err := json.Unmarshal(rec.Value, v); err != nil {
		return true, fmt.Errorf("profiles: decode %s/%s (schema %d): %w", ns, key, rec.Schema, err)
	}
	return true, nil
}

// GetRecord returns the raw record with its schema and revision, so a reader
// can check the schema before decoding.
func (db *DB) GetRecord(ctx context.Context, ns, key string) (Record, bool, error) {
	if err := checkName(ns, key); err != nil {
		return Record{}, false, err
	}
	leave, err := db.enter(ctx)
	if err != nil {
		return Record{}, false, err
	}
	defer leave()
	var (
		e     envelope
		found bool
	)
	err = db.b.view(func(r reader) error {
		var err error
		e, found, err = r.get(ns, key)
		return err
	})
	if err != nil {
		return Record{}, false, fmt.Errorf("profiles: get %s/%s: %w", ns, key, err)
	}
	if !found {
		return Record{}, false, nil
	}
	return Record{NS: ns, Key: key, Schema: e.Schema, Rev: e.Rev, Value: e.Value}, true, nil
}

// Put stores v under ns/key in its own transaction.
func (db *DB) Put(ctx context.Context, ns, key string, v any) error {
	return db.Batch(ctx, func(tx *Tx) error { return tx.Put(ns, key, v) })
}

// Delete removes ns/key; deleting a missing record is not an error.
func (db *DB) Delete(ctx context.Context, ns, key string) error {
	return db.Batch(ctx, func(tx *Tx) error { return tx.Delete(ns, key) })
}

// List returns the keys of namespace ns in byte order.
func (db *DB) List(ctx context.Context, ns string) ([]string, error) {
	if err := validNS(ns); err != nil {
		return nil, err
	}
	leave, err := db.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer leave()
	var keys []string
	err = db.b.view(func(r reader) error {
		var err error
		keys, err = r.keys(ns)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("profiles: list %s: %w", ns, err)
	}
	return keys, nil
}

// Namespaces returns the namespaces that hold at least one record.
func (db *DB) Namespaces(ctx context.Context) ([]string, error) {
	leave, err := db.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer leave()
	var out []string
	err = db.b.view(func(r reader) error {
		var err error
		out, err = r.namespaces()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("profiles: namespaces: %w", err)
	}
	return out, nil
}

// Rev returns the store's current revision (0 for an empty store).
func (db *DB) Rev(ctx context.Context) (uint64, error) {
	leave, err := db.enter(ctx)
	if err != nil {
		return 0, err
	}
	defer leave()
	var rev uint64
	err = db.b.view(func(r reader) error {
		var err error
		rev, err = r.rev()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("profiles: rev: %w", err)
	}
	return rev, nil
}

// View runs fn in one read transaction: every Get and List made through tx
// sees the same committed state, whatever writers commit meanwhile. fn must
// not call methods of db itself and must not keep tx after returning.
func (db *DB) View(ctx context.Context, fn func(tx *ReadTx) error) error {
	leave, err := db.enter(ctx)
	if err != nil {
		return err
	}
	defer leave()
	err = db.b.view(func(r reader) error { return fn(&ReadTx{ctx: ctx, r: r}) })
	if err != nil {
		return fmt.Errorf("profiles: view: %w", err)
	}
	return nil
}

// ReadTx is a read transaction handed to View's function.
type ReadTx struct {
	ctx context.Context
	r   reader
}

// Get decodes ns/key into v as of the transaction's view.
func (tx *ReadTx) Get(ns, key string, v any) (bool, error) {
	if err := checkName(ns, key); err != nil {
		return false, err
	}
	if err := tx.ctx.Err(); err != nil {
		return false, err
	}
	e, found, err := tx.r.get(ns, key)
	if err != nil || !found {
		return found, err
	}
	if err := json.Unmarshal(e.Value, v); err != nil {
		return true, fmt.Errorf("profiles: decode %s/%s (schema %d): %w", ns, key, e.Schema, err)
	}
	return true, nil
}

// List returns the keys of ns as of the transaction's view.
func (tx *ReadTx) List(ns string) ([]string, error) {
	if err := validNS(ns); err != nil {
		return nil, err
	}
	return tx.r.keys(ns)
}

// Namespaces returns the namespaces that hold at least one record, as of
// the transaction's view.
func (tx *ReadTx) Namespaces() ([]string, error) { return tx.r.namespaces() }

// Batch runs fn in one write transaction: either every Put and Delete made
// through tx is committed, or (when fn returns an error or panics) none is.
// fn must not call methods of db itself (that would deadlock the backend) and
// must not keep tx after returning. The transaction takes one new revision,
// shared by every record it writes; a transaction that writes nothing does
// not advance the revision.
func (db *DB) Batch(ctx context.Context, fn func(tx *Tx) error) error {
	leave, err := db.enter(ctx)
	if err != nil {
		return err
	}
	defer leave()
	err = db.b.update(func(w writer) error {
		tx := &Tx{ctx: ctx, w: w}
		if err := fn(tx); err != nil {
			return err
		}
		// A context cancelled during fn aborts the commit: the caller has
		// given up and must not be told later that it half happened.
		return ctx.Err()
	})
	if err != nil {
		return fmt.Errorf("profiles: batch: %w", err)
	}
	return nil
}

// Tx is a write transaction handed to Batch's function.
type Tx struct {
	ctx context.Context
	w   writer
	rev uint64 // the transaction's revision, taken at its first write
}

func (tx *Tx) nextRev() (uint64, error) {
	if tx.rev != 0 {
		return tx.rev, nil
	}
	cur, err := tx.w.rev()
	if err != nil {
		return 0, err
	}
	if err := tx.w.setRev(cur + 1); err != nil {
		return 0, err
	}
	tx.rev = cur + 1
	return tx.rev, nil
}

// Put stages v under ns/key with the schema of v (see Versioned).
func (tx *Tx) Put(ns, key string, v any) error {
	if err := checkName(ns, key); err != nil {
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("profiles: encode %s/%s: %w", ns, key, err)
	}
	return tx.putRaw(ns, key, schemaOf(v), raw)
}

func (tx *Tx) putRaw(ns, key string, schema int, raw json.RawMessage) error {
	if err := tx.ctx.Err(); err != nil {
		return err
	}
	rev, err := tx.nextRev()
	if err != nil {
		return err
	}
	if err := tx.w.put(ns, key, envelope{Schema: schema, Rev: rev, Value: raw}); err != nil {
		return fmt.Errorf("profiles: put %s/%s: %w", ns, key, err)
	}
	return nil
}

// PutRaw stages raw, already encoded JSON under ns/key with the given schema
// (values below 1 mean 1). It lets a writer that encodes a large value in
// pieces hand each piece over without building a Go value for it. raw is
// copied before PutRaw returns, so the caller may reuse its buffer.
func (tx *Tx) PutRaw(ns, key string, schema int, raw json.RawMessage) error {
	if err := checkName(ns, key); err != nil {
		return err
	}
	// bbolt's backend would reject invalid JSON when it encodes the
	// envelope, the memory backend would not: check here for both.
	if !json.Valid(raw) {
		return fmt.Errorf("profiles: put %s/%s: value is not valid JSON", ns, key)
	}
	if schema < 1 {
		schema = 1
	}
	return tx.putRaw(ns, key, schema, raw)
}

// Delete stages the removal of ns/key.
func (tx *Tx) Delete(ns, key string) error {
	if err := checkName(ns, key); err != nil {
		return err
	}
	if found, err := tx.w.has(ns, key); err != nil || !found {
		return err
	}
	if _, err := tx.nextRev(); err != nil {
		return err
	}
	if err := tx.w.del(ns, key); err != nil {
		return fmt.Errorf("profiles: delete %s/%s: %w", ns, key, err)
	}
	return nil
}

// Get reads ns/key inside the transaction, seeing the transaction's own
// staged writes.
func (tx *Tx) Get(ns, key string, v any) (bool, error) {
	if err := checkName(ns, key); err != nil {
		return false, err
	}
	e, found, err := tx.w.get(ns, key)
	if err != nil || !found {
		return found, err
	}
	if err := json.Unmarshal(e.Value, v); err != nil {
		return true, fmt.Errorf("profiles: decode %s/%s (schema %d): %w", ns, key, e.Schema, err)
	}
	return true, nil
}

// Namespaces returns the namespaces that hold at least one record as the
// transaction sees them.
func (tx *Tx) Namespaces() ([]string, error) { return tx.w.namespaces() }

// List returns the keys of ns as the transaction sees them.
func (tx *Tx) List(ns string) ([]string, error) {
	if err := validNS(ns); err != nil {
		return nil, err
	}
	return tx.w.keys(ns)
}
