package sim

import (
	"bytes"
	"encoding/csv"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
)

// tasksWriter writes the bytes csv.Writer writes for the same rows (the
// code it replaced), with ids that need no quotes and ids that do: commas,
// quotes, line ends, a leading ASCII or Unicode space, `\.`, empty fields.
func TestTasksWriterSameAsCSV(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	pieces := []string{"", "job_1", "task_1763683200000_0001_m_000001", "attempt_1_0", "node-0001", "a,b", `q"uote`,
		"line\nend", "cr\rx", " lead", "\tlead", "\u00a0nbsp", "\u3000ideo", `\.`, `\.x`, "trail ", "é", "x\u2028y"}
	pick := func() string {
		if rng.IntN(3) == 0 {
			return pieces[rng.IntN(4)+1] // mostly plain
		}
		return pieces[rng.IntN(len(pieces))] + pieces[rng.IntN(len(pieces))]
	}
	var got, want bytes.Buffer
	w := newTasksWriter(&got)
	ref := csv.NewWriter(&want)
	if err := w.Write(TasksCSVHeader()); err != nil {
		t.Fatal(err)
	}
	_ = ref.Write(TasksCSVHeader())
	for range 20_000 {
		j := &job{id: pick()}
		tk := &task{job: j, id: pick(), kind: events.TaskKind(pick())}
		a := &attempt{task: tk, node: &node{id: pick()}, id: pick(), spec: rng.IntN(2) == 0,
			loc: events.Locality(pick()), startMS: rng.Int64N(1 << 40), fetched: rng.Int64N(1 << 50)}
		now := a.startMS + rng.Int64N(1<<30)
		state := []string{events.StateSucceeded, events.StateKilled, pick()}[rng.IntN(3)]
		if err := w.attempt(a, now, state); err != nil {
			t.Fatal(err)
		}
		_ = ref.Write([]string{j.id, tk.id, a.id, string(tk.kind), a.node.id, strconv.FormatBool(a.spec), string(a.loc),
			strconv.FormatFloat(float64(a.startMS)/1000, 'f', -1, 64), strconv.FormatFloat(float64(now)/1000, 'f', -1, 64),
			state, strconv.FormatInt(a.fetched, 10)})
	}
	w.Flush()
	ref.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		g, r := got.Bytes(), want.Bytes()
		i := 0
		for i < min(len(g), len(r)) && g[i] == r[i] {
			i++
		}
		t.Fatalf("output differs at byte %d of %d/%d: got %q, want %q", i, len(g), len(r), g[max(0, i-40):min(len(g), i+40)], r[max(0, i-40):min(len(r), i+40)])
	}
}
