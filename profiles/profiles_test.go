package profiles

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type weights struct {
	M1, M2 float64
	R      []float64
}

type weightsV2 struct {
	M1 float64 `json:"m1"`
}

func (weightsV2) ProfileSchema() int { return 2 }

// backends runs a test against every implementation.
func backends(t *testing.T) map[string]func(t *testing.T) *DB {
	return map[string]func(t *testing.T) *DB{
		"bbolt": func(t *testing.T) *DB {
			db, err := Open(filepath.Join(t.TempDir(), "p.db"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		},
		"memory": func(t *testing.T) *DB {
			db := NewMemory()
			t.Cleanup(func() { db.Close() })
			return db
		},
	}
}

func TestPutGetListDelete(t *testing.T) {
	ctx := context.Background()
	for name, mk := range backends(t) {
		t.Run(name, func(t *testing.T) {
			db := mk(t)
			var got weights
			found, err := db.Get(ctx, "samr", "sort", &got)
			if err != nil || found {
				t.Fatalf("empty store: found=%v err=%v", found, err)
			}
			want := weights{M1: 0.9, M2: 0.1, R: []float64{0.3, 0.3, 0.4}}
			if err := db.Put(ctx, "samr", "sort", want); err != nil {
				t.Fatal(err)
			}
			if err := db.Put(ctx, "samr", "grep", weights{M1: 1}); err != nil {
				t.Fatal(err)
			}
			if err := db.Put(ctx, "erul", "node1", weightsV2{M1: 2}); err != nil {
				t.Fatal(err)
			}
			found, err = db.Get(ctx, "samr", "sort", &got)
			if err != nil || !found {
				t.Fatalf("found=%v err=%v", found, err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("got %+v want %+v", got, want)
			}
			keys, err := db.List(ctx, "samr")
			if err != nil || strings.Join(keys, ",") != "grep,sort" {
				t.Fatalf("List = %v, %v", keys, err)
			}
			rec, _, err := db.GetRecord(ctx, "erul", "node1")
			if err != nil || rec.Schema != 2 || rec.Rev != 3 || string(rec.Value) != `{"m1":2}` {
				t.Fatalf("record = %+v, %v", rec, err)
			}
			nss, _ := db.Namespaces(ctx)
			if strings.Join(nss, ",") != "erul,samr" {
				t.Fatalf("Namespaces = %v", nss)
			}
			if err := db.Delete(ctx, "erul", "node1"); err != nil {
				t.Fatal(err)
			}
			if err := db.Delete(ctx, "erul", "node1"); err != nil {
				t.Fatalf("deleting a missing record: %v", err)
			}
			nss, _ = db.Namespaces(ctx)
			if strings.Join(nss, ",") != "samr" {
				t.Fatalf("Namespaces after delete = %v", nss)
			}
			if rev, _ := db.Rev(ctx); rev != 4 {
				t.Fatalf("rev = %d, want 4 (3 puts, 1 real delete)", rev)
			}
		})
	}
}

func TestBatchAtomic(t *testing.T) {
	ctx := context.Background()
	for name, mk := range backends(t) {
		t.Run(name, func(t *testing.T) {
			db := mk(t)
			if err := db.Put(ctx, "tmar", "keep", 1); err != nil {
				t.Fatal(err)
			}
			boom := errors.New("boom")
			err := db.Batch(ctx, func(tx *Tx) error {
				for i := range 10 {
					if err := tx.Put("tmar", fmt.Sprintf("k%d", i), i); err != nil {
						return err
					}
				}
				if err := tx.Delete("tmar", "keep"); err != nil {
					return err
				}
				var v int
				if found, err := tx.Get("tmar", "k3", &v); !found || err != nil || v != 3 {
					t.Errorf("tx sees own write: %v %v %v", found, err, v)
				}
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v", err)
			}
			keys, _ := db.List(ctx, "tmar")
			if strings.Join(keys, ",") != "keep" {
				t.Fatalf("failed batch left %v", keys)
			}
			if rev, _ := db.Rev(ctx); rev != 1 {
				t.Fatalf("rev after rollback = %d", rev)
			}

			// A panicking batch rolls back too.
			func() {
				defer func() { recover() }()
				db.Batch(ctx, func(tx *Tx) error {
					tx.Put("tmar", "panic", 1)
					panic("x")
				})
			}()
			if found, _ := db.Get(ctx, "tmar", "panic", new(int)); found {
				t.Fatal("panicking batch committed")
			}

			// A committed batch shares one revision.
			err = db.Batch(ctx, func(tx *Tx) error {
				for i := range 5 {
					if err := tx.Put("tmar", fmt.Sprintf("k%d", i), i); err != nil {
						return err
					}
				}
				keys, _ := tx.List("tmar")
				if len(keys) != 6 {
					t.Errorf("tx.List = %v", keys)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 5 {
				rec, _, _ := db.GetRecord(ctx, "tmar", fmt.Sprintf("k%d", i))
				if rec.Rev != 2 {
					t.Fatalf("k%d rev %d, want 2", i, rec.Rev)
				}
			}
		})
	}
}

func TestValidationAndContext(t *testing.T) {
	ctx := context.Background()
	for name, mk := range backends(t) {
		t.Run(name, func(t *testing.T) {
			db := mk(t)
			tests := []struct {
				name    string
				ns, key string
				v       any
				want    string
			}{
				{"empty ns", "", "k", 1, "empty namespace"},
				{"empty key", "ns", "", 1, "empty key"},
				{"long key", "ns", strings.Repeat("k", maxKeyLen+1), 1, "longer than"},
				{"unencodable", "ns", "k", func() {}, "encode ns/k"},
			}
			for _, tc := range tests {
				if err := db.Put(ctx, tc.ns, tc.key, tc.v); err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
				}
			}
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			if err := db.Put(cctx, "ns", "k", 1); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled ctx: %v", err)
			}
			if err := db.Put(ctx, "ns", "k", "x"); err != nil {
				t.Fatal(err)
			}
			var n int
			if _, err := db.Get(ctx, "ns", "k", &n); err == nil || !strings.Contains(err.Error(), "decode ns/k") {
				t.Errorf("decode into wrong type: %v", err)
			}
			db.Close()
			if err := db.Put(ctx, "ns", "k", 1); !errors.Is(err, ErrClosed) {
				t.Errorf("after close: %v", err)
			}
			if err := db.Close(); err != nil {
				t.Errorf("second close: %v", err)
			}
		})
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := NewMemory()
	src.Put(ctx, "samr", "sort", weights{M1: 0.5})
	src.Put(ctx, "erul", "n1", weightsV2{M1: 3})
	src.Put(ctx, "learning", "nb/counts", map[string]int{"good": 3, "bad": 1})
	var buf bytes.Buffer
	if err := src.Export(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	want := `{"v":1,"records":[
{"ns":"erul","key":"n1","schema":2,"rev":2,"value":{"m1":3}},
{"ns":"learning","key":"nb/counts","schema":1,"rev":3,"value":{"bad":1,"good":3}},
{"ns":"samr","key":"sort","schema":1,"rev":1,"value":{"M1":0.5,"M2":0,"R":null}}
]}
`
	if buf.String() != want {
		t.Fatalf("export:\n%s\nwant:\n%s", buf.String(), want)
	}
	for name, mk := range backends(t) {
		t.Run(name, func(t *testing.T) {
			dst := mk(t)
			dst.Put(ctx, "other", "x", 1)
			dst.Put(ctx, "samr", "sort", weights{M1: 9})
			if err := dst.Import(ctx, strings.NewReader(want)); err != nil {
				t.Fatal(err)
			}
			var w weights
			dst.Get(ctx, "samr", "sort", &w)
			if w.M1 != 0.5 {
				t.Fatalf("import did not overwrite: %+v", w)
			}
			rec, _, _ := dst.GetRecord(ctx, "erul", "n1")
			if rec.Schema != 2 || rec.Rev != 3 {
				t.Fatalf("imported record %+v, want schema 2 and the store's next rev 3", rec)
			}
			if found, _ := dst.Get(ctx, "other", "x", new(int)); !found {
				t.Fatal("import dropped an unrelated record")
			}
		})
	}
}

func TestImportValidation(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"truncated", `{"v":1,"records":[`, "document: JSON truncated"},
		{"syntax", `{"v":1,"records":[}`, "document: JSON syntax error"},
		{"empty", ``, "document: JSON truncated"},
		{"no v", `{"records":[]}`, "import: v: missing"},
		{"bad v", `{"v":2,"records":[]}`, "v: unsupported version 2"},
		{"v type", `{"v":"1","records":[]}`, "import: v: expected int"},
		{"no records", `{"v":1}`, "records: missing"},
		{"missing ns", `{"v":1,"records":[{"key":"k","schema":1,"value":{}}]}`, "records[0].ns: missing"},
		{"empty ns", `{"v":1,"records":[{"ns":"","key":"k","schema":1,"value":{}}]}`, "records[0].ns: profiles: empty namespace"},
		{"missing key", `{"v":1,"records":[{"ns":"a","key":"k","schema":1,"value":1},{"ns":"a","schema":1,"value":{}}]}`, "records[1].key: missing"},
		{"schema type", `{"v":1,"records":[{"ns":"a","key":"k","schema":"x","value":{}}]}`, "records[0].schema: expected int"},
		{"schema zero", `{"v":1,"records":[{"ns":"a","key":"k","schema":0,"value":{}}]}`, "records[0].schema: must be >= 1"},
		{"rev negative", `{"v":1,"records":[{"ns":"a","key":"k","schema":1,"rev":-1,"value":{}}]}`, "records[0].rev: expected uint64"},
		{"null value", `{"v":1,"records":[{"ns":"a","key":"k","schema":1,"value":null}]}`, "records[0].value: missing or null"},
		{"no value", `{"v":1,"records":[{"ns":"a","key":"k","schema":1}]}`, "records[0].value: missing or null"},
		{"duplicate", `{"v":1,"records":[{"ns":"a","key":"k","schema":1,"value":1},{"ns":"a","key":"k","schema":1,"value":2}]}`, "records[1].key: duplicate of records[0]"},
		{"record not object", `{"v":1,"records":[7]}`, "records[0].record: expected"},
		{"trailing", `{"v":1,"records":[]} {}`, "trailing data"},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := NewMemory()
			db.Put(ctx, "a", "before", 1)
			err := db.Import(ctx, strings.NewReader(tc.doc))
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ValidationError containing %q", err, tc.want)
			}
			keys, _ := db.List(ctx, "a")
			if strings.Join(keys, ",") != "before" {
				t.Fatalf("failed import changed the store: %v", keys)
			}
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	for name, mk := range backends(t) {
		t.Run(name, func(t *testing.T) {
			db := mk(t)
			var wg sync.WaitGroup
			const workers, iters = 8, 40
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range iters {
						key := fmt.Sprintf("w%d", w)
						switch i % 4 {
						case 0:
							if err := db.Put(ctx, "c", key, i); err != nil {
								t.Error(err)
							}
						case 1:
							var v int
							if _, err := db.Get(ctx, "c", key, &v); err != nil {
								t.Error(err)
							}
						case 2:
							if _, err := db.List(ctx, "c"); err != nil {
								t.Error(err)
							}
						case 3:
							err := db.Batch(ctx, func(tx *Tx) error {
								var n int
								tx.Get("c", "counter", &n)
								return tx.Put("c", "counter", n+1)
							})
							if err != nil {
								t.Error(err)
							}
						}
					}
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 10 {
					if err := db.Export(ctx, &bytes.Buffer{}); err != nil {
						t.Error(err)
					}
				}
			}()
			wg.Wait()
			var n int
			db.Get(ctx, "c", "counter", &n)
			if n != workers*iters/4 {
				t.Fatalf("counter = %d, want %d (lost update)", n, workers*iters/4)
			}
			rev, _ := db.Rev(ctx)
			if want := uint64(workers * iters / 2); rev != want {
				t.Fatalf("rev = %d, want %d", rev, want)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Put(context.Background(), "a", "b", 1)

	start := time.Now()
	_, err = Open(path, Options{LockTimeout: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "in use by another process") || !strings.Contains(err.Error(), path) {
		t.Fatalf("second open: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("second open hung")
	}
	db.Close()

	db, err = Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("reopen read-only: %v", err)
	}
	if err := db.Put(context.Background(), "a", "c", 1); err == nil {
		t.Fatal("write to read-only store succeeded")
	}
	db.Close()

	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, bytes.Repeat([]byte("not a bolt file "), 1024), 0o600)
	_, err = Open(garbage, Options{})
	if err == nil || !strings.Contains(err.Error(), garbage) || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("garbage: %v", err)
	}

	_, err = Open(filepath.Join(dir, "missing", "p.db"), Options{})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "missing", "p.db")) {
		t.Fatalf("missing dir: %v", err)
	}
}
