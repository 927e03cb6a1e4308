package sim

import (
	"bytes"
	"encoding/json"
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
