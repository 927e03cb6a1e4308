package sim

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"slices"
	"testing"

	"github.com/rmsidecar/rmsidecar/policy/plugins"
)

// Every registered policy runs through the simulator without panics,
// errors or invalid hints, and its hints reach the cluster.
func TestEveryPolicyRuns(t *testing.T) {
	reg := plugins.NewRegistry()
	for _, name := range reg.Names() {
		t.Run(name, func(t *testing.T) {
			s := runSim(t, mustLoad(t, "testdata/stragglers.yaml"), name, Options{Registry: reg})
			st := s.eng.Stats()
			for _, m := range []map[string]uint64{st.Panics, st.Errors, st.Invalid} {
				for k, v := range m {
					t.Errorf("%s: %d panics/errors/invalid hints (%s)", name, v, k)
				}
			}
			r := s.results()
			// Determinism holds for every policy, not only the baselines: a
			// second run of the same seed gives the same results.
			again := runSim(t, mustLoad(t, "testdata/stragglers.yaml"), name, Options{Registry: reg}).results()
			a, _ := json.Marshal(r)
			b, _ := json.Marshal(again)
			if !bytes.Equal(a, b) {
				t.Errorf("%s: two runs of the same seed differ", name)
			}
			t.Logf("%-20s makespan %6.0f mean JCT %5.0f spec %+v hints %v extra ignored %.0f dropped %.0f", name, r.MakespanS, r.MeanJCTS, r.Spec, r.Hints, r.Extra["spec_ignored"], r.Extra["spec_dropped"])
		})
	}
}

// A run that forgets finished jobs (the default: finished tasks and
// attempts leave the simulator, finished apps the engine's model) gives
// byte-identical results to one that keeps them, for every policy.
func TestForgettingFinishedJobsChangesNothing(t *testing.T) {
	reg := plugins.NewRegistry()
	for _, name := range reg.Names() {
		t.Run(name, func(t *testing.T) {
			sc := mustLoad(t, "testdata/stragglers.yaml")
			kept := runSim(t, sc, name, Options{Registry: reg}).results()
			s, err := newSim(context.Background(), mustLoad(t, "testdata/stragglers.yaml"), name, Options{Registry: reg})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.run(t.Context()); err != nil {
				t.Fatal(err)
			}
			launched := s.m.locNode + s.m.locRack + s.m.locOff // map attempts alone
			if len(s.attempts) >= launched {
				t.Errorf("attempt table holds %d slots for %d attempts: slots are not reused", len(s.attempts), launched)
			}
			a, _ := json.Marshal(kept)
			b, _ := json.Marshal(s.results())
			if !bytes.Equal(a, b) {
				t.Errorf("%s: results differ when finished jobs are forgotten", name)
			}
		})
	}
}

// A run that overwrites the records of stopped attempts (the default when
// finished jobs are forgotten) gives the same results, event log and
// tasks.csv as one that allocates every record anew and frees a slot the
// moment its attempt stops, for every policy (kill and speculate hints end
// attempts in the middle of another event).
func TestAttemptReuseChangesNothing(t *testing.T) {
	reg := plugins.NewRegistry()
	for _, name := range reg.Names() {
		t.Run(name, func(t *testing.T) {
			run := func(fresh bool) (*sim, []byte, []byte, []byte) {
				var evs, tasks bytes.Buffer
				s, err := newSim(t.Context(), mustLoad(t, "testdata/stragglers.yaml"), name,
					Options{Registry: reg, Events: &evs, Tasks: &tasks, freshAttempts: fresh})
				if err != nil {
					t.Fatal(err)
				}
				if err := s.run(t.Context()); err != nil {
					t.Fatal(err)
				}
				res, _ := json.Marshal(s.results())
				return s, res, evs.Bytes(), tasks.Bytes()
			}
			_, wantRes, wantEvs, wantTasks := run(true)
			s, res, evs, tasks := run(false)
			if len(s.attempts) >= s.m.launched {
				t.Errorf("%d records for %d attempts: none reused", len(s.attempts), s.m.launched)
			}
			if !bytes.Equal(res, wantRes) {
				t.Error("results differ when attempt records are reused")
			}
			if !bytes.Equal(evs, wantEvs) {
				t.Error("event log differs when attempt records are reused")
			}
			if !bytes.Equal(tasks, wantTasks) {
				t.Error("tasks.csv differs when attempt records are reused")
			}
		})
	}
}

// Options.Tasks streams one row per attempt as it ends and changes nothing
// in the results.
func TestTasksCSV(t *testing.T) {
	reg := plugins.NewRegistry()
	var buf bytes.Buffer
	s := runSim(t, mustLoad(t, "testdata/stragglers.yaml"), "late", Options{Registry: reg, Tasks: &buf})
	plain := runSim(t, mustLoad(t, "testdata/stragglers.yaml"), "late", Options{Registry: reg})
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+s.m.launched || !slices.Equal(rows[0], TasksCSVHeader()) {
		t.Fatalf("%d rows for %d attempts, header %v", len(rows), s.m.launched, rows[0])
	}
	a, _ := json.Marshal(s.results())
	b, _ := json.Marshal(plain.results())
	if !bytes.Equal(a, b) {
		t.Error("writing tasks changed the results")
	}
}
