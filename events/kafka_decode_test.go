package events

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// corpus is every event line of the repository's logs and the decoder's
// fuzz corpus.
func corpus(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	logs, _ := filepath.Glob("../integration/testdata/*.jsonl")
	logs = append(logs, "../demo/recorded.jsonl")
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, MaxLineBytes)
		for sc.Scan() {
			out = append(out, append([]byte(nil), sc.Bytes()...))
		}
	}
	entries, _ := filepath.Glob("testdata/fuzz/FuzzDecode/*")
	for _, p := range entries {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitN(string(b), "\n", 3)
		if len(lines) < 2 {
			continue
		}
		lit := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(lines[1]), "[]byte("), ")")
		s, err := strconv.Unquote(lit)
		if err != nil {
			continue
		}
		out = append(out, []byte(s))
	}
	if len(out) < 100 {
		t.Fatalf("corpus has only %d entries", len(out))
	}
	return out
}

func sameAsDecode(t *testing.T, in []byte) (fast bool) {
	t.Helper()
	want, wantErr := Decode(in)
	got, gotErr := DecodeMessage(in)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%q: error %v, Decode says %v", in, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", in, got, want)
	}
	_, _, fast = decodeFast(in)
	return fast
}

// TestDecodeMessageEqualsDecode: on every logged event, every fuzz input
// and mutations of them, the fast path agrees with Decode exactly.
func TestDecodeMessageEqualsDecode(t *testing.T) {
	fast, total := 0, 0
	mutations := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.Replace(s, `"v":1`, `"v":1.0`, 1) },
		func(s string) string { return strings.Replace(s, `"v":1`, `"v":2`, 1) },
		func(s string) string { return strings.Replace(s, `"ts":`, `"ts":-`, 1) },
		func(s string) string { return strings.Replace(s, `"id"`, `"ID"`, 1) },
		func(s string) string { return strings.Replace(s, `"progress":0`, `"progress":1`, 1) },
		func(s string) string { return strings.Replace(s, `"progress":`, `"progress":"`, 1) },
		func(s string) string { return strings.Replace(s, `:1`, `:01`, 1) },
		func(s string) string { return strings.Replace(s, `:`, `: null,"x":`, 1) },
		func(s string) string { return strings.Replace(s, `,`, ` , `, -1) },
		func(s string) string { return strings.TrimSuffix(s, "}") },
		func(s string) string { return s + "x" },
		func(s string) string { return strings.Replace(s, `"node":"`, `"node":"\u00e9`, 1) },
		func(s string) string { return strings.Replace(s, `"node":"`, `"node":"\"`, 1) },
		func(s string) string { return strings.Replace(s, `}`, `,"id":"dup"}`, 1) },
		func(s string) string { return strings.Replace(s, `"used_vcores":`, `"used_vcores":1e3,"x":`, 1) },
		func(s string) string { return strings.Replace(s, `"load1":`, `"load1":1e999,"y":`, 1) },
		func(s string) string { return strings.Replace(s, `"speculative":true`, `"speculative":tru`, 1) },
		func(s string) string { return strings.Replace(s, `"type":"task.progress"`, `"type":"task.progres"`, 1) },
		func(s string) string {
			return strings.Replace(s, `"records_done":`, `"records_done":99999999999999999999,"z":`, 1)
		},
	}
	for _, in := range corpus(t) {
		for _, m := range mutations {
			total++
			if sameAsDecode(t, []byte(m(string(in)))) {
				fast++
			}
		}
	}
	if fast == 0 {
		t.Fatal("the fast path never applied")
	}
	t.Logf("%d of %d inputs took the fast path", fast, total)
}

func TestFastPathTakesTheStreamsBulk(t *testing.T) {
	for _, line := range []string{
		`{"v":1,"id":"e1","type":"node.heartbeat","ts":1763719201000,"node":"nm1:8041","used_vcores":2,"used_memory_mb":2048,"load1":1.5,"cpu_util":0.25,"running_containers":2}`,
		`{"v":1,"id":"e17","type":"task.progress","ts":1763719205000,"app":"application_1_0001","task":"task_1_0001_m_000003","attempt":"attempt_1_0001_m_000003_0","progress":0.42,"phase":"map"}`,
		`{"v":1,"id":"e2","type":"container.allocated","ts":5,"app":"a","task":"t","attempt":"x","container":"c","node":"n","speculative":true,"locality":"rack"}`,
	} {
		if !sameAsDecode(t, []byte(line)) {
			t.Errorf("fast path not taken for %s", line)
		}
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, in := range corpus(f) {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		sameAsDecode(t, in)
	})
}

func BenchmarkDecode(b *testing.B) {
	line := []byte(`{"v":1,"id":"e17","type":"task.progress","ts":1763719205000,"app":"application_1_0001","task":"task_1_0001_m_000003","attempt":"attempt_1_0001_m_000003_0","progress":0.42,"phase":"map"}`)
	b.Run("Decode", func(b *testing.B) {
		for range b.N {
			_, _ = Decode(line)
		}
	})
	b.Run("DecodeMessage", func(b *testing.B) {
		for range b.N {
			_, _ = DecodeMessage(line)
		}
	})
	b.Run("MessageDecoder", func(b *testing.B) {
		var d MessageDecoder
		evs := make([]Event, 256) // as a consumer's batch
		for i := range b.N {
			evs[i%len(evs)], _ = d.Decode(line)
		}
	})
	b.Run("MessageDecoderInto", func(b *testing.B) {
		var d MessageDecoder
		evs := make([]Event, 256)
		for i := range b.N {
			_ = d.DecodeInto(line, &evs[i%len(evs)])
		}
	})
}

// BenchmarkDecodeStream decodes a stream shaped as the bridge sends it:
// per poll every node's heartbeat, then the progress reports of 20 apps of
// 50 running attempts each, app by app (allocations per message are the
// figure that matters: the strings the events keep).
func BenchmarkDecodeStream(b *testing.B) {
	var msgs [][]byte
	id := 0
	for n := range 300 {
		id++
		msgs = append(msgs, fmt.Appendf(nil, `{"v":1,"id":"yb-1763719201000-%d","type":"node.heartbeat","ts":1763719201000,"node":"nm%d.example.com:8041","used_vcores":2,"used_memory_mb":2048,"load1":1.5,"cpu_util":0.25,"running_containers":2}`, id, n))
	}
	for a := range 20 {
		for t := range 50 {
			id++
			msgs = append(msgs, fmt.Appendf(nil, `{"v":1,"id":"yb-1763719201000-%d","type":"task.progress","ts":1763719201000,"app":"application_1763719200000_%04d","task":"task_1763719200000_%04d_m_%06d","attempt":"attempt_1763719200000_%04d_m_%06d_0","progress":0.42,"phase":"map"}`, id, a, a, t, a, t))
		}
	}
	var d MessageDecoder
	evs := make([]Event, 256)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := d.DecodeInto(msgs[i%len(msgs)], &evs[i%len(evs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMessageDecoderReuse: one MessageDecoder reused over the whole corpus
// (so every message meets the values the ones before it left in the scratch
// space) decodes every message exactly as Decode does, and events decoded
// earlier do not change afterwards.
func TestMessageDecoderReuse(t *testing.T) {
	var d MessageDecoder
	ins := corpus(t)
	type result struct {
		ev  Event
		err string
	}
	got := make([]result, len(ins))
	for i, in := range ins {
		ev, err := d.Decode(in)
		got[i] = result{ev, fmt.Sprint(err)}
	}
	// DecodeInto over one reused Event (as a consumer's recycled batch
	// does): nothing of the event decoded before it survives.
	var into Event
	for i, in := range ins {
		if i%2 == 0 {
			into = Event{V: 9, ID: "stale", Node: "stale", Labels: []string{"stale"}, Progress: 0.5}
		}
		err := d.DecodeInto(in, &into)
		want, wantErr := Decode(in)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(into, want) {
			t.Fatalf("%q: DecodeInto gave %+v, %v; Decode %+v, %v", in, into, err, want, wantErr)
		}
	}
	for i, in := range ins {
		want, wantErr := Decode(in)
		if got[i].err != fmt.Sprint(wantErr) {
			t.Fatalf("%q: error %v, Decode says %v", in, got[i].err, wantErr)
		}
		if !reflect.DeepEqual(got[i].ev, want) {
			t.Fatalf("%q (decoded %d messages ago):\n got %+v\nwant %+v", in, len(ins)-i, got[i].ev, want)
		}
	}
}
