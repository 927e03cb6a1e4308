package samr_test

import (
	"testing"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/clustertest"
)

const now = 10_000_000

// args are policy settings as in the YAML file.
type args = clustertest.Args

// speculate feeds the builder's new events to the plugin's observer, then
// asks it to speculate; it returns the speculate and node-class hints apart.
func speculate(t *testing.T, p policy.Plugin, b *clustertest.Builder) (spec, class []policy.Hint) {
	t.Helper()
	for _, h := range b.Speculate(t, p) {
		switch h.Kind {
		case policy.KindSpeculate:
			spec = append(spec, h)
		case policy.KindNodeClass:
			class = append(class, h)
		default:
			t.Fatalf("unexpected hint kind %s", h.Kind)
		}
	}
	return spec, class
}

func startAt(b *clustertest.Builder, app, task string, kind events.TaskKind, node string, start int64, progress float64, phase string, pp float64) {
	cur := b.Now()
	b.At(start)
	b.Start(app, task, kind, task+"_0", node, false)
	b.At(cur)
	b.Progress(task+"_0", progress, phase, pp)
}

type want struct {
	task, node string
	remMS      int64
}

func check(t *testing.T, got []policy.Hint, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("%d speculate hints %+v, want %d", len(got), got, len(wants))
	}
	for i, w := range wants {
		h := got[i]
		if h.Task != w.task || h.Attempt != w.task+"_0" || h.Node != w.node {
			t.Errorf("hint %d = %s/%s -> %s, want %s -> %s", i, h.Task, h.Attempt, h.Node, w.task, w.node)
		}
		if w.remMS >= 0 && (h.EstRemainingMS < w.remMS-2 || h.EstRemainingMS > w.remMS+2) {
			t.Errorf("hint %d: est_remaining_ms = %d, want %d", i, h.EstRemainingMS, w.remMS)
		}
	}
}
