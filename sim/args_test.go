package sim

import (
	"context"
	"testing"

	"github.com/rmsidecar/rmsidecar/policy"
)

// fixedArgs is policy.Args giving every policy the value x.
type fixedArgs float64

func (a fixedArgs) Decode(_ string, into any) error {
	into.(*probeConfig).X = float64(a)
	return nil
}

type probeConfig struct {
	X float64 `yaml:"x"`
}

type probe struct{}

func (probe) Name() string { return "probe" }

// A policy reads the scenario's policy_args section when there is one, else
// Options.PolicyArgs (the sidecar config's policies.<name>), else keeps its
// defaults.
func TestPolicyArgsScenarioThenOptions(t *testing.T) {
	const base = `
cluster:
  racks: 1
  nodes: [{count: 1, vcores: 1, memory_mb: 2048}]
workload:
  jobs: [{name: a, input_mb: 64, reduces: 0, shuffle_ratio: 0}]
`
	for _, tc := range []struct {
		name     string
		yml      string
		fallback policy.Args
		want     float64
	}{
		{"defaults", base, nil, 7},
		{"options only", base, fixedArgs(2), 2},
		{"scenario wins", base + "policy_args: {probe: {x: 3}}\n", fixedArgs(2), 3},
		{"scenario without options", base + "policy_args: {probe: {x: 4}}\n", nil, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got float64
			reg := policy.Registry{}
			if err := reg.Register("probe", func(_ context.Context, h policy.Handle) (policy.Plugin, error) {
				c := probeConfig{X: 7}
				if err := h.Args.Decode("probe", &c); err != nil {
					return nil, err
				}
				got = c.X
				return probe{}, nil
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := newSim(context.Background(), mustParse(t, tc.yml), "probe", Options{Registry: reg, PolicyArgs: tc.fallback}); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("x = %v, want %v", got, tc.want)
			}
		})
	}
}
