package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/sim/report"
)

// The §3.2.2 claim end to end in the simulator: under the worst static split
// (1/11) one Sort job is far slower than under an even one, while DHSA's
// makespan barely moves across splits.
func TestShareSweepClaim(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator")
	}
	makespan := map[string]float64{}
	for _, m := range []int{1, 6, 11} {
		slots := fmt.Sprintf("map_slots: %d, reduce_slots: %d", m, 12-m)
		for name, args := range map[string]string{
			"static": "{" + slots + ", percentage_of_borrowed_map_slots: 0, percentage_of_borrowed_reduce_slots: 0}",
			"pi":     "{" + slots + "}",
		} {
			j := &job{scenario: "../../scenarios/dynamicmr-sort.yaml", stack: "yarn+dhsa-pi", seeds: 1,
				args: map[string]string{"dhsa-pi": args}}
			r, err := simulateOne(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			makespan[fmt.Sprintf("%s/%d", name, m)] = r.MakespanS
		}
	}
	if s := makespan["static/1"] / makespan["static/6"]; s < 1.5 {
		t.Errorf("static 1/11 vs 6/6: %.2fx, want a large gap (paper ~1.8x)", s)
	}
	lo, hi := makespan["pi/1"], makespan["pi/1"]
	for _, m := range []int{6, 11} {
		lo, hi = min(lo, makespan[fmt.Sprintf("pi/%d", m)]), max(hi, makespan[fmt.Sprintf("pi/%d", m)])
	}
	if hi/lo > 1.1 {
		t.Errorf("DHSA worst/best across splits = %.2f, want <= 1.1 (%v)", hi/lo, makespan)
	}
}

func TestPrintsClaims(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator")
	}
	var out bytes.Buffer
	err := run(context.Background(), []string{"-quick", "-seeds", "1", "-only", "presched", "-scenarios", "../../scenarios"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"claim  +2 to +25 points of node locality", "claim  fairness not lower"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// SEPB's hard-straggler kills must not cost the DynamicMR stack what DHSA
// gains: on the 10-job batch, seed 1, PI-DHSA + SEPB once killed 12 of
// sequencecount's reducers seconds before they finished (1031 s against
// 932 s for PI-DHSA alone). Table: stack with SEPB against the same stack
// without, both at the scenarios' 6/6 split.
func TestSEPBDoesNotUndoDHSA(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator")
	}
	for _, c := range []struct{ with, without string }{
		{"yarn+dhsa-pi+sepb", "yarn+dhsa-pi"},
		{dynamicMRStack("pi"), "yarn+dhsa-pi"},
		{dynamicMRStack("pd"), "yarn+dhsa-pd"},
	} {
		ms := map[string]float64{}
		for _, stack := range []string{c.with, c.without} {
			j := &job{scenario: "../../scenarios/dynamicmr-batch-10.yaml", stack: stack, seeds: 1,
				args: dynamicMRArgs(strings.TrimPrefix(c.without, "yarn+dhsa-"), 6, "")}
			r, err := simulateOne(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			ms[stack] = r.MakespanS
		}
		if ms[c.with] > 1.02*ms[c.without] {
			t.Errorf("%s: makespan %.1f s, %s %.1f s: SEPB costs more than 2 %%", c.with, ms[c.with], c.without, ms[c.without])
		}
	}
}

func TestPrintsDynamicMRClaim(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator")
	}
	var out bytes.Buffer
	err := run(context.Background(), []string{"-quick", "-seeds", "1", "-only", "batch", "-batch-splits", "6",
		"-scenarios", "../../scenarios"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DynamicMR vs YARN", "measured, PI stack at 6/6", "measured, PD stack at 6/6", "PI-DHSA 6/6"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// Table 1 and Fig. 10 on the 32-map scenario (Hadoop 1.2.1 delay scheduling
// and load manager): Slot PreScheduling gives the head job its local map on
// a node at the load cap, so delay scheduling passes it over less often and
// node locality does not drop.
func TestPreSchedulingPassesOverLess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator")
	}
	runs := map[string]report.Run{}
	for _, stack := range []string{"yarn", "yarn+prescheduling"} {
		j := &job{scenario: "../../scenarios/prescheduling-32.yaml", stack: stack, seeds: 1}
		r, err := simulateOne(context.Background(), j)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := r.Extra[passedOver]; !ok {
			t.Fatalf("%s: results lack %s (yarn.load_balance / hadoop1_delay runs report it)", stack, passedOver)
		}
		runs[stack] = r
	}
	y, p := runs["yarn"], runs["yarn+prescheduling"]
	if y.Extra[passedOver] == 0 {
		t.Fatalf("delay scheduling alone passed no map over: the scenario no longer exercises Table 1")
	}
	if p.Extra[passedOver] >= y.Extra[passedOver] {
		t.Errorf("maps passed over: +prescheduling %v, delay alone %v; want fewer", p.Extra[passedOver], y.Extra[passedOver])
	}
	if p.Locality.Node < y.Locality.Node {
		t.Errorf("node locality: +prescheduling %.3f < delay alone %.3f", p.Locality.Node, y.Locality.Node)
	}
}
