package report

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

const (
	progressBarWidth = 30
	// progressRedraw throttles terminal redraws: often enough to look live,
	// rare enough that drawing never shows up in a simulation's profile.
	progressRedraw = 100 * time.Millisecond
	// progressSteps is how many lines a non-terminal gets (one per 10%),
	// so CI logs show progress without thousands of lines.
	progressSteps = 10
)

// Progress draws a progress bar such as
//
//	[============>                 ] 42% 2471/5894 jobs 12.3s
//
// On a terminal it redraws one line in place with carriage returns; on
// anything else (a CI log, a file) it prints a plain line at every tenth of
// the way, and never a carriage return. Safe for concurrent use.
type Progress struct {
	mu        sync.Mutex
	w         io.Writer
	total     int
	tty       bool
	unit      string
	done      int
	start     time.Time
	lastDraw  time.Time
	lastStep  int // non-TTY: last tenth printed
	lastWidth int // TTY: length of the line on screen, to blank leftovers
	finished  bool
	now       func() time.Time // the clock; replaced in tests
}

// NewProgress starts a progress bar over total units (0 if unknown: then it
// shows a count and the elapsed time only). isTTY selects in-place redraws;
// see IsTerminal.
func NewProgress(w io.Writer, total int, isTTY bool) *Progress {
	p := &Progress{w: w, total: max(total, 0), tty: isTTY, unit: "jobs", now: time.Now}
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
	if p.tty {
		if now.Sub(p.lastDraw) >= progressRedraw || (p.total > 0 && p.done == p.total) {
			p.drawTTY(now)
		}
		return
	}
	if p.total > 0 {
		if step := p.done * progressSteps / p.total; step > p.lastStep {
			p.lastStep = step
			fmt.Fprintln(p.w, p.line(now))
		}
	}
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
	if p.total == 0 || p.lastStep < progressSteps {
		fmt.Fprintln(p.w, p.line(now))
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
	elapsed := fmt.Sprintf("%.1fs", now.Sub(p.start).Seconds())
	if p.total == 0 {
		return fmt.Sprintf("%d %s %s", p.done, p.unit, elapsed)
	}
	filled := p.done * progressBarWidth / p.total
	var bar string
	if filled >= progressBarWidth {
		bar = strings.Repeat("=", progressBarWidth)
	} else {
		bar = strings.Repeat("=", filled) + ">" + strings.Repeat(" ", progressBarWidth-filled-1)
	}
	return fmt.Sprintf("[%s] %d%% %d/%d %s %s", bar, p.done*100/p.total, p.done, p.total, p.unit, elapsed)
}

// IsTerminal reports whether f is a character device (a terminal), the
// usual test for whether to draw an in-place progress bar.
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
