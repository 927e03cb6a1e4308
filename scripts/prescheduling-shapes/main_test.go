package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestMergeArgs(t *testing.T) {
	var old, extra yaml.Node
	if err := yaml.Unmarshal([]byte("{mode: yarn, fairness_bound: 0.1}"), &old); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte("{fairness_bound: 0.5, hold_fraction: 0.25}"), &extra); err != nil {
		t.Fatal(err)
	}
	args := map[string]*yaml.Node{"prescheduling": old.Content[0], "late": {Kind: yaml.MappingNode}}
	got := mergeArgs(args, extra.Content[0])
	var m map[string]any
	if err := got["prescheduling"].Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m["mode"] != "yarn" || m["fairness_bound"] != 0.5 || m["hold_fraction"] != 0.25 || len(m) != 3 {
		t.Errorf("merged %v, want mode yarn, fairness_bound 0.5, hold_fraction 0.25", m)
	}
	if got["late"] != args["late"] {
		t.Error("other policies' args not kept")
	}
	var back map[string]any
	_ = args["prescheduling"].Decode(&back)
	if back["fairness_bound"] != 0.1 {
		t.Errorf("the scenario's args were changed: %v", back)
	}
}

// run on two copies of a shape (one per form) prints a row for each, each
// form's averages, and leaves the paper's scenarios out.
func TestRunPrintsBothForms(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../scenarios/prescheduling-small-r1-10.yaml")
	if err != nil {
		t.Fatal(err)
	}
	yarnSrc, err := os.ReadFile("../../scenarios/prescheduling-yarn-small-r1-10.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{
		"prescheduling-small-r1-10.yaml":      src,
		"prescheduling-yarn-small-r1-10.yaml": yarnSrc,
		"prescheduling-16.yaml":               []byte("not: a shape"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-scenarios", dir, "-seeds", "2", "-yarn-args", "hold_fraction: 0.25"}, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"prescheduling-small-r1-10.yaml ", "prescheduling-yarn-small-r1-10.yaml ",
		"Hadoop-1 form: mean change", "YARN form: mean change"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "prescheduling-16") {
		t.Errorf("the paper's scenario was run:\n%s", s)
	}
	if err := run(context.Background(), []string{"-scenarios", dir, "-yarn-args", "[1, 2]"}, &out); err == nil || !strings.Contains(err.Error(), "-yarn-args") {
		t.Errorf("a list for -yarn-args: err %v, want one naming the flag", err)
	}
}
