package report

import (
	"math"
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
	// 2471 in 12.3 s: 201 a second, 3423 left: 17 s.
	want := "[============>                 ] 41% 2471/5894 jobs · 12.3s · 201 jobs/s · ETA 17.0s"
	if got != want {
		t.Errorf("line\n got %q\nwant %q", got, want)
	}
	p.done, p.note = 5894, "12/12 jobs, sim 1h02m"
	if got := p.line(p.start.Add(time.Hour + 90*time.Second)); got != "["+strings.Repeat("=", 30)+"] 100% 5894/5894 jobs · 12/12 jobs, sim 1h02m · 1h02m · 1.6 jobs/s" {
		t.Errorf("full bar %q", got)
	}
	u, _ := newTestProgress(0, false, 0)
	u.WithUnit("events").done = 42
	if got := u.line(u.start.Add(time.Second)); got != "42 events · 1.0s · 42 events/s" {
		t.Errorf("unknown total: %q", got)
	}
	big, _ := newTestProgress(2_900_000, false, 0)
	big.WithUnit("tasks").done = 1_234_567
	if got := big.line(big.start.Add(10 * time.Minute)); !strings.Contains(got, "1.23M/2.9M tasks · 10m00s · 2058 tasks/s · ETA 13m29s") {
		t.Errorf("large counts: %q", got)
	}
}

// TestProgressRateFollowsTheLastWindow: the rate (and the ETA) is measured
// over the last 10 s, so a run that slows down shows it.
func TestProgressRateFollowsTheLastWindow(t *testing.T) {
	p, _ := newTestProgress(100_000, false, 0)
	clock := p.start
	p.now = func() time.Time { return clock }
	for range 60 { // 1000 a second for a minute
		clock = clock.Add(time.Second)
		p.Add(1000)
	}
	for range 30 { // then 100 a second
		clock = clock.Add(time.Second)
		p.Add(100)
	}
	if r := p.rate(clock); math.Abs(r-100) > 1 {
		t.Errorf("rate %v, want the last window's 100/s (the average is %v)", r, float64(p.done)/90)
	}
	if l := p.line(clock); !strings.Contains(l, "63000/100k jobs") || !strings.Contains(l, "ETA 6m10s") {
		t.Errorf("line %q", l)
	}
}

// TestProgressNonTTYPrintsALineEveryFewSeconds: on a non-terminal a line at
// most every 5 s while the count moves (not per tenth: a run of few jobs
// still shows movement), none while it does not, and the final state once.
func TestProgressNonTTYPrintsALineEveryFewSeconds(t *testing.T) {
	p, out := newTestProgress(1000, false, 100*time.Millisecond) // each reading 0.1 s later
	for i := range 1000 {
		if i >= 500 && i < 700 {
			p.Add(0) // 20 s without progress: no lines
			continue
		}
		p.Add(1)
	}
	p.Finish()
	p.Add(5) // after Finish: ignored
	s := out.String()
	if strings.Contains(s, "\r") {
		t.Error("carriage return written to a non-terminal")
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	// 100 s of updates: a line per 5 s while moving (80 s: 16), the
	// final line.
	if len(lines) < 15 || len(lines) > 18 {
		t.Fatalf("%d lines, want about 17:\n%s", len(lines), s)
	}
	if !strings.Contains(lines[0], "50/1000 jobs · 5.0s") {
		t.Errorf("first line %q, want it after 5 s", lines[0])
	}
	if !strings.Contains(lines[len(lines)-1], "100% 800/800") && !strings.Contains(lines[len(lines)-1], "80% 800/1000") {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
	seen := map[string]bool{}
	for _, l := range lines {
		c := strings.Fields(l)[3]
		if seen[c] {
			t.Errorf("count %s printed twice", c)
		}
		seen[c] = true
	}
	// A short run prints only its final line.
	q, out := newTestProgress(10, false, time.Millisecond)
	for range 10 {
		q.Add(1)
	}
	q.Finish()
	if n := strings.Count(out.String(), "\n"); n != 1 {
		t.Errorf("short run: %d lines:\n%s", n, out.String())
	}
}

// TestProgressUpdateSetsTotalAndNote: the simulator learns the total with
// its first report; the note follows each update.
func TestProgressUpdateSetsTotalAndNote(t *testing.T) {
	p, out := newTestProgress(0, true, time.Second)
	p.WithUnit("tasks")
	p.Update(10, 40, "1/4 jobs")
	p.Update(20, 0, "2/4 jobs")
	p.Finish()
	last := out.String()[strings.LastIndex(out.String(), "\r")+1:]
	if !strings.HasPrefix(last, "[===============>              ] 50% 20/40 tasks · 2/4 jobs · ") {
		t.Errorf("final draw %q", last)
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
