package cluster

import (
	"slices"
	"time"
)

// Retention bounds how long finished applications stay in the model. A
// finished app with its tasks and attempts costs about 17 KB; without a bound
// a sidecar that runs for days holds every app it ever saw. Learned profiles
// live in package profiles and are not affected.
type Retention struct {
	// AfterMS is how long (event time) a finished app is kept after its
	// app.finished event, so policies and /v1/apps still see it for a while
	// (0: no time limit).
	AfterMS int64
	// MaxFinished caps how many finished apps are kept (0: no cap); the
	// oldest finished leave first. It bounds memory when apps finish faster
	// than AfterMS lets them go.
	MaxFinished int
}

// goneHorizonMS is the least time (event time) a forgotten app's id is
// remembered, so that a late or re-delivered event for it (at-least-once
// replay after a restart, a straggling progress report) is ignored instead
// of creating a phantom app that never finishes and therefore never leaves.
// Events come back after a restart from the last checkpoint (seconds to
// minutes old) and stragglers within minutes, so half an hour is ample.
const goneHorizonMS = int64(30 * time.Minute / time.Millisecond)

// maxGone caps the remembered ids of forgotten apps (about 100 bytes each).
const maxGone = 200_000

// WithRetention makes the state forget finished apps (with their tasks and
// attempts) after r. The zero Retention keeps everything, which replays and
// the simulator rely on to report on every app.
func WithRetention(r Retention) Option {
	return func(s *State) { s.retention = r }
}

// goneApp is a forgotten app's id and the event time it was forgotten at.
type goneApp struct {
	ID string
	TS int64
}

// retaining reports whether the state forgets finished apps at all.
func (s *State) retaining() bool { return s.retention.AfterMS > 0 || s.retention.MaxFinished > 0 }

// noteFinished queues a newly finished app for forgetting (once).
func (s *State) noteFinished(a *App) {
	if !s.retaining() || a.queued {
		return
	}
	a.queued = true
	s.finished = append(s.finished, a)
}

// forget drops the finished apps whose retention has passed at s.now, and
// the remembered ids older than the horizon. It runs after every event but
// works in batches (every sixteenth of the retention in event time, or once
// the cap is overrun by a sixteenth): compacting the app list is linear in
// its length, so doing it per finished app would be quadratic.
func (s *State) forget() {
	if !s.retaining() {
		return
	}
	r := s.retention
	slack := max(16, r.MaxFinished/16)
	if s.now < s.nextForget && (r.MaxFinished == 0 || len(s.finished) <= r.MaxFinished+slack) {
		return
	}
	s.nextForget = s.now + max(1000, r.AfterMS/16)
	n := 0
	for n < len(s.finished) {
		a := s.finished[n]
		over := r.MaxFinished > 0 && len(s.finished)-n > r.MaxFinished
		expired := r.AfterMS > 0 && a.FinishTS+r.AfterMS <= s.now
		if !over && !expired {
			break
		}
		s.drop(a)
		n++
	}
	if n > 0 {
		s.finished = slices.Delete(s.finished, 0, n) // shifts down, so the array does not grow forever
		s.appList = slices.DeleteFunc(s.appList, func(a *App) bool { return a.gone })
	}
	horizon := max(goneHorizonMS, r.AfterMS)
	k := 0
	for k < len(s.goneList) && (s.goneList[k].TS+horizon <= s.now || len(s.goneList)-k > maxGone) {
		if s.gone[s.goneList[k].ID] == s.goneList[k].TS {
			delete(s.gone, s.goneList[k].ID)
		}
		k++
	}
	if k > 0 {
		s.goneList = slices.Delete(s.goneList, 0, k)
	}
}

// drop removes a from the model: its attempts leave the attempt index and
// any node's running list, and its id is remembered as gone.
func (s *State) drop(a *App) {
	for _, t := range a.Tasks {
		for _, at := range t.Attempts {
			if n := at.onNode; n != nil {
				n.Running = slices.DeleteFunc(n.Running, func(x *Attempt) bool { return x == at })
				at.onNode = nil
			}
			s.attempts.del(at.ID)
			if s.lastAttempt == at {
				s.lastAttempt = nil
			}
		}
	}
	delete(s.apps, a.ID)
	a.gone = true
	if s.notGone == a.ID {
		s.notGone = ""
	}
	if s.gone == nil {
		s.gone = make(map[string]int64)
	}
	s.gone[a.ID] = s.now
	s.goneList = append(s.goneList, goneApp{ID: a.ID, TS: s.now})
}

// Gone reports whether the app was forgotten after it finished (events for
// it are ignored).
func (s *State) Gone(id string) bool {
	_, ok := s.gone[id]
	return ok
}
