package sidecar

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/profiles"
)

// fillRandom sets every exported field reachable from v to random values:
// nil, empty and filled slices and maps, strings with characters JSON
// escapes. Unexported fields stay zero (JSON does not carry them).
func fillRandom(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		const alphabet = "abc<>&\"\\é\u2028 _-/0123"
		runes := []rune(alphabet)
		var sb strings.Builder
		for range r.IntN(12) {
			sb.WriteRune(runes[r.IntN(len(runes))])
		}
		v.SetString(sb.String())
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(r.Int64() >> (r.IntN(4) * 16))
		if v.OverflowInt(v.Int()) {
			v.SetInt(int64(r.IntN(100)) - 50)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := r.Uint64() >> (r.IntN(4) * 16)
		if v.OverflowUint(u) {
			u = uint64(r.IntN(100))
		}
		v.SetUint(u)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(float32(r.NormFloat64() * 1e3)))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillRandom(r, v.Field(i), depth)
			}
		}
	case reflect.Pointer:
		if depth < 4 && r.IntN(2) == 0 {
			p := reflect.New(v.Type().Elem())
			fillRandom(r, p.Elem(), depth+1)
			v.Set(p)
		}
	case reflect.Slice:
		if depth > 3 {
			return
		}
		switch k := r.IntN(4); k {
		case 0: // nil
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), 1+r.IntN(4), 8)
			for i := range s.Len() {
				fillRandom(r, s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Array:
		for i := range v.Len() {
			fillRandom(r, v.Index(i), depth+1)
		}
	case reflect.Map:
		if depth > 3 || v.Type().Key().Kind() != reflect.String || r.IntN(3) == 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for range r.IntN(4) {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fillRandom(r, k, depth+1)
			fillRandom(r, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}

// randomList is n random items, or nil, or empty.
func randomList[T any](r *rand.Rand, max int, fill func(*T)) []T {
	switch r.IntN(5) {
	case 0:
		return nil
	case 1:
		return []T{}
	}
	out := make([]T, 1+r.IntN(max))
	for i := range out {
		fill(&out[i])
	}
	return out
}

var hintKinds = []policy.HintKind{policy.KindSpeculate, policy.KindDenySpeculation, policy.KindKill,
	policy.KindNodeClass, policy.KindPlace, policy.KindReduceBinding, policy.KindRatio, policy.KindNodeCapacity,
	policy.KindPriority}

// randomCheckpoint is a Checkpoint of random content and shape (nil and
// empty lists, no cluster at all now and then).
func randomCheckpoint(r *rand.Rand, max int) *Checkpoint {
	fill := func(p any) { fillRandom(r, reflect.ValueOf(p).Elem(), 1) }
	c := &Checkpoint{V: 1}
	if r.IntN(8) != 0 {
		c.Cluster = &cluster.Checkpoint{V: cluster.CheckpointVersion, HistoryLen: r.IntN(64), Now: r.Int64()}
		c.Cluster.Nodes = randomList(r, max, func(n *cluster.NodeCk) { fill(n) })
		c.Cluster.Apps = randomList(r, max, func(a *cluster.AppCk) { fill(a) })
		c.Cluster.Attempts = randomList(r, 3*max, func(a *cluster.AttemptCk) { fill(a) })
		c.Cluster.Gone = randomList(r, max, func(g *cluster.GoneCk) { fill(g) })
	}
	c.Engine = engine.Checkpoint{Seq: r.Uint64(), NextTick: r.Int64()}
	c.Engine.Active = randomList(r, max, func(a *engine.ActiveHint) { fill(a) })
	c.Positions = randomList(r, 4, func(p *Position) { fill(p) })
	c.Outbox = randomList(r, max, func(h *policy.Hint) {
		fill(h)
		// Hints are decoded with their validation: give each kind what it
		// requires (ratio: a node or an app, not both).
		h.V, h.Kind = policy.HintVersion, hintKinds[r.IntN(len(hintKinds))]
		for _, f := range []*string{&h.App, &h.Task, &h.Attempt, &h.Container, &h.Node} {
			*f += "x"
		}
		if len(h.Nodes) == 0 {
			h.Nodes = []policy.NodeScore{{Node: "n", Score: 1}}
		}
		if h.Kind == policy.KindRatio {
			h.Node = ""
		}
	})
	return c
}

// oldForm is what main 3e0954f's Load returned for c: c through one JSON
// record.
func oldForm(t testing.TB, c *Checkpoint) *Checkpoint {
	t.Helper()
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var out Checkpoint
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func sameCheckpoint(t testing.TB, got, want *Checkpoint) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("loaded checkpoint differs\n got %.600s\nwant %.600s", g, w)
	}
}

func ckStores(t *testing.T) map[string]func(t *testing.T) *profiles.DB {
	return map[string]func(t *testing.T) *profiles.DB{
		"bbolt": func(t *testing.T) *profiles.DB {
			db, err := profiles.Open(filepath.Join(t.TempDir(), "p.db"), profiles.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		},
		"memory": func(t *testing.T) *profiles.DB {
			db := profiles.NewMemory()
			t.Cleanup(func() { db.Close() })
			return db
		},
	}
}

// chunkGens lists the chunk generations present in the store.
func chunkGens(t *testing.T, db *profiles.DB) map[uint64]int {
	t.Helper()
	nss, err := db.Namespaces(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]int{}
	for _, ns := range nss {
		if g, ok := chunkGen(ns); ok {
			out[g]++
		}
	}
	return out
}

// TestCheckpointChunkedRoundTrip: Load returns exactly what format 1 (one
// JSON record) returned for the same Checkpoint, for random checkpoints
// saved in chunks of random sizes over the previous one, on both backends;
// only the newest generation's chunks remain.
func TestCheckpointChunkedRoundTrip(t *testing.T) {
	ctx := context.Background()
	for name, mk := range ckStores(t) {
		t.Run(name, func(t *testing.T) {
			db := mk(t)
			r := rand.New(rand.NewPCG(7, uint64(len(name))))
			for round := range 12 {
				c := randomCheckpoint(r, 40)
				want := oldForm(t, c)
				p := ProfileCheckpoints{Store: db, chunkBytes: 1 + r.IntN(6000)}
				if err := p.Save(ctx, c); err != nil {
					t.Fatal(err)
				}
				// Save must not change what it was given.
				sameCheckpoint(t, oldForm(t, c), want)
				got, err := p.Load(ctx)
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				sameCheckpoint(t, got, want)
				if gens := chunkGens(t, db); len(gens) > 1 {
					t.Fatalf("round %d: chunk generations left %v", round, gens)
				}
			}
		})
	}
}

// TestCheckpointRealState: the state an engine built from the demo log
// goes through the chunked format (many small chunks) and restores.
func TestCheckpointRealState(t *testing.T) {
	ctx := context.Background()
	eng := engine.New(policy.NewStack(kinder{}), engine.Options{Log: zerolog.Nop()})
	for _, ev := range readLog(t) {
		eng.Apply(ctx, &ev)
	}
	c := &Checkpoint{V: 1, Cluster: eng.State().Checkpoint(), Engine: eng.Checkpoint(),
		Positions: []Position{{Topic: "ev", Partition: 0, Next: 83}}}
	db := ckStores(t)["bbolt"](t)
	p := ProfileCheckpoints{Store: db, chunkBytes: 700}
	if err := p.Save(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := p.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sameCheckpoint(t, got, oldForm(t, c))
	if gens := chunkGens(t, db); len(gens) != 1 {
		t.Fatalf("chunk generations %v, want one", gens)
	} else {
		for _, n := range gens {
			if n < 3 {
				t.Errorf("%d chunks, want several at 700 bytes", n)
			}
		}
	}
	st, err := cluster.Restore(got.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.Snapshot(), eng.State().Snapshot()) {
		t.Error("restored state differs from the engine's")
	}
	// `rmsidecar profiles export` and `import` carry the chunks with the
	// header: the imported store loads the same checkpoint.
	var doc bytes.Buffer
	if err := db.Export(ctx, &doc); err != nil {
		t.Fatal(err)
	}
	other := profiles.NewMemory()
	defer other.Close()
	if err := other.Import(ctx, &doc); err != nil {
		t.Fatal(err)
	}
	got, err = ProfileCheckpoints{Store: other}.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sameCheckpoint(t, got, oldForm(t, c))
}

// TestCheckpointFormat1Loads: a checkpoint written by main 3e0954f (the
// whole Checkpoint as one record, written here by that code path: Put of
// the Checkpoint) still loads; the next save replaces it with format 2.
func TestCheckpointFormat1Loads(t *testing.T) {
	ctx := context.Background()
	for name, mk := range ckStores(t) {
		t.Run(name, func(t *testing.T) {
			db := mk(t)
			r := rand.New(rand.NewPCG(3, 3))
			c1 := randomCheckpoint(r, 20)
			if err := db.Put(ctx, checkpointNS, checkpointKey, c1); err != nil {
				t.Fatal(err)
			}
			p := ProfileCheckpoints{Store: db, chunkBytes: 512}
			got, err := p.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sameCheckpoint(t, got, oldForm(t, c1))
			c2 := randomCheckpoint(r, 20)
			if err := p.Save(ctx, c2); err != nil {
				t.Fatal(err)
			}
			var probe struct{ V int }
			if _, err := db.Get(ctx, checkpointNS, checkpointKey, &probe); err != nil || probe.V != ckFormatChunked {
				t.Fatalf("header v %d, %v; want %d", probe.V, err, ckFormatChunked)
			}
			got, err = p.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sameCheckpoint(t, got, oldForm(t, c2))
		})
	}
}

// getPutOnly is a store with only policy.ProfileStore's methods.
type getPutOnly struct{ db *profiles.DB }

func (s getPutOnly) Get(ctx context.Context, ns, key string, v any) (bool, error) {
	return s.db.Get(ctx, ns, key, v)
}
func (s getPutOnly) Put(ctx context.Context, ns, key string, v any) error {
	return s.db.Put(ctx, ns, key, v)
}

// TestCheckpointOtherStores: a store that is not a *profiles.DB keeps
// format 1, and still reads format 2 written through a *profiles.DB.
func TestCheckpointOtherStores(t *testing.T) {
	ctx := context.Background()
	db := profiles.NewMemory()
	defer db.Close()
	r := rand.New(rand.NewPCG(5, 5))
	c := randomCheckpoint(r, 20)
	if err := (ProfileCheckpoints{Store: getPutOnly{db}}).Save(ctx, c); err != nil {
		t.Fatal(err)
	}
	var probe struct{ V int }
	if _, err := db.Get(ctx, checkpointNS, checkpointKey, &probe); err != nil || probe.V != ckFormatSingle {
		t.Fatalf("v %d, %v; want format 1", probe.V, err)
	}
	got, err := (ProfileCheckpoints{Store: db}).Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sameCheckpoint(t, got, oldForm(t, c))
	c2 := randomCheckpoint(r, 20)
	if err := (ProfileCheckpoints{Store: db, chunkBytes: 300}).Save(ctx, c2); err != nil {
		t.Fatal(err)
	}
	got, err = (ProfileCheckpoints{Store: getPutOnly{db}}).Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sameCheckpoint(t, got, oldForm(t, c2))
	// No checkpoint: nil, nil.
	empty := profiles.NewMemory()
	defer empty.Close()
	if got, err := (ProfileCheckpoints{Store: empty}).Load(ctx); got != nil || err != nil {
		t.Errorf("empty store: %v, %v", got, err)
	}
}

// TestCheckpointSaveInterrupted: a save stopped after any number of its
// chunks (an error where a crash could be) leaves the previous checkpoint
// loadable and whole; the next complete save removes the leftovers.
func TestCheckpointSaveInterrupted(t *testing.T) {
	ctx := context.Background()
	for name, mk := range ckStores(t) {
		t.Run(name, func(t *testing.T) {
			db := mk(t)
			r := rand.New(rand.NewPCG(11, 11))
			c1 := randomCheckpoint(r, 30)
			for c1.Cluster == nil || len(c1.Cluster.Attempts) < 10 {
				c1 = randomCheckpoint(r, 30)
			}
			p := ProfileCheckpoints{Store: db, chunkBytes: 1500}
			if err := p.Save(ctx, c1); err != nil {
				t.Fatal(err)
			}
			want := oldForm(t, c1)
			c2 := randomCheckpoint(r, 30)
			for c2.Cluster == nil || len(c2.Cluster.Attempts) < 10 {
				c2 = randomCheckpoint(r, 30)
			}
			stop := errors.New("killed")
			for k := 0; ; k++ {
				n := 0
				pk := p
				pk.afterChunk = func(string) error {
					if n++; n > k {
						return stop
					}
					return nil
				}
				err := pk.Save(ctx, c2)
				if err == nil {
					if k == 0 {
						t.Fatal("no chunk written")
					}
					break // k is past the last chunk: the save completed
				}
				if !errors.Is(err, stop) {
					t.Fatalf("k=%d: %v", k, err)
				}
				got, err := p.Load(ctx)
				if err != nil {
					t.Fatalf("after a save stopped at chunk %d: %v", k, err)
				}
				sameCheckpoint(t, got, want)
				if k > 0 && len(chunkGens(t, db)) < 2 {
					t.Fatalf("k=%d: the stopped save left no chunks", k)
				}
			}
			got, err := p.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sameCheckpoint(t, got, oldForm(t, c2))
			if gens := chunkGens(t, db); len(gens) != 1 {
				t.Errorf("generations after a complete save: %v", gens)
			}
			// A cancelled context stops a save the same way.
			cctx, cancel := context.WithCancel(ctx)
			pc := p
			pc.afterChunk = func(string) error { cancel(); return nil }
			if err := pc.Save(cctx, c1); !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled save: %v", err)
			}
			got, err = p.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sameCheckpoint(t, got, oldForm(t, c2))
		})
	}
}

// TestCheckpointLoadDamaged: a header that does not match its chunks is an
// error, not a partial state.
func TestCheckpointLoadDamaged(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(13, 13))
	c := randomCheckpoint(r, 30)
	for c.Cluster == nil || len(c.Cluster.Attempts) < 10 {
		c = randomCheckpoint(r, 30)
	}
	for _, tc := range []struct {
		name   string
		damage func(h *storedCheckpoint)
	}{
		{"more items", func(h *storedCheckpoint) { h.Sections[2].Items++ }},
		{"fewer items", func(h *storedCheckpoint) { h.Sections[2].Items-- }},
		{"missing chunk", func(h *storedCheckpoint) { h.Sections[2].Chunks++; h.Sections[2].Items++ }},
		{"other generation", func(h *storedCheckpoint) { h.Gen++ }},
		{"unknown section", func(h *storedCheckpoint) { h.Sections[0].Name = "later" }},
		{"codec", func(h *storedCheckpoint) { h.Codec = "zstd" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := profiles.NewMemory()
			defer db.Close()
			p := ProfileCheckpoints{Store: db, chunkBytes: 300}
			if err := p.Save(ctx, c); err != nil {
				t.Fatal(err)
			}
			var h storedCheckpoint
			if _, err := db.Get(ctx, checkpointNS, checkpointKey, &h); err != nil {
				t.Fatal(err)
			}
			if h.Sections[2].Name != secAttempts {
				t.Fatalf("section 2 is %s", h.Sections[2].Name)
			}
			tc.damage(&h)
			if err := db.Put(ctx, checkpointNS, checkpointKey, &h); err != nil {
				t.Fatal(err)
			}
			if got, err := p.Load(ctx); err == nil {
				t.Fatalf("loaded %v", got != nil)
			}
		})
	}
}

// Kill test, as profiles' crash_test: a child process saves two
// checkpoints alternately until killed; every reopened store loads one of
// them whole.
const ckCrashEnv = "SIDECAR_CKPT_CRASH_CHILD_DB"

func crashCheckpoints(t testing.TB) [2]*Checkpoint {
	r := rand.New(rand.NewPCG(17, 17))
	var out [2]*Checkpoint
	for i := range out {
		for out[i] == nil || out[i].Cluster == nil || len(out[i].Cluster.Attempts) < 40 {
			out[i] = randomCheckpoint(r, 60)
		}
	}
	return out
}

// TestCheckpointCrashChild is the child half of
// TestCheckpointCrashKillMidSave; it does nothing unless re-executed.
func TestCheckpointCrashChild(t *testing.T) {
	path := os.Getenv(ckCrashEnv)
	if path == "" {
		t.Skip("child process of TestCheckpointCrashKillMidSave only")
	}
	db, err := profiles.Open(path, profiles.Options{LockTimeout: 10 * time.Second})
	if err != nil {
		fmt.Println("OPEN-FAILED", err)
		os.Exit(3)
	}
	cs := crashCheckpoints(t)
	p := ProfileCheckpoints{Store: db, chunkBytes: 600}
	for i := 0; ; i++ {
		if err := p.Save(context.Background(), cs[i%2]); err != nil {
			fmt.Println("SAVE-FAILED", err)
			os.Exit(3)
		}
		if i == 0 {
			fmt.Println("READY")
		}
	}
}

// TestCheckpointCrashKillMidSave SIGKILLs a process in the middle of
// chunked saves and checks that the store loads a whole checkpoint.
func TestCheckpointCrashKillMidSave(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ck.db")
	cs := crashCheckpoints(t)
	want := [2]*Checkpoint{oldForm(t, cs[0]), oldForm(t, cs[1])}
	for round := range 5 {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestCheckpointCrashChild$", "-test.v")
		cmd.Env = append(os.Environ(), ckCrashEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ready := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(out)
			ok := false
			for sc.Scan() {
				if !ok && sc.Text() == "READY" {
					ok = true
					ready <- true
				}
			}
			if !ok {
				ready <- false
			}
		}()
		select {
		case ok := <-ready:
			if !ok {
				_ = cmd.Wait()
				t.Fatalf("round %d: child exited before READY", round)
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("round %d: child not ready", round)
		}
		time.Sleep(time.Duration(20+37*round) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()

		db, err := profiles.Open(path, profiles.Options{})
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		got, err := (ProfileCheckpoints{Store: db}).Load(ctx)
		if err != nil || got == nil {
			t.Fatalf("round %d: load: %v, %v", round, got, err)
		}
		if !reflect.DeepEqual(got, want[0]) && !reflect.DeepEqual(got, want[1]) {
			t.Fatalf("round %d: loaded checkpoint is neither saved one", round)
		}
		t.Logf("round %d: chunk generations %s", round, fmtGens(chunkGens(t, db)))
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func fmtGens(g map[uint64]int) string {
	var parts []string
	for gen, n := range g {
		parts = append(parts, strconv.FormatUint(gen, 10)+":"+strconv.Itoa(n))
	}
	return strings.Join(parts, " ")
}

// TestCheckpointForSaveLoads: the loop's copy (CheckpointForSave, node
// histories compact) saved in chunks loads as the full Checkpoint would,
// and through the one-record path too.
func TestCheckpointForSaveLoads(t *testing.T) {
	ctx := context.Background()
	eng := engine.New(policy.NewStack(kinder{}), engine.Options{Log: zerolog.Nop()})
	for _, ev := range readLog(t) {
		eng.Apply(ctx, &ev)
	}
	withHistory := 0
	for _, n := range eng.State().Nodes() {
		if n.History.Len() > 0 {
			withHistory++
		}
	}
	if withHistory == 0 {
		t.Fatal("the log should give nodes a history")
	}
	want := oldForm(t, &Checkpoint{V: 1, Cluster: eng.State().Checkpoint(), Engine: eng.Checkpoint()})
	for name, open := range ckStores(t) {
		db := open(t)
		p := ProfileCheckpoints{Store: db, chunkBytes: 700}
		c := &Checkpoint{V: 1, Cluster: eng.State().CheckpointForSave(), Engine: eng.Checkpoint()}
		if err := p.Save(ctx, c); err != nil {
			t.Fatal(err)
		}
		got, err := p.Load(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sameCheckpoint(t, got, want)
	}
	// The one-record path fills the histories before encoding.
	c := &Checkpoint{V: 1, Cluster: eng.State().CheckpointForSave(), Engine: eng.Checkpoint()}
	c.Cluster.FillHistories()
	sameCheckpoint(t, oldForm(t, c), want)
}
