package profiles

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Bucket layout of a bbolt store:
//
//	meta/format -> "1"            marks the file as a profiles store
//	meta/rev    -> uint64 BE      the store revision
//	ns/<namespace>/<key> -> JSON envelope {"schema":..,"rev":..,"value":..}
//
// The names are constants (converted at use) so the package has no variables.
const (
	bucketMeta = "meta"
	bucketNS   = "ns"
	keyFormat  = "format"
	keyRev     = "rev"
)

// storeFormat is the on-disk layout version written to meta/format.
const storeFormat = "1"

// Options tune Open.
type Options struct {
	// LockTimeout bounds the wait for the file lock. A second process opening
	// the same file gets an "in use" error after it instead of hanging.
	// Zero means one second.
	LockTimeout time.Duration
	// ReadOnly opens the file with a shared lock and refuses writes; several
	// read-only openers (e.g. an export) may share a file no writer holds.
	ReadOnly bool
	// SkipVerify skips decoding every record at Open. Verification is cheap
	// for profile-sized stores and turns silent corruption into a clear
	// start-up error, so leave it off unless the store is huge.
	SkipVerify bool
}

// Open opens (creating if needed) the bbolt store at path. The error names
// the file and says whether it is in use by another process or corrupt.
func Open(path string, opts Options) (*DB, error) {
	timeout := opts.LockTimeout
	if timeout <= 0 {
		timeout = time.Second
	}
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout, ReadOnly: opts.ReadOnly})
	if err != nil {
		return nil, openError(path, timeout, err)
	}
	b := &boltBackend{db: bdb}
	b.enc = json.NewEncoder(&b.arena)
	if err := b.init(opts.ReadOnly); err != nil {
		_ = bdb.Close()
		return nil, fmt.Errorf("profiles: open %s: %w", path, err)
	}
	if !opts.SkipVerify {
		if err := b.verify(); err != nil {
			_ = bdb.Close()
			return nil, fmt.Errorf("profiles: open %s: corrupt store: %w", path, err)
		}
	}
	return &DB{b: b, path: path}, nil
}

func openError(path string, timeout time.Duration, err error) error {
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return fmt.Errorf("profiles: open %s: in use by another process (file lock not acquired within %s): %w", path, timeout, err)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum),
		errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrInvalidMapping):
		return fmt.Errorf("profiles: open %s: corrupt or not a bbolt file: %w", path, err)
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("profiles: open %s: permission denied: %w", path, err)
	default:
		// bbolt reports some damaged files with other errors (e.g. a
		// truncated file fails the page size check); name the file anyway.
		return fmt.Errorf("profiles: open %s: %w", path, err)
	}
}

type boltBackend struct {
	db *bolt.DB
	// arena holds the encoded envelopes of the write transaction in
	// progress: bbolt keeps a reference to every put value until the commit,
	// so the values cannot share a buffer within a transaction, but the next
	// transaction (under bbolt's writer lock, so after the commit) can reuse
	// it. A large value written in pieces then leaves no garbage per piece.
	arena arena
	enc   *json.Encoder // encodes into arena
}

// arena is an append-only buffer, reset at the start of each write
// transaction.
type arena struct{ buf []byte }

func (a *arena) Write(p []byte) (int, error) {
	a.buf = append(a.buf, p...)
	return len(p), nil
}

// maxArena: an arena grown beyond it (a large import) is dropped at the
// next write transaction rather than kept for the store's lifetime.
const maxArena = 16 << 20

// init creates the buckets of a new file, or checks that an existing file is
// a profiles store of a format this code understands.
func (b *boltBackend) init(readOnly bool) error {
	check := func(tx *bolt.Tx) (bool, error) {
		meta := tx.Bucket([]byte(bucketMeta))
		if meta == nil {
			if tx.Bucket([]byte(bucketNS)) != nil {
				return false, errors.New("not a profiles store: bucket \"ns\" without \"meta\"")
			}
			return false, nil
		}
		if f := string(meta.Get([]byte(keyFormat))); f != storeFormat {
			return false, fmt.Errorf("unsupported store format %q (want %q)", f, storeFormat)
		}
		if tx.Bucket([]byte(bucketNS)) == nil {
			return false, errors.New("corrupt store: bucket \"ns\" missing")
		}
		return true, nil
	}
	if readOnly {
		return b.db.View(func(tx *bolt.Tx) error {
			ok, err := check(tx)
			if err == nil && !ok {
				err = errors.New("empty file opened read-only: not a profiles store")
			}
			return err
		})
	}
	return b.db.Update(func(tx *bolt.Tx) error {
		ok, err := check(tx)
		if err != nil || ok {
			return err
		}
		meta, err := tx.CreateBucket([]byte(bucketMeta))
		if err != nil {
			return err
		}
		if err := meta.Put([]byte(keyFormat), []byte(storeFormat)); err != nil {
			return err
		}
		if err := meta.Put([]byte(keyRev), binary.BigEndian.AppendUint64(nil, 0)); err != nil {
			return err
		}
		_, err = tx.CreateBucket([]byte(bucketNS))
		return err
	})
}

// verify decodes every record and checks that no record is newer than the
// store revision. bbolt panics on some kinds of page damage; that becomes an
// error here rather than a crash at start.
func (b *boltBackend) verify() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("damaged pages: %v", p)
		}
	}()
	return b.db.View(func(tx *bolt.Tx) error {
		cur, err := boltReader{tx}.rev()
		if err != nil {
			return err
		}
		return tx.Bucket([]byte(bucketNS)).ForEachBucket(func(ns []byte) error {
			return tx.Bucket([]byte(bucketNS)).Bucket(ns).ForEach(func(k, v []byte) error {
				e, err := decodeEnvelope(v)
				if err != nil {
					return fmt.Errorf("record %s/%s: %w", ns, k, err)
				}
				if e.Rev > cur {
					return fmt.Errorf("record %s/%s: rev %d newer than store rev %d", ns, k, e.Rev, cur)
				}
				return nil
			})
		})
	})
}

func (b *boltBackend) view(fn func(r reader) error) error {
	return b.db.View(func(tx *bolt.Tx) error { return fn(boltReader{tx}) })
}

func (b *boltBackend) update(fn func(w writer) error) error {
	return b.db.Update(func(tx *bolt.Tx) error {
		// The previous transaction has committed or rolled back: bbolt no
		// longer refers to the arena's bytes.
		if cap(b.arena.buf) > maxArena {
			b.arena.buf = nil
		}
		b.arena.buf = b.arena.buf[:0]
		return fn(boltWriter{boltReader{tx}, b})
	})
}

func (b *boltBackend) close() error { return b.db.Close() }

func decodeEnvelope(v []byte) (envelope, error) {
	var e envelope
	if err := json.Unmarshal(v, &e); err != nil {
		return envelope{}, fmt.Errorf("decode envelope: %w", err)
	}
	if e.Schema < 1 || e.Rev < 1 || len(e.Value) == 0 {
		return envelope{}, fmt.Errorf("bad envelope (schema %d, rev %d, %d value bytes)", e.Schema, e.Rev, len(e.Value))
	}
	return e, nil
}

type boltReader struct{ tx *bolt.Tx }

func (r boltReader) get(ns, key string) (envelope, bool, error) {
	bk := r.tx.Bucket([]byte(bucketNS)).Bucket([]byte(ns))
	if bk == nil {
		return envelope{}, false, nil
	}
	v := bk.Get([]byte(key))
	if v == nil {
		return envelope{}, false, nil
	}
	// decodeEnvelope copies out of the mmap (json.Unmarshal copies into the
	// RawMessage), so the result outlives the transaction.
	e, err := decodeEnvelope(v)
	if err != nil {
		return envelope{}, false, err
	}
	return e, true, nil
}

func (r boltReader) has(ns, key string) (bool, error) {
	bk := r.tx.Bucket([]byte(bucketNS)).Bucket([]byte(ns))
	return bk != nil && bk.Get([]byte(key)) != nil, nil
}

func (r boltReader) keys(ns string) ([]string, error) {
	bk := r.tx.Bucket([]byte(bucketNS)).Bucket([]byte(ns))
	if bk == nil {
		return []string{}, nil
	}
	out := []string{}
	err := bk.ForEach(func(k, _ []byte) error {
		out = append(out, string(k))
		return nil
	})
	return out, err
}

func (r boltReader) namespaces() ([]string, error) {
	out := []string{}
	root := r.tx.Bucket([]byte(bucketNS))
	err := root.ForEachBucket(func(k []byte) error {
		if firstKey(root.Bucket(k)) {
			out = append(out, string(k))
		}
		return nil
	})
	return out, err
}

func firstKey(b *bolt.Bucket) bool {
	k, _ := b.Cursor().First()
	return k != nil
}

func (r boltReader) rev() (uint64, error) {
	v := r.tx.Bucket([]byte(bucketMeta)).Get([]byte(keyRev))
	if len(v) != 8 {
		return 0, fmt.Errorf("corrupt meta/rev (%d bytes)", len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

type boltWriter struct {
	boltReader
	b *boltBackend
}

func (w boltWriter) put(ns, key string, e envelope) error {
	// The same bytes as json.Marshal(e) (an Encoder escapes HTML too), less
	// the Encoder's trailing newline, appended to the arena.
	start := len(w.b.arena.buf)
	if err := w.b.enc.Encode(e); err != nil {
		w.b.arena.buf = w.b.arena.buf[:start]
		return err
	}
	v := w.b.arena.buf[start : len(w.b.arena.buf)-1 : len(w.b.arena.buf)-1]
	bk, err := w.tx.Bucket([]byte(bucketNS)).CreateBucketIfNotExists([]byte(ns))
	if err != nil {
		return err
	}
	return bk.Put([]byte(key), v)
}

func (w boltWriter) del(ns, key string) error {
	root := w.tx.Bucket([]byte(bucketNS))
	bk := root.Bucket([]byte(ns))
	if bk == nil {
		return nil
	}
	if err := bk.Delete([]byte(key)); err != nil {
		return err
	}
	// Drop empty namespaces so Namespaces stays honest.
	if !firstKey(bk) {
		return root.DeleteBucket([]byte(ns))
	}
	return nil
}

func (w boltWriter) setRev(rev uint64) error {
	return w.tx.Bucket([]byte(bucketMeta)).Put([]byte(keyRev), binary.BigEndian.AppendUint64(nil, rev))
}
