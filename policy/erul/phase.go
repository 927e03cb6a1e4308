package erul

import (
	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// The phase-wise remaining time of eq. 4, the estimate Hadoop-MCP and
// exMCP use (§3.6): t_rem = data_rem,cp / bandwidth_cp + Σ_{next p}
// est_time_p · factor_d. The current phase's bandwidth is an EWMA of its
// phase-progress rate; a next phase's time is the mean of that phase over
// the job's finished attempts of the same kind, scaled by factor_d, the
// task's input over theirs (maps; reduce input is taken as even, §3.1).

// phaseOrder lists the phases of a kind in the order they run.
var phaseOrder = map[events.TaskKind][]string{
	events.Map:    {events.PhaseMap, events.PhaseSort},
	events.Reduce: {events.PhaseShuffle, events.PhaseMerge, events.PhaseSort, events.PhaseReduce},
}

func phaseMS(d *events.PhaseDurations, phase string) int64 {
	switch phase {
	case events.PhaseMap:
		return d.Map
	case events.PhaseSort:
		return d.Sort
	case events.PhaseShuffle:
		return d.Shuffle
	case events.PhaseMerge:
		return d.Merge
	case events.PhaseReduce:
		return d.Reduce
	}
	return 0
}

// phaseStats sums the phase durations of one app's finished attempts of one
// kind.
type phaseStats struct {
	n      int
	dataMB float64
	ms     map[string]float64
}

// jobPhases is kept per app.
type jobPhases struct {
	stats [2]phaseStats // [0] maps, [1] reduces
	// lastMapTS is when the app's latest map finished (ms).
	lastMapTS int64
}

func kindIndex(k events.TaskKind) int {
	if k == events.Reduce {
		return 1
	}
	return 0
}

func (p *Plugin) learnPhases(at *cluster.Attempt) {
	t := at.Task
	jp := p.phases[t.App.ID]
	if jp == nil {
		jp = new(jobPhases)
		p.phases[t.App.ID] = jp
	}
	if t.Kind == events.Map {
		jp.lastMapTS = max(jp.lastMapTS, at.FinishTS)
	}
	if at.PhaseMS == nil {
		return
	}
	st := &jp.stats[kindIndex(t.Kind)]
	if st.ms == nil {
		st.ms = map[string]float64{}
	}
	st.n++
	st.dataMB += dataMB(t, p.cfg.DefaultSplitMB)
	for _, ph := range phaseOrder[t.Kind] {
		st.ms[ph] += float64(phaseMS(at.PhaseMS, ph))
	}
}

// phaseRemaining is eq. 4 for a running attempt, in seconds; ok is false
// when the attempt reports no phase progress yet. Until an attempt of its
// kind has finished, the phases after the current one have no time to go by
// and count as 0: a lower bound, so the first wave is not backed up on the
// strength of Hadoop's progress weights (a map's sort phase is a third of
// its progress, rarely of its time).
func (p *Plugin) phaseRemaining(at *cluster.Attempt, tr *attemptTrack) (float64, bool) {
	t := at.Task
	order := phaseOrder[t.Kind]
	cur := -1
	for i, ph := range order {
		if ph == tr.phase {
			cur = i
		}
	}
	if cur < 0 || !tr.hasPhaseRate || tr.phaseRate <= 0 {
		return 0, false
	}
	var st phaseStats
	if jp := p.phases[t.App.ID]; jp != nil {
		st = jp.stats[kindIndex(t.Kind)]
	}
	factor := 1.0 // factor_d
	if t.Kind == events.Map && st.n > 0 && st.dataMB > 0 {
		factor = dataMB(t, p.cfg.DefaultSplitMB) / (st.dataMB / float64(st.n))
	}
	var rem float64
	switch {
	case tr.phaseSamples >= 2:
		rem = (1 - tr.phaseProgress) / tr.phaseRate / 1000 // data_rem,cp / bandwidth_cp
	case st.n > 0:
		// One report into a phase gives no bandwidth yet (it began at an
		// unknown moment since the previous report): use the job's time
		// for the phase instead.
		rem = (1 - tr.phaseProgress) * st.ms[tr.phase] / float64(st.n) / 1000 * factor
	default:
		return 0, false
	}
	if cur == len(order)-1 || st.n == 0 {
		return rem, true
	}
	for _, ph := range order[cur+1:] {
		rem += st.ms[ph] / float64(st.n) / 1000 * factor
	}
	return rem, true
}

// phaseProgressed folds one report of the current phase's progress into the
// EWMA of its rate; a new phase starts a new rate.
func (tr *attemptTrack) phaseProgressed(ts int64, phase string, pp float64, prevTS int64, alpha float64) {
	if phase != tr.phase {
		// The phase began between the previous report and this one.
		tr.phase, tr.phaseStartTS, tr.hasPhaseRate = phase, prevTS, false
		tr.phaseTS, tr.phaseProgress, tr.phaseSamples = prevTS, 0, 0
	}
	dt := ts - tr.phaseTS
	if dt <= 0 {
		return
	}
	sample := max(0, (pp-tr.phaseProgress)/float64(dt))
	if !tr.hasPhaseRate {
		if pp > 0 {
			tr.phaseRate, tr.hasPhaseRate = pp/float64(ts-tr.phaseStartTS), true
		}
	} else {
		tr.phaseRate = alpha*tr.phaseRate + (1-alpha)*sample
	}
	tr.phaseTS, tr.phaseProgress = ts, pp
	tr.phaseSamples++
}

// waitsForMaps reports whether a reducer's copy phase is bound by its job's
// maps rather than by its node: while maps still run, or until they have
// been done for speculativeLag (§3.6: a task is judged once it runs
// steadily). A backup would wait for the same map outputs, so such a
// reducer is no straggler whatever its progress rate.
func (p *Plugin) waitsForMaps(at *cluster.Attempt, now int64) bool {
	t := at.Task
	if t.Kind != events.Reduce || (at.Phase != events.PhaseShuffle && at.Phase != "") {
		return false
	}
	maps := t.App.Count[events.Map]
	if maps.Pending > 0 || maps.Running > 0 {
		return true
	}
	jp := p.phases[t.App.ID]
	return jp != nil && now-jp.lastMapTS < p.cfg.SpeculativeLag.Milliseconds()
}
