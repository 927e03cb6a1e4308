// Package plugins builds the registry of every policy rmsidecar ships.
package plugins

import (
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/baseline"
	"github.com/rmsidecar/rmsidecar/policy/dhsa"
	"github.com/rmsidecar/rmsidecar/policy/erul"
	"github.com/rmsidecar/rmsidecar/policy/learning"
	"github.com/rmsidecar/rmsidecar/policy/none"
	"github.com/rmsidecar/rmsidecar/policy/prescheduling"
	"github.com/rmsidecar/rmsidecar/policy/samr"
	"github.com/rmsidecar/rmsidecar/policy/sepb"
	"github.com/rmsidecar/rmsidecar/policy/tmar"
)

// NewRegistry returns a registry with every built-in policy.
func NewRegistry() policy.Registry {
	r := policy.Registry{}
	for _, e := range []struct {
		name string
		f    policy.Factory
	}{
		{none.Name, none.New},
		{dhsa.NamePI, dhsa.NewPI},
		{dhsa.NamePD, dhsa.NewPD},
		{prescheduling.Name, prescheduling.NewPlugin},
		{tmar.Name, tmar.New},
		{tmar.NamePower, tmar.NewPower},
		{erul.NameERUL, erul.NewERUL},
		{erul.NameMCP, erul.NewMCP},
		{erul.NameExMCP, erul.NewExMCP},
		{learning.NameNB, learning.NewNBPlugin},
		{learning.NamePerceptron, learning.NewPerceptronPlugin},
		{baseline.NameNaive, baseline.NewNaive},
		{baseline.NameLATE, baseline.NewLATE},
		{baseline.NameYARN, baseline.NewYARN},
		{samr.Name, samr.New},
		{sepb.Name, sepb.New},
	} {
		if err := r.Register(e.name, e.f); err != nil {
			panic(err) // built-in names are constants: a clash is a programming error
		}
	}
	return r
}
