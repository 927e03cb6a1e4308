package report

import (
	"strings"
	"testing"
	"time"
)

// fakeClock advances by step on every reading.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(step)
		return t
	}
}

func newTestProgress(total int, tty bool, step time.Duration) (*Progress, *strings.Builder) {
	var b strings.Builder
	p := NewProgress(&b, total, tty)
	p.now = fakeClock(step)
	p.start = p.now()
	return p, &b
}

func TestProgressLine(t *testing.T) {
	p, _ := newTestProgress(5894, true, 0)
	p.done = 2471
	got := p.line(p.start.Add(12300 * time.Millisecond))
	want := "[============>                 ] 41% 2471/5894 jobs 12.3s"
	if got != want {
		t.Errorf("line\n got %q\nwant %q", got, want)
	}
	p.done = 5894
	if got := p.line(p.start); !strings.HasPrefix(got, "["+strings.Repeat("=", 30)+"] 100% 5894/5894") {
		t.Errorf("full bar %q", got)
	}
	u, _ := newTestProgress(0, false, 0)
	u.WithUnit("events").done = 42
	if got := u.line(u.start.Add(time.Second)); got != "42 events 1.0s" {
		t.Errorf("unknown total: %q", got)
	}
}

func TestProgressNonTTYPrintsSparseLines(t *testing.T) {
	p, out := newTestProgress(1000, false, time.Millisecond)
	for range 1000 {
		p.Add(1)
	}
	p.Finish()
	p.Add(5) // after Finish: ignored
	s := out.String()
	if strings.Contains(s, "\r") {
		t.Error("carriage return written to a non-terminal")
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines, want one per tenth (10):\n%s", len(lines), s)
	}
	if !strings.Contains(lines[0], "10% 100/1000") || !strings.Contains(lines[9], "100% 1000/1000") {
		t.Errorf("first %q last %q", lines[0], lines[9])
	}
}

func TestProgressTTYRedrawsInPlaceThrottled(t *testing.T) {
	p, out := newTestProgress(100, true, 10*time.Millisecond) // each update 10 ms later
	for range 100 {
		p.Add(1)
	}
	p.Finish()
	s := out.String()
	draws := strings.Count(s, "\r")
	// 100 updates 10 ms apart, redraws at most every 100 ms, plus the
	// completed bar and Finish.
	if draws < 8 || draws > 14 {
		t.Errorf("%d redraws, want about 10", draws)
	}
	if strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") {
		t.Errorf("want exactly one newline, at the end: %q", s)
	}
	last := s[strings.LastIndex(s, "\r")+1:]
	if !strings.Contains(last, "100% 100/100 jobs") {
		t.Errorf("final draw %q", last)
	}
}

func TestProgressTTYBlanksLeftovers(t *testing.T) {
	p, out := newTestProgress(0, true, time.Second)
	p.Set(123456)
	p.Set(7) // shorter line must overwrite the longer one fully
	s := out.String()
	draws := strings.Split(s, "\r")
	if len(draws[2]) < len(draws[1]) {
		t.Errorf("second draw %q shorter than the first %q: leftovers stay on screen", draws[2], draws[1])
	}
}
