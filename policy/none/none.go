// Package none is the policy that decides nothing: no speculation, no
// placement, no shaping. It lets the pipeline run end to end and is the
// "no speculation" baseline in the simulator.
package none

import (
	"context"

	"github.com/rmsidecar/rmsidecar/policy"
)

// Name is the registered name.
const Name = "none"

// Plugin implements no extension point.
type Plugin struct{}

// New is the factory.
func New(context.Context, policy.Handle) (policy.Plugin, error) { return Plugin{}, nil }

// Name implements policy.Plugin.
func (Plugin) Name() string { return Name }
