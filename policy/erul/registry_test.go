package erul_test

import (
	"context"
	"testing"

	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/plugins"
)

func TestRegistered(t *testing.T) {
	r := plugins.NewRegistry()
	for _, name := range []string{"erul", "mcp", "exmcp"} {
		st, err := r.Build(context.Background(), name, policy.Handle{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(st.Speculators) != 1 || len(st.Observers) != 1 || len(st.Flushers) != 1 || st.Plugins[0].Name() != name {
			t.Fatalf("%s: stack %+v", name, st)
		}
	}
}
