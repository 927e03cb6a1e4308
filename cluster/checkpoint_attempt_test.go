package cluster

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// embeddedAttemptCk is AttemptCk as it was, embedding the Attempt: the
// reference for the JSON of the flat AttemptCk.
type embeddedAttemptCk struct {
	Attempt
	App       string `json:"app"`
	TaskID    string `json:"task"`
	Alloc     Stamp  `json:"alloc_stamp"`
	Prog      Stamp  `json:"prog_stamp"`
	Fin       Stamp  `json:"fin_stamp"`
	Out       Stamp  `json:"out_stamp"`
	Allocated bool   `json:"allocated"`
}

// TestAttemptCkMirrorsAttempt: AttemptCk starts with every exported field
// of Attempt that JSON writes, in order, with the same type and tag, so a
// field added to Attempt and not to AttemptCk fails here.
func TestAttemptCkMirrorsAttempt(t *testing.T) {
	at, ck := reflect.TypeFor[Attempt](), reflect.TypeFor[AttemptCk]()
	k := 0
	for f := range at.Fields() {
		if !f.IsExported() || f.Tag.Get("json") == "-" {
			continue
		}
		g := ck.Field(k)
		if g.Name != f.Name || g.Type != f.Type || g.Tag != f.Tag {
			t.Errorf("AttemptCk field %d is %s %s %q, Attempt's is %s %s %q", k, g.Name, g.Type, g.Tag, f.Name, f.Type, f.Tag)
		}
		k++
	}
	if want := k + 7; ck.NumField() != want {
		t.Errorf("AttemptCk has %d fields, want %d (Attempt's and its own seven)", ck.NumField(), want)
	}
}

// randomAttempt fills an attempt's exported fields and stamps with random
// values, empty and zero ones included (omitempty).
func randomAttempt(r *rand.Rand) *Attempt {
	str := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return "s" + strconv.Itoa(r.IntN(1000))
	}
	i64 := func() int64 {
		if r.IntN(3) == 0 {
			return 0
		}
		return r.Int64N(1<<40) - 1<<39
	}
	f64 := func() float64 {
		if r.IntN(3) == 0 {
			return 0
		}
		return r.NormFloat64()
	}
	at := &Attempt{ID: str(), Container: str(), Node: str(), Speculative: r.IntN(2) == 0,
		Locality: events.Locality(str()), VCores: int(i64()), MemoryMB: int(i64()), StartTS: i64(),
		Progress: f64(), Phase: str(), PhaseProgress: f64(), ProgressTS: i64(), RecordsDone: i64(),
		RecordsTotal: i64(), BytesRead: i64(), MapsFetched: int(i64()), MapsTotal: int(i64()),
		State: str(), FinishTS: i64()}
	if r.IntN(2) == 0 {
		at.PhaseMS = &events.PhaseDurations{Map: i64(), Sort: i64(), Shuffle: i64(), Merge: i64(), Reduce: i64()}
	}
	switch r.IntN(3) {
	case 0:
		at.Output = []events.PartitionSize{}
	case 1:
		at.Output = []events.PartitionSize{{ID: 1, Bytes: i64()}, {ID: 2}}
	}
	at.allocID, at.progID, at.allocated = str(), str(), r.IntN(2) == 0
	if r.IntN(2) == 0 {
		at.lateStamps().fin = stamp{i64(), str()}
	}
	if r.IntN(2) == 0 {
		at.lateStamps().out = stamp{i64(), str()}
	}
	return at
}

// TestAttemptCkJSONMatchesEmbedded: an attempt in a checkpoint writes the
// JSON the embedding AttemptCk wrote, and that JSON read into an AttemptCk
// gives back the attempt's fields.
func TestAttemptCkJSONMatchesEmbedded(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		at := randomAttempt(r)
		old := embeddedAttemptCk{Attempt: *at, App: "a", TaskID: "t",
			Alloc: exportStamp(at.allocStamp()), Prog: exportStamp(at.progStamp()),
			Fin: exportStamp(at.finStamp()), Out: exportStamp(at.outStamp()), Allocated: at.allocated}
		old.Attempt.late, old.Attempt.allocID, old.Attempt.progID, old.Attempt.allocated = nil, "", "", false
		want, err := json.Marshal(old)
		if err != nil {
			t.Fatal(err)
		}
		ck := exportAttempt(at, "a", "t")
		got, err := json.Marshal(ck)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("json\n got %s\nwant %s", got, want)
		}
		// Read back, the JSON gives what it gave the embedding AttemptCk.
		var back AttemptCk
		var oldBack embeddedAttemptCk
		if err := json.Unmarshal(want, &back); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(want, &oldBack); err != nil {
			t.Fatal(err)
		}
		if a := back.attempt(); !reflect.DeepEqual(*a, oldBack.Attempt) {
			t.Fatalf("attempt %+v, want %+v", *a, oldBack.Attempt)
		}
		if back.App != oldBack.App || back.TaskID != oldBack.TaskID || back.Alloc != oldBack.Alloc || back.Prog != oldBack.Prog ||
			back.Fin != oldBack.Fin || back.Out != oldBack.Out || back.Allocated != oldBack.Allocated {
			t.Fatalf("stamps %+v, want %+v", back, oldBack)
		}
	}
}
