package events

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReaderReportsLineAndField(t *testing.T) {
	log := strings.Join([]string{
		`{"v":1,"id":"a","type":"node.lost","ts":1,"node":"n","reason":"r"}`,
		``,
		`{"v":1,"id":"b","type":"node.lost","ts":2,"node":"n"}`,
		`garbage`,
		`{"v":1,"id":"c","type":"node.lost","ts":3,"node":"n","reason":"r"}`,
	}, "\n")
	r := NewReader(strings.NewReader(log))
	var ids []string
	var errs []string
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *LineError
		if errors.As(err, &le) {
			errs = append(errs, le.Error())
			if le.Line == 3 && le.Field != "reason" {
				t.Errorf("line 3 field = %q, want reason", le.Field)
			}
			if le.Line == 4 && string(le.Raw) != "garbage" {
				t.Errorf("raw = %q", le.Raw)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ev.ID)
	}
	if strings.Join(ids, ",") != "a,c" {
		t.Errorf("ids = %v", ids)
	}
	if len(errs) != 2 || !strings.HasPrefix(errs[0], "line 3: reason: required field missing") || !strings.HasPrefix(errs[1], "line 4: not JSON") {
		t.Errorf("errors = %q", errs)
	}
}

func TestWriterThenReader(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i, id := range []string{"x", "y"} {
		if err := w.Write(&Event{ID: id, Type: NodeLost, TS: int64(i), Node: "n", Reason: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r := NewReader(&buf)
	for _, want := range []string{"x", "y"} {
		ev, err := r.Next()
		if err != nil || ev.ID != want {
			t.Fatalf("got %v %v, want %s", ev.ID, err, want)
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("want EOF, got %v", err)
	}
}

func TestReaderTooLongLine(t *testing.T) {
	long := `{"v":1,"id":"` + strings.Repeat("x", MaxLineBytes) + `"}`
	r := NewReader(strings.NewReader(long))
	_, err := r.Next()
	var le *LineError
	if !errors.As(err, &le) || le.Line != 1 {
		t.Fatalf("want line 1 error, got %v", err)
	}
}
