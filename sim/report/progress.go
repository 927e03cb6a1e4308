package report

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	progressBarWidth = 30
	// progressRedraw throttles terminal redraws: often enough to look live,
	// rare enough that drawing never shows up in a simulation's profile.
	progressRedraw = 100 * time.Millisecond
	// progressLogEvery is the least time between two lines on a
	// non-terminal (a CI log, a file): a line every few seconds while work
	// moves, never thousands.
	progressLogEvery = 5 * time.Second
	// progressRateWindow is the span the rate (and so the ETA) is measured
	// over: recent enough to follow a run that speeds up or slows down,
	// long enough not to jitter.
	progressRateWindow = 10 * time.Second
	// progressRateSamples bounds the samples kept for the rate.
	progressRateSamples = 32
)

// Progress draws a progress line such as
//
//	[============>                 ] 41% 2471/5894 tasks · 812/1000 jobs · 12.3s · 201 tasks/s · ETA 17s
//
// On a terminal it redraws one line in place with carriage returns (at most
// every 100 ms); on anything else it prints a plain line at most every 5 s
// while the count moves, and the final state at Finish, never a carriage
// return. The rate is measured over the last 10 s and the ETA is the rest
// at that rate. Safe for concurrent use.
type Progress struct {
	mu        sync.Mutex
	w         io.Writer
	total     int
	tty       bool
	unit      string
	note      string
	done      int
	start     time.Time
	lastDraw  time.Time
	lastLine  time.Time // non-TTY: when the last line was printed
	lineDone  int       // non-TTY: the count that line showed (-1: none yet)
	lastWidth int       // TTY: length of the line on screen, to blank leftovers
	finished  bool
	samples   []progressSample // for the rate, oldest first
	now       func() time.Time // the clock; replaced in tests
}

type progressSample struct {
	t    time.Time
	done int
}

// NewProgress starts a progress bar over total units (0 if unknown: then it
// shows a count, the elapsed time and the rate only). isTTY selects
// in-place redraws; see IsTerminal.
func NewProgress(w io.Writer, total int, isTTY bool) *Progress {
	p := &Progress{w: w, total: max(total, 0), tty: isTTY, unit: "jobs", now: time.Now, lineDone: -1}
	p.start = p.now()
	return p
}

// WithUnit names what is counted ("jobs" by default) and returns p.
func (p *Progress) WithUnit(unit string) *Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unit = unit
	return p
}

// Add records n more units done.
func (p *Progress) Add(n int) { p.update(func() { p.done += n }) }

// Set records the number of units done so far.
func (p *Progress) Set(done int) { p.update(func() { p.done = done }) }

// Update records the units done so far, the total (when it became known:
// > 0) and a note shown after the count ("812/1000 jobs, sim 1h02m").
func (p *Progress) Update(done, total int, note string) {
	p.update(func() {
		p.done, p.note = done, note
		if total > 0 {
			p.total = total
		}
	})
}

func (p *Progress) update(change func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	change()
	p.done = max(p.done, 0)
	if p.total > 0 {
		p.done = min(p.done, p.total)
	}
	now := p.now()
	p.sample(now)
	if p.tty {
		if now.Sub(p.lastDraw) >= progressRedraw || (p.total > 0 && p.done == p.total) {
			p.drawTTY(now)
		}
		return
	}
	since := p.lastLine
	if since.IsZero() {
		since = p.start // the first line comes after progressLogEvery too
	}
	if p.done != p.lineDone && now.Sub(since) >= progressLogEvery {
		p.printLine(now)
	}
}

// sample keeps (now, done) for the rate: at most one sample a
// progressRateWindow/progressRateSamples, the window's worth.
func (p *Progress) sample(now time.Time) {
	if n := len(p.samples); n > 0 && now.Sub(p.samples[n-1].t) < progressRateWindow/progressRateSamples {
		p.samples[n-1].done = p.done // the newest sample follows the count
		return
	}
	p.samples = append(p.samples, progressSample{now, p.done})
	// Drop samples older than the window, keeping one at or before its
	// start so the rate spans the whole window.
	k := 0
	for k+1 < len(p.samples) && now.Sub(p.samples[k+1].t) >= progressRateWindow {
		k++
	}
	if k > 0 {
		p.samples = append(p.samples[:0], p.samples[k:]...)
	}
}

// rate is units per second over the last window (since the start while the
// run is younger than a second of samples); 0 when unknown.
func (p *Progress) rate(now time.Time) float64 {
	from := progressSample{p.start, 0}
	if len(p.samples) > 0 && now.Sub(p.start) > progressRateWindow {
		from = p.samples[0]
	}
	dt := now.Sub(from.t).Seconds()
	if dt <= 0 {
		return 0
	}
	return float64(p.done-from.done) / dt
}

func (p *Progress) printLine(now time.Time) {
	p.lastLine, p.lineDone = now, p.done
	fmt.Fprintln(p.w, p.line(now))
}

// Finish draws the final state and ends the line. Later calls do nothing.
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.finished = true
	now := p.now()
	if p.tty {
		p.drawTTY(now)
		fmt.Fprintln(p.w)
		return
	}
	if p.done != p.lineDone || p.lineDone < 0 {
		p.printLine(now)
	}
}

func (p *Progress) drawTTY(now time.Time) {
	p.lastDraw = now
	l := p.line(now)
	pad := max(p.lastWidth-len(l), 0)
	p.lastWidth = len(l)
	fmt.Fprint(p.w, "\r"+l+strings.Repeat(" ", pad))
}

// line renders the bar for the current state.
func (p *Progress) line(now time.Time) string {
	var b strings.Builder
	if p.total > 0 {
		filled := p.done * progressBarWidth / p.total
		b.WriteByte('[')
		if filled >= progressBarWidth {
			b.WriteString(strings.Repeat("=", progressBarWidth))
		} else {
			b.WriteString(strings.Repeat("=", filled) + ">" + strings.Repeat(" ", progressBarWidth-filled-1))
		}
		fmt.Fprintf(&b, "] %d%% %s/%s %s", p.done*100/p.total, count(p.done), count(p.total), p.unit)
	} else {
		fmt.Fprintf(&b, "%s %s", count(p.done), p.unit)
	}
	if p.note != "" {
		b.WriteString(" · " + p.note)
	}
	b.WriteString(" · " + duration(now.Sub(p.start)))
	r := p.rate(now)
	if r > 0 {
		fmt.Fprintf(&b, " · %s %s/s", rateNum(r), p.unit)
		if p.total > 0 && p.done < p.total {
			b.WriteString(" · ETA " + duration(time.Duration(float64(p.total-p.done)/r*float64(time.Second))))
		}
	}
	return b.String()
}

// count writes n exactly below 100,000, else with 3 significant digits and
// k or M (1.23M).
func count(n int) string {
	switch {
	case n < 100_000:
		return strconv.Itoa(n)
	case n < 100_000_000:
		return fmtNum(float64(n), 3, false)
	default:
		return fmtNum(float64(n), 4, false)
	}
}

// rateNum writes a rate with 3 significant digits (0.52, 41.7, 1.23k).
func rateNum(r float64) string {
	if r >= 100 {
		return count(int(math.Round(r)))
	}
	return fmtNum(r, 3, false)
}

// duration is a short human duration: 12.3s, 4m05s, 2h07m.
func duration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		s := int(d.Round(time.Second).Seconds())
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		m := int(d.Round(time.Minute).Minutes())
		return fmt.Sprintf("%dh%02dm", m/60, m%60)
	}
}

// IsTerminal reports whether f is a character device (a terminal), the
// usual test for whether to draw an in-place progress bar.
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
