package policy_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/plugins"
)

func TestHintJSONRoundTripPerKind(t *testing.T) {
	hints := []policy.Hint{
		{Kind: policy.KindSpeculate, App: "a", Task: "t", Attempt: "x", Node: "n", EstRemainingMS: 0, EstBackupMS: 5},
		{Kind: policy.KindDenySpeculation, App: "a", Task: "t"},
		{Kind: policy.KindKill, App: "a", Attempt: "x", Container: "c"},
		{Kind: policy.KindNodeClass, Node: "n", MapSlow: true, ReduceSlow: false},
		{Kind: policy.KindPlace, App: "a", Task: "t", Nodes: []policy.NodeScore{{Node: "n", Score: 1, Locality: "node"}}},
		{Kind: policy.KindPlace, App: "a", Task: "t", Nodes: []policy.NodeScore{{Node: "n", Score: 1}}, Strict: true},
		{Kind: policy.KindReduceBinding, App: "a", Partition: 0, Node: "n", Reducers: 2},
		{Kind: policy.KindRatio, Queue: "q", MaxMaps: 0, MaxReduces: 3},
		{Kind: policy.KindRatio, App: "a", MaxMaps: policy.NoCap, MaxReduces: 0},
		{Kind: policy.KindRatio, Node: "n", MaxMaps: 6, MaxReduces: policy.NoCap},
		{Kind: policy.KindNodeCapacity, Node: "n", VCores: 4, MemoryMB: 8192},
		{Kind: policy.KindPriority, App: "a", Priority: 0},
	}
	for _, h := range hints {
		h.V, h.ID, h.TS, h.Policy, h.Reason = 1, "h1", 7, "p", "why"
		b, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		var got policy.Hint
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v (%s)", h.Kind, err, b)
		}
		if !reflect.DeepEqual(got, h) {
			t.Errorf("%s:\n got %+v\nwant %+v", h.Kind, got, h)
		}
	}
}

func TestHintRequiredZeroFieldsAreWritten(t *testing.T) {
	b, _ := json.Marshal(policy.Hint{V: 1, Kind: policy.KindNodeClass, Node: "n"})
	for _, f := range []string{`"map_slow":false`, `"reduce_slow":false`, `"kind":"node-class"`, `"reason":""`} {
		if !strings.Contains(string(b), f) {
			t.Errorf("%s lacks %s", b, f)
		}
	}
	b, _ = json.Marshal(policy.Hint{V: 1, Kind: policy.KindRatio, App: "a"})
	if !strings.Contains(string(b), `"max_maps":0`) {
		t.Errorf("%s lacks max_maps", b)
	}
}

// A ratio cap that is absent on the wire is no cap; 0 is a cap of zero.
func TestRatioCapAbsentZeroAndSet(t *testing.T) {
	tests := []struct {
		json          string
		maps, reduces int
	}{
		{`{"v":1,"kind":"ratio","queue":"q"}`, policy.NoCap, policy.NoCap},
		{`{"v":1,"kind":"ratio","queue":"q","max_maps":0,"max_reduces":0}`, 0, 0},
		{`{"v":1,"kind":"ratio","node":"n","max_reduces":4}`, policy.NoCap, 4},
		{`{"v":1,"kind":"ratio","app":"a","max_maps":-3,"max_reduces":2}`, policy.NoCap, 2},
	}
	for _, tt := range tests {
		var h policy.Hint
		if err := json.Unmarshal([]byte(tt.json), &h); err != nil {
			t.Fatalf("%s: %v", tt.json, err)
		}
		if h.MaxMaps != tt.maps || h.MaxReduces != tt.reduces {
			t.Errorf("%s: caps %d/%d, want %d/%d", tt.json, h.MaxMaps, h.MaxReduces, tt.maps, tt.reduces)
		}
	}
	b, _ := json.Marshal(policy.Hint{V: 1, Kind: policy.KindRatio, Node: "n", MaxMaps: policy.NoCap, MaxReduces: 0})
	if strings.Contains(string(b), "max_maps") || !strings.Contains(string(b), `"max_reduces":0`) || !strings.Contains(string(b), `"node":"n"`) {
		t.Errorf("no-cap/zero-cap ratio written as %s", b)
	}
}

func TestHintValidate(t *testing.T) {
	tests := []struct {
		h    policy.Hint
		want string
	}{
		{policy.Hint{Kind: policy.KindSpeculate, App: "a", Task: "t", Attempt: "x"}, "node: required"},
		{policy.Hint{Kind: policy.KindPlace, App: "a", Task: "t"}, "nodes: required"},
		{policy.Hint{Kind: policy.KindRatio}, "app, queue or node: required"},
		{policy.Hint{Kind: policy.KindRatio, App: "a", Node: "n"}, "node: not allowed with app or queue"},
		{policy.Hint{Kind: policy.KindRatio, Queue: "q", Node: "n"}, "node: not allowed with app or queue"},
		{policy.Hint{Kind: "teleport"}, "unknown"},
	}
	for _, tt := range tests {
		if err := tt.h.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%s) = %v, want %q", tt.h.Kind, err, tt.want)
		}
	}
}

func TestStatus(t *testing.T) {
	var s *policy.Status
	if !s.IsSuccess() || s.Err() != nil {
		t.Fatal("nil status must be success")
	}
	e := policy.AsStatus(errors.New("boom"))
	if e.Code() != policy.Error || e.Err() == nil || e.Message() != "boom" {
		t.Fatalf("AsStatus: %v %v", e.Code(), e.Err())
	}
	if sk := policy.NewStatus(policy.Skip, "nothing", "to do"); sk.Code() != policy.Skip || sk.Err() != nil || sk.Message() != "nothing, to do" {
		t.Fatalf("skip status wrong: %v", sk.Message())
	}
}

type spec struct{ name string }

func (s spec) Name() string { return s.name }
func (spec) Speculate(context.Context, cluster.View) ([]policy.Hint, *policy.Status) {
	return nil, nil
}
func (spec) Gate(_ context.Context, _ cluster.View, in []policy.Hint) ([]policy.Hint, *policy.Status) {
	return in, nil
}

func TestRegistryBuild(t *testing.T) {
	r := plugins.NewRegistry()
	if err := r.Register("sp", func(context.Context, policy.Handle) (policy.Plugin, error) { return spec{"sp"}, nil }); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("bad", func(context.Context, policy.Handle) (policy.Plugin, error) { return nil, errors.New("no") }); err != nil {
		t.Fatal(err)
	}
	st, err := r.Build(context.Background(), "none+sp", policy.Handle{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Name() != "none+sp" || len(st.Plugins) != 2 || len(st.Speculators) != 1 || len(st.Gates) != 1 || len(st.Placers) != 0 {
		t.Fatalf("stack = %+v", st)
	}
	for _, tt := range []struct{ stack, want string }{
		{"none+zzz", `unknown policy "zzz" (known: bad, `}, // the built-in list grows
		{"none+none", `listed twice`},
		{"none+", `empty policy name`},
		{"bad", `build policy "bad": no`},
	} {
		if _, err := r.Build(context.Background(), tt.stack, policy.Handle{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Build(%q) = %v, want %q", tt.stack, err, tt.want)
		}
	}
	if err := r.Register("none", nil); err == nil {
		t.Error("duplicate registration must fail")
	}
	if err := r.Register("a+b", nil); err == nil {
		t.Error("name with + must fail")
	}
}

func TestParseStacks(t *testing.T) {
	got, err := policy.ParseStacks("yarn, samr+sepb")
	if err != nil || !reflect.DeepEqual(got, []string{"yarn", "samr+sepb"}) {
		t.Fatalf("got %v %v", got, err)
	}
	if _, err := policy.ParseStacks("yarn,,late"); err == nil {
		t.Fatal("empty stack must fail")
	}
}
