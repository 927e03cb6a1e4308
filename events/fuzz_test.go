package events

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

// FuzzDecode checks that Decode never panics and that whatever it accepts
// survives an Encode/Decode round trip unchanged.
func FuzzDecode(f *testing.F) {
	seeds := []string{
		`{"v":1,"id":"e17","type":"task.progress","ts":1763719205000,"app":"a","task":"t","attempt":"x","progress":0.42,"phase":"map"}`,
		`{"v":1,"id":"n","type":"node.registered","ts":1,"node":"h","rack":"/r","vcores":8,"memory_mb":1024,"labels":["a"]}`,
		`{"v":1,"id":"h","type":"node.heartbeat","ts":1,"node":"h","used_vcores":1,"used_memory_mb":2,"load1":0.3,"cpu_util":0.5,"running_containers":2}`,
		`{"v":1,"id":"s","type":"app.submitted","ts":1,"app":"a","name":"n","queue":"q","user":"u","job_type":"sort","maps":3,"reduces":1,"features":{"cpu":1,"memory":2,"disk":3,"network":4},"priority":2}`,
		`{"v":1,"id":"p","type":"task.pending","ts":1,"app":"a","task":"t","kind":"map","splits":[{"path":"/f","offset":0,"length":5,"hosts":["h"]}]}`,
		`{"v":1,"id":"c","type":"container.allocated","ts":1,"app":"a","task":"t","attempt":"x","container":"c","node":"h","speculative":true,"locality":"rack"}`,
		`{"v":1,"id":"f","type":"task.finished","ts":1,"app":"a","task":"t","attempt":"x","state":"SUCCEEDED","phase_ms":{"map":5}}`,
		`{"v":1,"id":"o","type":"map.output","ts":1,"app":"a","task":"t","attempt":"x","node":"h","partitions":[{"id":0,"bytes":9}]}`,
		`{"v":1,"id":"l","type":"node.lost","ts":1,"node":"h","reason":"r"}`,
		`{"v":1,"id":"d","type":"app.finished","ts":1,"app":"a","state":"FAILED"}`,
		`{"v":1,"type":"node.lost"}`, `[]`, `null`, `{"v":"1"}`, `{"ts":1e400}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Decode(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		b, err := Encode(&ev)
		if err != nil {
			t.Fatalf("accepted event does not encode: %v (input %q)", err, data)
		}
		again, err := Decode(b)
		if err != nil {
			t.Fatalf("re-decode: %v (json %s)", err, b)
		}
		if !reflect.DeepEqual(normalize(ev), normalize(again)) {
			t.Fatalf("round trip changed the event:\n%+v\n%+v", ev, again)
		}
	})
}

// normalize maps empty slices to nil: JSON cannot tell [] from absent for optional lists.
func normalize(e Event) Event {
	if len(e.Labels) == 0 {
		e.Labels = nil
	}
	if len(e.InputPaths) == 0 {
		e.InputPaths = nil
	}
	if len(e.Splits) == 0 {
		e.Splits = nil
	}
	if len(e.Partitions) == 0 {
		e.Partitions = nil
	}
	for i := range e.Splits {
		if len(e.Splits[i].Hosts) == 0 {
			e.Splits[i].Hosts = nil
		}
	}
	return e
}

// FuzzReader: the JSONL Reader ends on any input. It yields at most one
// event or *LineError per line, with line numbers that only grow, then
// io.EOF; an accepted event decodes the same from its line alone.
func FuzzReader(f *testing.F) {
	good := `{"v":1,"id":"a","type":"node.lost","ts":1,"node":"n","reason":"r"}`
	f.Add([]byte(good + "\n" + good + "\n"))
	f.Add([]byte(good + "\r\n\r\n  \t\n" + `{"v":1,"id":"b","type":"node.lost","ts":2,"node":"n"}` + "\ngarbage\n" + good))
	f.Add([]byte(`{"v":1,"id":"e17","type":"task.progress","ts":1763719205000,"app":"a","task":"t","attempt":"x","progress":0.42,"phase":"map"}` + "\n\n"))
	f.Add([]byte("\n\n\n"))
	f.Add([]byte(""))
	f.Add([]byte("{\n}\n[\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte("\n")) + 1
		r := NewReader(bytes.NewReader(data))
		last := 0
		for calls := 0; ; calls++ {
			if calls > lines {
				t.Fatalf("%d results from %d lines: the reader does not advance", calls, lines)
			}
			ev, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if r.Line() <= last || r.Line() > lines {
				t.Fatalf("line %d after line %d (%d lines)", r.Line(), last, lines)
			}
			last = r.Line()
			var le *LineError
			if errors.As(err, &le) {
				if le.Line != r.Line() || le.Error() == "" {
					t.Fatalf("LineError %v at reader line %d", le, r.Line())
				}
				continue
			}
			if err != nil {
				t.Fatalf("error %v from a bytes.Reader", err)
			}
			raw := bytes.TrimRight(bytes.Split(data, []byte("\n"))[last-1], "\r")
			again, err := Decode(raw)
			if err != nil || !reflect.DeepEqual(again, ev) {
				t.Fatalf("line %d: reader gave %+v, Decode gives %+v, %v", last, ev, again, err)
			}
		}
	})
}
