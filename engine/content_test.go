package engine

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/rmsidecar/rmsidecar/policy"
)

// TestAppendContentMatchesContent: the engine's content and target keys are
// exactly policy.Hint.Content and Target, for hand-picked hints and for hints
// whose every field (found by reflection, so a new field is covered) holds a
// random value.
func TestAppendContentMatchesContent(t *testing.T) {
	floats := []float64{0, math.Copysign(0, -1), 1, -2.5, 1e-7, 1e21, 123456789, 1.0 / 3, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, math.SmallestNonzeroFloat64}
	tests := []struct {
		name string
		h    policy.Hint
	}{
		{"empty", policy.Hint{}},
		{"speculate", policy.Hint{Kind: policy.KindSpeculate, App: "application_1_2", Task: "t 1", Attempt: "a", Node: "n1:8041",
			EstRemainingMS: 5, EstBackupMS: 7, Reason: "r", ID: "h1", TS: 9, ExpiresTS: 10, Policy: "yarn", V: 1}},
		{"place", policy.Hint{Kind: policy.KindPlace, App: "a", Task: "t", Strict: true,
			Nodes: []policy.NodeScore{{Node: "n1", Score: 0.5, Locality: "node"}, {Node: "n2", Score: -3}}}},
		{"empty nodes", policy.Hint{Kind: policy.KindPlace, Nodes: []policy.NodeScore{}}},
		{"reduce binding", policy.Hint{Kind: policy.KindReduceBinding, App: "a", Partition: -1, Reducers: 12, MapSlow: true, ReduceSlow: true}},
	}
	for i, f := range floats {
		tests = append(tests, struct {
			name string
			h    policy.Hint
		}{"score " + strconv.Itoa(i), policy.Hint{Kind: policy.KindPlace, Nodes: []policy.NodeScore{{Node: "n", Score: f}}}})
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		var h policy.Hint
		fill(r, reflect.ValueOf(&h).Elem(), floats)
		tests = append(tests, struct {
			name string
			h    policy.Hint
		}{"random " + strconv.Itoa(i), h})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := string(appendContent(nil, &tt.h)), tt.h.Content(); got != want {
				t.Fatalf("appendContent:\n got  %q\n want %q", got, want)
			}
			for _, k := range policy.HintKinds { // Target depends on the kind
				h := tt.h
				h.Kind = k
				if got, want := string(AppendTarget(nil, &h)), h.Target(); got != want {
					t.Fatalf("AppendTarget:\n got  %q\n want %q", got, want)
				}
			}
		})
	}
}

// fill sets every field of v (recursively) to a random value.
func fill(r *rand.Rand, v reflect.Value, floats []float64) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			fill(r, v.Field(i), floats)
		}
	case reflect.String:
		v.SetString([]string{"", "x", "a b", "{}", "n7:8041"}[r.IntN(5)])
	case reflect.Int, reflect.Int64:
		v.SetInt(r.Int64N(2000) - 1000)
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Float64:
		v.SetFloat(floats[r.IntN(len(floats))])
	case reflect.Slice:
		n := r.IntN(3)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(r, s.Index(i), floats)
		}
		v.Set(s)
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}
