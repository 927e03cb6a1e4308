package baseline_test

import (
	"context"
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
)

// args are policy settings as in the YAML file.
type args = clustertest.Args

func build(t *testing.T, f policy.Factory, a args) policy.Plugin {
	t.Helper()
	p, err := f(context.Background(), policy.Handle{Args: a})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// speculate feeds the builder's events to the plugin's observer, then asks it
// to speculate on the final state.
func speculate(t *testing.T, p policy.Plugin, b *clustertest.Builder) []policy.Hint {
	t.Helper()
	return b.Speculate(t, p)
}

// startAt starts attempt <task>_0 of task at start, on node, with progress in
// phase (phase progress pp) reported at the builder's current time.
func startAt(b *clustertest.Builder, app, task string, kind events.TaskKind, node string, start int64, progress float64, phase string, pp float64) {
	now := b.Now()
	b.At(start)
	b.Start(app, task, kind, task+"_0", node, false)
	b.At(now)
	b.Progress(task+"_0", progress, phase, pp)
}

type want struct {
	task, node string
	remMS      int64 // -1: do not check
}

func check(t *testing.T, name string, got []policy.Hint, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("%s: %d hints %+v, want %d", name, len(got), got, len(wants))
	}
	for i, w := range wants {
		h := got[i]
		if h.Kind != policy.KindSpeculate || h.Task != w.task || h.Attempt != w.task+"_0" || h.Node != w.node {
			t.Errorf("%s: hint %d = %s %s/%s -> %s, want %s -> %s", name, i, h.Kind, h.Task, h.Attempt, h.Node, w.task, w.node)
		}
		if w.remMS >= 0 && (h.EstRemainingMS < w.remMS-2 || h.EstRemainingMS > w.remMS+2) {
			t.Errorf("%s: est_remaining_ms = %d, want %d", name, h.EstRemainingMS, w.remMS)
		}
	}
}

func policyHandle(a args) policy.Handle { return policy.Handle{Args: a} }
