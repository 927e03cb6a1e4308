package profiles

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// randomJSONValue is a JSON-encodable value of random shape and size, with
// characters json.Marshal escapes (<, >, &, U+2028) in its strings.
func randomJSONValue(r *rand.Rand, depth int) any {
	switch k := r.IntN(6); {
	case k == 0 || depth > 3:
		const alphabet = "ab<>&\"\\é\u2028 x"
		var sb strings.Builder
		for range r.IntN(40) {
			runes := []rune(alphabet)
			sb.WriteRune(runes[r.IntN(len(runes))])
		}
		return sb.String()
	case k == 1:
		return r.NormFloat64() * 1e6
	case k == 2:
		return r.IntN(2) == 0
	case k == 3:
		m := map[string]any{}
		for i := range r.IntN(5) {
			m[fmt.Sprintf("k%d<%d>", i, r.IntN(100))] = randomJSONValue(r, depth+1)
		}
		return m
	default:
		s := make([]any, r.IntN(6))
		for i := range s {
			s[i] = randomJSONValue(r, depth+1)
		}
		if r.IntN(8) == 0 {
			// Large values make the arena grow within one transaction.
			s = append(s, strings.Repeat("<big>", 20000))
		}
		return s
	}
}

// TestBoltEnvelopeBytes checks the arena encoding of the bbolt backend
// against the code it replaces: every stored record is byte for byte
// json.Marshal of its envelope, across transactions of several records that
// grow the arena mid-transaction and transactions that reuse it.
func TestBoltEnvelopeBytes(t *testing.T) {
	ctx := context.Background()
	db := backends(t)["bbolt"](t)
	r := rand.New(rand.NewPCG(1, 2))
	want := map[string]envelope{}
	for batch := range 30 {
		vals := map[string]any{}
		for i := range 1 + r.IntN(6) {
			vals[fmt.Sprintf("b%02d-%d-%d", batch, i, r.IntN(3))] = randomJSONValue(r, 0)
		}
		err := db.Batch(ctx, func(tx *Tx) error {
			for k, v := range vals {
				if err := tx.Put("ns", k, v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		rev, err := db.Rev(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range vals {
			raw, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			want[k] = envelope{Schema: 1, Rev: rev, Value: raw}
		}
	}
	bdb := db.b.(*boltBackend).db
	err := bdb.View(func(tx *bolt.Tx) error {
		bk := tx.Bucket([]byte(bucketNS)).Bucket([]byte("ns"))
		for k, e := range want {
			exp, err := json.Marshal(e)
			if err != nil {
				return err
			}
			if got := bk.Get([]byte(k)); !bytes.Equal(got, exp) {
				t.Errorf("%s: stored %.80q..., json.Marshal gives %.80q...", k, got, exp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPutRaw(t *testing.T) {
	ctx := context.Background()
	for name, mk := range backends(t) {
		t.Run(name, func(t *testing.T) {
			db := mk(t)
			buf := []byte(`[1, {"a":"<b>"}]`)
			if err := db.Batch(ctx, func(tx *Tx) error { return tx.PutRaw("raw", "k", 0, buf) }); err != nil {
				t.Fatal(err)
			}
			// The caller may reuse its buffer at once.
			copy(buf, "XXXXXXXXXXXXXXXX")
			var got []any
			if found, err := db.Get(ctx, "raw", "k", &got); err != nil || !found {
				t.Fatalf("get: %v %v", found, err)
			}
			if fmt.Sprint(got) != "[1 map[a:<b>]]" {
				t.Errorf("got %v", got)
			}
			rec, _, err := db.GetRecord(ctx, "raw", "k")
			if err != nil || rec.Schema != 1 {
				t.Errorf("schema %d, %v; want 1", rec.Schema, err)
			}
			err = db.Batch(ctx, func(tx *Tx) error { return tx.PutRaw("raw", "bad", 2, []byte(`[1,`)) })
			if err == nil || !strings.Contains(err.Error(), "not valid JSON") {
				t.Errorf("invalid JSON: %v", err)
			}
			if found, _ := db.Get(ctx, "raw", "bad", &got); found {
				t.Error("invalid JSON stored")
			}
		})
	}
}

// TestViewConsistent: a View sees one committed state across its reads,
// whatever commits meanwhile, and its Namespaces and List agree with the
// DB's.
func TestViewConsistent(t *testing.T) {
	ctx := context.Background()
	for name, mk := range backends(t) {
		t.Run(name, func(t *testing.T) {
			db := mk(t)
			if err := db.Put(ctx, "a", "x", 1); err != nil {
				t.Fatal(err)
			}
			if err := db.Put(ctx, "b", "y", 1); err != nil {
				t.Fatal(err)
			}
			started, release := make(chan struct{}), make(chan struct{})
			viewDone := make(chan error, 1)
			go func() {
				viewDone <- db.View(ctx, func(tx *ReadTx) error {
					var x int
					if _, err := tx.Get("a", "x", &x); err != nil {
						return err
					}
					close(started)
					<-release
					var y int
					if _, err := tx.Get("b", "y", &y); err != nil {
						return err
					}
					if x != y {
						return fmt.Errorf("view saw x=%d y=%d from two states", x, y)
					}
					nss, err := tx.Namespaces()
					if err != nil {
						return err
					}
					if fmt.Sprint(nss) != "[a b]" {
						return fmt.Errorf("namespaces %v", nss)
					}
					keys, err := tx.List("a")
					if err != nil || fmt.Sprint(keys) != "[x]" {
						return fmt.Errorf("list %v %v", keys, err)
					}
					return nil
				})
			}()
			<-started
			// A writer that commits while the view is open (the memory
			// backend serializes it after the view, bbolt runs it now).
			writeDone := make(chan error, 1)
			go func() {
				writeDone <- db.Batch(ctx, func(tx *Tx) error {
					if err := tx.Put("a", "x", 2); err != nil {
						return err
					}
					if err := tx.Put("c", "z", 2); err != nil {
						return err
					}
					return tx.Put("b", "y", 2)
				})
			}()
			if name == "bbolt" {
				if err := <-writeDone; err != nil {
					t.Fatal(err)
				}
			}
			close(release)
			if err := <-viewDone; err != nil {
				t.Fatal(err)
			}
			if name != "bbolt" {
				if err := <-writeDone; err != nil {
					t.Fatal(err)
				}
			}
			err := db.View(ctx, func(tx *ReadTx) error {
				var x int
				_, err := tx.Get("a", "x", &x)
				if err == nil && x != 2 {
					err = fmt.Errorf("x=%d after the write", x)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			if err := db.View(ctx, func(*ReadTx) error { return nil }); err == nil {
				t.Error("View after Close succeeded")
			}
		})
	}
}

// TestDeleteLargeAndNamespaces: Delete finds records without decoding them
// (has), also records staged in the same transaction, and Tx.Namespaces
// sees the transaction's own writes.
func TestDeleteLargeAndNamespaces(t *testing.T) {
	ctx := context.Background()
	for name, mk := range backends(t) {
		t.Run(name, func(t *testing.T) {
			db := mk(t)
			big := strings.Repeat("x", 1<<20)
			if err := db.Put(ctx, "big", "v", big); err != nil {
				t.Fatal(err)
			}
			rev0, _ := db.Rev(ctx)
			err := db.Batch(ctx, func(tx *Tx) error {
				if err := tx.Put("staged", "s", 1); err != nil {
					return err
				}
				nss, err := tx.Namespaces()
				if err != nil || fmt.Sprint(nss) != "[big staged]" {
					return fmt.Errorf("namespaces in tx %v %v", nss, err)
				}
				if err := tx.Delete("staged", "s"); err != nil {
					return err
				}
				if err := tx.Delete("missing", "m"); err != nil {
					return err
				}
				return tx.Delete("big", "v")
			})
			if err != nil {
				t.Fatal(err)
			}
			nss, err := db.Namespaces(ctx)
			if err != nil || len(nss) != 0 {
				t.Errorf("namespaces after deletes %v %v", nss, err)
			}
			if rev, _ := db.Rev(ctx); rev != rev0+1 {
				t.Errorf("rev %d, want %d", rev, rev0+1)
			}
			// Deleting only missing records writes nothing.
			if err := db.Delete(ctx, "big", "v"); err != nil {
				t.Fatal(err)
			}
			if rev, _ := db.Rev(ctx); rev != rev0+1 {
				t.Errorf("rev %d after deleting a missing record, want %d", rev, rev0+1)
			}
		})
	}
}
