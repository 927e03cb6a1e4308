package policy

import (
	"bufio"
	"encoding/json"
	"flag"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/identity.golden")

// TestIdentityGolden pins Target and Content of one hint of every kind: a
// change here changes the journal keys of every running sidecar, so it
// needs a new IdentityVersion and a journal migration, not -update alone.
func TestIdentityGolden(t *testing.T) {
	var b strings.Builder
	for _, h := range identityHints(t, "testdata/identity_hints.jsonl") {
		b.WriteString(h.Target() + "\t" + h.Content() + "\n")
	}
	const golden = "testdata/identity.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Fatalf("identity changed:\n got\n%s\n want\n%s", b.String(), want)
	}
}

// identityHints reads hints, one JSON object per line.
func identityHints(t testing.TB, path string) []Hint {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var hs []Hint
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var h Hint
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		hs = append(hs, h)
	}
	return hs
}

// TestContentCoversEveryField: setting any field of Hint (found by
// reflection, so a new field fails here until Content writes it or it is
// excluded on purpose) changes Content, and the excluded ones do not.
func TestContentCoversEveryField(t *testing.T) {
	excluded := strings.Fields("V ID TS Policy Reason ExpiresTS EstRemainingMS EstBackupMS")
	base := Hint{Kind: KindPlace, App: "a"}
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		h := base
		v := reflect.ValueOf(&h).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 3)
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Slice:
			v.Set(reflect.ValueOf([]NodeScore{{Node: "n", Score: 1}}))
		default:
			t.Fatalf("field %s: kind %s not handled by this test", name, v.Kind())
		}
		changed := h.Content() != base.Content() || h.Target() != base.Target()
		if want := !slices.Contains(excluded, name); changed != want {
			t.Errorf("field %s: identity changed = %v, want %v", name, changed, want)
		}
	}
}

// TestContentTellsDecisionsApart: hints that differ in what they decide
// never share a Content, including values fmt's %v wrote alike or that a
// separator inside a string could confuse.
func TestContentTellsDecisionsApart(t *testing.T) {
	hs := []Hint{
		{Kind: KindPlace, App: "a", Nodes: []NodeScore{{Node: "n1", Score: 0.5}}},
		{Kind: KindPlace, App: "a", Nodes: []NodeScore{{Node: "n1", Score: 0.5, Locality: "node"}}},
		{Kind: KindPlace, App: "a", Nodes: []NodeScore{{Node: "n1:0.5", Score: 0}}},
		{Kind: KindPlace, App: "a", Nodes: []NodeScore{{Node: "n1", Score: 0.5}, {Node: "n2", Score: 0}}},
		{Kind: KindPlace, App: "a", Nodes: []NodeScore{{Node: "n1", Score: math.Inf(1)}}},
		{Kind: KindPlace, App: "a", Nodes: []NodeScore{{Node: "n1", Score: math.Inf(-1)}}},
		{Kind: KindPlace, App: "a\" node=\"b"},
		{Kind: KindPlace, App: "a", Node: "b"},
		{Kind: KindRatio, App: "a", MaxMaps: NoCap, MaxReduces: 0},
		{Kind: KindRatio, App: "a", MaxMaps: 0, MaxReduces: NoCap},
		{Kind: KindRatio, App: "a", MaxMaps: NoCap, MaxReduces: NoCap},
		{Kind: KindNodeClass, Node: "n", MapSlow: true},
		{Kind: KindNodeClass, Node: "n", ReduceSlow: true},
		{Kind: KindNodeClass, Node: "n"},
	}
	seen := map[string]int{}
	for i, h := range hs {
		k := h.Target() + "\x00" + h.Content()
		if j, ok := seen[k]; ok {
			t.Errorf("hints %d and %d share identity %q", j, i, k)
		}
		seen[k] = i
	}
}

func BenchmarkAppendContent(b *testing.B) {
	h := Hint{Kind: KindSpeculate, App: "application_1700000000000_0001", Task: "task_1700000000000_0001_m_000003",
		Attempt: "attempt_1700000000000_0001_m_000003_0", Node: "node7.example.com:8041"}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendContent(buf[:0], &h)
	}
}

func TestAppendQuotedIsStrconvQuote(t *testing.T) {
	for _, s := range []string{"", "node1:8041", `a"b`, `a\b`, "tab\t", "é", "\x7f", "\x00", "application_1_2"} {
		if got, want := string(appendQuoted(nil, s)), strconv.Quote(s); got != want {
			t.Errorf("appendQuoted(%q) = %s, want %s", s, got, want)
		}
	}
}
