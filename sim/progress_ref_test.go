package sim

import "github.com/rmsidecar/rmsidecar/events"

// progressRef is progress reading the task, job and node records, as
// before the attempt kept copies: the reference TestProgressCopiesSameAsRecords
// compares against.
func progressRef(s *sim, a *attempt) (p float64, phase string, phaseP float64) {
	n := a.node
	done := func(from int64, work float64) float64 {
		if work <= 0 {
			return 1
		}
		return min(1, workBetween(n, from, s.now, a.spd)/work)
	}
	if a.task.kind == events.Map {
		var f float64
		if s.now < a.mapEndMS {
			read := min(a.readMS, max(0, float64(s.now-a.readAt)))
			f = (read + a.work1*done(a.workAt, a.work1)) / max(1e-9, a.readMS+a.work1)
			if a.readMS+a.work1 <= 0 {
				f = 1
			}
		} else {
			f = 1
		}
		if len(a.task.job.reduces) == 0 {
			return f, events.PhaseMap, f
		}
		if s.now < a.mapEndMS {
			return f * 2 / 3, events.PhaseMap, f
		}
		g := done(a.mapEndMS, a.work2)
		return 2.0/3 + g/3, events.PhaseSort, g
	}
	if a.copyEndMS < 0 {
		total := a.task.share(a.task.job.partTotal[a.partition])
		f := 1.0
		if total > 0 {
			f = min(1, float64(a.fetched)/float64(total))
		}
		return f / 3, events.PhaseShuffle, f
	}
	if s.now < a.mapEndMS {
		f := done(a.workAt, a.work1)
		return 1.0/3 + f/3, events.PhaseMerge, f
	}
	f := done(a.mapEndMS, a.work2)
	return 2.0/3 + f/3, events.PhaseReduce, f
}

// emitProgressRef is emitProgress reading the task and job records
// (Options.emitProgressRef).
func emitProgressRef(s *sim, a *attempt) {
	p, phase, pp := progressRef(s, a)
	t := a.task
	ev := s.event(events.TaskProgress)
	ev.App, ev.Task, ev.Attempt, ev.Progress, ev.Phase = t.job.id, t.id, a.id, p, phase
	s.evPhaseP = pp
	ev.PhaseProgress = &s.evPhaseP
	if t.kind == events.Map {
		ev.BytesRead = int64(float64(t.bytes) * min(1, p*1.5))
		ev.RecordsTotal = t.bytes / 100
		ev.RecordsDone = int64(float64(ev.RecordsTotal) * min(1, p*1.5))
	} else {
		ev.BytesRead = a.fetched
		ev.MapsTotal = len(t.job.maps)
		ev.MapsFetched = min(a.cursor, len(t.job.maps))
	}
	s.emit(ev)
}
