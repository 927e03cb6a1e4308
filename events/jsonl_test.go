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

// TestReaderContinuesAfterTooLongLine: a line over MaxLineBytes is one
// LineError naming its line, and the reader goes on with the next line
// (issue 16: it used to return the same error forever).
func TestReaderContinuesAfterTooLongLine(t *testing.T) {
	for _, nl := range []string{"\n", "\r\n"} {
		long := `{"v":1,"id":"` + strings.Repeat("x", 5<<20) + `"}`
		log := strings.Join([]string{
			`{"v":1,"id":"a","type":"node.lost","ts":1,"node":"n","reason":"r"}`,
			long,
			`{"v":1,"id":"c","type":"node.lost","ts":3,"node":"n","reason":"r"}`,
		}, nl)
		r := NewReader(strings.NewReader(log))
		ev, err := r.Next()
		if err != nil || ev.ID != "a" {
			t.Fatalf("first: %v %v", ev.ID, err)
		}
		_, err = r.Next()
		var le *LineError
		if !errors.As(err, &le) || le.Line != 2 || !strings.Contains(le.Error(), "line 2: line longer than") {
			t.Fatalf("second: want line 2 LineError, got %v", err)
		}
		ev, err = r.Next()
		if err != nil || ev.ID != "c" || r.Line() != 3 {
			t.Fatalf("third: %v %v (line %d)", ev.ID, err, r.Line())
		}
		if _, err := r.Next(); !errors.Is(err, io.EOF) {
			t.Fatalf("want EOF, got %v", err)
		}
	}
}

// TestReaderLineLimitBoundary: a line of exactly MaxLineBytes (with or
// without "\r\n", with or without a final newline) is read; one byte more is not.
func TestReaderLineLimitBoundary(t *testing.T) {
	pad := func(n int) string { // a valid event n bytes long
		head := `{"v":1,"id":"`
		tail := `","type":"node.lost","ts":1,"node":"n","reason":"r"}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	for _, tc := range []struct {
		in      string
		wantErr bool
	}{
		{pad(MaxLineBytes) + "\n", false},
		{pad(MaxLineBytes) + "\r\n", false},
		{pad(MaxLineBytes), false},
		{pad(MaxLineBytes+1) + "\n", true},
		{pad(MaxLineBytes + 1), true},
	} {
		r := NewReader(strings.NewReader(tc.in))
		_, err := r.Next()
		var le *LineError
		if gotErr := errors.As(err, &le); gotErr != tc.wantErr || (!gotErr && err != nil) {
			t.Errorf("len %d: err %v, want LineError %v", len(tc.in), err, tc.wantErr)
		}
		if _, err := r.Next(); !errors.Is(err, io.EOF) {
			t.Errorf("len %d: want EOF after, got %v", len(tc.in), err)
		}
	}
}

// TestReaderStopsOnReadError: a failing underlying reader is reported, not retried.
func TestReaderStopsOnReadError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader(`{"v":1,"id":"a","type":"node.lost","ts":1,"node":"n","reason":"r"}`+"\n"), iotestErr{boom}))
	if ev, err := r.Next(); err != nil || ev.ID != "a" {
		t.Fatalf("first: %v %v", ev.ID, err)
	}
	for i := 0; i < 2; i++ {
		if _, err := r.Next(); !errors.Is(err, boom) || !strings.Contains(err.Error(), "read line 2") {
			t.Fatalf("want boom at line 2, got %v", err)
		}
	}
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }
