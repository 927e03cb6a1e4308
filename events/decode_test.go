package events

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeValidEvents(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Event
	}{
		{
			name: "progress from the contract example",
			in:   `{"v":1,"id":"e17","type":"task.progress","ts":1763719205000,"app":"application_1_0001","task":"task_1_0001_m_000003","attempt":"attempt_1_0001_m_000003_0","progress":0.42,"phase":"map"}`,
			want: Event{V: 1, ID: "e17", Type: TaskProgress, TS: 1763719205000, App: "application_1_0001",
				Task: "task_1_0001_m_000003", Attempt: "attempt_1_0001_m_000003_0", Progress: 0.42, Phase: PhaseMap},
		},
		{
			name: "unknown extra fields are ignored",
			in:   `{"v":1,"id":"n1","type":"node.lost","ts":5,"node":"h1:8041","reason":"expired","future_field":{"x":[1,2]}}`,
			want: Event{V: 1, ID: "n1", Type: NodeLost, TS: 5, Node: "h1:8041", Reason: "expired"},
		},
		{
			name: "zero progress is present, not missing",
			in:   `{"v":1,"id":"p0","type":"task.progress","ts":1,"app":"a","task":"t","attempt":"at","progress":0,"phase":"shuffle"}`,
			want: Event{V: 1, ID: "p0", Type: TaskProgress, TS: 1, App: "a", Task: "t", Attempt: "at", Phase: PhaseShuffle},
		},
		{
			name: "pending reduce with partition 0",
			in:   `{"v":1,"id":"x","type":"task.pending","ts":1,"app":"a","task":"r0","kind":"reduce","partition":0}`,
			want: Event{V: 1, ID: "x", Type: TaskPending, TS: 1, App: "a", Task: "r0", Kind: Reduce, Partition: ptr(0)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestDecodeErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantField string
		wantIn    string // substring of the message
	}{
		{"missing required field", `{"v":1,"id":"e","type":"node.heartbeat","ts":1,"node":"n","used_vcores":1,"load1":0.5,"cpu_util":0.2}`, "used_memory_mb", "required field missing"},
		{"wrong type", `{"v":1,"id":"e","type":"node.registered","ts":1,"node":"n","rack":"/r","vcores":"eight","memory_mb":1}`, "vcores", "wrong type: got string, want number"},
		{"wrong nested type", `{"v":1,"id":"e","type":"task.pending","ts":1,"app":"a","task":"t","kind":"map","splits":[{"path":"/x","offset":"0","length":1}]}`, "splits.offset", "wrong type"},
		{"unknown type", `{"v":1,"id":"e","type":"node.exploded","ts":1}`, "type", `unknown event type "node.exploded"`},
		{"missing type", `{"v":1,"id":"e","ts":1}`, "type", "required field missing"},
		{"missing id", `{"v":1,"type":"node.lost","ts":1,"node":"n","reason":"r"}`, "id", "required field missing"},
		{"empty id", `{"v":1,"id":"","type":"node.lost","ts":1,"node":"n","reason":"r"}`, "id", "must not be empty"},
		{"missing v", `{"id":"e","type":"node.lost","ts":1,"node":"n","reason":"r"}`, "v", "required field missing"},
		{"future version", `{"v":2,"id":"e","type":"node.lost","ts":1,"node":"n","reason":"r"}`, "v", "unsupported version 2"},
		{"negative ts", `{"v":1,"id":"e","type":"node.lost","ts":-1,"node":"n","reason":"r"}`, "ts", "must be >= 0"},
		{"progress out of range", `{"v":1,"id":"e","type":"task.progress","ts":1,"app":"a","task":"t","attempt":"x","progress":1.5,"phase":"map"}`, "progress", "within 0..1"},
		{"bad phase", `{"v":1,"id":"e","type":"task.progress","ts":1,"app":"a","task":"t","attempt":"x","progress":0.5,"phase":"spill"}`, "phase", "must be one of"},
		{"bad kind", `{"v":1,"id":"e","type":"task.pending","ts":1,"app":"a","task":"t","kind":"combine"}`, "kind", "must be one of"},
		{"bad app state", `{"v":1,"id":"e","type":"app.finished","ts":1,"app":"a","state":"DONE"}`, "state", "must be one of"},
		{"feature out of scale", `{"v":1,"id":"e","type":"app.submitted","ts":1,"app":"a","name":"n","queue":"q","user":"u","job_type":"sort","maps":1,"reduces":1,"features":{"cpu":11,"memory":1,"disk":1,"network":1}}`, "features.cpu", "1..10"},
		{"map output without partitions", `{"v":1,"id":"e","type":"map.output","ts":1,"app":"a","task":"t","attempt":"x","node":"n"}`, "partitions", "required field missing"},
		{"bad locality", `{"v":1,"id":"e","type":"container.allocated","ts":1,"app":"a","task":"t","attempt":"x","container":"c","node":"n","locality":"far"}`, "locality", "must be one of"},
		{"cpu util above one", `{"v":1,"id":"e","type":"node.heartbeat","ts":1,"node":"n","used_vcores":1,"used_memory_mb":1,"load1":0.5,"cpu_util":2}`, "cpu_util", "within 0..1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.in))
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("want *FieldError, got %v", err)
			}
			if fe.Field != tt.wantField {
				t.Errorf("field = %q, want %q (error %q)", fe.Field, tt.wantField, err)
			}
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q does not contain %q", err, tt.wantIn)
			}
		})
	}
}

func TestDecodeNotJSON(t *testing.T) {
	for _, in := range []string{`not json`, `{"v":1,`, `[1,2]`, `"str"`, ``, `null x`} {
		_, err := Decode([]byte(in))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "" {
			t.Errorf("Decode(%q) = %v, want a field-less *FieldError", in, err)
		}
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	one := 1
	half := 0.5
	evs := []Event{
		{ID: "1", Type: NodeRegistered, TS: 1, Node: "n1", Rack: "/r1", VCores: 8, MemoryMB: 16384, CPUMHz: 2400, PowerIdleW: 150, PowerMaxW: 350, Labels: []string{"ssd"}},
		{ID: "2", Type: NodeHeartbeat, TS: 2, Node: "n1", UsedVCores: 0, UsedMemoryMB: 0, Load1: 0, CPUUtil: 0, RunningContainers: &one},
		{ID: "3", Type: NodeLost, TS: 3, Node: "n1", Reason: "expired"},
		{ID: "4", Type: AppSubmitted, TS: 4, App: "a", Name: "sort", Queue: "default", User: "u", JobType: "sort", Maps: 0, Reduces: 0, Priority: &one, Features: &Features{1, 2, 3, 4}, InputPaths: []string{"/in"}},
		{ID: "5", Type: AppFinished, TS: 5, App: "a", State: StateSucceeded},
		{ID: "6", Type: TaskPending, TS: 6, App: "a", Task: "t", Kind: Map, Splits: []Split{{Path: "/in", Offset: 0, Length: 10, Hosts: []string{"n1"}}}},
		{ID: "7", Type: ContainerAllocated, TS: 7, App: "a", Task: "t", Attempt: "t_0", Container: "c", Node: "n1", Speculative: true, Locality: NodeLocal, VCores: 1, MemoryMB: 1024},
		{ID: "8", Type: TaskProgress, TS: 8, App: "a", Task: "t", Attempt: "t_0", Progress: 0, Phase: PhaseMap, PhaseProgress: &half},
		{ID: "9", Type: TaskFinished, TS: 9, App: "a", Task: "t", Attempt: "t_0", State: StateKilled, PhaseMS: &PhaseDurations{Map: 10}},
		{ID: "10", Type: MapOutput, TS: 10, App: "a", Task: "t", Attempt: "t_0", Node: "n1", Partitions: []PartitionSize{{ID: 0, Bytes: 0}}},
	}
	for _, e := range evs {
		b, err := Encode(&e)
		if err != nil {
			t.Fatalf("Encode(%s): %v", e.Type, err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("Decode(Encode(%s)) = %v; json %s", e.Type, err, b)
		}
		e.V = Version
		if !reflect.DeepEqual(got, e) {
			t.Errorf("%s round trip:\n got %+v\nwant %+v", e.Type, got, e)
		}
	}
}

func TestEncodeRejectsInvalid(t *testing.T) {
	_, err := Encode(&Event{ID: "x", Type: TaskProgress, TS: 1, App: "a", Task: "t", Attempt: "x", Progress: 2, Phase: PhaseMap})
	if err == nil || !strings.Contains(err.Error(), "progress") {
		t.Fatalf("want progress error, got %v", err)
	}
}
