package engine

import (
	"context"
	"testing"

	"go.uber.org/mock/gomock"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/mocks"
)

// Observers see each event once, after it is applied, and never a duplicate.
func TestObserversSeeEachAppliedEventOnce(t *testing.T) {
	ctrl := gomock.NewController(t)
	obs := mocks.NewMockObserver(ctrl)
	obs.EXPECT().Name().Return("obs").AnyTimes()
	evs := running()
	for i := range evs {
		ev := evs[i]
		obs.EXPECT().Observe(gomock.Any(), gomock.Any(), gomock.Any()).
			DoAndReturn(func(_ context.Context, got *events.Event, v interface{ Now() int64 }) {
				if got.ID != ev.ID {
					t.Errorf("observed %s, want %s", got.ID, ev.ID)
				}
				if v.Now() < got.TS {
					t.Errorf("observer ran before the state applied event %s", got.ID)
				}
			})
	}
	e := New(policy.NewStack(obs), Options{})
	apply(t, e, evs)
	apply(t, e, evs) // duplicates: no further Observe calls (gomock fails on extras)
}

func TestSpeculatorErrorStatusIsCountedAndDropped(t *testing.T) {
	ctrl := gomock.NewController(t)
	spec := mocks.NewMockSpeculator(ctrl)
	spec.EXPECT().Name().Return("flaky").AnyTimes()
	spec.EXPECT().Speculate(gomock.Any(), gomock.Any()).Return(
		[]policy.Hint{{Kind: policy.KindSpeculate, App: "a", Task: "t", Attempt: "x", Node: "n"}},
		policy.NewStatus(policy.Error, "estimator diverged"))
	e := New(policy.NewStack(spec), Options{})
	if hs := e.Tick(context.Background(), 1000); len(hs) != 0 {
		t.Fatalf("hints of a failed call leaked: %+v", hs)
	}
	if e.Stats().Errors["flaky"] != 1 {
		t.Fatalf("errors = %v", e.Stats().Errors)
	}
}
